#!/bin/sh
# run-img.sh [NNN-name ...] — run the image tests in tests/img/ in order.
#
# Two kinds of test directory tests/img/NNN-name/:
#   golden  `cmd` (sh script) with `expect`; optional `make.sh` builds the
#           image(s) first; both run in $T (a fresh scratch dir) with
#           $EK_DEBUGFS (the tool), $SRC (the test dir) and $T set.  cmd's
#           stdout+stderr, with $T replaced by "$T" and then filtered by the
#           test's filter.sed (or tests/img/filter.sed), plus a last line
#           "Exit status is N", must equal `expect`.
#   script  an executable `script`: exit 0 pass, 1 fail, 77 skip (its last
#           output line says why).  A line "note: ..." in its output names a
#           sub-check it did not do (a passing test's notes are listed at
#           the end, so they do not vanish with its log).  Script tests
#           print the real numbers behind their floors (images opened,
#           inodes compared...).
# Either kind fails on a sanitizer report in its output.
# `name` holds a one-line description.  Arguments are test names (NNN-name,
# or a path ending in one) or directories holding a test.  Prints one line
# per test, the skipped tests and the notes, and
#   img: N passed, N failed, N skipped, N notes
# and exits 1 when a test failed.
#
# Strict mode: EK_REQUIRE=corpus,root,loop (any of these words; "all" for
# all three) checks up front that the corpus (../shared/corpus or
# $EK_CORPUS) holds images, that we are root and that a loop device can be
# attached, and fails at once when one is missing; and any test that skips
# then counts as failed.  CI (.ci/run) runs this way; a plain `make check`
# may skip, and says how many tests did.
#
# Environment: EK_DEBUGFS (default: debugfs/extkit-debugfs of this tree),
# EK_REPLAY, EK_CORPUS (the corpus; default: ../shared/corpus beside the
# git tree), EK_REQUIRE (above), TMPDIR, EK_TREE_SCALE (entries in the
# matrix tree's big directory; default 10000, 2000 for a sanitizer build),
# EK_UNPACK_CACHE (set by this script: unpack.sh's decompressed images),
# EK_NOSLEEP (set by this script: tests/nosleep.c built, for e2fsprogs'
# tools on mmp images), EK_JOBS (tests run at a time; default: the CPUs and one more; lines
# still print in test order), EK_VERBOSE=1 shows the log of passing script tests too (their real
# counts), EK_CPU_LOG=FILE appends each script test's CPU seconds (name,
# user, system, by /usr/bin/time, which adds a line for a non-zero exit) to FILE, EK_KEEP=1 keeps failed tests' dirs, EK_UPDATE=1 rewrites
# `expect` of failing golden tests (review the diff!).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
imgdir=$top/tests/img
: "${EK_DEBUGFS:=$top/debugfs/extkit-debugfs}"
case $EK_DEBUGFS in /*) ;; *) EK_DEBUGFS=$(pwd)/$EK_DEBUGFS ;; esac
if [ ! -x "$EK_DEBUGFS" ]; then
	echo "run-img.sh: '$EK_DEBUGFS' is not executable (run make first)" >&2
	echo "img: 0 passed, 1 failed, 0 skipped, 0 notes"
	exit 1
fi
export EK_DEBUGFS
if [ -z "${EK_CORPUS:-}" ]; then
	EK_CORPUS=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null || echo "$top")/../shared/corpus
fi
export EK_CORPUS

# strict mode: what EK_REQUIRE names must be there, and no test may skip
strict=
missing=
for need in $(echo "${EK_REQUIRE:-}" | tr ',' ' '); do
	[ "$need" = all ] && need="corpus root loop"
	for n in $need; do
		strict=1
		case $n in
		corpus)
			ls "$EK_CORPUS"/e2fsprogs/*/image.* "$EK_CORPUS"/kernel/*/crash.img.gz >/dev/null 2>&1 ||
				missing="$missing; corpus: no e2fsprogs and kernel images in '$EK_CORPUS'" ;;
		root)
			[ "$(id -u)" = 0 ] || missing="$missing; root: running as uid $(id -u)" ;;
		loop)
			f=$(mktemp "${TMPDIR:-/tmp}/ek-loop.XXXXXX")
			truncate -s 1M "$f"
			if dev=$(losetup -f --show "$f" 2>/dev/null); then
				losetup -d "$dev"
			else
				missing="$missing; loop: cannot attach a loop device"
			fi
			rm -f "$f" ;;
		*)
			missing="$missing; unknown requirement '$n' (corpus, root, loop, all)" ;;
		esac
	done
done
if [ -n "$missing" ]; then
	echo "run-img.sh: EK_REQUIRE=$EK_REQUIRE: ${missing#; }"
	echo "img: 0 passed, 1 failed, 0 skipped, 0 notes"
	exit 1
fi
export LC_ALL=C TZ=GMT0 PAGER=__none__ DEBUGFS_PAGER=__none__
# mke2fs defaults from the tests, not the host; no e2fsck.conf surprises
export MKE2FS_CONFIG="$imgdir/mke2fs.conf" E2FSCK_CONFIG=/dev/null
# sanitizer runs: fail on the first report, no leak noise in golden output
# the leak check at exit is the tools' own (tests/sanleak.c): LeakSanitizer's
# costs some 50 ms of CPU each time, leak or not
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:leak_check_at_exit=0:abort_on_error=0:exitcode=99}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=99}"

if [ -z "${EK_TREE_SCALE:-}" ]; then
	if grep -q __asan_init "$EK_DEBUGFS" 2>/dev/null; then
		EK_TREE_SCALE=2000
	else
		EK_TREE_SCALE=10000
	fi
fi
export EK_TREE_SCALE

# scratch: $TMPDIR when set; else /dev/shm when it has 8 GiB free and
# allows exec (tests build and run helpers there), else /tmp.  A run
# writes some 60 GB of images; on tmpfs the disk sees 7 GB of it (the
# wall time was the same on this project's 2-core machine).  A test whose
# directory holds a file `disk` (saying why) gets its scratch on $TMPDIR
# or /tmp all the same: mkfs -d reads a source tree through FIEMAP,
# which tmpfs lacks.
disk_tmp=${TMPDIR:-/tmp}
tmp=$disk_tmp
shm_free=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
shm_noexec=$(awk '$2 == "/dev/shm" && $4 ~ /(^|,)noexec(,|$)/ { print "yes" }' /proc/mounts 2>/dev/null)
if [ -z "${TMPDIR:-}" ] && [ -w /dev/shm ] && [ "${shm_free:-0}" -ge 8388608 ] && [ -z "$shm_noexec" ]; then
	tmp=/dev/shm
fi
work=$(mktemp -d "$tmp/ek-img.XXXXXX") || exit 1
# EK_CPU_LOG: absolute (tests run in their scratch dir), through /usr/bin/time
if [ -n "${EK_CPU_LOG:-}" ]; then
	[ -x /usr/bin/time ] || { echo "run-img.sh: EK_CPU_LOG needs /usr/bin/time"; rm -rf "$work"; exit 1; }
	case $EK_CPU_LOG in /*) ;; *) EK_CPU_LOG=$(pwd)/$EK_CPU_LOG ;; esac
fi
diskwork=$work
if [ "$tmp" != "$disk_tmp" ]; then
	diskwork=$(mktemp -d "$disk_tmp/ek-img.XXXXXX") || { rm -rf "$work"; exit 1; }
fi
cleanup() { rm -rf "$work" "$diskwork"; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

# e2fsprogs' MMP wait skipped on the tests' scratch images (tests/nosleep.c);
# without a compiler the tests still pass, only slower
EK_NOSLEEP=
if ${CC:-cc} -shared -fPIC -O2 -o "$work/nosleep.so" "$top/tests/nosleep.c" 2>/dev/null; then
	EK_NOSLEEP=$work/nosleep.so
fi
export EK_NOSLEEP
# the corpus's images, decompressed once a run (tests/img/unpack.sh)
export EK_UNPACK_CACHE="$work/unpacked"
# the tests make many short python3 calls (standard library only): the
# system's interpreter when there is one (Debian's starts in 30 ms here;
# pyenv's shim runs shell scripts first, 560 ms, and the interpreter it
# resolves to imports its site packages, 85 ms), else the one python3
# resolves to, first in PATH
py=
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import json, struct' 2>/dev/null && py=/usr/bin/python3
[ -n "$py" ] || py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py" ] && [ -x "$py" ] && [ "$(command -v python3)" != "$py" ]; then
	mkdir -p "$work/bin" && ln -s "$py" "$work/bin/python3" && PATH=$work/bin:$PATH
	export PATH
fi

if [ $# -gt 0 ]; then
	tests=
	for t in "$@"; do
		t=${t%/}
		case $t in
		*/*) [ -d "$t" ] && t=$(cd "$t" && pwd) || t=$imgdir/${t##*/} ;;
		*) t=$imgdir/$t ;;
		esac
		tests="$tests $t"
	done
