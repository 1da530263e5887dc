#!/bin/sh
# Replay each fuzz target's seed corpus (tests/fuzz/seeds/<target>/).
pass=0 fail=0
for t in "$@"; do
	name=$(basename "$t")
	dir=tests/fuzz/seeds/$name
	if [ ! -d "$dir" ]; then
		echo "$name: no seeds in $dir"
		fail=$((fail + 1))
		continue
	fi
	if out=$(timeout 300 "$t" "$dir" 2>&1); then
		echo "$name: $(printf '%s\n' "$out" | tail -n 1)"
		pass=$((pass + 1))
	else
		printf '%s\n' "$out" | tail -n 30
		echo "$name: FAILED"
		fail=$((fail + 1))
	fi
done
echo "fuzz seeds: $pass passed, $fail failed"
[ $fail -eq 0 ]
