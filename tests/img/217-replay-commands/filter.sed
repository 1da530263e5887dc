/^debugfs [0-9][0-9.]* ([0-9]*-[A-Za-z]*-[0-9]*)$/d
/^mke2fs [0-9][0-9.]* ([0-9]*-[A-Za-z]*-[0-9]*)$/d
# e2fsprogs' journal writer stamps commits with the wall clock
s/[0-9]\{10,\}\.[0-9]\{9\}/SEC.NSEC/g
s/ [0-9]\{10,\} / TIME /g
s/ [0-9]\{1,\}\.[0-9]\{3\} / DELTA /g
s/"commit_sec":[0-9]*/"commit_sec":T/g
s/"commit_nsec":[0-9]*/"commit_nsec":T/g
s/"commit_time":"[^"]*"/"commit_time":T/g
s/"delta_sec":[-0-9.e]*/"delta_sec":T/g
s/revokes, [0-9.]* s between commits/revokes, DELTA s between commits/
s|[^ ]*/copy|COPY|
