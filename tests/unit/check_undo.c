// SPDX-License-Identifier: MIT
/*
 * check_undo.c - the E2UNDO02 codec (header, key block), the writer behind
 * ek_io_pwrite and ek_undo_apply's checks: every refusal is reached, each
 * leaves the image as it was, and --force turns it into a flag.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include "unit.h"

#define BS	1024u
#define ISIZE	(256u * 1024 + 512)	/* a short last block */

static char dir[64], img[128], undo[128], other[128];
static uint8_t orig[ISIZE];

static void write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static size_t read_file(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, len);
	close(fd);
	ck_assert_int_ge(n, 0);
	return n;
}

/* an image: a pattern, and at 1024 a superblock (magic, valid, a UUID) */
static void make_image(const char *path, uint8_t uuid0, uint8_t *out)
{
	struct ext4_super_block *sb = (struct ext4_super_block *)(out + 1024);

	for (size_t i = 0; i < ISIZE; i++)
		out[i] = (uint8_t)(i * 7 + i / 1024);
	memset(sb, 0, sizeof(*sb));
	sb->s_magic = cpu_to_le16(EXT4_SUPER_MAGIC);
	sb->s_state = cpu_to_le16(EXT4_VALID_FS);
	sb->s_uuid[0] = uuid0;
	sb->s_wtime = cpu_to_le32(1000);
	write_file(path, out, ISIZE);
}

