# Shared by the repair tests (tests/img/52x-fsck-repair*): sourced by a
# test script, with $EK_DEBUGFS, $SRC and $T set as run-img.sh sets them.
#   mkbase IMG OPTS   a small mke2fs image with a few files and xattrs
#   files IMG         the files' contents, one md5 line each
#   ids IMG ARGS      extkit-fsck ARGS --json: exit code, IDs, IDs not fixed
#   e2 IMG            e2fsck -fn's exit code
#   run_cases         damage cases on stdin (see the comment at run_cases)
# It counts $cases and $fails (fail MSG); the test ends with its own summary.
FSCK=${EK_FSCK:-$(dirname "$EK_DEBUGFS")/../fsck/extkit-fsck}
. "$SRC/../nosleep.sh"
. "$SRC/../unpack.sh"
export E2FSPROGS_FAKE_TIME=1700000000 SOURCE_DATE_EPOCH=1700000000
fails=0 cases=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v debugfs >/dev/null 2>&1 || { echo "SKIP: e2fsprogs' debugfs is not installed"; exit 77; }

# mkbase IMG MKE2FS-OPTIONS: a small image with a few files
mkbase() {
	mke2fs -q -F -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00520 \
		-E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 $2 "$1" 16M
	debugfs -w "$1" -f - > /dev/null 2>&1 <<EOS
write $T/small file1
write $T/five file2
mkdir dir
mkdir dir/sub
write $T/small dir/inner
symlink fast /etc/passwd
mknod cdev c 1 3
ea_set -f $T/val300 file1 user.big
ea_set -f $T/val300 file2 user.big
EOS
}
printf 'hello world\n' > "$T/small"
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 20)' > "$T/five"
python3 -c 'print("v" * 300, end="")' > "$T/val300"
printf 'hello world\n' > "$T/small"
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 20)' > "$T/five"
python3 -c 'print("v" * 300, end="")' > "$T/val300"

# the files' contents, one line each
files() { for p in file1 file2 dir/inner; do printf '%s ' "$p"; debugfs -R "cat $p" "$1" 2>/dev/null | md5sum; done; }
# ids IMG ARGS: the exit code, the sorted IDs, and the IDs not fixed
ids() {
	img=$1; shift
	"$FSCK" "$@" --json "$img" 2> "$T/err" > "$T/json"
	echo "$?"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d.get("findings", [])
print(" ".join(sorted(set(x["id"] for x in f))) or "-")
print(" ".join(sorted(set(x["id"] for x in f if not x["fixed"]))) or "-")' "$T/json"
}
e2() { e2fsck -fn "$1" > /dev/null 2>&1; echo $?; }
# only_super A B: A and B differ, if at all, only in the primary superblock
# (what a check stamps there, as e2fsck: state, times, mount count)
only_super() {
	python3 - "$1" "$2" <<'PY'
import sys
a, b = (open(p, 'rb').read() for p in sys.argv[1:3])
sys.exit(0 if len(a) == len(b) and a[:1024] == b[:1024] and a[2048:] == b[2048:] else 1)
PY
}

