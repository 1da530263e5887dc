#!/bin/sh
# bench/mkfs-random.sh [CASES [SEED]]: the random differential test of
# extkit-mkfs against the installed mke2fs (tests/img/411-mkfs-random) with
# many sets: CASES (default 400) from SEED (default: the time, printed so a
# failing run can be repeated).  Every set runs through both tools; the
# run fails on a set where mke2fs makes an image and ours differs or
# refuses (features not written yet aside, as in the test: none now).
cd "$(dirname "$0")/.." || exit 1
cases=${1:-400} seed=${2:-$(date +%s)}
echo "mkfs-random: $cases sets from seed $seed (again: $0 $cases $seed)"
EK_RANDOM_CASES=$cases EK_RANDOM_SEED=$seed EK_VERBOSE=1 tests/run-img.sh 411-mkfs-random
