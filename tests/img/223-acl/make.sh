# a file and a directory with ACLs, set on the host and copied by mke2fs -d
command -v setfacl >/dev/null
mkdir -p tree/d
echo data > tree/f
setfacl -m u:1000:rw,g:100:r tree/f
setfacl -d -m u:1000:rwx tree/d
mke2fs -q -F -t ext4 -N 64 -d tree image 4M
debugfs -w -R "ea_set -f /dev/stdin f user.bin" image <<X >/dev/null 2>&1
$(printf '\001\002')
X
