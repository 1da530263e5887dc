/^debugfs [0-9][0-9.]* ([0-9]*-[A-Za-z]*-[0-9]*)$/d
/^mke2fs [0-9][0-9.]* ([0-9]*-[A-Za-z]*-[0-9]*)$/d
# e2fsprogs' journal writer stamps commits with the wall clock, 32 bits high
s/[0-9]\{10,\}\.[0-9]\{9\}/SEC.NSEC/g
s/commit time impossible ([0-9]*)/commit time impossible (RAW)/