static void setup(void)
{
	strcpy(dir, "/tmp/ek-undo-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/img", dir);
	snprintf(undo, sizeof(undo), "%s/undo", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	make_image(img, 1, orig);
}

static void teardown(void)
{
	unlink(img);
	unlink(undo);
	unlink(other);
	rmdir(dir);
}

static void pw(struct ek_io *io, uint64_t off, size_t len, uint8_t v)
{
	uint8_t buf[8192];

	ck_assert_uint_le(len, sizeof(buf));
	memset(buf, v, len);
	ck_assert_int_eq(ek_io_pwrite(io, buf, len, off), 0);
}

/*
 * The tool: writes that extend a key (blocks 4..8), the superblock, the
 * short last block, a block written twice, then 70 scattered blocks so the
 * keys spill into a second key block (63 keys per 1 KiB block).
 */
static void run_tool(void)
{
	struct ek_io *io;
	struct ek_undo *u;

	ck_assert_int_eq(ek_io_open(img, EK_IO_RW, 0, &io), 0);
	ck_assert_int_eq(ek_undo_create(undo, io, BS, &u), 0);
	ck_assert_int_eq(ek_io_set_undo(io, u), 0);
	pw(io, 5000, 100, 0xA1);
	pw(io, 6000, 3000, 0xA2);
	pw(io, 1024 + 0x30, 4, 0xA3);		/* s_wtime: the superblock changes */
	pw(io, ISIZE - 100, 50, 0xA4);
	pw(io, 5000, 10, 0xA5);
	for (int i = 0; i < 70; i++)
		pw(io, (uint64_t)(20 + 2 * i) * BS + 7, 9, 0xA6);
	ck_assert_int_eq(ek_undo_close(u), 0);
	ek_io_close(io);
}

static void decode_hdr(struct ek_undo_hdr *h)
{
	uint8_t raw[512];

	ck_assert_uint_eq(read_file(undo, raw, sizeof(raw)), sizeof(raw));
	ck_assert_int_eq(ek_undo_hdr_decode(raw, false, h), 0);
}

START_TEST(test_hdr_roundtrip)
{
	struct ek_undo_hdr h = {
		.num_keys = 0x1122334455ull, .super_offset = 1, .key_offset = 2,
		.block_size = 4096, .fs_block_size = 1024, .sb_crc = 0xDEADBEEF,
		.state = E2UNDO_STATE_FINISHED, .f_compat = E2UNDO_COMPAT_FS_OFFSET,
		.fs_offset = 1048576,
	}, d;
	uint8_t raw[512];

	ek_undo_hdr_encode(&h, raw);
	ck_assert_int_eq(memcmp(raw, "E2UNDO02", 8), 0);
	ck_assert_uint_eq(get_le64(raw + 0x08), h.num_keys);
	ck_assert_uint_eq(get_le32(raw + 0x20), 4096);
	ck_assert_uint_eq(get_le32(raw + 0x24), 1024);
	ck_assert_uint_eq(get_le32(raw + 0x28), 0xDEADBEEF);
	ck_assert_uint_eq(get_le32(raw + 0x2C), 1);
	ck_assert_uint_eq(get_le64(raw + 0x40), 1048576);
	ck_assert_uint_eq(get_le32(raw + 0x1FC), ek_crc32c(~0u, raw, 0x1FC));
	ck_assert_int_eq(ek_undo_hdr_decode(raw, false, &d), 0);
	ck_assert_uint_eq(d.num_keys, h.num_keys);
	ck_assert_uint_eq(d.block_size, 4096);
	ck_assert_uint_eq(d.fs_block_size, 1024);
	ck_assert_uint_eq(d.sb_crc, 0xDEADBEEF);
	ck_assert_uint_eq(d.fs_offset, 1048576);
	ck_assert(!d.crc_bad && !d.unknown_features);
	/* fs_offset counts only with the FS_OFFSET feature */
	h.f_compat = 0;
	ek_undo_hdr_encode(&h, raw);
	ck_assert_int_eq(ek_undo_hdr_decode(raw, false, &d), 0);
	ck_assert_uint_eq(d.fs_offset, 0);
}
END_TEST

/* each breaks one rule of the header; force: whether it becomes a flag */
static const struct { const char *what; int err; bool forced_ok; } bad_hdr[] = {
	{ "magic", -EK_CORRUPT, false },
	{ "incompat", -EK_UNSUPP, true },
	{ "rocompat", -EK_UNSUPP, true },
	{ "crc", -EK_BADCRC, true },
	{ "block size small", -EK_CORRUPT, false },
	{ "block size large", -EK_CORRUPT, false },
	{ "fs block size 0", -EK_CORRUPT, false },
	{ "super offset 0", -EK_CORRUPT, false },
	{ "key offset = super offset", -EK_CORRUPT, false },
};

START_TEST(test_hdr_bad)
{
	struct ek_undo_hdr h = { .super_offset = 1, .key_offset = 2, .block_size = 1024,
				 .fs_block_size = 1024 }, d;
	uint8_t raw[512];

	switch (_i) {
	case 4: h.block_size = 512; break;
	case 5: h.block_size = 2u << 20; break;
	case 6: h.fs_block_size = 0; break;
	case 7: h.super_offset = 0; break;
	case 8: h.key_offset = 1; break;
	}
	ek_undo_hdr_encode(&h, raw);
	switch (_i) {
	case 0: raw[7] = '1'; break;
	case 1: put_le32(raw + 0x34, 1); break;
	case 2: put_le32(raw + 0x38, 1); break;
	case 3: raw[0x100] ^= 1; break;
	}
	if (_i == 1 || _i == 2)	/* a valid crc: the feature check itself refuses */
		put_le32(raw + 0x1FC, ek_crc32c(~0u, raw, 0x1FC));
	ck_assert_msg(ek_undo_hdr_decode(raw, false, &d) == bad_hdr[_i].err, "%s", bad_hdr[_i].what);
	if (bad_hdr[_i].forced_ok) {
		ck_assert_int_eq(ek_undo_hdr_decode(raw, true, &d), 0);
		ck_assert(_i == 3 ? d.crc_bad : d.unknown_features);
	} else {
		ck_assert_int_lt(ek_undo_hdr_decode(raw, true, &d), 0);
	}
}
END_TEST

START_TEST(test_keyblock)
{
	uint8_t kb[BS] = { 0 }, z[BS];

	put_le64(kb + 16, 77);
	put_le32(kb + 24, 0x1234);
	put_le32(kb + 28, 1024);
	ek_undo_keyblock_seal(kb, BS);
	ck_assert_uint_eq(get_le32(kb), E2UNDO_KEY_MAGIC);
	/* the crc is crc32c(~0) of the block with the crc field zero */
	memcpy(z, kb, BS);
	put_le32(z + 4, 0);
	ck_assert_uint_eq(get_le32(kb + 4), ek_crc32c(~0u, z, BS));
	ck_assert_int_eq(ek_undo_keyblock_check(kb, BS, 2), 0);
	kb[BS - 1] ^= 1;
	ck_assert_int_eq(ek_undo_keyblock_check(kb, BS, 2), -EK_BADCRC);
	ek_undo_keyblock_seal(kb, BS);
	put_le32(kb, 0xCADECADF);
	ck_assert_int_eq(ek_undo_keyblock_check(kb, BS, 2), -EK_CORRUPT);
	ck_assert_uint_eq(ek_undo_keys_per_block(BS), 63);
}
END_TEST

/* write, check the layout, restore: the original bytes */
START_TEST(test_roundtrip)
{
	static uint8_t now[ISIZE], file[256 * 1024];
	struct ek_undo_result res;
	struct ek_undo_hdr h;
	size_t n;

	run_tool();
	decode_hdr(&h);
	/* keys: blocks 4..8 (one), 1, the short block 256, 70 scattered */
	ck_assert_uint_eq(h.num_keys, 73);
	ck_assert_uint_eq(h.state, E2UNDO_STATE_FINISHED);
	ck_assert_uint_eq(h.block_size, BS);
	ck_assert_uint_eq(h.super_offset, 1);
	ck_assert_uint_eq(h.key_offset, 2);
	n = read_file(undo, file, sizeof(file));
	ck_assert_int_eq(ek_undo_keyblock_check(file + 2 * BS, BS, 2), 0);
	ck_assert_uint_eq(get_le64(file + 2 * BS + 16), 4);		/* first key */
	ck_assert_uint_eq(get_le32(file + 2 * BS + 28), 5 * BS);	/* grew to 5 blocks */
	ck_assert_uint_eq(get_le32(file + 2 * BS + 24), ek_crc32c(~0u, orig + 4 * BS, 5 * BS));
	ck_assert_uint_eq(get_le32(file + 2 * BS + 16 + 2 * 16 + 12), 512);	/* the short one */
	/* the second key block follows the 63rd key's bytes: 3 + 5 + 1 + 1 + 60 */
	ck_assert_int_eq(ek_undo_keyblock_check(file + 70 * BS, BS, 70), 0);
	ck_assert_uint_eq(n, 81 * BS);
	/* the copy is the superblock as the tool left it, magic inverted */
	read_file(img, now, ISIZE);
	ck_assert_uint_eq(get_le16(file + BS + 0x38), (uint16_t)~EXT4_SUPER_MAGIC);
	ck_assert_int_eq(memcmp(file + BS + 0x3A, now + 1024 + 0x3A, 1024 - 0x3A), 0);

	ck_assert_int_eq(ek_undo_apply(undo, img, 0, &res), 0);
	ck_assert(res.finished && !res.marked && !res.sb_mismatch);
	ck_assert_uint_eq(res.keys, 73);
	read_file(img, now, ISIZE);
	ck_assert_int_eq(memcmp(now, orig, ISIZE), 0);
	/* again: the superblock is no longer the recorded one */
	ck_assert_int_eq(ek_undo_apply(undo, img, 0, &res), -EINVAL);
	ck_assert(res.sb_mismatch && !res.other_fs);
}
END_TEST

START_TEST(test_create)
{
	struct ek_io *io, *io2;
	struct ek_undo *u;

	ck_assert_int_eq(ek_io_open(img, EK_IO_RW, 0, &io), 0);
	ck_assert_int_eq(ek_undo_create(undo, io, 1000, &u), -EINVAL);
	ck_assert_int_eq(ek_undo_create(undo, io, BS, &u), 0);
	/* never overwrites an undo file */
	ck_assert_int_eq(ek_undo_create(undo, io, BS, &u), -EEXIST);
	make_image(other, 2, (uint8_t[ISIZE]){ 0 });
	ck_assert_int_eq(ek_io_open(other, EK_IO_RW, 0, &io2), 0);
	ck_assert_int_eq(ek_io_set_undo(io2, u), -EINVAL);
	ck_assert_int_eq(ek_io_set_undo(io, u), 0);
	ck_assert_int_eq(ek_io_set_undo(io, NULL), 0);
	ck_assert_int_eq(ek_undo_close(u), 0);
	ck_assert_int_eq(ek_undo_close(NULL), 0);
	ek_io_close(io);
	ek_io_close(io2);
}
END_TEST

/* rewrite the header through the codec after @edit */
static void edit_hdr(void (*edit)(struct ek_undo_hdr *))
{
	uint8_t raw[512];
	struct ek_undo_hdr h;
	int fd;

	decode_hdr(&h);
	edit(&h);
	ek_undo_hdr_encode(&h, raw);
	fd = open(undo, O_WRONLY);
	ck_assert_int_eq(pwrite(fd, raw, sizeof(raw), 0), (ssize_t)sizeof(raw));
	close(fd);
}

static void poke(uint64_t off, uint8_t x)
{
	int fd = open(undo, O_RDWR);
	uint8_t b;

	ck_assert_int_eq(pread(fd, &b, 1, off), 1);
	b ^= x;
	ck_assert_int_eq(pwrite(fd, &b, 1, off), 1);
	close(fd);
}

/* rewrite key @i of key block @kb (undo block) with @fsblk/@size, resealed */
static void set_key(uint64_t kb, uint32_t i, uint64_t fsblk, uint32_t size)
{
	uint8_t b[BS];
	int fd = open(undo, O_RDWR);

	ck_assert_int_eq(pread(fd, b, BS, kb * BS), BS);
	if (fsblk != UINT64_MAX)
		put_le64(b + 16 + 16 * i, fsblk);
	put_le32(b + 16 + 16 * i + 12, size);
	ek_undo_keyblock_seal(b, BS);
	ck_assert_int_eq(pwrite(fd, b, BS, kb * BS), BS);
	close(fd);
}

/*
 * ek_undo_resume: a second run goes on with the first run's file (blocks
 * saved already are not saved again), and the file restores the image as
 * it was before both runs; an empty file is started afresh
 */
START_TEST(test_resume)
{
	static uint8_t now[ISIZE];
	struct ek_undo_result res;
	struct ek_undo_hdr h;
	struct ek_io *io;
	struct ek_undo *u;

	write_file(undo, "", 0);
	ck_assert_int_eq(ek_io_open(img, EK_IO_RW, 0, &io), 0);
	ck_assert_int_eq(ek_undo_resume(undo, io, BS, &u), 0);	/* empty: afresh */
	ck_assert_int_eq(ek_io_set_undo(io, u), 0);
	pw(io, 5000, 100, 0xB1);
	pw(io, 1024 + 0x30, 4, 0xB2);
	ck_assert_int_eq(ek_undo_close(u), 0);
	ek_io_close(io);
	decode_hdr(&h);
	ck_assert_uint_eq(h.num_keys, 2);
	/* the second run: 70 new blocks (a second key block) and the same ones again */
	ck_assert_int_eq(ek_io_open(img, EK_IO_RW, 0, &io), 0);
	ck_assert_int_eq(ek_undo_resume(undo, io, 4 * BS, &u), 0);	/* the file's block size wins */
	ck_assert_int_eq(ek_io_set_undo(io, u), 0);
	pw(io, 5000, 300, 0xB3);
	pw(io, 1024 + 0x30, 4, 0xB4);
	for (int i = 0; i < 70; i++)
		pw(io, (uint64_t)(20 + 2 * i) * BS + 7, 9, 0xB5);
	ck_assert_int_eq(ek_undo_close(u), 0);
	ek_io_close(io);
	decode_hdr(&h);
	ck_assert_uint_eq(h.num_keys, 73);	/* 2, then block 5 and the 70 */
	ck_assert_uint_eq(h.block_size, BS);
	ck_assert_uint_eq(h.state, E2UNDO_STATE_FINISHED);
	ck_assert_int_eq(ek_undo_apply(undo, img, 0, &res), 0);
	read_file(img, now, ISIZE);
	ck_assert_int_eq(memcmp(now, orig, ISIZE), 0);
}
END_TEST

/* what ek_undo_resume refuses, writing nothing: each case's error */
enum { RS_JUNK, RS_SHORT, RS_OTHER_FS, RS_KEYS_PAST, RS_KEY_PAST, RS_KB_CRC, RS_NCASES };
static void resume_many_keys(struct ek_undo_hdr *h) { h->num_keys = 1ull << 40; }

START_TEST(test_resume_refusals)
{
	static const int want[RS_NCASES] = { -EK_CORRUPT, -EK_CORRUPT, -EINVAL, -EK_CORRUPT,
					     -EK_CORRUPT, -EK_CORRUPT };
	static uint8_t before[ISIZE], now[ISIZE], file_before[128 * 1024], file_now[128 * 1024];
	struct ek_io *io;
	struct ek_undo *u = NULL;
	size_t n1, n2;

	run_tool();
	switch (_i) {
	case RS_JUNK: memset(file_now, 'x', 4096); write_file(undo, file_now, 4096); break;
	case RS_SHORT: write_file(undo, "E2UNDO02", 8); break;
	case RS_OTHER_FS: make_image(img, 2, before); break;	/* another filesystem now */
	case RS_KEYS_PAST: edit_hdr(resume_many_keys); break;
	case RS_KEY_PAST: set_key(70, 9, UINT64_MAX, 500 * BS); break;	/* the last key */
	case RS_KB_CRC: poke(2 * BS + 100, 0x10); break;
	}
	read_file(img, before, ISIZE);
	n1 = read_file(undo, file_before, sizeof(file_before));
	ck_assert_int_eq(ek_io_open(img, EK_IO_RW, 0, &io), 0);
	ck_assert_int_eq(ek_undo_resume(undo, io, BS, &u), want[_i]);
	ck_assert_ptr_null(u);
	ek_io_close(io);
	read_file(img, now, ISIZE);
	ck_assert_int_eq(memcmp(now, before, ISIZE), 0);
	n2 = read_file(undo, file_now, sizeof(file_now));
	ck_assert_uint_eq(n1, n2);
	ck_assert_int_eq(memcmp(file_before, file_now, n1), 0);
}
END_TEST

static void unfinish(struct ek_undo_hdr *h) { h->state = 0; }
static void more_keys(struct ek_undo_hdr *h) { h->num_keys = 200; }
static void many_keys(struct ek_undo_hdr *h) { h->num_keys = 1ull << 40; }
static void sb_far(struct ek_undo_hdr *h) { h->super_offset = 1000; }
static void feature(struct ek_undo_hdr *h) { h->f_rocompat = 4; }

/*
 * Refusals after a tool run: each leaves the image as the tool left it;
 * forced: restored (or skipped) with the flag set and the fs marked.
 */
enum { R_HDR_CRC, R_SB_CRC, R_OTHER_FS, R_CHANGED, R_KB_MAGIC, R_KB_CRC, R_DATA_CRC,
       R_KEY_LONG, R_KEY_PAST_FILE, R_KEY_PAST_IMAGE, R_KB_PAST_END, R_NUM_KEYS,
       R_SB_PAST_END, R_FEATURE, R_SHORT, R_NCASES };
static const int refusal_err[R_NCASES] = {
	-EK_BADCRC, -EK_BADCRC, -EINVAL, -EINVAL, -EK_CORRUPT, -EK_BADCRC, -EK_BADCRC,
	-EK_CORRUPT, -EK_CORRUPT, -EK_CORRUPT, -EK_CORRUPT, -EK_CORRUPT,
	-EK_CORRUPT, -EK_UNSUPP, -EK_CORRUPT,
};

START_TEST(test_refusals)
{
	static uint8_t before[ISIZE], now[ISIZE];
	struct ek_undo_result res;
	bool forceable = true;
	int err;

	run_tool();
	switch (_i) {
	case R_HDR_CRC: poke(0x100, 1); break;
	case R_SB_CRC: poke(BS + 0x100, 1); break;
	case R_OTHER_FS: make_image(img, 9, before); break;
	case R_CHANGED: {
		int fd = open(img, O_RDWR);

		ck_assert_int_eq(pwrite(fd, "x", 1, 1024 + 0x2C), 1);	/* s_mtime */
		close(fd);
		break;
	}
	case R_KB_MAGIC: poke(2 * BS, 1); break;
	case R_KB_CRC: poke(2 * BS + 900, 1); break;
	case R_DATA_CRC: poke(3 * BS + 10, 1); break;
	case R_KEY_LONG: set_key(2, 0, UINT64_MAX, 513 * BS); forceable = false; break;
	case R_KEY_PAST_FILE: set_key(70, 9, UINT64_MAX, 8 * BS); break;
	case R_KEY_PAST_IMAGE: set_key(2, 1, 300, BS); break;
	case R_KB_PAST_END: edit_hdr(more_keys); break;
	case R_NUM_KEYS: edit_hdr(many_keys); forceable = false; break;
	case R_SB_PAST_END: edit_hdr(sb_far); forceable = false; break;
	case R_FEATURE: edit_hdr(feature); break;
	case R_SHORT: {
		ck_assert_int_eq(truncate(undo, 100), 0);
		forceable = false;
		break;
	}
	}
	read_file(img, before, ISIZE);
	err = ek_undo_apply(undo, img, 0, &res);
	ck_assert_msg(err == refusal_err[_i], "case %d: %d (%s)", _i, err, ek_error_msg(err));
	read_file(img, now, ISIZE);
	ck_assert_msg(!memcmp(now, before, ISIZE), "case %d wrote to the image", _i);
	err = ek_undo_apply(undo, img, EK_UNDO_FORCE, &res);
	if (!forceable) {
		ck_assert_int_lt(err, 0);
		return;
	}
	ck_assert_msg(err == 0, "case %d forced: %s", _i, ek_error_msg(err));
	ck_assert(res.marked);
	switch (_i) {
	case R_HDR_CRC: ck_assert(res.hdr.crc_bad); break;
	case R_SB_CRC: ck_assert(res.sb_crc_bad); break;
	case R_OTHER_FS: ck_assert(res.sb_mismatch && res.other_fs); break;
	case R_CHANGED: ck_assert(res.sb_mismatch && !res.other_fs); break;
	case R_KB_MAGIC: case R_KB_CRC: ck_assert_uint_eq(res.bad_keyblocks, 1); break;
	case R_DATA_CRC: ck_assert_uint_eq(res.bad_data, 1); break;
	case R_KEY_PAST_FILE: case R_KEY_PAST_IMAGE: ck_assert_uint_ge(res.skipped, 1); break;
	case R_KB_PAST_END: ck_assert_uint_eq(res.skipped, 200 - 126); break;	/* 63 read from block 70 */
	case R_FEATURE: ck_assert(res.hdr.unknown_features); break;
	}
	/* marked: EXT4_VALID_FS clear; EXT4_ERROR_FS after damaged or skipped ranges */
	read_file(img, now, ISIZE);
	ck_assert_uint_eq(get_le16(now + 1024 + 0x3A) & EXT4_VALID_FS, 0);
	ck_assert_uint_eq(!!(get_le16(now + 1024 + 0x3A) & EXT4_ERROR_FS),
			  res.bad_data || res.skipped);
}
END_TEST

/* an unfinished file restores what it holds and marks the fs for a check */
START_TEST(test_unfinished)
{
	static uint8_t now[ISIZE];
	struct ek_undo_result res;

	run_tool();
	edit_hdr(unfinish);
	ck_assert_int_eq(ek_undo_apply(undo, img, 0, &res), 0);
	ck_assert(!res.finished && res.marked);
	ck_assert_uint_eq(res.keys, 73);
	read_file(img, now, ISIZE);
	ck_assert_uint_eq(get_le16(now + 1024 + 0x3A), 0);	/* was EXT4_VALID_FS */
	now[1024 + 0x3A] = EXT4_VALID_FS;
	ck_assert_int_eq(memcmp(now, orig, ISIZE), 0);
}
END_TEST

/* a restored "image" that holds no ext superblock is not marked */
START_TEST(test_unfinished_no_super)
{
	static uint8_t now[ISIZE];
	struct ek_undo_result res;
	struct ek_io *io;
	struct ek_undo *u;

	ck_assert_int_eq(ek_io_open(img, EK_IO_RW, 0, &io), 0);
	pw(io, 1024 + 0x38, 2, 0);	/* no magic before the undo starts */
	ck_assert_int_eq(ek_undo_create(undo, io, BS, &u), 0);
	ck_assert_int_eq(ek_io_set_undo(io, u), 0);
	pw(io, 9000, 10, 1);
	ck_assert_int_eq(ek_undo_close(u), 0);
	ek_io_close(io);
	edit_hdr(unfinish);
	read_file(img, now, ISIZE);
	ck_assert_int_eq(ek_undo_apply(undo, img, 0, &res), 0);
	ck_assert(!res.marked && res.not_marked);
}
END_TEST

static Suite *undo_suite(void)
{
	Suite *s = suite_create("undo");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hdr_roundtrip);
	tcase_add_loop_test(tc, test_hdr_bad, 0, sizeof(bad_hdr) / sizeof(bad_hdr[0]));
	tcase_add_test(tc, test_keyblock);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_create);
	tcase_add_loop_test(tc, test_refusals, 0, R_NCASES);
	tcase_add_test(tc, test_resume);
	tcase_add_loop_test(tc, test_resume_refusals, 0, RS_NCASES);
	tcase_add_test(tc, test_unfinished);
	tcase_add_test(tc, test_unfinished_no_super);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(undo_suite)
