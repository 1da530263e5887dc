MK_TYPE=ext2; MK_OPTS="-b 1024"; MK_SIZE=8M
. "$SRC/../mk-small.sh"
python3 -c "import random; open(\"big.src\",\"wb\").write(random.Random(3).randbytes(300*1024))"
debugfs -w -R "write big.src big" image
rm big.src
