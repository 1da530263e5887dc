// SPDX-License-Identifier: MIT
/*
 * io.c - access to image files and block devices.
 *
 * Read-only unless EK_IO_RW.  Writable block devices are opened O_EXCL so a
 * mounted filesystem (or another exclusive user) is refused by the kernel.
 * All offsets are relative to the start offset given at open, so an image
 * inside a disk is addressed like a plain image.
 *
 * A read overlay (ek_io_set_overlay) stands in front of every read: each
 * block it holds comes from it, the rest from the image, so a filesystem
 * opened through it sees the image as, say, a journal replay would leave
 * it while the image stays untouched.  An io with an overlay never writes.
 */

#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "extkit.h"

struct ek_io {
	int fd;
	unsigned flags;
	uint64_t offset;
	uint64_t size;		/* bytes after offset */
	char *path;
	struct ek_undo *undo;	/* saves what each write overwrites */
	ek_block_overlay overlay;	/* NULL: reads go straight to the image */
	void *overlay_arg;
	uint32_t overlay_log;	/* log2 of the overlay's block size */
	uint8_t *overlay_buf;	/* one block, for reads covering part of one */
};

/*
 * Test-only fault hook: EK_TEST_FAIL_WRITES=N lets N writes through, then
 * every write fails, as if the machine stopped there.  Crash-safety tests
 * run a tool with every N and check that running it again gives the result
 * of an uninterrupted run.  One count for the whole process, over every
 * image and device it opens for writing.
 */
static long writes_left = -2;	/* -2 not read yet, -1 off, 0 stopped */

static long test_writes_left(void)
{
	if (writes_left == -2) {
		const char *f = getenv("EK_TEST_FAIL_WRITES");

		writes_left = f && *f ? strtol(f, NULL, 10) : -1;
	}
	if (writes_left > 0)
		return writes_left--;
	return writes_left;
}

/* Test-only: EK_TEST_WRITE_DELAY_MS=N sleeps N ms before each write, so a
 * test can signal a tool in the middle of its writes */
static void test_write_delay(void)
{
	static long ms = -1;

	if (ms < 0) {
		const char *d = getenv("EK_TEST_WRITE_DELAY_MS");

		ms = d && *d ? strtol(d, NULL, 10) : 0;
		if (ms < 0 || ms > 10000)
			ms = 0;
	}
	if (ms) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}

bool ek__io_stopped(void)
{
	return writes_left == 0;
}

/* same file or device, same offset: an undo made for @a serves @b */
static bool same_target(const struct ek_io *a, const struct ek_io *b)
{
	struct stat sa, sb;

	if (fstat(a->fd, &sa) || fstat(b->fd, &sb) || a->offset != b->offset)
		return false;
	if (S_ISBLK(sa.st_mode) || S_ISBLK(sb.st_mode))
		return S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode) && sa.st_rdev == sb.st_rdev;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int ek_io_set_undo(struct ek_io *io, struct ek_undo *u)
{
	if (u && !same_target(ek__undo_io(u), io))
		return ek_err(-EINVAL, "undo file '%s' was made for another device than '%s'",
			      ek__undo_path(u), io->path);
	io->undo = u;
	return 0;
}

