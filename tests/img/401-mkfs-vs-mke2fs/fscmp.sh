#!/bin/bash
# fscmp.sh A B: byte differences between two ext images, outside s_kbytes_written
# and the superblock checksum of every superblock copy; prints them, exit 1 if any
a=$1 b=$2
read bs first bpg < <(python3 -c "
import struct,sys
f=open('$a','rb'); f.seek(1024); s=f.read(1024)
print(1024<<struct.unpack_from('<I',s,0x18)[0], struct.unpack_from('<I',s,0x14)[0], struct.unpack_from('<I',s,0x20)[0])")
cmp -l "$a" "$b" | awk -v bs=$bs -v first=$first -v bpg=$bpg '
{ off = $1 - 1
  if (off >= 1024 && off < 2048) rel = off - 1024
  else { blk = int(off / bs); r = off - blk * bs
         if (blk >= first && (blk - first) % bpg == 0 && r < 1024) rel = r; else rel = -1 }
  if (rel >= 0 && ((rel >= 376 && rel < 384) || rel >= 1020)) next
  n++; if (n <= 12) printf "block %d +0x%x: %s %s\n", int(off / bs), off % bs, $2, $3 }
END { if (n) { print n " bytes differ"; exit 1 } }'
