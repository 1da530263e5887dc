#!/bin/sh
# bench/replay.sh [-w WORKDIR] [-r]: extkit-replay against e2fsprogs on two
# journals the running kernel wrote, side by side in one run:
#   dj    data=journal, >= 1 GiB of live log (file data and metadata)
#   meta  data=ordered, about 256 MiB of logged metadata (creates, chmods and
#         renames across 1,600 directories)
# For each: `extkit-replay apply` against `e2fsck -p -E journal_only`, each
# on its own fresh copy of the crash image (both results must be the same
# bytes but for s_kbytes_written and the superblock checksum, so both did
# the same work), and `extkit-replay --json list` against
# `debugfs -c -R logdump`, and `extkit-replay timeline --svg` against our own
# `list --json`.  Prints the best wall-clock seconds of 3 runs, the
# ratio extkit/e2fsprogs (lower is better), the aim, and peak RSS.
#
# The crash images are made once (root, loop devices; about a minute) and
# cached in WORKDIR (default /var/tmp/extkit-bench); -r makes them again.
# The copies that are timed live on tmpfs (/dev/shm) when it has room, so
# the disk is not what is measured (else in WORKDIR, with the page cache
# dropped before each run); the output says where they are.
# Exit 77 when it cannot run here (not root, no loop devices, no e2fsprogs).
# Never part of `make check`: timings are not assertions.
set -eu
. "$(dirname "$0")/lib.sh"
bench_options "$@"
ek="$top/replay/extkit-replay"
# the version of the recipe below: cached images made by another are remade
recipe=1

for t in mke2fs e2fsck debugfs python3 cmp /usr/bin/time; do
	command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
done
[ -x "$ek" ] || make -C "$top" >/dev/null
export LC_ALL=C E2FSCK_CONFIG=/dev/null
export SOURCE_DATE_EPOCH=1700000000 E2FSCK_TIME=1700000000 E2FSPROGS_FAKE_TIME=1700000000
mkdir -p "$work"