int ek_io_open(const char *path, unsigned flags, uint64_t offset, struct ek_io **out)
{
	struct ek_io *io;
	struct stat st;
	uint64_t total;
	int oflags = O_CLOEXEC | ((flags & EK_IO_RW) ? O_RDWR : O_RDONLY);
	int fd;

	fd = open(path, oflags);
	if (fd < 0)
		return ek_err(-errno, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		goto out_errno;
	if (S_ISBLK(st.st_mode)) {
		if (flags & EK_IO_RW) {
			/* reopen exclusively: fails with EBUSY if mounted */
			int xfd = open(path, oflags | O_EXCL);

			if (xfd < 0) {
				int e = errno;

				close(fd);
				return ek_err(-e, "cannot open '%s' exclusively: %s%s", path,
					      strerror(e), e == EBUSY ? " (mounted or in use)" : "");
			}
			close(fd);
			fd = xfd;
		}
		if (ioctl(fd, BLKGETSIZE64, &total) < 0)
			goto out_errno;
	} else if (S_ISREG(st.st_mode)) {
		total = st.st_size;
	} else {
		close(fd);
		return ek_err(-EINVAL, "cannot use '%s': not a regular file or block device", path);
	}
	if (offset > total) {
		close(fd);
		return ek_err(-EINVAL, "offset %llu is past the end of '%s' (%llu bytes)",
			      (unsigned long long)offset, path, (unsigned long long)total);
	}
	io = calloc(1, sizeof(*io));
	if (!io || !(io->path = strdup(path))) {
		free(io);
		close(fd);
		return -ENOMEM;
	}
	io->fd = fd;
	io->flags = flags;
	io->offset = offset;
	io->size = total - offset;
	*out = io;
	return 0;

out_errno: {
		int e = errno;

		close(fd);
		return ek_err(-e, "cannot use '%s': %s", path, strerror(e));
	}
}

void ek_io_close(struct ek_io *io)
{
	if (!io)
		return;
	close(io->fd);
	free(io->overlay_buf);
	free(io->path);
	free(io);
}

uint64_t ek_io_size(const struct ek_io *io)
{
	return io->size;
}

const char *ek_io_path(const struct ek_io *io)
{
	return io->path;
}

uint64_t ek_io_offset(const struct ek_io *io)
{
	return io->offset;
}

/* the image's bytes, the range already checked */
static int raw_pread(struct ek_io *io, uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(io->fd, p, len, io->offset + off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ek__error(-EIO, __FILE__, __LINE__, EK_AT_OFFSET, off,
					 "read error on '%s': %s", io->path, strerror(errno));
		}
		if (n == 0)
			return ek__error(-EIO, __FILE__, __LINE__, EK_AT_OFFSET, off,
					 "unexpected end of '%s'", io->path);
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * Through the overlay: block by block, whole blocks it holds straight into
 * @p, partial ones through overlay_buf; the blocks it does not hold are
 * gathered into runs read from the image with one pread each.
 */
static int overlay_pread(struct ek_io *io, uint8_t *p, size_t len, uint64_t off)
{
	uint32_t bs = 1u << io->overlay_log;
	uint8_t *run = NULL;	/* pending image run: bytes at run_off.. into run.. */
	uint64_t run_off = 0;
	size_t run_len = 0;
	int err;

	while (len) {
		uint32_t in = off & (bs - 1);
		size_t n = bs - in < len ? bs - in : len;
		uint8_t *dst = in == 0 && n == bs ? p : io->overlay_buf;
		int r = io->overlay(io->overlay_arg, off >> io->overlay_log, dst);

		if (r < 0)
			return r;
		if (r == 0) {
			if (run_len && (err = raw_pread(io, run, run_len, run_off)))
				return err;
			run_len = 0;
			if (dst != p)
				memcpy(p, dst + in, n);
		} else {
			if (!run_len) {
				run = p;
				run_off = off;
			}
			run_len += n;
		}
		p += n;
		off += n;
		len -= n;
	}
	return run_len ? raw_pread(io, run, run_len, run_off) : 0;
}

int ek_io_pread(struct ek_io *io, void *buf, size_t len, uint64_t off)
{
	if (off > io->size || len > io->size - off)
		return ek__error(-EIO, __FILE__, __LINE__, EK_AT_OFFSET, off,
				 "read of %zu bytes past the end of '%s' (%llu bytes)",
				 len, io->path, (unsigned long long)io->size);
	if (io->overlay)
		return overlay_pread(io, buf, len, off);
	return raw_pread(io, buf, len, off);
}

int ek_io_set_overlay(struct ek_io *io, ek_block_overlay fn, void *arg, uint32_t log_blksz)
{
	uint8_t *buf = NULL;

	if (fn && (io->flags & EK_IO_RW))
		return ek_err(-EINVAL, "'%s' is open for writing: no read overlay", io->path);
	if (fn && (log_blksz < 10 || log_blksz > 16))
		return ek_err(-EINVAL, "overlay block size 2^%u is not a filesystem block size",
			      log_blksz);
	if (fn && !(buf = ek_malloc((size_t)1 << log_blksz)))
		return -ENOMEM;
	free(io->overlay_buf);
	io->overlay = fn;
	io->overlay_arg = arg;
	io->overlay_log = fn ? log_blksz : 0;
	io->overlay_buf = buf;
	return 0;
}

bool ek_io_reads_concurrent(const struct ek_io *io)
{
	return !io->overlay;
}

int ek_io_pwrite(struct ek_io *io, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;
	uint64_t start = off, total = len;
	int err;

	if (!(io->flags & EK_IO_RW))
		return ek_err(-EBADF, "'%s' is open read-only", io->path);
	if (io->overlay)
		return ek_err(-EBADF, "'%s' is read through an overlay", io->path);
	if (test_writes_left() == 0)
		return ek__error(-EIO, __FILE__, __LINE__, EK_AT_OFFSET, off,
				 "write to '%s' stopped by the test fault hook", io->path);
	test_write_delay();
	/* the original bytes are durable in the undo file before they change */
	if (io->undo && (err = ek_undo_save(io->undo, off, len)))
		return err;
	while (len) {
		ssize_t n = pwrite(io->fd, p, len, io->offset + off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ek__error(-EIO, __FILE__, __LINE__, EK_AT_OFFSET, off,
					 "write error on '%s': %s", io->path, strerror(errno));
		}
		p += n;
		off += n;
		len -= n;
	}
	/* a write to the superblock: the undo file records it as it is now */
	return io->undo ? ek_undo_written(io->undo, start, total) : 0;
}

int ek_io_sync(struct ek_io *io)
{
	if (fdatasync(io->fd) < 0)
		return ek_err(-EIO, "cannot flush '%s': %s", io->path, strerror(errno));
	return 0;
}

/* ---- mounted targets ---- */

/*
 * The file behind loop device @rdev (or behind the loop device a partition
 * @rdev lies on) is @st: compared by device and inode, so other names of
 * the same file (hard links, bind mounts) count too.
 */
static bool loop_backs(dev_t rdev, const struct stat *st)
{
	static const char *const where[] = { "loop/backing_file", "../loop/backing_file" };
	char path[PATH_MAX], back[PATH_MAX];
	struct stat bs;
	bool same = false;

	for (size_t i = 0; i < 2 && !same; i++) {
		FILE *b;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", major(rdev), minor(rdev),
			 where[i]);
		b = fopen(path, "r");
		if (!b)
			continue;
		if (fgets(back, sizeof(back), b)) {
			back[strcspn(back, "\n")] = '\0';
			same = !stat(back, &bs) && bs.st_dev == st->st_dev && bs.st_ino == st->st_ino;
		}
		fclose(b);
	}
	return same;
}

bool ek_target_mounted(const char *path)
{
	struct stat st, ms;
	char src[4096], dir[4096];
	FILE *f;
	bool found = false;

	if (stat(path, &st))
		return false;
	f = fopen("/proc/self/mounts", "r");
	if (!f)
		return false;
	while (!found && fscanf(f, "%4095s %4095s %*[^\n]", src, dir) == 2) {
		if (stat(src, &ms) || !S_ISBLK(ms.st_mode))
			continue;
		if (S_ISBLK(st.st_mode))
			found = ms.st_rdev == st.st_rdev;
		else
			found = loop_backs(ms.st_rdev, &st);
	}
	fclose(f);
	return found;
}

uint64_t ek_io_hole_len(struct ek_io *io, uint64_t off, uint64_t len)
{
	off_t data;

	/* an overlay may hold blocks the file does not */
	if (io->overlay || off > io->size || len > io->size - off)
		return 0;
	data = lseek(io->fd, (off_t)(io->offset + off), SEEK_DATA);
	if (data < 0)
		return errno == ENXIO ? len : 0;	/* ENXIO: a hole to the end */
	if ((uint64_t)data <= io->offset + off)
		return 0;
	return (uint64_t)data - (io->offset + off) < len ? (uint64_t)data - (io->offset + off) : len;
}
