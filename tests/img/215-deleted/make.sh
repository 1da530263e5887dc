. "$SRC/../mk-small.sh"
printf 'kept\n' > small.src
# remove two of five names: their entries stay in the slack of the previous one
debugfs -w image -f - >>debugfs-w.log 2>&1 <<'EOS'
mkdir gone
cd gone
write small.src keep1
write small.src lost2
write small.src keep3
write small.src lost4
write small.src keep5
rm lost2
rm lost4
EOS
