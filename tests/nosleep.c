// SPDX-License-Identifier: MIT
/*
 * nosleep.c - an LD_PRELOAD shim for e2fsprogs' tools in the image tests:
 * sleep(), usleep() and nanosleep() return at once.
 *
 * libext2fs waits 2 * the MMP check interval + 1 seconds (11 s at the
 * least) each time debugfs -w or e2fsck opens an image with mmp, to see
 * whether another node writes the MMP block.  The tests' images are
 * private scratch files nobody else opens, so the wait proves nothing
 * there and made 502 and 525 sleep for over two minutes.  run-img.sh
 * builds this into $EK_NOSLEEP; a test runs an e2fsprogs tool on an mmp
 * image as `LD_PRELOAD=$EK_NOSLEEP debugfs ...`.  Never used on our tools.
 */
#include <time.h>
#include <unistd.h>

unsigned int sleep(unsigned int seconds)
{
	(void)seconds;
	return 0;
}

int usleep(useconds_t usec)
{
	(void)usec;
	return 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	(void)req;
	if (rem)
		rem->tv_sec = rem->tv_nsec = 0;
	return 0;
}
