// SPDX-License-Identifier: MIT
/*
 * undo.c - undo files: the original bytes of every range a tool writes,
 * saved (and flushed) before the write, so `extkit-replay undo` can put
 * the image back exactly.
 *
 * Format (little-endian):
 *   header  "EKUNDO01" magic[8], image_size u64, header_crc u32 (crc32c of
 *           the 16 bytes before it), pad u32
 *   record  offset u64, len u32, crc u32 (crc32c of offset, len, data), data[len]
 * Records are played back last first, so a range written twice gets its
 * oldest bytes back.  A torn last record (the tool was killed while saving
 * it) is ignored: its write had not happened yet.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "extkit.h"

#define UNDO_MAGIC "EKUNDO01"
#define UNDO_HDR 24
#define UNDO_REC 16
#define UNDO_MAX_REC (64u << 20)	/* no single write is larger */

struct ek_undo {
	int fd;
	char *path;
};

static int write_full(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

int ek_undo_create(const char *path, uint64_t image_size, struct ek_undo **out)
{
	uint8_t hdr[UNDO_HDR] = { 0 };
	struct ek_undo *u = calloc(1, sizeof(*u));
	int err;

	if (!u || !(u->path = strdup(path))) {
		free(u);
		return -ENOMEM;
	}
	/* never overwrite: an existing undo file may be the only way back */
	u->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (u->fd < 0) {
		err = ek_err(-errno, "cannot create undo file '%s': %s", path, strerror(errno));
		free(u->path);
		free(u);
		return err;
	}
	memcpy(hdr, UNDO_MAGIC, 8);
	put_le64(hdr + 8, image_size);
	put_le32(hdr + 16, ek_crc32c(~0u, hdr, 16));
	err = write_full(u->fd, hdr, sizeof(hdr));
	if (!err && fdatasync(u->fd) < 0)
		err = -errno;
	if (err) {
		ek_undo_close(u);
		return ek_err(err, "cannot write undo file '%s': %s", path, strerror(-err));
	}
	*out = u;
	return 0;
}

int ek_undo_save(struct ek_undo *u, uint64_t off, const void *orig, uint32_t len)
{
	uint8_t rec[UNDO_REC];
	uint32_t crc;
	int err;

	put_le64(rec, off);
	put_le32(rec + 8, len);
	crc = ek_crc32c(~0u, rec, 12);
	crc = ek_crc32c(crc, orig, len);
	put_le32(rec + 12, crc);
	err = write_full(u->fd, rec, sizeof(rec));
	if (!err)
		err = write_full(u->fd, orig, len);
	if (!err && fdatasync(u->fd) < 0)
		err = -errno;
	if (err)
		return ek_err(err, "cannot write undo file '%s': %s", u->path, strerror(-err));
	return 0;
}

void ek_undo_close(struct ek_undo *u)
{
	if (!u)
		return;
	close(u->fd);
	free(u->path);
	free(u);
}

struct undo_rec {
	uint64_t off;
	uint32_t len;
	off_t at;		/* where its data lies in the undo file */
};

int ek_undo_apply(const char *undo_path, struct ek_io *io, uint64_t *nrecords)
{
	uint8_t hdr[UNDO_HDR], rec[UNDO_REC], *data = NULL;
	struct undo_rec *recs = NULL;
	size_t n = 0, cap = 0;
	struct stat st;
	off_t pos = UNDO_HDR;
	int fd, err = 0;

	fd = open(undo_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ek_err(-errno, "cannot open undo file '%s': %s", undo_path, strerror(errno));
	if (fstat(fd, &st) < 0 || pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, UNDO_MAGIC, 8) || get_le32(hdr + 16) != ek_crc32c(~0u, hdr, 16)) {
		err = ek_corrupt_fs("'%s' is not an extkit undo file", undo_path);
		goto out;
	}
	if (get_le64(hdr + 8) != ek_io_size(io)) {
		err = ek_err(-EINVAL, "undo file '%s' was made for an image of %llu bytes, not %llu",
			     undo_path, (unsigned long long)get_le64(hdr + 8),
			     (unsigned long long)ek_io_size(io));
		goto out;
	}
	/* index the records; each must fit in the file and the image */
	while (pos + UNDO_REC <= st.st_size) {
		uint64_t off;
		uint32_t len;

		if (pread(fd, rec, sizeof(rec), pos) != (ssize_t)sizeof(rec))
			break;
		off = get_le64(rec);
		len = get_le32(rec + 8);
		if (len > UNDO_MAX_REC || pos + UNDO_REC + len > st.st_size)
			break;	/* torn last record */
		if (off > ek_io_size(io) || len > ek_io_size(io) - off) {
			err = ek_corrupt_fs("undo file '%s': record at %lld is outside the image",
					    undo_path, (long long)pos);
			goto out;
		}
		if (n == cap) {
			size_t c = cap ? cap * 2 : 64;
			struct undo_rec *v = realloc(recs, c * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				goto out;
			}
			recs = v;
			cap = c;
		}
		recs[n++] = (struct undo_rec){ off, len, pos + UNDO_REC };
		pos += UNDO_REC + len;
	}
	/* check every record before writing anything */
	{
		uint32_t maxlen = 1;

		for (size_t i = 0; i < n; i++)
			if (recs[i].len > maxlen)
				maxlen = recs[i].len;
		data = ek_malloc(maxlen);
		if (!data) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t crcbuf[4];
		uint32_t crc;

		if (pread(fd, data, recs[i].len, recs[i].at) != (ssize_t)recs[i].len ||
		    pread(fd, crcbuf, 4, recs[i].at - 4) != 4) {
			err = ek_err(-EIO, "cannot read undo file '%s'", undo_path);
			goto out;
		}
		put_le64(rec, recs[i].off);
		put_le32(rec + 8, recs[i].len);
		crc = ek_crc32c(ek_crc32c(~0u, rec, 12), data, recs[i].len);
		if (crc == get_le32(crcbuf))
			continue;
		if (i + 1 == n) {
			n--;	/* a torn last record: its write never happened */
			break;
		}
		err = ek_corrupt_fs("undo file '%s': record %zu fails its checksum", undo_path, i);
		goto out;
	}
	for (size_t i = n; i-- > 0;) {
		if (pread(fd, data, recs[i].len, recs[i].at) != (ssize_t)recs[i].len) {
			err = ek_err(-EIO, "cannot read undo file '%s'", undo_path);
			goto out;
		}
		err = ek_io_pwrite(io, data, recs[i].len, recs[i].off);
		if (err)
			goto out;
	}
	err = ek_io_sync(io);
	if (nrecords)
		*nrecords = n;
out:
	free(recs);
	free(data);
	close(fd);
	return err;
}
