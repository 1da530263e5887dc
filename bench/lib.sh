# bench/lib.sh - sourced by the bench scripts after `set -eu`.
#   bench_options "$@"  the options every bench takes: -w WORKDIR (cached
#                       inputs, default /var/tmp/extkit-bench), -r make them
#                       again, -h the script's own header as its help; sets
#                       $work and $rebuild
#   skip MSG            "SKIP: MSG", exit 77 (the bench cannot run here)
#   $top                the source tree
work=/var/tmp/extkit-bench
rebuild=0
top=$(cd "$(dirname "$0")/.." && pwd)

skip() { echo "SKIP: $*"; exit 77; }

bench_options() {
	while getopts w:rh opt; do
		case $opt in
		w) work=$OPTARG ;;
		r) rebuild=1 ;;
		h) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d'; exit 0 ;;
		*) exit 2 ;;
		esac
	done
}