fblk() { debugfs -R "bmap $2 0" "$1" 2>/dev/null; }
trim() { printf '%s' "$1" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//'; }

# run_cases: one case a line, '@' between the fields:
#   base image in $T | damage | expected IDs (sorted) | preen fixes them (1),
#   halts (0) or, as e2fsck -p, cannot check the image and writes nothing (8)
#   [| the exit status of the fix, when not 1: e2fsck's on the same damage]
# the damage: "f:CMD;CMD" (debugfs -w -f), "py:CODE" (python3 on the image,
# with SUB, I12 and BB replaced by $subblk, $i12 and $bb, then by the sed
# script in $pysub when the test sets one), else one debugfs
# -w request ($f2 and $acl replaced).  Each case under -fy and -fp: fixed
# (exit 1, every finding fixed), e2fsck -fn and extkit-fsck -fn clean after,
# and on "base" the files as $T/files.base (E2CMP set: on every base, the
# files as e2fsck -fy leaves the same damage); or, for preen 0, -p halts.
# beyond_super A B: the first byte (from 1) where A and B differ outside
# the primary superblock (bytes 1025-2048), or nothing
beyond_super() { cmp -l "$1" "$2" 2>/dev/null | awk '$1 <= 1024 || $1 > 2048 { print $1; exit }'; }
run_cases() {
	while IFS='@' read -r base how want preen status; do
		base=$(trim "$base") how=$(trim "$how") want=$(trim "$want") preen=$(trim "$preen")
		status=$(trim "${status:-1}")
		[ -n "$how" ] || continue
		for mode in -fy -fp; do
			cp "$T/$base" "$T/img"
			case $how in
			f:*)	printf '%s\n' "${how#f:}" | tr ';' '\n' | debugfs -w -f - "$T/img" > /dev/null 2>&1 ;;
			py:*)	python3 -c "$(printf '%s' "${how#py:}" | sed "s/SUB/$subblk/g; s/I12/$i12/g; s/BB/$bb/g; ${pysub:-}")" "$T/img" ;;
			*)	debugfs -w -R "$(printf '%s' "$how" | sed "s/\$f2/$f2/; s/\$acl/$acl/")" "$T/img" > /dev/null 2>&1 ;;
			esac
			cp "$T/img" "$T/damaged"
			[ "$(e2 "$T/img")" -ge 4 ] || fail "$base $how: e2fsck -fn finds no damage"
			out=$(ids "$T/img" $mode | tr '\n' '|')
			cases=$((cases + 1))
			if [ $mode = -fp ] && [ "$preen" = 8 ]; then
				[ "${out%%|*}" = 8 ] || fail "$base $how: -p exits ${out%%|*}, not 8"
				cmp -s "$T/img" "$T/damaged" || fail "$base $how: -p wrote to an image it cannot check"
				echo "$base $how: -p cannot check it (8), as e2fsck -p"
				continue
			fi
			if [ $mode = -fp ] && [ "$preen" = 0 ]; then
				grep -q "UNEXPECTED INCONSISTENCY" "$T/json" 2>/dev/null ||
					"$FSCK" -fp "$T/damaged" 2>&1 | grep -q "UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY" ||
					fail "$base $how: -p does not say UNEXPECTED INCONSISTENCY"
				[ "${out%%|*}" = 4 ] || fail "$base $how: -p exits ${out%%|*}, not 4"
				# where e2fsck -fp halts before it writes anything but
				# the superblock (its errors flag), so does ours
				cp "$T/damaged" "$T/e2p"; e2fsck -fp "$T/e2p" > /dev/null 2>&1
				if [ -z "$(beyond_super "$T/damaged" "$T/e2p")" ] &&
				   [ -n "$(beyond_super "$T/damaged" "$T/img")" ]; then
					fail "$base $how: -p writes byte $(beyond_super "$T/damaged" "$T/img") before it halts; e2fsck -p writes only the superblock"
				fi
				rm -f "$T/e2p"
				echo "$base $how: -p halts (4)"
				continue
			fi
			if [ "$out" != "$status|$want|-|" ]; then
				fail "$base $how $mode: got [$out], expected [$status|$want|-|]"; head -3 "$T/err"
				continue
			fi
			[ "$(e2 "$T/img")" = 0 ] || { fail "$base $how $mode: e2fsck -fn after the repair: $(e2fsck -fn "$T/img" 2>&1 | sed -n 2,6p | tr '\n' ' ')"; continue; }
			again=$(ids "$T/img" -fn | tr '\n' ' ')
			[ "$again" = "0 - - " ] || fail "$base $how $mode: extkit-fsck -fn after the repair: $again"
			if [ "$base" = base ]; then
				files "$T/img" | cmp -s - "$T/files.base" || fail "$base $how $mode: file contents changed"
			fi
			# E2CMP set: the files read back as after e2fsck -fy on the same damage
			if [ -n "${E2CMP:-}" ]; then
				cp "$T/damaged" "$T/e2img"; e2fsck -fy "$T/e2img" > /dev/null 2>&1
				files "$T/e2img" > "$T/files.e2"
				files "$T/img" | cmp -s - "$T/files.e2" ||
					fail "$base $how $mode: files differ from e2fsck -fy's"
			fi
			echo "$base $how $mode: fixed $want"
		done
	done
}
