# corpus.sh — sourced by the corpus tests: sets $corpus or exits 77, and
# defines floor(), oracle_cache() and (unpack.sh) unpack().
#
# The corpus is $EK_CORPUS (run-img.sh sets it), else ../shared/corpus beside
# the git tree.  A missing corpus skips (EK_REQUIRE=corpus turns that skip
# into a failure); a corpus that is there but holds fewer images than a
# test's floor fails: a loop over nothing proves nothing.
if [ -n "${EK_CORPUS:-}" ]; then
	corpus=$EK_CORPUS
else
	top=$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null || (cd "$SRC/../../.." && pwd))
	corpus=$top/../shared/corpus
fi
. "$SRC/../unpack.sh"
if [ ! -d "$corpus" ]; then
	echo "SKIP: no corpus at '$corpus' (set EK_CORPUS)"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed"
	exit 77
fi

# floor WHAT GOT MIN: prints the real number; returns 1 (after a FAIL line)
# when GOT < MIN.  Floors sit a little below what the corpus holds today.
floor() {
	echo "floor: $1: ${2:-0} (at least $3)"
	[ "${2:-0}" -ge "$3" ] && return 0
	echo "FAIL: $1: ${2:-0}, fewer than $3: too little was tested"
	return 1
}

# oracle_cache INPUT TAG: prints a directory for what e2fsprogs makes of the
# file INPUT in one test's way TAG, in the oracle cache (EK_ORACLE_CACHE,
# default $TMPDIR/ek-oracle-cache), keyed by a hash of INPUT, TAG and
# e2fsck's version: e2fsprogs' answers do not depend on our code, so the
# sanitizer round and reruns reuse the plain round's.  A test fills the
# directory, then makes its file "done"; without "done" it runs the oracle.
# (e2fsck's version is read once, when this file is sourced: a test calls
# oracle_cache once per image)
ek_e2fsck_version=$(e2fsck -V 2>&1)
oracle_cache() {
	key=$({ cat "$1"; echo "$2"; echo "$ek_e2fsck_version"; } | sha256sum)
	d=${EK_ORACLE_CACHE:-${TMPDIR:-/tmp}/ek-oracle-cache}/$2-${key%% *}
	[ -d "$d" ] || mkdir -p "$d" || return 1
	echo "$d"
}
