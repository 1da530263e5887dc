/* SPDX-License-Identifier: MIT */
/*
 * unit.h - helpers for Check unit tests: a small filesystem built in a
 * memfd, so that lib functions taking a struct ek_fs run on blocks the
 * test writes itself.  Geometry: one group, @blksz-byte blocks, 64 blocks
 * per ... see unit_fs_new().
 */
#ifndef EK_UNIT_H
#define EK_UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "extkit.h"

struct unit_fs {
	int fd;
	char path[64];
	uint32_t blksz;
	uint32_t nblocks;
	struct ext4_super_block sb;
	struct ext4_group_desc gd;	/* group 0, written by unit_fs_open() */
	struct ek_fs *fs;
};

/* where unit_fs_new() puts things */
#define UNIT_BB		3	/* block bitmap */
#define UNIT_IB		4	/* inode bitmap */
#define UNIT_IT		5	/* inode table (8 blocks at 1k with 256-byte inodes: 32 inodes) */
#define UNIT_INODES	32
#define UNIT_FREE	16	/* first block free for test data */

/*
 * A one-group filesystem of @nblocks blocks of @blksz bytes with 256-byte
 * inodes and the given feature words.  The superblock checksum is set
 * when metadata_csum is on.  Open with unit_fs_open() after writing.
 */
static inline void unit_fs_init(struct unit_fs *u, uint32_t blksz, uint32_t nblocks,
				uint32_t compat, uint32_t incompat, uint32_t ro_compat)
{
	struct ext4_super_block *s = &u->sb;
	uint32_t log = 0;

	memset(u, 0, sizeof(*u));
	while ((1024u << log) < blksz)
		log++;
	u->blksz = blksz;
	u->nblocks = nblocks;
	u->fd = memfd_create("unit-fs", 0);
	ck_assert_int_ge(u->fd, 0);
	snprintf(u->path, sizeof(u->path), "/proc/self/fd/%d", u->fd);
	ck_assert_int_eq(ftruncate(u->fd, (off_t)blksz * nblocks), 0);

	s->s_inodes_count = cpu_to_le32(UNIT_INODES);
	s->s_blocks_count_lo = cpu_to_le32(nblocks);
	s->s_free_blocks_count_lo = cpu_to_le32(nblocks - UNIT_FREE);
	s->s_free_inodes_count = cpu_to_le32(UNIT_INODES - 11);
	s->s_first_data_block = cpu_to_le32(blksz == 1024 ? 1 : 0);
	s->s_log_block_size = cpu_to_le32(log);
	s->s_log_cluster_size = cpu_to_le32(log);
	s->s_blocks_per_group = cpu_to_le32(blksz * 8);
	s->s_clusters_per_group = cpu_to_le32(blksz * 8);
	s->s_inodes_per_group = cpu_to_le32(UNIT_INODES);
	s->s_magic = cpu_to_le16(EXT4_SUPER_MAGIC);
	s->s_state = cpu_to_le16(EXT4_VALID_FS);
	s->s_rev_level = cpu_to_le32(EXT4_DYNAMIC_REV);
	s->s_first_ino = cpu_to_le32(11);
	s->s_inode_size = cpu_to_le16(256);
	s->s_min_extra_isize = cpu_to_le16(32);
	s->s_want_extra_isize = cpu_to_le16(32);
	s->s_feature_compat = cpu_to_le32(compat);
	s->s_feature_incompat = cpu_to_le32(incompat);
	s->s_feature_ro_compat = cpu_to_le32(ro_compat);
	s->s_desc_size = cpu_to_le16((incompat & EXT4_FEATURE_INCOMPAT_64BIT) ? 64 : 0);
	s->s_checksum_type = EXT4_CRC32C_CHKSUM;
	s->s_def_hash_version = EXT4_HASH_HALF_MD4;
	s->s_flags = cpu_to_le32(EXT2_FLAGS_SIGNED_HASH);
	for (int i = 0; i < 16; i++)
		s->s_uuid[i] = 0x10 + i;
	for (int i = 0; i < 4; i++)
		s->s_hash_seed[i] = cpu_to_le32(0x01020304u * (i + 1));
	u->gd.bg_block_bitmap_lo = cpu_to_le32(UNIT_BB);
	u->gd.bg_inode_bitmap_lo = cpu_to_le32(UNIT_IB);
	u->gd.bg_inode_table_lo = cpu_to_le32(UNIT_IT);
}

