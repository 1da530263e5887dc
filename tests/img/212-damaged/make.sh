. "$SRC/../mk-small.sh"
cp image sbcsum.img
debugfs -w image -f - <<'EOF'
sif /hello checksum 0x1234
sif /multi block[0] 0x1234
sif /text block[5] 0x7ffffff0
sif /d/slow size 5000
sif <100> mode 0100644
sif <100> links_count 1
sif <100> block[0] 0xF30A
EOF
blk=$(debugfs -R "bmap /d 0" image 2>/dev/null)
# rec_len of the first entry of /d: 0xffff
debugfs -w -R "zap_block -o 4 -l 2 -p 255 $blk" image
# s_checksum (offset 0x3FC of the superblock) := 0 behind debugfs's back
printf '\0\0\0\0' | dd of=sbcsum.img bs=1 seek=$((1024 + 0x3FC)) conv=notrunc status=none