else
	tests=$(ls -d "$imgdir"/[0-9][0-9][0-9]-*/ 2>/dev/null | sed 's|/$||')
fi

# the matrix tests share one source tree
case $tests in
*-matrix-*)
	if [ "$(id -u)" = 0 ] && command -v python3 >/dev/null 2>&1; then
		if "$top/tests/gen-tree.sh" "$work/tree" "$EK_TREE_SCALE" >"$work/tree.log" 2>&1; then
			export EK_TREE="$work/tree"
		else
			echo "run-img.sh: gen-tree.sh failed:"
			tail -n 5 "$work/tree.log"
		fi
	fi ;;
esac

pass=0 fail=0 skip=0
: >"$work/notes"
: >"$work/skips"
sanitizer='ERROR: AddressSanitizer|runtime error:|LeakSanitizer|ERROR: UndefinedBehaviorSanitizer|SUMMARY: [A-Za-z]*Sanitizer'
now() { date +%s; }
start_all=$(now)

# run_one DIR: run one test; leaves status (ok, SKIP, FAIL), why, secs,
# notes and log in $work/NAME.res for report_one
run_one() {
	dir=$1
	name=${dir##*/}
	T=$work/$name		# the test's scratch dir (its cwd)
	[ ! -f "$dir/disk" ] || T=$diskwork/$name
	R=$work/$name.res	# the harness's files
	mkdir -p "$T" "$R"
	echo "$T" >"$R/scratch"
	start=$(now)
	status=
	why=
	if [ ! -d "$dir" ]; then
		status=FAIL
		why="no such test"
	elif [ -x "$dir/script" ]; then
		if [ -n "${EK_CPU_LOG:-}" ]; then
			(cd "$T" && SRC=$dir T=$T exec /usr/bin/time -f "$name %U %S" -a -o "$EK_CPU_LOG" \
				"$dir/script") >"$R/log" 2>&1
		else
			(cd "$T" && SRC=$dir T=$T exec "$dir/script") >"$R/log" 2>&1
		fi
		rc=$?
		case $rc in
		0)  status=ok ;;
		77) status=SKIP; why=$(tail -n 1 "$R/log" | sed 's/^SKIP: //') ;;
		*)  status=FAIL; why="exit $rc" ;;
		esac
		if grep -qE "$sanitizer" "$R/log"; then
			status=FAIL
			why="sanitizer report (exit $rc)"
		fi
		if [ $status = SKIP ] && [ -n "$strict" ]; then
			status=FAIL
			why="skipped, and EK_REQUIRE=$EK_REQUIRE allows no skip: $why"
		fi
		if [ $status = ok ]; then
			grep '^note: ' "$R/log" | sed "s|^|$name: |" >"$R/notes"
		fi
	elif [ -f "$dir/cmd" ]; then
		rc=0
		if [ -f "$dir/make.sh" ]; then
			(cd "$T" && SRC=$dir T=$T E2FSPROGS_FAKE_TIME=1700000000 \
				sh -e "$dir/make.sh") >"$R/make.log" 2>&1 || rc=$?
		fi
		if [ $rc -ne 0 ]; then
			status=FAIL
			why="make.sh exit $rc"
			cp "$R/make.log" "$R/log"
		else
			(cd "$T" && SRC=$dir T=$T sh "$dir/cmd") >"$R/out" 2>&1
			echo "Exit status is $?" >>"$R/out"
			filter=$dir/filter.sed
			[ -f "$filter" ] || filter=$imgdir/filter.sed
			sed -e "s|$T|\$T|g" -e "s|$EK_DEBUGFS|extkit-debugfs|g" "$R/out" |
				sed -f "$filter" >"$R/out.f"
			if cmp -s "$dir/expect" "$R/out.f"; then
				status=ok
			else
				status=FAIL
				why="output differs"
				diff -u "$dir/expect" "$R/out.f" >"$R/log" 2>&1
				if [ -n "${EK_UPDATE:-}" ]; then
					cp "$R/out.f" "$dir/expect"
					why="output differs (expect updated)"
				fi
			fi
			if grep -qE "$sanitizer" "$R/out"; then
				status=FAIL
				why="sanitizer report"
				cp "$R/out" "$R/log"
			fi
		fi
	else
		status=FAIL
		why="neither script nor cmd"
	fi
	[ -f "$R/log" ] || : >"$R/log"
	echo $(($(now) - start)) >"$R/secs"
	printf '%s\n' "$why" >"$R/why"
	echo $status >"$R/status.new" && mv "$R/status.new" "$R/status"	# last: flush waits for it
}

