# Shared by the repair tests (tests/img/52x-fsck-repair*): sourced by a
# test script, with $EK_DEBUGFS, $SRC and $T set as run-img.sh sets them.
#   mkbase IMG OPTS   a small mke2fs image with a few files and xattrs
#   files IMG         the files' contents, one md5 line each
#   ids IMG ARGS      extkit-fsck ARGS --json: exit code, IDs, IDs not fixed
#   new_damage IMG    its IDs not in $T/ids.damage
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
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 20); open(sys.argv[1], "w").write("v" * 300)' "$T/val300" > "$T/five"

# cat_md5 IMG PATH...: "PATH md5sum-line" for each file of IMG, its bytes as
# debugfs's cat reads them (none when it cannot): one debugfs run dumps all
cat_md5() {
	_img=$1; shift
	_i=0
	for _p; do
		_i=$((_i + 1)); : > "$T/cat.$_i"
		printf 'dump %s %s\n' "$_p" "$T/cat.$_i"
	done | debugfs -f - "$_img" > /dev/null 2>&1
	_i=0
	for _p; do
		_i=$((_i + 1)); printf '%s ' "$_p"; md5sum < "$T/cat.$_i"
	done
}
# the files' contents, one line each
files() { cat_md5 "$1" file1 file2 dir/inner; }
# ids IMG ARGS: the exit code, the sorted IDs, and the IDs not fixed (read
# by awk from --json's fixed layout: a finding's members one a line, 6
# spaces in, "id" first; nothing for the IDs when the layout is not found
# whole, as for JSON python3 would not parse)
ids() {
	img=$1; shift
	"$FSCK" "$@" --json "$img" 2> "$T/err" > "$T/json"
	echo "$?"
	awk '
function list(a,   k, n, i, j, t, v, s) {
	n = 0
	for (k in a) v[++n] = k
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	s = n ? v[1] : "-"
	for (i = 2; i <= n; i++) s = s " " v[i]
	return s
}
/^  "findings": \[\],?$/ { seen = 1; next }
/^  "findings": \[$/ { seen = 1; in_f = 1; next }
in_f && /^  \],?$/ { in_f = 0; next }
in_f && /^      "id": "[a-z0-9_]*",$/ { id = substr($0, 14, length($0) - 15); all[id] = 1; next }
in_f && /^      "fixed": false$/ { open[id] = 1 }
/^}$/ { end = 1 }
END { if (seen && end && !in_f) { print list(all); print list(open) } }' "$T/json"
}
# new_damage IMG: the IDs extkit-fsck -fn finds in IMG that are not in
# $T/ids.damage (one a line: what the damage itself shows)
new_damage() {
	ids "$1" -fn | awk 'FILENAME == ARGV[1] { d[$0]; next }
		FNR == 2 { for (i = 1; i <= NF; i++) if (!($i in d) && $i != "-") printf "%s ", $i }' "$T/ids.damage" -
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
# trim S: S without the blanks around it; trimv VAR...: each VAR so, in place
trim() { _t=${1#"${1%%[![:space:]]*}"}; printf '%s' "${_t%"${_t##*[![:space:]]}"}"; }
trimv() { for _v; do eval "_t=\${$_v}"; _t=${_t#"${_t%%[![:space:]]*}"}; eval "$_v=\${_t%\"\${_t##*[![:space:]]}\"}"; done; }

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
		trimv base how want preen status
		status=${status:-1}
		[ -n "$how" ] || continue
		# the damage, made once for both modes
		cp "$T/$base" "$T/damaged"
		case $how in
		f:*)	printf '%s\n' "${how#f:}" | tr ';' '\n' | debugfs -w -f - "$T/damaged" > /dev/null 2>&1 ;;
		py:*)	python3 -c "$(printf '%s' "${how#py:}" | sed "s/SUB/$subblk/g; s/I12/$i12/g; s/BB/$bb/g; ${pysub:-}")" "$T/damaged" ;;
		*)	debugfs -w -R "$(printf '%s' "$how" | sed "s/\$f2/$f2/; s/\$acl/$acl/")" "$T/damaged" > /dev/null 2>&1 ;;
		esac
		[ "$(e2 "$T/damaged")" -ge 4 ] || fail "$base $how: e2fsck -fn finds no damage"
		rm -f "$T/files.e2"
		for mode in -fy -fp; do
			cp "$T/damaged" "$T/img"
			out=$(ids "$T/img" $mode | tr '\n' '|')
			cases=$((cases + 1))
			if [ $mode = -fp ] && [ "$preen" = 8 ]; then
				[ "${out%%|*}" = 8 ] || fail "$base $how: -p exits ${out%%|*}, not 8"
				cmp -s "$T/img" "$T/damaged" || fail "$base $how: -p wrote to an image it cannot check"
				echo "$base $how: -p cannot check it (8), as e2fsck -p"
				continue
			fi
			if [ $mode = -fp ] && [ "$preen" = 0 ]; then
				# (said on stderr under --json: the damaged image is kept as it was)
				grep -q "UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY" "$T/err" ||
					fail "$base $how: -p does not say UNEXPECTED INCONSISTENCY"
				[ "${out%%|*}" = 4 ] || fail "$base $how: -p exits ${out%%|*}, not 4"
				# where e2fsck -fp halts before it writes anything but
				# the superblock (its errors flag), so does ours
				cp "$T/damaged" "$T/e2p"; e2fsck -fp "$T/e2p" > /dev/null 2>&1
				if [ -z "$(beyond_super "$T/damaged" "$T/e2p")" ]; then
					at=$(beyond_super "$T/damaged" "$T/img")
					[ -z "$at" ] || fail "$base $how: -p writes byte $at before it halts; e2fsck -p writes only the superblock"
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
			# E2CMP set: the files read back as after e2fsck -fy on the
			# same damage (its answer made once for both modes)
			if [ -n "${E2CMP:-}" ]; then
				if [ ! -f "$T/files.e2" ]; then
					cp "$T/damaged" "$T/e2img"; e2fsck -fy "$T/e2img" > /dev/null 2>&1
					files "$T/e2img" > "$T/files.e2"
				fi
				files "$T/img" | cmp -s - "$T/files.e2" ||
					fail "$base $how $mode: files differ from e2fsck -fy's"
			fi
			echo "$base $how $mode: fixed $want"
		done
	done
}
