#!/bin/bash
# fscmp.sh A B: byte differences between two ext images, outside s_kbytes_written
# and the superblock checksum of every superblock copy, and (mmp) the MMP
# block's time, device name and checksum, which mke2fs takes from the clock
# and the command line; prints them, exit 1 if any.  fscmp.py does it in one
# python3 run (-S: no site; it was two python3 runs and awk over cmp -l lines)
exec python3 -S "$(dirname "$0")/fscmp.py" "$@"