# report_one NAME: print the line of a finished test and count it
report_one() {
	name=$1
	R=$work/$name.res
	T=$(cat "$R/scratch" 2>/dev/null || echo "$work/$name")
	status=$(cat "$R/status" 2>/dev/null || echo FAIL)
	why=$(cat "$R/why" 2>/dev/null || echo "the harness lost the test")
	secs=$(cat "$R/secs" 2>/dev/null || echo '?')
	case $status in
	ok)
		pass=$((pass + 1))
		printf '%-32s ok (%ss)\n' "$name" "$secs"
		[ ! -f "$R/notes" ] || cat "$R/notes" >>"$work/notes"
		[ -z "${EK_VERBOSE:-}" ] || [ ! -f "$R/log" ] || sed 's/^/    /' "$R/log" ;;
	SKIP)
		skip=$((skip + 1))
		printf '%-32s SKIP: %s\n' "$name" "$why"
		printf '    %s: %s\n' "$name" "$why" >>"$work/skips" ;;
	*)
		fail=$((fail + 1))
		printf '%-32s FAIL: %s (%ss)\n' "$name" "$why" "$secs"
		[ ! -f "$R/log" ] || head -n 60 "$R/log" | sed 's/^/    /'
		if [ -n "${EK_KEEP:-}" ]; then
			keep=$(mktemp -d "${TMPDIR:-/tmp}/ek-img-$name.XXXXXX")
			cp -a "$T/." "$keep/"
			mkdir -p "$keep/harness" && cp -a "$R/." "$keep/harness/"
			echo "    (kept in $keep)"
		fi ;;
	esac
	rm -rf "$T" "$R"
}

