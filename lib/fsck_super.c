// SPDX-License-Identifier: MIT
/*
 * fsck_super.c - pass 0: the superblock's fields and the descriptors'
 * flags that the open path accepts but e2fsck's check_super_block() fixes:
 * the extra inode size hints, feature pairs that cannot
 * go together, first_meta_bg past the descriptors, uninit flags without
 * descriptor checksums, an uninit last group, an unused-inode count past
 * the free inodes, times in the future, the Hurd with filetype.
 *
 * Severities: e2fsck -n calls an image clean whatever its pass 0 found
 * (it marks the filesystem valid again after it); a warning here is what
 * the kernel tolerates too.  An unused-inodes count past the free inodes
 * is an error: the kernel's lazy init would zero inodes in use.
 */
#include <string.h>
#include <time.h>
#include "fsck_int.h"

#define SB_FUDGE 86400	/* e2fsck's accept_time_fudge: a day */
#define CREATOR_HURD 1	/* s_creator_os */
/* what e2fsck sets a bad extra-size hint to: a whole ext4_inode's extra part */
#define EXTRA_FULL ((uint16_t)(sizeof(struct ext4_inode) - EXT4_GOOD_OLD_INODE_SIZE))

/* the superblock inside the repair set (NULL: none, or no memory) */
static struct ext4_super_block *set_super(struct check *c)
{
	return c->ws ? ek_wset_super(c->ws) : NULL;
}

static int fix_u16(struct check *c, size_t off, uint16_t v)
{
	struct ext4_super_block *sb = set_super(c);

	if (!sb)
		return -ENOMEM;
	put_le16((uint8_t *)sb + off, v);
	return 0;
}

/* s_min_extra_isize or s_want_extra_isize: 0, or 4 to the room past 128
 * bytes, a multiple of 4 (e2fsck: else set to the 32 of a full inode) */
static void check_extra_isize(struct check *c, size_t off, const char *which)
{
	struct ek_fs *fs = c->fs;
	uint16_t v = get_le16((const uint8_t *)fs->raw_sb + off);
	uint32_t room = fs->inode_size - EXT4_GOOD_OLD_INODE_SIZE;

	if (fs->inode_size <= EXT4_GOOD_OLD_INODE_SIZE || !v)
		return;
	if (v >= 4 && v <= room && !(v & 3))
		return;
	if (fsck_report(c, EK_PR_SUPER_EXTRA_ISIZE, AT_GROUP(-1), which, v))
		fsck_fix_done(c, fix_u16(c, off, EXTRA_FULL));
}

/* s_mtime or s_wtime (at @lo, its high byte at @hi) more than a day past
 * now (e2fsck: set to now) */
static void check_time(struct check *c, size_t lo, size_t hi, const char *which)
{
	const uint8_t *raw = (const uint8_t *)c->fs->raw_sb;
	int64_t t = (int64_t)get_le32(raw + lo) | (int64_t)raw[hi] << 32;
	int64_t now = c->o->now, clock = (int64_t)time(NULL);

	/* the future of the wall clock too: a SOURCE_DATE_EPOCH "now" (for
	 * reproducible writes) is often older than the image */
	if (now <= 0 || t <= now + SB_FUDGE || t <= clock + SB_FUDGE)
		return;
	if (fsck_report(c, EK_PR_SUPER_TIME_FUTURE, AT_GROUP(-1), which, (long long)t,
			(long long)now)) {
		uint8_t *sb = (uint8_t *)set_super(c);

		if (sb)
			ek_time_set((__le32 *)(sb + lo), sb + hi, now);
		fsck_fix_done(c, sb ? 0 : -ENOMEM);
	}
}

/* a feature bit set or cleared, as a fix */
static void fix_feature(struct check *c, int kind, uint32_t mask, bool on)
{
	fsck_fix_done(c, ek_fix_super_feature(c->ws, kind, mask, on));
}

