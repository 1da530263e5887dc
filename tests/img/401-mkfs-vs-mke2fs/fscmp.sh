#!/bin/bash
# fscmp.sh A B: byte differences between two ext images, outside s_kbytes_written
# and the superblock checksum of every superblock copy, and (mmp) the MMP
# block's time, device name and checksum, which mke2fs takes from the clock
# and the command line; prints them, exit 1 if any
a=$1 b=$2
read bs first bpg mmp < <(python3 -c "
import struct,sys
f=open('$a','rb'); f.seek(1024); s=f.read(1024)
mmp=struct.unpack_from('<Q',s,0x168)[0] if struct.unpack_from('<I',s,0x60)[0] & 0x100 else -1
print(1024<<struct.unpack_from('<I',s,0x18)[0], struct.unpack_from('<I',s,0x14)[0], struct.unpack_from('<I',s,0x20)[0], mmp)")
python3 "$(dirname "$0")/../sparsecmp.py" -l "$a" "$b" | awk -v bs=$bs -v first=$first -v bpg=$bpg -v mmp=$mmp '
{ off = $1 - 1
  if (off >= 1024 && off < 2048) rel = off - 1024
  else { blk = int(off / bs); r = off - blk * bs
         if (blk >= first && (blk - first) % bpg == 0 && r < 1024) rel = r; else rel = -1 }
  if (rel >= 0 && ((rel >= 376 && rel < 384) || rel >= 1020)) next
  if (int(off / bs) == mmp) { r = off % bs
    if ((r >= 8 && r < 16) || (r >= 80 && r < 112) || (r >= 1020 && r < 1024)) next }
  n++; if (n <= 12) printf "block %d +0x%x: %s %s\n", int(off / bs), off % bs, $2, $3 }
END { if (n) { print n " bytes differ"; exit 1 } }'
