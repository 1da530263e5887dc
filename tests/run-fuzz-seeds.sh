#!/bin/sh
# Replay each fuzz target's seed corpus (tests/fuzz/seeds/<target>/).
# A target fails on a non-zero exit, a sanitizer report in its output, or
# when it replayed no input (an empty or missing seed directory).
pass=0 fail=0
sanitizer='ERROR: AddressSanitizer|runtime error:|LeakSanitizer|ERROR: UndefinedBehaviorSanitizer|SUMMARY: [A-Za-z]*Sanitizer'
for t in "$@"; do
	name=$(basename "$t")
	dir=tests/fuzz/seeds/$name
	if [ ! -d "$dir" ]; then
		echo "$name: no seeds in $dir"
		fail=$((fail + 1))
		continue
	fi
	if out=$(timeout 300 "$t" "$dir" 2>&1) && ! printf '%s\n' "$out" | grep -qE "$sanitizer"; then
		last=$(printf '%s\n' "$out" | tail -n 1)
		n=$(printf '%s\n' "$last" | sed -n 's/^replayed \([0-9]*\) inputs$/\1/p')
		if [ "${n:-0}" -gt 0 ]; then
			echo "$name: $last"
			pass=$((pass + 1))
			continue
		fi
		echo "$name: FAILED: no input replayed ($last)"
	else
		printf '%s\n' "$out" | tail -n 30
		echo "$name: FAILED"
	fi
	fail=$((fail + 1))
done
echo "fuzz seeds: $pass passed, $fail failed"
[ $fail -eq 0 ]