static inline void unit_write(struct unit_fs *u, uint64_t blk, uint32_t off,
			      const void *buf, size_t len)
{
	ck_assert_int_eq(pwrite(u->fd, buf, len, (off_t)blk * u->blksz + off), (ssize_t)len);
	if (u->fs)
		ek_inode_cache_drop(u->fs);	/* the test writes behind the library */
}

/* write the superblock and descriptor, then open; *fs in u->fs */
static inline int unit_fs_open(struct unit_fs *u, unsigned flags)
{
	uint32_t gdt_blk = u->blksz == 1024 ? 2 : 1;
	struct ek_open_opts o = { .flags = flags };

	if (le32_to_cpu(u->sb.s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		u->sb.s_checksum = cpu_to_le32(ek_super_csum(&u->sb));
	ck_assert_int_eq(pwrite(u->fd, &u->sb, 1024, 1024), 1024);
	unit_write(u, gdt_blk, 0, &u->gd, 32);
	if (u->fs)
		ek_fs_close(u->fs);
	u->fs = NULL;
	return ek_fs_open(u->path, &o, &u->fs);
}

static inline void unit_fs_done(struct unit_fs *u)
{
	ek_fs_close(u->fs);
	u->fs = NULL;
	close(u->fd);
}

/* write raw inode @ino (256 bytes), setting its checksum if metadata_csum */
static inline void unit_put_inode(struct unit_fs *u, ek_ino_t ino, struct ext4_inode *raw256)
{
	uint8_t buf[256] = { 0 };

	memcpy(buf, raw256, sizeof(*raw256));
	if (u->fs && u->fs->has_csum) {
		uint32_t c = ek_inode_csum(u->fs, ino, buf);

		put_le16(buf + offsetof(struct ext4_inode, l_i_checksum_lo), c & 0xFFFF);
		put_le16(buf + offsetof(struct ext4_inode, i_checksum_hi), c >> 16);
	}
	ck_assert_int_eq(pwrite(u->fd, buf, 256, (off_t)UNIT_IT * u->blksz + (ino - 1) * 256), 256);
	if (u->fs)
		ek_inode_cache_drop(u->fs);
}

/* set bit @bit of bitmap @b */
static inline void unit_set_bit(uint8_t *b, unsigned bit)
{
	b[bit / 8] |= (uint8_t)(1u << (bit % 8));
}

/* one row of a table of refused inputs: the case, the error, a phrase of its message */
struct unit_bad {
	const char *what;
	int err;
	const char *msg;
};

/* @err is the row's error, and the last error's message (or @warning if the
 * row expects success) holds its phrase */
static inline void unit_assert_bad(const struct unit_bad *b, int err, const char *warning)
{
	const char *msg = b->err ? ek_last_error()->msg : warning;

	ck_assert_msg(err == b->err, "case '%s': got %d (%s)", b->what, err, ek_last_error()->msg);
	ck_assert_msg(msg && strstr(msg, b->msg), "case '%s': message '%s'", b->what,
		      msg ? msg : "(none)");
}

/* common main: each suite file defines suite_fn() */
#define UNIT_MAIN(suite_fn)						\
	int main(void)							\
	{								\
		SRunner *sr = srunner_create(suite_fn());		\
		int failed;						\
		srunner_run_all(sr, CK_NORMAL);				\
		failed = srunner_ntests_failed(sr);			\
		srunner_free(sr);					\
		return failed ? 1 : 0;					\
	}

/* extent tree nodes for map tests: header, extent @i, index entry @i */
static inline void put_header(uint8_t *p, uint16_t entries, uint16_t max, uint16_t depth)
{
	put_le16(p, EXT4_EXT_MAGIC);
	put_le16(p + 2, entries);
	put_le16(p + 4, max);
	put_le16(p + 6, depth);
}

static inline void put_extent(uint8_t *p, unsigned i, uint32_t lblk, uint16_t len, uint64_t pblk)
{
	uint8_t *e = p + 12 + 12 * i;

	put_le32(e, lblk);
	put_le16(e + 4, len);
	put_le16(e + 6, pblk >> 32);
	put_le32(e + 8, (uint32_t)pblk);
}

static inline void put_index(uint8_t *p, unsigned i, uint32_t lblk, uint64_t child)
{
	uint8_t *e = p + 12 + 12 * i;

	put_le32(e, lblk);
	put_le32(e + 4, (uint32_t)child);
	put_le16(e + 8, child >> 32);
}

#endif /* EK_UNIT_H */
