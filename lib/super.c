// SPDX-License-Identifier: MIT
/*
 * super.c - superblock decode and validation, feature names, field table.
 *
 * Validation order (as ext2fs_open2 and the kernel's ext4_fill_super):
 * magic, then unknown INCOMPAT features refused, then the checksum, and
 * only then the geometry and cross-field rules.  Nothing computed from the
 * geometry is trusted before all of it passed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "extkit.h"

static const struct ek_feature features[] = {
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_DIR_PREALLOC, "dir_prealloc" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_IMAGIC_INODES, "imagic_inodes" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_HAS_JOURNAL, "has_journal" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_EXT_ATTR, "ext_attr" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_RESIZE_INODE, "resize_inode" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_DIR_INDEX, "dir_index" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_LAZY_BG, "lazy_bg" },
	{ EK_FEAT_COMPAT, 0x0080, "exclude_inode" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_EXCLUDE_BITMAP, "snapshot_bitmap" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_SPARSE_SUPER2, "sparse_super2" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_FAST_COMMIT, "fast_commit" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_STABLE_INODES, "stable_inodes" },
	{ EK_FEAT_COMPAT, EXT4_FEATURE_COMPAT_ORPHAN_FILE, "orphan_file" },

	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_COMPRESSION, "compression" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_FILETYPE, "filetype" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_RECOVER, "needs_recovery" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_JOURNAL_DEV, "journal_dev" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_META_BG, "meta_bg" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_EXTENTS, "extent" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_64BIT, "64bit" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_MMP, "mmp" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_FLEX_BG, "flex_bg" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_EA_INODE, "ea_inode" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_DIRDATA, "dirdata" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_CSUM_SEED, "metadata_csum_seed" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_LARGEDIR, "large_dir" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_INLINE_DATA, "inline_data" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_ENCRYPT, "encrypt" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_CASEFOLD, "casefold" },

	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER, "sparse_super" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_LARGE_FILE, "large_file" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_HUGE_FILE, "huge_file" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, "uninit_bg" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_DIR_NLINK, "dir_nlink" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE, "extra_isize" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_HAS_SNAPSHOT, "snapshot" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_QUOTA, "quota" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_BIGALLOC, "bigalloc" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, "metadata_csum" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_REPLICA, "replica" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_READONLY, "read-only" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_PROJECT, "project" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS, "shared_blocks" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_VERITY, "verity" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT, "orphan_present" },
};

/* accepted on input only (e2fsprogs aliases) */
static const struct ek_feature feature_aliases[] = {
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_EXTENTS, "extents" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_LARGEDIR, "largedir" },
	{ EK_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, "uninit_groups" },
	{ EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_CASEFOLD, "fname_encoding" },
};

/* ---- split fields: the block counts (hi halves with 64bit), times (hi bytes) ---- */

static const struct {
	uint16_t lo, hi;
} sb_counts[] = {
	[EK_SB_BLOCKS_COUNT] = { offsetof(struct ext4_super_block, s_blocks_count_lo),
				 offsetof(struct ext4_super_block, s_blocks_count_hi) },
	[EK_SB_R_BLOCKS_COUNT] = { offsetof(struct ext4_super_block, s_r_blocks_count_lo),
				   offsetof(struct ext4_super_block, s_r_blocks_count_hi) },
	[EK_SB_FREE_BLOCKS_COUNT] = { offsetof(struct ext4_super_block, s_free_blocks_count_lo),
				      offsetof(struct ext4_super_block, s_free_blocks_count_hi) },
};

