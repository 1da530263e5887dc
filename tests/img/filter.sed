# default filter for golden image tests: drop the e2fsprogs version banner
/^debugfs [0-9][0-9.]* ([0-9]*-[A-Za-z]*-[0-9]*)$/d
/^mke2fs [0-9][0-9.]* ([0-9]*-[A-Za-z]*-[0-9]*)$/d