/* the descriptors' uninit flags and unused-inode counts against the features */
static void check_group_flags(struct check *c, uint32_t g)
{
	struct ek_fs *fs = c->fs;
	const uint8_t *d = fs->gd_raw + (size_t)g * fs->desc_size;
	uint32_t flags = ek_gd_get(fs, d, EK_GD_FLAGS);
	uint32_t unused = ek_gd_get(fs, d, EK_GD_ITABLE_UNUSED);
	uint32_t free_inodes = ek_gd_get(fs, d, EK_GD_FREE_INODES);
	bool csum = fs->has_csum || fs->has_gdt_csum;
	uint32_t uninit = EXT4_BG_BLOCK_UNINIT | EXT4_BG_INODE_UNINIT;

	if (!csum && ((flags & uninit) || unused)) {
		if (fsck_report(c, EK_PR_GROUP_UNINIT_NO_CSUM, AT_GROUP(g), g)) {
			int err = ek_fix_group_count(c->ws, g, EK_GD_FLAGS, flags & ~uninit);

			if (!err)
				err = ek_fix_group_count(c->ws, g, EK_GD_ITABLE_UNUSED, 0);
			fsck_fix_done(c, err);
		}
		return;
	}
	if (g == fs->group_count - 1 && (flags & EXT4_BG_BLOCK_UNINIT) &&
	    fsck_report(c, EK_PR_GROUP_LAST_BLOCK_UNINIT, AT_GROUP(g), g))
		fsck_fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_FLAGS,
						    flags & ~EXT4_BG_BLOCK_UNINIT));
	if (csum && (unused > free_inodes || unused > fs->sb.inodes_per_group) &&
	    fsck_report(c, EK_PR_GROUP_ITABLE_UNUSED, AT_GROUP(g), g, unused, free_inodes))
		fsck_fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_ITABLE_UNUSED, 0));
}

void fsck_check_super_fields(struct check *c)
{
	struct ek_fs *fs = c->fs;
	struct ext4_super_block *raw = fs->raw_sb;
	uint32_t incompat = le32_to_cpu(raw->s_feature_incompat);
	uint32_t ro = le32_to_cpu(raw->s_feature_ro_compat);

	check_extra_isize(c, offsetof(struct ext4_super_block, s_min_extra_isize), "min");
	check_extra_isize(c, offsetof(struct ext4_super_block, s_want_extra_isize), "want");
	if ((ro & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) && (ro & EXT4_FEATURE_RO_COMPAT_GDT_CSUM) &&
	    fsck_report(c, EK_PR_SUPER_CSUM_AND_UNINIT_BG, AT_GROUP(-1)))
		fix_feature(c, EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, false);
	if (!(ro & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) && (incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED) &&
	    fsck_report(c, EK_PR_SUPER_CSUM_SEED_ALONE, AT_GROUP(-1))) {
		struct ext4_super_block *sb = set_super(c);

		if (sb)
			sb->s_checksum_seed = 0;
		fix_feature(c, EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_CSUM_SEED, false);
	}
	if ((incompat & EXT4_FEATURE_INCOMPAT_64BIT) && !(incompat & EXT4_FEATURE_INCOMPAT_EXTENTS) &&
	    fsck_report(c, EK_PR_SUPER_64BIT_NO_EXTENTS, AT_GROUP(-1)))
		fix_feature(c, EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_EXTENTS, true);
	if (incompat & EXT4_FEATURE_INCOMPAT_META_BG) {
		uint32_t first = le32_to_cpu(raw->s_first_meta_bg);
		uint32_t desc_blocks = (fs->group_count + fs->desc_per_block - 1) / fs->desc_per_block;

		if (first > desc_blocks &&
		    fsck_report(c, EK_PR_SUPER_FIRST_META_BG, AT_GROUP(-1), first, desc_blocks)) {
			struct ext4_super_block *sb = set_super(c);

			if (sb)
				sb->s_first_meta_bg = 0;
			fix_feature(c, EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_META_BG, false);
		}
	}
	for (uint32_t g = 0; g < fs->group_count; g++)
		check_group_flags(c, g);
	if (le32_to_cpu(raw->s_creator_os) == CREATOR_HURD && (incompat & EXT4_FEATURE_INCOMPAT_FILETYPE) &&
	    fsck_report(c, EK_PR_SUPER_HURD_FILETYPE, AT_GROUP(-1)))
		fix_feature(c, EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_FILETYPE, false);
	/* as e2fsck: the times only on a check asked for (-f), or where a
	 * check interval makes the clock matter */
	if (!c->o->force && !le32_to_cpu(raw->s_checkinterval))
		return;
	check_time(c, offsetof(struct ext4_super_block, s_mtime),
		   offsetof(struct ext4_super_block, s_mtime_hi), "mount");
	check_time(c, offsetof(struct ext4_super_block, s_wtime),
		   offsetof(struct ext4_super_block, s_wtime_hi), "write");
}

/* ---- whether a clean filesystem is checked, and the stamp after a check ---- */

#define DAY 86400

