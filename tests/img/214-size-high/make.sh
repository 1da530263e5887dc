. "$SRC/../mk-small.sh"
debugfs -w image -f - <<'EOF'
sif /d/slow size_hi 1
sif /d/sub size_hi 2
sif /text size_hi 1
EOF
cp image largedir.img
debugfs -w -R "feature large_dir" largedir.img
