#!/bin/sh
# Run every Check unit-test binary given; print one summary line.
pass=0 fail=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks:' | tail -n 1)
	printf '%-40s %s\n' "$(basename "$t")" "${line:-exit $rc}"
	if [ $rc -ne 0 ]; then
		printf '%s\n' "$out" | grep -v '^Running suite' | head -40
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done
echo "unit: $pass passed, $fail failed"
[ $fail -eq 0 ]
