#!/bin/sh
# matrix.sh CONFIG — shared body of the tests/img/1xx-matrix-* script tests.
#
# Builds an image from the gen-tree.sh source tree with mke2fs -d using the
# mkfs options of CONFIG, restores it with `extkit-debugfs -R "rdump -p / OUT"`
# and compares OUT (the root's entries) with the source tree, then compares our ls -p, stat,
# blocks, bmap, icheck, ncheck and ea_list with e2fsprogs debugfs on the same
# image (matrix-compare.py does both).
#
# Environment: EK_DEBUGFS (required), T (a scratch directory, from
# run-img.sh), EK_TREE (a prebuilt tree; made here when unset), EK_TREE_SCALE
# (entries in big/ when the tree is made here).
# Exit 0 pass, 1 fail, 77 skip.
set -u

config=${1:?usage: matrix.sh CONFIG}
here=$(cd "$(dirname "$0")" && pwd)
T=${T:-$(mktemp -d)}
: "${EK_DEBUGFS:?EK_DEBUGFS is not set}"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (chown, mknod, trusted. xattrs)"
	exit 77
fi
for t in mke2fs debugfs python3 setfattr setfacl getfacl; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "SKIP: $t not installed"
		exit 77
	fi
done

if [ -z "${EK_TREE:-}" ] || [ ! -d "$EK_TREE" ]; then
	EK_TREE=$T/tree
	"$here/../gen-tree.sh" "$EK_TREE" "${EK_TREE_SCALE:-10000}" || exit 1
fi
n=$(find "$EK_TREE" | wc -l)

size=96M
case $config in
ext2-1k)	opts="-t ext2 -b 1024" ;;
ext3)		opts="-t ext3" ;;
ext4)		opts="-t ext4" ;;
ext4-no64)	opts="-t ext4 -b 4096 -O ^64bit,^metadata_csum" ;;
ext4-inline)	opts="-t ext4 -b 4096 -O inline_data" ;;
ext4-bigalloc)	opts="-t ext4 -O bigalloc -C 16384"; size=256M ;;
ext4-i128)	opts="-t ext4 -I 128" ;;
*)		echo "matrix.sh: unknown config '$config'"; exit 1 ;;
esac

img=$T/image
export E2FSPROGS_FAKE_TIME=1700000000
# shellcheck disable=SC2086
if ! mke2fs -q -F $opts -N $((n + 2000)) \
		-U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00001 \
		-E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 \
		-d "$EK_TREE" "$img" $size >"$T/mke2fs.out" 2>&1; then
	if [ "$config" = ext4-bigalloc ]; then
		echo "SKIP: mke2fs refused bigalloc: $(head -n 1 "$T/mke2fs.out")"
		exit 77
	fi
	echo "FAIL: mke2fs $opts: $(cat "$T/mke2fs.out")"
	exit 1
fi
unset E2FSPROGS_FAKE_TIME

# mke2fs -d drops nanoseconds: put some back (and the epoch bits of a time
# after 2038) so the restore of the extra time fields is tested too
isize=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Inode size:[[:space:]]*//p')
if [ "${isize:-128}" -gt 128 ]; then
	cat >"$T/sif.cmds" <<-'EOF'
	sif /small mtime_extra 0x1d6f3454
	sif /small atime_extra 0x00000008
	sif /dense mtime_extra 0xee6b27fc
	sif /future mtime_extra 0x000000a9
	sif /a mtime_extra 0x1d6f3454
	sif /slowlink mtime_extra 0x00000004
	sif /dev/fifo atime_extra 0x00000400
	EOF
	debugfs -w -f "$T/sif.cmds" "$img" >"$T/sif.out" 2>&1
fi

# the oracle's image must be consistent, or a difference proves nothing
if ! e2fsck -fn "$img" >"$T/e2fsck.out" 2>&1; then
	echo "FAIL: e2fsck -fn rejects the mke2fs image:"
	tail -n 20 "$T/e2fsck.out"
	exit 1
fi

mkdir -p "$T/out"
if ! "$EK_DEBUGFS" -R "rdump -p / $T/out" "$img" >"$T/rdump.out" 2>"$T/rdump.err"; then
	echo "FAIL: rdump -p exited non-zero:"
	head -n 20 "$T/rdump.err"
	exit 1
fi
if grep -qE 'ERROR: AddressSanitizer|runtime error:|LeakSanitizer' "$T/rdump.err"; then
	echo "FAIL: sanitizer report from rdump:"
	head -n 30 "$T/rdump.err"
	exit 1
fi

python3 "$here/matrix-compare.py" --config "$config" --tree "$EK_TREE" \
	--out "$T/out" --image "$img" --ek "$EK_DEBUGFS" --tmp "$T"