# EK_JOBS tests at a time (default: the CPUs and one more, as tests wait
# on e2fsprogs, I/O and sync); a test starts as soon as any slot is free,
# and the lines print in test order
jobs=${EK_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
case $jobs in ''|*[!0-9]*|0) jobs=1 ;; esac
order=		# names not yet reported, in test order
running() {	# tests started whose status is not written yet
	n=0
	for name in $order; do
		[ -d "$work/$name.res" ] && [ ! -f "$work/$name.res/status" ] && n=$((n + 1))
	done
	echo $n
}
flush() {	# report the finished tests at the head of the order
	while [ -n "$order" ]; do
		set -- $order
		[ -f "$work/$1.res/status" ] || break
		report_one "$1"
		shift
		order="$*"
	done
}
# the slowest tests (tests/img/slow, slowest first) start first, so that
# no long test is left running alone at the end; lines still print in
# test order
order=
for dir in $tests; do
	order="$order ${dir##*/}"
done
first=
[ -f "$imgdir/slow" ] && first=$(sed 's/#.*//' "$imgdir/slow" | tr '\n' ' ')
start_order=
for name in $first; do
	for dir in $tests; do
		[ "${dir##*/}" = "$name" ] && start_order="$start_order $dir"
	done
done
for dir in $tests; do
	case " $first " in *" ${dir##*/} "*) ;; *) start_order="$start_order $dir" ;; esac
done
for dir in $start_order; do
	while [ "$(running)" -ge $jobs ]; do
		flush
		sleep 0.2
	done
	mkdir -p "$work/${dir##*/}.res"	# counted as running from now
	run_one "$dir" &
	flush
done
wait
flush
notes=$(wc -l <"$work/notes")
if [ "$notes" -gt 0 ]; then
	echo "img: $notes sub-checks not done by passing tests (their note: lines):"
	sed 's/^/    /' "$work/notes"
fi
if [ $skip -gt 0 ]; then
	echo "img: $skip tests skipped (EK_REQUIRE=corpus,root,loop makes a skip fail):"
	cat "$work/skips"
fi
echo "img: run time $(($(now) - start_all))s"
echo "img: $pass passed, $fail failed, $skip skipped, $notes notes${strict:+ (strict: EK_REQUIRE=$EK_REQUIRE)}"
[ $fail -eq 0 ]
