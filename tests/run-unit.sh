#!/bin/sh
# Run every Check unit-test binary given; print one summary line.
# A binary fails on a non-zero exit, on a sanitizer report in its output,
# or when its Check summary is missing or counts no checks at all.
pass=0 fail=0 checks=0
sanitizer='ERROR: AddressSanitizer|runtime error:|LeakSanitizer|ERROR: UndefinedBehaviorSanitizer|SUMMARY: [A-Za-z]*Sanitizer'
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks:' | tail -n 1)
	n=$(printf '%s\n' "$line" | sed -n 's/^[0-9]*%: Checks: \([0-9]*\),.*/\1/p')
	why=
	if [ $rc -ne 0 ]; then
		why="exit $rc"
	elif printf '%s\n' "$out" | grep -qE "$sanitizer"; then
		why="sanitizer report"
	elif [ "${n:-0}" -eq 0 ]; then
		why="no checks ran"
	fi
	printf '%-40s %s%s\n' "$(basename "$t")" "${line:-exit $rc}" "${why:+ FAIL: $why}"
	if [ -n "$why" ]; then
		printf '%s\n' "$out" | grep -v '^Running suite' | head -40
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
		checks=$((checks + n))
	fi
done
echo "unit: $pass passed, $fail failed ($checks checks)"
[ $fail -eq 0 ]