static bool sb_is64(const struct ext4_super_block *sb)
{
	return le32_to_cpu(sb->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_64BIT;
}

uint64_t ek_sb_get(const struct ext4_super_block *sb, enum ek_sb_field f)
{
	const uint8_t *p = (const void *)sb;
	uint64_t v = get_le32(p + sb_counts[f].lo);

	if (sb_is64(sb))
		v |= (uint64_t)get_le32(p + sb_counts[f].hi) << 32;
	return v;
}

void ek_sb_set(struct ext4_super_block *sb, enum ek_sb_field f, uint64_t v)
{
	uint8_t *p = (void *)sb;

	put_le32(p + sb_counts[f].lo, (uint32_t)v);
	if (sb_is64(sb))
		put_le32(p + sb_counts[f].hi, (uint32_t)(v >> 32));
}

void ek_time_set(__le32 *lo, uint8_t *hi, int64_t t)
{
	*lo = cpu_to_le32((uint32_t)t);
	*hi = (uint8_t)((uint64_t)t >> 32);
}

const struct ek_feature *ek_feature_table(size_t *count)
{
	*count = sizeof(features) / sizeof(features[0]);
	return features;
}

const char *ek_feature_name(int type, uint32_t mask)
{
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (features[i].type == type && features[i].mask == mask)
			return features[i].name;
	return NULL;
}

/* s_encoding values by the names e2fsprogs gives them (casefold) */
static const struct { uint16_t value; const char *name; } encodings[] = {
	{ EXT4_ENC_UTF8_12_1, "utf8-12.1" },
	{ EXT4_ENC_UTF8_12_1, "utf8" },
};

int ek_encoding_lookup(const char *name, uint16_t *out)
{
	for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++)
		if (!strcmp(name, encodings[i].name)) {
			*out = encodings[i].value;
			return 0;
		}
	return -EINVAL;
}

const char *ek_encoding_name(uint16_t value)
{
	for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++)
		if (encodings[i].value == value)
			return encodings[i].name;
	return NULL;
}

int ek_encoding_flags_parse(uint16_t encoding, const char *s, uint16_t *flags)
{
	uint16_t f = 0;

	if (encoding != EXT4_ENC_UTF8_12_1)
		return -EINVAL;
	while (*s) {
		size_t n = strcspn(s, "-");
		bool no = n > 2 && !strncmp(s, "no", 2);

		if (n - 2 * no != 6 || strncmp(s + 2 * no, "strict", 6))
			return -EINVAL;
		f = no ? f & ~EXT4_ENC_STRICT_MODE_FL : f | EXT4_ENC_STRICT_MODE_FL;
		s += n + (s[n] == '-');
	}
	*flags = f;
	return 0;
}

