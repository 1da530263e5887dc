. "$SRC/../mk-small.sh"
printf 'say "hi" \\o/' > v.quote
printf '\001\002\377' > v.bin
: > v.empty
head -c 300 /dev/zero | tr '\0' 'L' > v.long
head -c 600 /dev/zero | tr '\0' 'B' > v.block
printf 'trailing-nul\0' > v.nul
debugfs -w image -f - <<'EOF'
write /dev/null x
ea_set -f v.quote x user.quote
ea_set -f v.bin x user.bin
ea_set -f v.empty x user.empty
ea_set -f v.long x user.long
ea_set -f v.block x user.block
ea_set -f v.nul x user.nul
EOF
rm -f v.*