const char *ek_fsck_force_reason(const struct ek_fs *fs, int64_t now, char *buf, size_t n)
{
	const struct ext4_super_block *raw = fs->raw_sb;
	int16_t max_mnt = (int16_t)le16_to_cpu(raw->s_max_mnt_count);
	uint16_t mnt = le16_to_cpu(raw->s_mnt_count);
	uint32_t interval = le32_to_cpu(raw->s_checkinterval);
	int64_t last = fs->sb.lastcheck;

	if (fs->sb.state & EXT4_ERROR_FS)
		snprintf(buf, n, "contains a file system with errors");
	else if (!(fs->sb.state & EXT4_VALID_FS))
		snprintf(buf, n, "was not cleanly unmounted");
	else if (max_mnt > 0 && mnt >= (uint16_t)max_mnt)
		snprintf(buf, n, "has been mounted %u times without being checked", mnt);
	else if (interval && now < last)
		snprintf(buf, n, "has filesystem last checked time in the future");
	else if (interval && now - last >= (int64_t)interval)
		snprintf(buf, n, "has gone %u days without being checked",
			 (unsigned)((now - last) / DAY));
	else
		return NULL;
	return buf;
}

int ek_fsck_mounts_to_check(const struct ek_fs *fs, int64_t now)
{
	const struct ext4_super_block *raw = fs->raw_sb;
	int16_t max_mnt = (int16_t)le16_to_cpu(raw->s_max_mnt_count);
	uint32_t interval = le32_to_cpu(raw->s_checkinterval);
	int next = 0;

	if (max_mnt > 0) {
		next = max_mnt - le16_to_cpu(raw->s_mnt_count);
		if (next <= 0)
			next = 1;
	}
	if (interval && now - fs->sb.lastcheck >= (int64_t)interval)
		next = 1;
	return next;
}

bool ek_fsck_desc_free_counts(const struct ek_fs *fs, uint64_t *blocks, uint32_t *inodes)
{
	uint64_t clusters = 0, ifree = 0;

	*blocks = 0;
	*inodes = 0;
	for (uint32_t g = 0; g < fs->group_count; g++) {
		uint64_t group_clusters = ((uint64_t)ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >>
					  fs->cluster_bits;

		if (fs->groups[g].free_blocks > group_clusters ||
		    fs->groups[g].free_inodes > fs->sb.inodes_per_group)
			return false;
		clusters += fs->groups[g].free_blocks;
		ifree += fs->groups[g].free_inodes;
	}
	*blocks = clusters << fs->cluster_bits;
	*inodes = ifree > UINT32_MAX ? UINT32_MAX : (uint32_t)ifree;
	return true;
}

int ek_fsck_skip_counts(struct ek_fs *fs)
{
	struct ext4_super_block sb;
	uint64_t blocks;
	uint32_t inodes;
	int err;

	if (!ek_fsck_desc_free_counts(fs, &blocks, &inodes))
		return -EK_CORRUPT;
	if (blocks == fs->sb.free_blocks_count && inodes == fs->sb.free_inodes_count)
		return 0;
	if (!(fs->flags & EK_OPEN_RW) || fs->sb_block)
		return -EROFS;
	err = ek_super_read_primary(fs->io, &sb);
	if (err)
		return err;
	ek_sb_set(&sb, EK_SB_FREE_BLOCKS_COUNT, blocks);
	sb.s_free_inodes_count = cpu_to_le32(inodes);
	err = ek_super_write_primary(fs->io, &sb);
	if (err)
		return err;
	fs->sb.free_blocks_count = blocks;
	fs->sb.free_inodes_count = inodes;
	return 1;
}

/*
 * After a whole check that may write (e2fsck does the same): the state is
 * valid when no error is left (else not valid), the check and write times
 * are now,
 * the mount count 0, and the kernel's record of errors (s_error_count up
 * to s_mount_opts) is cleared.  Not a fix: nothing is reported.
 */
int fsck_stamp_checked(struct check *c, bool errors_left)
{
	struct ext4_super_block *sb = set_super(c);
	uint16_t state;

	if (!sb)
		return -ENOMEM;
	state = le16_to_cpu(sb->s_state);
	sb->s_state = cpu_to_le16(errors_left ? state & ~EXT4_VALID_FS : EXT4_VALID_FS);
	if (c->o->now > 0) {
		ek_time_set(&sb->s_lastcheck, &sb->s_lastcheck_hi, c->o->now);
		ek_time_set(&sb->s_wtime, &sb->s_wtime_hi, c->o->now);
	}
	sb->s_mnt_count = 0;
	memset(&sb->s_error_count, 0,
	       offsetof(struct ext4_super_block, s_mount_opts) -
	       offsetof(struct ext4_super_block, s_error_count));
	return 0;
}
