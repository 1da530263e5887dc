// SPDX-License-Identifier: MIT
/*
 * sanleak.c - linked into the tools of a SANITIZE=1 build only: the
 * leak check at exit, run only when it can find something.
 *
 * LeakSanitizer's check at exit costs about 50 ms of CPU a process here,
 * whatever the process did (it scans the sanitizer runtime's own tables),
 * and the image tests run thousands of sanitized processes: it was two
 * thirds of the CPU of a corpus sweep such as 313 (105 s, 36 s without).  run-img.sh turns the check at
 * exit off (ASAN_OPTIONS leak_check_at_exit=0, detect_leaks=1); this runs
 * the same check (__lsan_do_leak_check) at exit when the heap holds more
 * bytes than before main.  A leak is a block still allocated, so with no
 * byte more there is none to find.  (Only a block allocated before main
 * and freed later could hide a leak of its size or less.)  What the C
 * library allocates once and keeps is allocated here first, and
 * stdout's buffer is static: a process that printed, or named a user,
 * leaves no byte on the heap (test 001 checks that).
 * EK_SANLEAK_LOG=FILE appends each process's name and the bytes it left.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* program_invocation_short_name */
#endif
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

size_t __sanitizer_get_current_allocated_bytes(void);
void __lsan_do_leak_check(void);

static size_t heap_at_start;
static char stdout_buf[BUFSIZ];

/* stdout's buffer as the C library would make it: its file's block size
 * up to BUFSIZ, lines on a terminal (so output flushes at the same points
 * as in the plain build) */
static void static_stdout(void)
{
	struct stat st;
	size_t size = sizeof(stdout_buf);

	if (!fstat(STDOUT_FILENO, &st) && st.st_blksize > 0 && (size_t)st.st_blksize < size)
		size = (size_t)st.st_blksize;
	setvbuf(stdout, stdout_buf, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, size);
}

/* at exit: the leak check, when the heap holds bytes it did not at start
 * (non-static: test 001 finds it by name in the sanitized tools) */
void ek_sanleak_at_exit(void)
{
	size_t now = __sanitizer_get_current_allocated_bytes();
	const char *log = getenv("EK_SANLEAK_LOG");

	if (log && *log) {	/* which processes get the check, and why */
		FILE *f = fopen(log, "a");

		if (f) {
			fprintf(f, "%s %zu\n", program_invocation_short_name,
				now > heap_at_start ? now - heap_at_start : 0);
			fclose(f);
		}
	}
	if (now > heap_at_start)
		__lsan_do_leak_check();
}

static void *nothing(void *arg)
{
	return arg;
}

/* a thread made and joined: the C library keeps its stack (and the
 * heap block of its thread-local storage) for the next one */
static void warm_thread(void)
{
	pthread_t t;

	if (!pthread_create(&t, NULL, nothing, NULL))
		pthread_join(t, NULL);
}

__attribute__((constructor)) static void sanleak_start(void)
{
	static_stdout();
	/* what the C library keeps once used: the time zone, the user and
	 * group databases (debugfs stats names the reserved ids), a thread */
	tzset();
	(void)getpwuid(0);
	(void)getgrgid(0);
	warm_thread();
	heap_at_start = __sanitizer_get_current_allocated_bytes();
	atexit(ek_sanleak_at_exit);
}