mnt= loop= fast=
cleanup() {
	[ -n "$mnt" ] && { umount "$mnt" 2>/dev/null || umount -l "$mnt"; }
	[ -n "$loop" ] && losetup -d "$loop"
	[ -n "$fast" ] && rm -rf "$fast"
	rm -f "$work/live.img" "$work/err" "$work/time"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the workloads; both end with EXT4_IOC_SHUTDOWN(LOGFLUSH): the running
# transaction is committed and nothing is checkpointed after it
workload() {	# kind mountpoint
	python3 - "$@" <<'PY'
import fcntl, os, struct, sys
kind, root = sys.argv[1], sys.argv[2]
if kind == "dj":
	# 1,280 MiB of file data in 80 files of 16 MiB, no fsync: it all goes
	# through the journal (data=journal), well within the 30 s after which
	# writeback would checkpoint it
	blk = bytearray(os.urandom(1 << 20))
	for i in range(80):
		d = os.path.join(root, "d%d" % (i % 8))
		os.makedirs(d, exist_ok=True)
		with open(os.path.join(d, "f%03d" % i), "wb") as f:
			for m in range(16):
				blk[0:8] = struct.pack("<II", i, m)	# no two MiB alike
				f.write(blk)
else:
	# 160,000 empty files in 1,600 directories; then rounds of chmod and
	# rename over all of them, each ended by an fsync that commits the
	# transaction, so every round logs the inode tables and directory
	# blocks again
	dirs = [os.path.join(root, "d%02d" % (i // 100), "e%02d" % (i % 100)) for i in range(1600)]
	names = ["f%03d" % k for k in range(100)]
	def commit():
		fd = os.open(os.path.join(root, "stamp"), os.O_CREAT | os.O_WRONLY, 0o644)
		os.write(fd, b"x")
		os.fsync(fd)
		os.close(fd)
	for d in dirs:
		os.makedirs(d)
		for n in names:
			os.close(os.open(os.path.join(d, n), os.O_CREAT | os.O_WRONLY, 0o644))
	commit()
	for rnd in range(5):
		for d in dirs:
			for n in names:
				if rnd % 2 == 0:
					os.chmod(os.path.join(d, n), 0o600 + rnd)
				else:
					os.rename(os.path.join(d, n), os.path.join(d, n[::-1]))
		if rnd % 2:
			names = [n[::-1] for n in names]
		commit()
fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
fcntl.ioctl(fd, 0x8004587D, struct.pack("I", 1))	# EXT4_IOC_SHUTDOWN, LOGFLUSH
os.close(fd)
PY
}

# make $work/NAME.img: mke2fs, mount, workload, shut down, copy while dead
make_image() {	# name fs_size journal_mib mount_opts mke2fs_opts...
	name=$1 size=$2 jsize=$3 mopts=$4
	shift 4
	[ "$(id -u)" = 0 ] || skip "making the crash images needs root (the kernel writes the journals on loop mounts)"
	command -v losetup >/dev/null 2>&1 && [ -e /dev/loop-control ] &&
		losetup -f >/dev/null 2>&1 || skip "making the crash images needs a free loop device"
	echo "making $work/$name.img with the kernel ($(uname -r))..."
	rm -f "$work/$name.img" "$work/$name.recipe" "$work/$name.tmp" "$work/live.img"
	truncate -s "$size" "$work/live.img"
	mke2fs -q -F -t ext4 -J size="$jsize" -E lazy_journal_init=1 "$@" "$work/live.img"
	loop=$(losetup -f --show "$work/live.img")
	mnt=$work/mnt
	mkdir -p "$mnt"
	mount -t ext4 -o "$mopts" "$loop" "$mnt"
	workload "$name" "$mnt"
	cp --sparse=always "$work/live.img" "$work/$name.tmp"
	umount "$mnt"
	mnt=
	losetup -d "$loop"
	loop=
	rm -f "$work/live.img"
	mv "$work/$name.tmp" "$work/$name.img"
	echo "$recipe" > "$work/$name.recipe"
}

image() {	# name: make it unless cached
	if [ "$rebuild" = 1 ] || [ ! -f "$work/$1.img" ] ||
	   [ "$(cat "$work/$1.recipe" 2>/dev/null)" != "$recipe" ]; then
		case $1 in
		dj) make_image dj 10G 4096 data=journal ;;
		meta) make_image meta 5G 2048 data=ordered -N 200000 ;;
		esac
	fi
}

# what the log holds, from extkit-replay history: "transactions tags logged"
log_size() {
	"$ek" --json history "$1" | python3 -c '
import json, sys
t = json.load(sys.stdin)["transactions"]
print(len(t), sum(x["blocks"] for x in t), sum(x["blocks_logged"] for x in t))'
}

mib() { echo "$1 $2" | awk '{ printf "%.0f", $1 * $2 / 1048576 }'; }

measure() {	# prep_cmd command...: "seconds rss_kb cpu_seconds" of the fastest of 3 runs
	prep=$1
	shift
	best=
	for run in 1 2 3; do
		eval "$prep"
		if [ "$drop" = 1 ]; then
			sync
			echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
		fi
		t0=$(date +%s%N)
		/usr/bin/time -f '%M %U %S' -o "$work/time" "$@" >/dev/null 2>"$work/err" </dev/null || {
			# e2fsck -p exits 1 when it changed the filesystem
			rc=$?
			[ "$1" = e2fsck ] && [ $rc -eq 1 ] || {
				echo "failed ($rc): $*" >&2
				tail -3 "$work/err" >&2
				exit 1
			}
		}
		t=$(date +%s%N)
		t=$(echo "$t0 $t $(tail -1 "$work/time")" |
			awk '{ printf "%.3f %d %.2f", ($2 - $1) / 1e9, $3, $4 + $5 }')
		if [ -z "$best" ] || awk -v a="${t%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best=$t
		fi
	done
	echo "$best"
}

row() {	# name aim ek_result e2_result
	set -- "$1" "$2" $3 $4
	printf '%-20s %8s %8s %6s %5s %7s %7s %10s %10s\n' "$1" "$3" "$6" \
		"$(echo "$3 $6" | awk '{ printf "%.2f", $1 / $2 }')" "$2" "$5" "$8" "$4" "$7"
}

image dj
image meta

# what each log holds, from extkit-replay history; make sure it is what
# this benchmark claims
for n in dj meta; do
	bs=$("$ek" --json info "$work/$n.img" | python3 -c 'import json, sys; print(json.load(sys.stdin)["block_size"])')
	set -- $(log_size "$work/$n.img")
	logged=$(mib "$2" "$bs") live=$(mib "$3" "$bs")
	echo "$n: $1 committed transactions, $live MiB of live log, $logged MiB of it logged blocks"
	if [ $n = dj ]; then
		[ "$live" -ge 1024 ] || { echo "$n: want >= 1024 MiB of live log; remake with -r" >&2; exit 1; }
	else
		[ "$logged" -ge 224 ] && [ "$logged" -le 288 ] ||
			{ echo "$n: want about 256 MiB of logged metadata; remake with -r" >&2; exit 1; }
	fi
done

# the timed copies: tmpfs when the original and the two replayed results
# (each the original plus what replay writes) fit with room to spare, else
# the work directory
need=0
for n in dj meta; do
	k=$(du -k "$work/$n.img" | cut -f1)
	[ $((k * 5)) -gt $need ] && need=$((k * 5))
done
if [ -d /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt $((need + 1048576)) ]; then
	fast=$(mktemp -d /dev/shm/extkit-bench.XXXXXX)
	drop=0
	echo "timed copies: on tmpfs, in $fast"
else
	fast=$(mktemp -d "$work/copies.XXXXXX")
	drop=1
	echo "timed copies: in $fast, the page cache dropped before each run (/dev/shm has no room for $((need / 1024)) MiB)"
fi

echo "apply: extkit-replay apply against e2fsck -p -E journal_only"
echo "list: extkit-replay --json list against debugfs -c -R logdump; both read the descriptor,"
echo "  revoke and commit blocks alone (list leaves v2/v3 data-block checksums to show and apply)"
echo "timeline: extkit-replay timeline --json --svg against extkit's own list --json (its e2fs"
echo "  column): the picture's owner pass and plan on top of list's scan"
echo "seconds: wall clock, the best of 3 runs; cpu: user + system seconds of that run"
printf '%-20s %8s %8s %6s %5s %7s %7s %10s %10s\n' "operation" "extkit" "e2fs" "ratio" "aim" \
	"cpu_ek" "cpu_e2" "rss_ek_kB" "rss_e2_kB"
for n in dj meta; do
	cp --sparse=always "$work/$n.img" "$fast/$n.img"
	ek_r=$(measure "rm -f $fast/ek.img; cp --sparse=always $fast/$n.img $fast/ek.img" \
		"$ek" apply "$fast/ek.img")
	e2_r=$(measure "rm -f $fast/e2.img; cp --sparse=always $fast/$n.img $fast/e2.img" \
		e2fsck -p -E journal_only "$fast/e2.img")
	# the same bytes but for s_kbytes_written (1024 + 0x178) and s_checksum
	diffs=$(cmp -l "$fast/ek.img" "$fast/e2.img" |
		awk '!(($1 >= 1401 && $1 <= 1408) || ($1 >= 2045 && $1 <= 2048))' | wc -l)
	[ "$diffs" -eq 0 ] || { echo "$n: the two replayed images differ in $diffs bytes" >&2; exit 1; }
	rm -f "$fast/ek.img" "$fast/e2.img"
	row "apply ($n)" 0.25 "$ek_r" "$e2_r"

	ek_r=$(measure : "$ek" --json list "$fast/$n.img")
	e2_r=$(measure : debugfs -c -R logdump "$fast/$n.img")
	row "list --json ($n)" 1 "$ek_r" "$e2_r"
	# the timeline against our own list: the e2fs column is list's
	tl_r=$(measure : "$ek" timeline "$fast/$n.img" --json --svg "$fast/timeline.svg")
	row "timeline/list ($n)" 2 "$tl_r" "$ek_r"
	rm -f "$fast/timeline.svg"
	rm -f "$fast/$n.img"
done
echo "apply: both tools left the same bytes on each image (but for s_kbytes_written and the superblock checksum)"
