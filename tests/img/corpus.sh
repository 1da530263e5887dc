# corpus.sh — sourced by the corpus sweep scripts: sets $corpus or exits 77
if [ -n "${EK_CORPUS:-}" ]; then
	corpus=$EK_CORPUS
else
	top=$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null || (cd "$SRC/../../.." && pwd))
	corpus=$top/../shared/corpus
fi
if [ ! -d "$corpus" ]; then
	echo "SKIP: no corpus at '$corpus' (set EK_CORPUS)"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed"
	exit 77
fi
