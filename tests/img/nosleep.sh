# nosleep.sh — sourced by tests that run e2fsprogs' debugfs -w, e2fsck or
# tune2fs on mmp images: each runs with tests/nosleep.c preloaded
# ($EK_NOSLEEP, built by run-img.sh), so libext2fs's MMP wait (11 s at the
# least per open for writing) is skipped on our private scratch images.
# Our own tools are never run this way.
debugfs() { env LD_PRELOAD="${EK_NOSLEEP:-}" debugfs "$@"; }
e2fsck() { env LD_PRELOAD="${EK_NOSLEEP:-}" e2fsck "$@"; }
tune2fs() { env LD_PRELOAD="${EK_NOSLEEP:-}" tune2fs "$@"; }