int ek_feature_lookup(const char *name, int *type, uint32_t *mask)
{
	static const char tchar[3] = { 'C', 'I', 'R' };
	size_t i;

	for (i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (!strcasecmp(name, features[i].name))
			goto found;
	for (i = 0; i < sizeof(feature_aliases) / sizeof(feature_aliases[0]); i++)
		if (!strcasecmp(name, feature_aliases[i].name)) {
			*type = feature_aliases[i].type;
			*mask = feature_aliases[i].mask;
			return 0;
		}
	/* "FEATURE_C12", "FEATURE_I3", "FEATURE_R16" for bits without a name */
	if (!strncasecmp(name, "FEATURE_", 8) && name[8]) {
		char *end;
		long bit = strtol(name + 9, &end, 10);

		for (int t = 0; t < 3; t++)
			if ((name[8] | 0x20) == (tchar[t] | 0x20) && !*end &&
			    end != name + 9 && bit >= 0 && bit < 32) {
				*type = t;
				*mask = 1u << bit;
				return 0;
			}
	}
	return -ENOENT;

found:
	*type = features[i].type;
	*mask = features[i].mask;
	return 0;
}

uint32_t ek_super_csum(const struct ext4_super_block *raw)
{
	return ek_crc32c(~0u, raw, offsetof(struct ext4_super_block, s_checksum));
}

int ek_super_read_primary(struct ek_io *io, struct ext4_super_block *out)
{
	return ek_io_pread(io, out, sizeof(*out), EXT4_SUPERBLOCK_OFFSET);
}

int ek_super_put_primary(struct ek_io *io, struct ext4_super_block *sb)
{
	if (le32_to_cpu(sb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		sb->s_checksum = cpu_to_le32(ek_super_csum(sb));
	return ek_io_pwrite(io, sb, sizeof(*sb), EXT4_SUPERBLOCK_OFFSET);
}

int ek_super_write_primary(struct ek_io *io, struct ext4_super_block *sb)
{
	int err = ek_super_put_primary(io, sb);

	return err ? err : ek_io_sync(io);
}

static int64_t time_hi(uint32_t lo, uint8_t hi)
{
	return (int64_t)lo | ((int64_t)hi << 32);
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

#define sb_bad(...) ek_corrupt_fs("superblock: " __VA_ARGS__)

int ek_super_decode(const struct ext4_super_block *raw, bool ignore_csum,
		    struct ek_super *out)
{
	struct ek_super s = { 0 };
	bool bigalloc, is64;
	uint32_t blksz, bpg_bits;
	uint64_t groups;

	s.magic = le16_to_cpu(raw->s_magic);
	if (s.magic != EXT4_SUPER_MAGIC)
		return sb_bad("bad magic 0x%04x (not an ext2/3/4 filesystem)", s.magic);

	s.rev_level = le32_to_cpu(raw->s_rev_level);
	s.compat = le32_to_cpu(raw->s_feature_compat);
	s.incompat = le32_to_cpu(raw->s_feature_incompat);
	s.ro_compat = le32_to_cpu(raw->s_feature_ro_compat);
	if (s.rev_level == EXT4_GOOD_OLD_REV)
		s.compat = s.incompat = s.ro_compat = 0;
	if (s.incompat & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV)
		return ek_unsupp("superblock: this is an external journal device, not a filesystem");
	if (s.incompat & ~EK_INCOMPAT_SUPP) {
		uint32_t unk = s.incompat & ~EK_INCOMPAT_SUPP;
		const char *n = ek_feature_name(EK_FEAT_INCOMPAT, unk & -unk);

		if (n)
			return ek_unsupp("superblock: unsupported incompat feature '%s' (0x%x)", n, unk);
		return ek_unsupp("superblock: unknown incompat features 0x%x", unk);
	}

	s.checksum = le32_to_cpu(raw->s_checksum);
	if (s.ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) {
		if (raw->s_checksum_type != EXT4_CRC32C_CHKSUM && !ignore_csum)
			return ek_unsupp("superblock: unknown checksum type %u", raw->s_checksum_type);
		if (ek_super_csum(raw) != s.checksum && !ignore_csum)
			return ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_NONE, 0,
					 "superblock: checksum 0x%08x does not match 0x%08x",
					 s.checksum, ek_super_csum(raw));
	}

	/* geometry */
	s.log_block_size = le32_to_cpu(raw->s_log_block_size);
	if (s.log_block_size > EXT4_MAX_BLOCK_LOG_SIZE - EXT4_MIN_BLOCK_LOG_SIZE)
		return sb_bad("log block size %u out of range", s.log_block_size);
	blksz = 1024u << s.log_block_size;
	bigalloc = s.ro_compat & EXT4_FEATURE_RO_COMPAT_BIGALLOC;
	is64 = s.incompat & EXT4_FEATURE_INCOMPAT_64BIT;
	s.log_cluster_size = le32_to_cpu(raw->s_log_cluster_size);
	if (bigalloc) {
		if (s.log_cluster_size < s.log_block_size ||
		    s.log_cluster_size - s.log_block_size > 16)
			return sb_bad("cluster size log %u invalid for block size log %u",
				      s.log_cluster_size, s.log_block_size);
	} else {
		s.log_cluster_size = s.log_block_size;
	}

	s.blocks_count = ek_sb_get(raw, EK_SB_BLOCKS_COUNT);
	s.r_blocks_count = ek_sb_get(raw, EK_SB_R_BLOCKS_COUNT);
	s.free_blocks_count = ek_sb_get(raw, EK_SB_FREE_BLOCKS_COUNT);
	s.inodes_count = le32_to_cpu(raw->s_inodes_count);
	s.free_inodes_count = le32_to_cpu(raw->s_free_inodes_count);
	s.first_data_block = le32_to_cpu(raw->s_first_data_block);
	s.blocks_per_group = le32_to_cpu(raw->s_blocks_per_group);
	s.clusters_per_group = le32_to_cpu(raw->s_clusters_per_group);
	s.inodes_per_group = le32_to_cpu(raw->s_inodes_per_group);

	if (s.blocks_count >> 48)
		return sb_bad("block count %llu too large", (unsigned long long)s.blocks_count);
	if (s.first_data_block >= s.blocks_count)
		return sb_bad("first data block %u >= block count %llu",
			      s.first_data_block, (unsigned long long)s.blocks_count);
	if (blksz > 1024 && s.first_data_block != 0)
		return sb_bad("first data block %u must be 0 with %u-byte blocks",
			      s.first_data_block, blksz);
	if (bigalloc) {
		bpg_bits = s.log_cluster_size - s.log_block_size;
		if (s.clusters_per_group == 0 || s.clusters_per_group > 8 * blksz)
			return sb_bad("clusters per group %u out of range", s.clusters_per_group);
		if ((uint64_t)s.clusters_per_group << bpg_bits != s.blocks_per_group)
			return sb_bad("blocks per group %u != clusters per group %u * %u",
				      s.blocks_per_group, s.clusters_per_group, 1u << bpg_bits);
	} else {
		s.clusters_per_group = s.blocks_per_group;
	}
	if (s.blocks_per_group < 8 || s.clusters_per_group > 8 * blksz ||
	    s.blocks_per_group % 8)
		return sb_bad("blocks per group %u out of range", s.blocks_per_group);

	if (s.rev_level == EXT4_GOOD_OLD_REV) {
		s.inode_size = EXT4_GOOD_OLD_INODE_SIZE;
		s.first_ino = EXT4_GOOD_OLD_FIRST_INO;
	} else {
		s.inode_size = le16_to_cpu(raw->s_inode_size);
		s.first_ino = le32_to_cpu(raw->s_first_ino);
		if (!is_pow2(s.inode_size) || s.inode_size < EXT4_GOOD_OLD_INODE_SIZE ||
		    s.inode_size > blksz)
			return sb_bad("inode size %u invalid", s.inode_size);
		if (s.first_ino < EXT4_GOOD_OLD_FIRST_INO)
			return sb_bad("first inode %u < %u", s.first_ino, EXT4_GOOD_OLD_FIRST_INO);
	}
	if (s.inodes_per_group == 0 || s.inodes_per_group > 8 * blksz ||
	    s.inodes_per_group < blksz / s.inode_size)
		return sb_bad("inodes per group %u out of range", s.inodes_per_group);

	groups = (s.blocks_count - s.first_data_block + s.blocks_per_group - 1) /
		 s.blocks_per_group;
	if (groups == 0 || groups > UINT32_MAX)
		return sb_bad("group count %llu out of range", (unsigned long long)groups);
	if ((uint64_t)s.inodes_per_group * groups != s.inodes_count)
		return sb_bad("inode count %u != %u groups * %u inodes per group",
			      s.inodes_count, (unsigned)groups, s.inodes_per_group);
	if (s.first_ino >= s.inodes_count && s.rev_level != EXT4_GOOD_OLD_REV)
		return sb_bad("first inode %u >= inode count %u", s.first_ino, s.inodes_count);

	s.desc_size = EXT4_MIN_DESC_SIZE;
	if (is64) {
		s.desc_size = le16_to_cpu(raw->s_desc_size);
		if (s.desc_size < EXT4_MIN_DESC_SIZE_64BIT || s.desc_size > EXT4_MAX_DESC_SIZE ||
		    !is_pow2(s.desc_size))
			return sb_bad("group descriptor size %u invalid", s.desc_size);
	}
	s.reserved_gdt_blocks = le16_to_cpu(raw->s_reserved_gdt_blocks);
	if (s.reserved_gdt_blocks > blksz / 4)
		return sb_bad("reserved GDT blocks %u > %u", s.reserved_gdt_blocks, blksz / 4);
	s.first_meta_bg = le32_to_cpu(raw->s_first_meta_bg);
	s.log_groups_per_flex = raw->s_log_groups_per_flex;
	if ((s.incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) && s.log_groups_per_flex > 31)
		return sb_bad("log groups per flex %u out of range", s.log_groups_per_flex);

	s.journal_inum = le32_to_cpu(raw->s_journal_inum);
	s.last_orphan = le32_to_cpu(raw->s_last_orphan);
	s.orphan_file_inum = le32_to_cpu(raw->s_orphan_file_inum);
	for (int i = 0; i < 4; i++)
		s.hash_seed[i] = le32_to_cpu(raw->s_hash_seed[i]);
	s.def_hash_version = raw->s_def_hash_version;
	s.encoding = le16_to_cpu(raw->s_encoding);
	s.encoding_flags = le16_to_cpu(raw->s_encoding_flags);
	s.flags = le32_to_cpu(raw->s_flags);
	s.state = le16_to_cpu(raw->s_state);
	if (s.inode_size > EXT4_GOOD_OLD_INODE_SIZE) {
		s.min_extra_isize = le16_to_cpu(raw->s_min_extra_isize);
		s.want_extra_isize = le16_to_cpu(raw->s_want_extra_isize);
	}
	s.checksum_seed = le32_to_cpu(raw->s_checksum_seed);
	s.mtime = time_hi(le32_to_cpu(raw->s_mtime), raw->s_mtime_hi);
	s.wtime = time_hi(le32_to_cpu(raw->s_wtime), raw->s_wtime_hi);
	s.mkfs_time = time_hi(le32_to_cpu(raw->s_mkfs_time), raw->s_mkfs_time_hi);
	s.lastcheck = time_hi(le32_to_cpu(raw->s_lastcheck), raw->s_lastcheck_hi);
	memcpy(s.uuid, raw->s_uuid, 16);
	*out = s;
	return 0;
}

/* ---- field table ------------------------------------------------------- */

#define F(n, t) { #n, offsetof(struct ext4_super_block, s_##n), \
		  sizeof(((struct ext4_super_block *)0)->s_##n), 0, 0, t, 0 }
#define FHI(n, t, hi) { #n, offsetof(struct ext4_super_block, s_##n##_lo), \
		  sizeof(((struct ext4_super_block *)0)->s_##n##_lo), \
		  offsetof(struct ext4_super_block, s_##hi), \
		  sizeof(((struct ext4_super_block *)0)->s_##hi), t, 0 }
#define FT(n, hi) { #n, offsetof(struct ext4_super_block, s_##n), 4, \
		  offsetof(struct ext4_super_block, s_##hi), 1, EK_F_TIME, 0 }
#define FA(n, t, esz) { #n, offsetof(struct ext4_super_block, s_##n), esz, 0, 0, t, \
		  sizeof(((struct ext4_super_block *)0)->s_##n) / (esz) }

static const struct ek_field super_fields[] = {
	F(inodes_count, EK_F_UINT),
	FHI(blocks_count, EK_F_UINT, blocks_count_hi),
	FHI(r_blocks_count, EK_F_UINT, r_blocks_count_hi),
	FHI(free_blocks_count, EK_F_UINT, free_blocks_count_hi),
	F(free_inodes_count, EK_F_UINT),
	F(first_data_block, EK_F_UINT),
	F(log_block_size, EK_F_UINT),
	F(log_cluster_size, EK_F_UINT),
	F(blocks_per_group, EK_F_UINT),
	F(clusters_per_group, EK_F_UINT),
	F(inodes_per_group, EK_F_UINT),
	FT(mtime, mtime_hi),
	FT(wtime, wtime_hi),
	F(mnt_count, EK_F_UINT),
	F(max_mnt_count, EK_F_UINT),
	F(magic, EK_F_HEX),
	F(state, EK_F_STATE),
	F(errors, EK_F_ERRORS),
	F(minor_rev_level, EK_F_UINT),
	FT(lastcheck, lastcheck_hi),
	F(checkinterval, EK_F_UINT),
	F(creator_os, EK_F_OS),
	F(rev_level, EK_F_UINT),
	F(def_resuid, EK_F_UINT),
	F(def_resgid, EK_F_UINT),
	F(first_ino, EK_F_UINT),
	F(inode_size, EK_F_UINT),
	F(block_group_nr, EK_F_UINT),
	F(feature_compat, EK_F_FEATURES),
	F(feature_incompat, EK_F_FEATURES),
	F(feature_ro_compat, EK_F_FEATURES),
	F(uuid, EK_F_UUID),
	F(volume_name, EK_F_STRING),
	F(last_mounted, EK_F_STRING),
	F(algorithm_usage_bitmap, EK_F_HEX),
	F(prealloc_blocks, EK_F_UINT),
	F(prealloc_dir_blocks, EK_F_UINT),
	F(reserved_gdt_blocks, EK_F_UINT),
	F(journal_uuid, EK_F_UUID),
	F(journal_inum, EK_F_UINT),
	F(journal_dev, EK_F_HEX),
	F(last_orphan, EK_F_UINT),
	F(hash_seed, EK_F_UUID),
	F(def_hash_version, EK_F_HASHALG),
	F(jnl_backup_type, EK_F_UINT),
	F(desc_size, EK_F_UINT),
	F(default_mount_opts, EK_F_MNTOPTS),
	F(first_meta_bg, EK_F_UINT),
	FT(mkfs_time, mkfs_time_hi),
	FA(jnl_blocks, EK_F_HEX, 4),
	F(min_extra_isize, EK_F_UINT),
	F(want_extra_isize, EK_F_UINT),
	F(flags, EK_F_HEX),
	F(raid_stride, EK_F_UINT),
	F(mmp_update_interval, EK_F_UINT),
	F(mmp_block, EK_F_UINT),
	F(raid_stripe_width, EK_F_UINT),
	F(log_groups_per_flex, EK_F_UINT),
	F(checksum_type, EK_F_UINT),
	F(encryption_level, EK_F_UINT),
	F(kbytes_written, EK_F_UINT),
	F(snapshot_inum, EK_F_UINT),
	F(snapshot_id, EK_F_UINT),
	F(snapshot_r_blocks_count, EK_F_UINT),
	F(snapshot_list, EK_F_UINT),
	F(error_count, EK_F_UINT),
	FT(first_error_time, first_error_time_hi),
	F(first_error_ino, EK_F_UINT),
	F(first_error_block, EK_F_UINT),
	F(first_error_func, EK_F_STRING),
	F(first_error_line, EK_F_UINT),
	FT(last_error_time, last_error_time_hi),
	F(last_error_ino, EK_F_UINT),
	F(last_error_line, EK_F_UINT),
	F(last_error_block, EK_F_UINT),
	F(last_error_func, EK_F_STRING),
	F(mount_opts, EK_F_STRING),
	F(usr_quota_inum, EK_F_UINT),
	F(grp_quota_inum, EK_F_UINT),
	F(overhead_clusters, EK_F_UINT),
	FA(backup_bgs, EK_F_UINT, 4),
	F(encrypt_algos, EK_F_BYTES),
	F(encrypt_pw_salt, EK_F_UUID),
	F(lpf_ino, EK_F_UINT),
	F(prj_quota_inum, EK_F_UINT),
	F(checksum_seed, EK_F_HEX),
	F(first_error_errcode, EK_F_UINT),
	F(last_error_errcode, EK_F_UINT),
	F(encoding, EK_F_UINT),
	F(encoding_flags, EK_F_HEX),
	F(orphan_file_inum, EK_F_UINT),
	F(checksum, EK_F_HEX),
};

const struct ek_field *ek_super_fields(size_t *count)
{
	*count = sizeof(super_fields) / sizeof(super_fields[0]);
	return super_fields;
}

static uint64_t get_le(const uint8_t *p, unsigned size)
{
	switch (size) {
	case 1:
		return *p;
	case 2:
		return get_le16(p);
	case 4:
		return get_le32(p);
	case 8:
		return get_le64(p);
	}
	return 0;
}

uint64_t ek_field_get(const void *raw, const struct ek_field *f, unsigned idx)
{
	const uint8_t *p = raw;
	uint64_t v;

	if (f->count > 1)
		return get_le(p + f->offset + idx * f->size, f->size);
	v = get_le(p + f->offset, f->size);
	if (f->hi_offset)
		v |= get_le(p + f->hi_offset, f->hi_size) << (8 * f->size);
	return v;
}

/* ---- default mount options (s_default_mount_opts) -------------------------------- */

static const struct { const char *name; uint32_t mask; } mntopts[] = {
	{ "debug", 0x0001 }, { "bsdgroups", 0x0002 }, { "user_xattr", 0x0004 },
	{ "acl", 0x0008 }, { "uid16", 0x0010 }, { "journal_data", 0x0020 },
	{ "journal_data_ordered", 0x0040 }, { "journal_data_writeback", 0x0060 },
	{ "nobarrier", 0x0100 }, { "block_validity", 0x0200 }, { "discard", 0x0400 },
	{ "nodelalloc", 0x0800 },
};

const char *ek_mntopt_name(uint32_t mask)
{
	for (size_t i = 0; i < sizeof(mntopts) / sizeof(mntopts[0]); i++)
		if (mntopts[i].mask == mask)
			return mntopts[i].name;
	return NULL;
}

int ek_mntopt_lookup(const char *name, uint32_t *mask)
{
	char *end;
	long bit;

	for (size_t i = 0; i < sizeof(mntopts) / sizeof(mntopts[0]); i++)
		if (!strcasecmp(name, mntopts[i].name)) {
			*mask = mntopts[i].mask;
			return 0;
		}
	/* "MNTOPT_12" for bits without a name, as e2fsprogs writes them */
	if (strncasecmp(name, "MNTOPT_", 7) || !name[7])
		return -EINVAL;
	bit = strtol(name + 7, &end, 10);
	if (*end || bit < 0 || bit > 31)
		return -EINVAL;
	*mask = 1u << bit;
	return 0;
}
