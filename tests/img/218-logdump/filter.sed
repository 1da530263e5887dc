/^debugfs [0-9][0-9.]* ([0-9]*-[A-Za-z]*-[0-9]*)$/d
/^mke2fs [0-9][0-9.]* ([0-9]*-[A-Za-z]*-[0-9]*)$/d
# e2fsprogs' journal writer stamps commits with the wall clock
s/committed [0-9][0-9TZ:-]*/committed TIME/
s/"commit_sec": [-0-9]*/"commit_sec": T/
s/"commit_nsec": [0-9]*/"commit_nsec": T/
s/"commit_time": "[^"]*"/"commit_time": T/
s/"delta_sec": [-0-9.e+]*/"delta_sec": T/
# ... into the high half of the 64-bit field: a time centuries ahead (JOURNAL-NOTES 16)
s/commit time impossible ([0-9]*)/commit time impossible (RAW)/
