/* SPDX-License-Identifier: MIT */
/*
 * ondisk.h - raw ext2/ext3/ext4 on-disk structures.
 *
 * Field names follow the kernel's fs/ext4/ext4.h so that one grep spans both
 * trees.  Offsets are in the comments and asserted at the bottom.  These
 * structs are never used for computation directly: each object has one
 * decode function (super.c, group.c, inode.c ...) that converts to an in-core
 * struct ek_*.  Specification: Documentation/filesystems/ext4/.
 */
#ifndef EK_ONDISK_H
#define EK_ONDISK_H

#include <stddef.h>
#include "endian.h"

#define EXT4_SUPER_MAGIC	0xEF53
#define EXT4_SUPERBLOCK_OFFSET	1024
#define EXT4_SUPERBLOCK_SIZE	1024
#define EXT4_MIN_BLOCK_LOG_SIZE	10
#define EXT4_MAX_BLOCK_LOG_SIZE	16
#define EXT4_MIN_DESC_SIZE	32
#define EXT4_MIN_DESC_SIZE_64BIT 64
#define EXT4_MAX_DESC_SIZE	1024
#define EXT4_GOOD_OLD_INODE_SIZE 128
#define EXT4_GOOD_OLD_FIRST_INO	11
#define EXT4_GOOD_OLD_REV	0
#define EXT4_DYNAMIC_REV	1
#define EXT4_NDIR_BLOCKS	12
#define EXT4_IND_BLOCK		12
#define EXT4_DIND_BLOCK		13
#define EXT4_TIND_BLOCK		14
#define EXT4_N_BLOCKS		15

/* special inodes */
#define EXT4_BAD_INO		1
#define EXT4_ROOT_INO		2
#define EXT4_USR_QUOTA_INO	3
#define EXT4_GRP_QUOTA_INO	4
#define EXT4_BOOT_LOADER_INO	5
#define EXT4_UNDEL_DIR_INO	6
#define EXT4_RESIZE_INO		7
#define EXT4_JOURNAL_INO	8

/* s_state */
#define EXT4_VALID_FS		0x0001
#define EXT4_ERROR_FS		0x0002
#define EXT4_ORPHAN_FS		0x0004
#define EXT4_FC_REPLAY		0x0020

/* s_feature_compat */
#define EXT4_FEATURE_COMPAT_DIR_PREALLOC	0x0001
#define EXT4_FEATURE_COMPAT_IMAGIC_INODES	0x0002
#define EXT4_FEATURE_COMPAT_HAS_JOURNAL		0x0004
#define EXT4_FEATURE_COMPAT_EXT_ATTR		0x0008
#define EXT4_FEATURE_COMPAT_RESIZE_INODE	0x0010
#define EXT4_FEATURE_COMPAT_DIR_INDEX		0x0020
#define EXT4_FEATURE_COMPAT_LAZY_BG		0x0040
#define EXT4_FEATURE_COMPAT_EXCLUDE_BITMAP	0x0100
#define EXT4_FEATURE_COMPAT_SPARSE_SUPER2	0x0200
#define EXT4_FEATURE_COMPAT_FAST_COMMIT		0x0400
#define EXT4_FEATURE_COMPAT_STABLE_INODES	0x0800
#define EXT4_FEATURE_COMPAT_ORPHAN_FILE		0x1000

/* s_feature_ro_compat */
#define EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER	0x0001
#define EXT4_FEATURE_RO_COMPAT_LARGE_FILE	0x0002
#define EXT4_FEATURE_RO_COMPAT_BTREE_DIR	0x0004
#define EXT4_FEATURE_RO_COMPAT_HUGE_FILE	0x0008
#define EXT4_FEATURE_RO_COMPAT_GDT_CSUM		0x0010
#define EXT4_FEATURE_RO_COMPAT_DIR_NLINK	0x0020
#define EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE	0x0040
#define EXT4_FEATURE_RO_COMPAT_HAS_SNAPSHOT	0x0080
#define EXT4_FEATURE_RO_COMPAT_QUOTA		0x0100
#define EXT4_FEATURE_RO_COMPAT_BIGALLOC		0x0200
#define EXT4_FEATURE_RO_COMPAT_METADATA_CSUM	0x0400
#define EXT4_FEATURE_RO_COMPAT_REPLICA		0x0800
#define EXT4_FEATURE_RO_COMPAT_READONLY		0x1000
#define EXT4_FEATURE_RO_COMPAT_PROJECT		0x2000
#define EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS	0x4000
#define EXT4_FEATURE_RO_COMPAT_VERITY		0x8000
#define EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT	0x10000

/* s_feature_incompat */
#define EXT4_FEATURE_INCOMPAT_COMPRESSION	0x0001
#define EXT4_FEATURE_INCOMPAT_FILETYPE		0x0002
#define EXT4_FEATURE_INCOMPAT_RECOVER		0x0004
#define EXT4_FEATURE_INCOMPAT_JOURNAL_DEV	0x0008
#define EXT4_FEATURE_INCOMPAT_META_BG		0x0010
#define EXT4_FEATURE_INCOMPAT_EXTENTS		0x0040
#define EXT4_FEATURE_INCOMPAT_64BIT		0x0080
#define EXT4_FEATURE_INCOMPAT_MMP		0x0100
#define EXT4_FEATURE_INCOMPAT_FLEX_BG		0x0200
#define EXT4_FEATURE_INCOMPAT_EA_INODE		0x0400
#define EXT4_FEATURE_INCOMPAT_DIRDATA		0x1000
#define EXT4_FEATURE_INCOMPAT_CSUM_SEED		0x2000
#define EXT4_FEATURE_INCOMPAT_LARGEDIR		0x4000
#define EXT4_FEATURE_INCOMPAT_INLINE_DATA	0x8000
#define EXT4_FEATURE_INCOMPAT_ENCRYPT		0x10000
#define EXT4_FEATURE_INCOMPAT_CASEFOLD		0x20000

/* s_flags */
#define EXT2_FLAGS_SIGNED_HASH		0x0001
#define EXT2_FLAGS_UNSIGNED_HASH	0x0002
#define EXT2_FLAGS_TEST_FILESYS		0x0004

/* s_def_hash_version and dx_root_info.hash_version */
#define EXT4_HASH_LEGACY		0
#define EXT4_HASH_HALF_MD4		1
#define EXT4_HASH_TEA			2
#define EXT4_HASH_LEGACY_UNSIGNED	3
#define EXT4_HASH_HALF_MD4_UNSIGNED	4
#define EXT4_HASH_TEA_UNSIGNED		5
#define EXT4_HASH_SIPHASH		6

#define EXT4_CRC32C_CHKSUM		1	/* s_checksum_type */

struct ext4_super_block {
	__le32	s_inodes_count;		/* 0x000 */
	__le32	s_blocks_count_lo;	/* 0x004 */
	__le32	s_r_blocks_count_lo;	/* 0x008 */
	__le32	s_free_blocks_count_lo;	/* 0x00C */
	__le32	s_free_inodes_count;	/* 0x010 */
	__le32	s_first_data_block;	/* 0x014 */
	__le32	s_log_block_size;	/* 0x018 block size = 1024 << n */
	__le32	s_log_cluster_size;	/* 0x01C */
	__le32	s_blocks_per_group;	/* 0x020 */
	__le32	s_clusters_per_group;	/* 0x024 */
	__le32	s_inodes_per_group;	/* 0x028 */
	__le32	s_mtime;		/* 0x02C */
	__le32	s_wtime;		/* 0x030 */
	__le16	s_mnt_count;		/* 0x034 */
	__le16	s_max_mnt_count;	/* 0x036 */
	__le16	s_magic;		/* 0x038 0xEF53 */
	__le16	s_state;		/* 0x03A */
	__le16	s_errors;		/* 0x03C */
	__le16	s_minor_rev_level;	/* 0x03E */
	__le32	s_lastcheck;		/* 0x040 */
	__le32	s_checkinterval;	/* 0x044 */
	__le32	s_creator_os;		/* 0x048 */
	__le32	s_rev_level;		/* 0x04C */
	__le16	s_def_resuid;		/* 0x050 */
	__le16	s_def_resgid;		/* 0x052 */
	__le32	s_first_ino;		/* 0x054 */
	__le16	s_inode_size;		/* 0x058 */
	__le16	s_block_group_nr;	/* 0x05A */
	__le32	s_feature_compat;	/* 0x05C */
	__le32	s_feature_incompat;	/* 0x060 */
	__le32	s_feature_ro_compat;	/* 0x064 */
	__u8	s_uuid[16];		/* 0x068 */
	char	s_volume_name[16];	/* 0x078 */
	char	s_last_mounted[64];	/* 0x088 */
	__le32	s_algorithm_usage_bitmap; /* 0x0C8 */
	__u8	s_prealloc_blocks;	/* 0x0CC */
	__u8	s_prealloc_dir_blocks;	/* 0x0CD */
	__le16	s_reserved_gdt_blocks;	/* 0x0CE */
	__u8	s_journal_uuid[16];	/* 0x0D0 */
	__le32	s_journal_inum;		/* 0x0E0 */
	__le32	s_journal_dev;		/* 0x0E4 */
	__le32	s_last_orphan;		/* 0x0E8 */
	__le32	s_hash_seed[4];		/* 0x0EC */
	__u8	s_def_hash_version;	/* 0x0FC */
	__u8	s_jnl_backup_type;	/* 0x0FD */
	__le16	s_desc_size;		/* 0x0FE */
	__le32	s_default_mount_opts;	/* 0x100 */
	__le32	s_first_meta_bg;	/* 0x104 */
	__le32	s_mkfs_time;		/* 0x108 */
	__le32	s_jnl_blocks[17];	/* 0x10C i_block[15], i_size_high, i_size */
	__le32	s_blocks_count_hi;	/* 0x150 */
	__le32	s_r_blocks_count_hi;	/* 0x154 */
	__le32	s_free_blocks_count_hi;	/* 0x158 */
	__le16	s_min_extra_isize;	/* 0x15C */
	__le16	s_want_extra_isize;	/* 0x15E */
	__le32	s_flags;		/* 0x160 */
	__le16	s_raid_stride;		/* 0x164 */
	__le16	s_mmp_update_interval;	/* 0x166 */
	__le64	s_mmp_block;		/* 0x168 */
	__le32	s_raid_stripe_width;	/* 0x170 */
	__u8	s_log_groups_per_flex;	/* 0x174 */
	__u8	s_checksum_type;	/* 0x175 */
	__u8	s_encryption_level;	/* 0x176 */
	__u8	s_reserved_pad;		/* 0x177 */
	__le64	s_kbytes_written;	/* 0x178 */
	__le32	s_snapshot_inum;	/* 0x180 */
	__le32	s_snapshot_id;		/* 0x184 */
	__le64	s_snapshot_r_blocks_count; /* 0x188 */
	__le32	s_snapshot_list;	/* 0x190 */
	__le32	s_error_count;		/* 0x194 */
	__le32	s_first_error_time;	/* 0x198 */
	__le32	s_first_error_ino;	/* 0x19C */
	__le64	s_first_error_block;	/* 0x1A0 */
	__u8	s_first_error_func[32];	/* 0x1A8 */
	__le32	s_first_error_line;	/* 0x1C8 */
	__le32	s_last_error_time;	/* 0x1CC */
	__le32	s_last_error_ino;	/* 0x1D0 */
	__le32	s_last_error_line;	/* 0x1D4 */
	__le64	s_last_error_block;	/* 0x1D8 */
	__u8	s_last_error_func[32];	/* 0x1E0 */
	__u8	s_mount_opts[64];	/* 0x200 */
	__le32	s_usr_quota_inum;	/* 0x240 */
	__le32	s_grp_quota_inum;	/* 0x244 */
	__le32	s_overhead_clusters;	/* 0x248 */
	__le32	s_backup_bgs[2];	/* 0x24C sparse_super2 */
	__u8	s_encrypt_algos[4];	/* 0x254 */
	__u8	s_encrypt_pw_salt[16];	/* 0x258 */
	__le32	s_lpf_ino;		/* 0x268 */
	__le32	s_prj_quota_inum;	/* 0x26C */
	__le32	s_checksum_seed;	/* 0x270 */
	__u8	s_wtime_hi;		/* 0x274 */
	__u8	s_mtime_hi;		/* 0x275 */
	__u8	s_mkfs_time_hi;		/* 0x276 */
	__u8	s_lastcheck_hi;		/* 0x277 */
	__u8	s_first_error_time_hi;	/* 0x278 */
	__u8	s_last_error_time_hi;	/* 0x279 */
	__u8	s_first_error_errcode;	/* 0x27A */
	__u8	s_last_error_errcode;	/* 0x27B */
	__le16	s_encoding;		/* 0x27C */
	__le16	s_encoding_flags;	/* 0x27E */
	__le32	s_orphan_file_inum;	/* 0x280 */
	__le32	s_reserved[94];		/* 0x284 */
	__le32	s_checksum;		/* 0x3FC crc32c(~0, sb, 0x3FC) */
};

/* bg_flags */
#define EXT4_BG_INODE_UNINIT	0x0001
#define EXT4_BG_BLOCK_UNINIT	0x0002
#define EXT4_BG_INODE_ZEROED	0x0004

struct ext4_group_desc {
	__le32	bg_block_bitmap_lo;	/* 0x00 */
	__le32	bg_inode_bitmap_lo;	/* 0x04 */
	__le32	bg_inode_table_lo;	/* 0x08 */
	__le16	bg_free_blocks_count_lo; /* 0x0C */
	__le16	bg_free_inodes_count_lo; /* 0x0E */
	__le16	bg_used_dirs_count_lo;	/* 0x10 */
	__le16	bg_flags;		/* 0x12 */
	__le32	bg_exclude_bitmap_lo;	/* 0x14 */
	__le16	bg_block_bitmap_csum_lo; /* 0x18 */
	__le16	bg_inode_bitmap_csum_lo; /* 0x1A */
	__le16	bg_itable_unused_lo;	/* 0x1C */
	__le16	bg_checksum;		/* 0x1E crc16 or crc32c & 0xFFFF */
	/* 64bit only (s_desc_size >= 64) */
	__le32	bg_block_bitmap_hi;	/* 0x20 */
	__le32	bg_inode_bitmap_hi;	/* 0x24 */
	__le32	bg_inode_table_hi;	/* 0x28 */
	__le16	bg_free_blocks_count_hi; /* 0x2C */
	__le16	bg_free_inodes_count_hi; /* 0x2E */
	__le16	bg_used_dirs_count_hi;	/* 0x30 */
	__le16	bg_itable_unused_hi;	/* 0x32 */
	__le32	bg_exclude_bitmap_hi;	/* 0x34 */
	__le16	bg_block_bitmap_csum_hi; /* 0x38 */
	__le16	bg_inode_bitmap_csum_hi; /* 0x3A */
	__le32	bg_reserved;		/* 0x3C */
};

/* i_flags */
#define EXT4_SECRM_FL		0x00000001
#define EXT4_UNRM_FL		0x00000002
#define EXT4_COMPR_FL		0x00000004
#define EXT4_SYNC_FL		0x00000008
#define EXT4_IMMUTABLE_FL	0x00000010
#define EXT4_APPEND_FL		0x00000020
#define EXT4_NODUMP_FL		0x00000040
#define EXT4_NOATIME_FL		0x00000080
#define EXT4_INDEX_FL		0x00001000
#define EXT4_IMAGIC_FL		0x00002000
#define EXT4_JOURNAL_DATA_FL	0x00004000
#define EXT4_DIRSYNC_FL		0x00010000
#define EXT4_TOPDIR_FL		0x00020000
#define EXT4_HUGE_FILE_FL	0x00040000
#define EXT4_EXTENTS_FL		0x00080000
#define EXT4_VERITY_FL		0x00100000
#define EXT4_EA_INODE_FL	0x00200000
#define EXT4_INLINE_DATA_FL	0x10000000
#define EXT4_PROJINHERIT_FL	0x20000000
#define EXT4_CASEFOLD_FL	0x40000000
#define EXT4_ENCRYPT_FL		0x00000800

struct ext4_inode {
	__le16	i_mode;			/* 0x00 */
	__le16	i_uid;			/* 0x02 low 16 bits */
	__le32	i_size_lo;		/* 0x04 */
	__le32	i_atime;		/* 0x08 */
	__le32	i_ctime;		/* 0x0C */
	__le32	i_mtime;		/* 0x10 */
	__le32	i_dtime;		/* 0x14 */
	__le16	i_gid;			/* 0x18 low 16 bits */
	__le16	i_links_count;		/* 0x1A */
	__le32	i_blocks_lo;		/* 0x1C */
	__le32	i_flags;		/* 0x20 */
	__le32	l_i_version;		/* 0x24 osd1 */
	__le32	i_block[EXT4_N_BLOCKS];	/* 0x28 block map, extent root or inline data */
	__le32	i_generation;		/* 0x64 */
	__le32	i_file_acl_lo;		/* 0x68 */
	__le32	i_size_high;		/* 0x6C */
	__le32	i_obso_faddr;		/* 0x70 */
	__le16	l_i_blocks_high;	/* 0x74 osd2 */
	__le16	l_i_file_acl_high;	/* 0x76 */
	__le16	l_i_uid_high;		/* 0x78 */
	__le16	l_i_gid_high;		/* 0x7A */
	__le16	l_i_checksum_lo;	/* 0x7C */
	__le16	l_i_reserved;		/* 0x7E */
	/* large inodes: valid up to 128 + i_extra_isize */
	__le16	i_extra_isize;		/* 0x80 */
	__le16	i_checksum_hi;		/* 0x82 */
	__le32	i_ctime_extra;		/* 0x84 nsec << 2 | epoch bits */
	__le32	i_mtime_extra;		/* 0x88 */
	__le32	i_atime_extra;		/* 0x8C */
	__le32	i_crtime;		/* 0x90 */
	__le32	i_crtime_extra;		/* 0x94 */
	__le32	i_version_hi;		/* 0x98 */
	__le32	i_projid;		/* 0x9C */
};

/* end of i_checksum_hi, relative to the 128-byte base (EXT4_INODE_CSUM_HI_EXTRA_END) */
#define EXT4_INODE_CSUM_HI_EXTRA_END	4

#define EXT4_EXT_MAGIC		0xF30A
#define EXT4_EXT_MAX_DEPTH	5
#define EXT_INIT_MAX_LEN	32768
#define EXT_UNWRITTEN_MAX_LEN	32767u	/* ee_len - 32768 when ee_len > 32768 */

struct ext4_extent_header {
	__le16	eh_magic;		/* 0x0 0xF30A */
	__le16	eh_entries;		/* 0x2 valid entries */
	__le16	eh_max;			/* 0x4 capacity */
	__le16	eh_depth;		/* 0x6 0 = leaf */
	__le32	eh_generation;		/* 0x8 */
};

struct ext4_extent {
	__le32	ee_block;		/* 0x0 first logical block */
	__le16	ee_len;			/* 0x4 > 32768: unwritten, len - 32768 */
	__le16	ee_start_hi;		/* 0x6 */
	__le32	ee_start_lo;		/* 0x8 */
};

struct ext4_extent_idx {
	__le32	ei_block;		/* 0x0 */
	__le32	ei_leaf_lo;		/* 0x4 */
	__le16	ei_leaf_hi;		/* 0x8 */
	__u16	ei_unused;		/* 0xA */
};

struct ext4_extent_tail {
	__le32	et_checksum;		/* after eh_max entries */
};

/* directory entries */
#define EXT4_NAME_LEN		255
#define EXT4_DIR_ENTRY_HDR	8
#define EXT4_FT_UNKNOWN		0
#define EXT4_FT_REG_FILE	1
#define EXT4_FT_DIR		2
#define EXT4_FT_CHRDEV		3
#define EXT4_FT_BLKDEV		4
#define EXT4_FT_FIFO		5
#define EXT4_FT_SOCK		6
#define EXT4_FT_SYMLINK		7
#define EXT4_FT_MAX		8
#define EXT4_FT_DIR_CSUM	0xDE

struct ext4_dir_entry_2 {
	__le32	inode;			/* 0x0 inode number, 0 = unused */
	__le16	rec_len;		/* 0x4 bytes to next entry, >= 12, % 4 == 0 */
	__u8	name_len;		/* 0x6 */
	__u8	file_type;		/* 0x7 EXT4_FT_* if filetype feature */
	char	name[];			/* 0x8 not NUL-terminated */
};

/* fake dirent at the end of a leaf block under metadata_csum */
struct ext4_dir_entry_tail {
	__le32	det_reserved_zero1;	/* 0x0 */
	__le16	det_rec_len;		/* 0x4 12 */
	__u8	det_reserved_zero2;	/* 0x6 */
	__u8	det_reserved_ft;	/* 0x7 0xDE */
	__le32	det_checksum;		/* 0x8 */
};

struct dx_root_info {
	__le32	reserved_zero;		/* 0x18 in the root block */
	__u8	hash_version;		/* 0x1C */
	__u8	info_length;		/* 0x1D 8 */
	__u8	indirect_levels;	/* 0x1E */
	__u8	unused_flags;		/* 0x1F */
};

struct dx_countlimit {
	__le16	limit;
	__le16	count;
};

struct dx_entry {
	__le32	hash;
	__le32	block;			/* logical block in the directory */
};

struct dx_tail {
	__le32	dt_reserved;
	__le32	dt_checksum;
};

#define EXT4_DX_ROOT_INFO_OFF	0x18
#define EXT4_DX_ROOT_ENTRIES_OFF 0x20
#define EXT4_DX_NODE_ENTRIES_OFF 0x08

/* extended attributes */
#define EXT4_XATTR_MAGIC	0xEA020000
#define EXT4_XATTR_ROUND	3
#define EXT4_XATTR_LEN(n)	(((n) + EXT4_XATTR_ROUND + sizeof(struct ext4_xattr_entry)) & ~EXT4_XATTR_ROUND)
#define EXT4_XATTR_INDEX_USER			1
#define EXT4_XATTR_INDEX_POSIX_ACL_ACCESS	2
#define EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT	3
#define EXT4_XATTR_INDEX_TRUSTED		4
#define EXT4_XATTR_INDEX_LUSTRE			5
#define EXT4_XATTR_INDEX_SECURITY		6
#define EXT4_XATTR_INDEX_SYSTEM			7
#define EXT4_XATTR_INDEX_RICHACL		8
#define EXT4_XATTR_INDEX_ENCRYPTION		9

struct ext4_xattr_header {
	__le32	h_magic;		/* 0x00 0xEA020000 */
	__le32	h_refcount;		/* 0x04 */
	__le32	h_blocks;		/* 0x08 must be 1 */
	__le32	h_hash;			/* 0x0C */
	__le32	h_checksum;		/* 0x10 */
	__u32	h_reserved[3];		/* 0x14 */
};

struct ext4_xattr_ibody_header {
	__le32	h_magic;		/* right after 128 + i_extra_isize */
};

struct ext4_xattr_entry {
	__u8	e_name_len;		/* 0x0 */
	__u8	e_name_index;		/* 0x1 */
	__le16	e_value_offs;		/* 0x2 from first entry (ibody) or block start */
	__le32	e_value_inum;		/* 0x4 ea_inode holding the value, or 0 */
	__le32	e_value_size;		/* 0x8 */
	__le32	e_hash;			/* 0xC */
	char	e_name[];		/* 0x10 not NUL-terminated */
};

/* on-disk POSIX ACL (fs/ext4/acl.h) */
#define EXT4_ACL_VERSION	0x0001
struct ext4_acl_header {
	__le32	a_version;
};
struct ext4_acl_entry {
	__le16	e_tag;
	__le16	e_perm;
	__le32	e_id;
};
struct ext4_acl_entry_short {
	__le16	e_tag;
	__le16	e_perm;
};

/*
 * Fast-commit records (fs/ext4/fast_commit.h).  The fast-commit area at the
 * end of a jbd2 journal holds tag-length-value records, little-endian and
 * packed with no alignment: a 4-byte header, then fc_len value bytes, all
 * inside one block.  Read them with get_le*() or memcpy, never in place.
 */
#define EXT4_FC_TAG_ADD_RANGE	0x0001	/* ext4_fc_add_range */
#define EXT4_FC_TAG_DEL_RANGE	0x0002	/* ext4_fc_del_range */
#define EXT4_FC_TAG_CREAT	0x0003	/* ext4_fc_dentry_info */
#define EXT4_FC_TAG_LINK	0x0004	/* ext4_fc_dentry_info */
#define EXT4_FC_TAG_UNLINK	0x0005	/* ext4_fc_dentry_info */
#define EXT4_FC_TAG_INODE	0x0006	/* ext4_fc_inode */
#define EXT4_FC_TAG_PAD		0x0007	/* fc_len bytes of padding (zeros) */
#define EXT4_FC_TAG_TAIL	0x0008	/* ext4_fc_tail, then padding to the block end */
#define EXT4_FC_TAG_HEAD	0x0009	/* ext4_fc_head */
#define EXT4_FC_SUPPORTED_FEATURES	0x0

struct ext4_fc_tl {
	__le16	fc_tag;			/* 0x0 EXT4_FC_TAG_* */
	__le16	fc_len;			/* 0x2 value bytes that follow */
};

struct ext4_fc_head {
	__le32	fc_features;		/* 0x0 none defined: must be 0 */
	__le32	fc_tid;			/* 0x4 the full transaction these follow */
};

struct ext4_fc_add_range {
	__le32	fc_ino;			/* 0x0 */
	__u8	fc_ex[12];		/* 0x4 a struct ext4_extent, unaligned */
};

struct ext4_fc_del_range {
	__le32	fc_ino;			/* 0x0 */
	__le32	fc_lblk;		/* 0x4 first logical block removed */
	__le32	fc_len;			/* 0x8 blocks removed */
};

struct ext4_fc_dentry_info {
	__le32	fc_parent_ino;		/* 0x0 directory */
	__le32	fc_ino;			/* 0x4 inode the entry names */
	__u8	fc_dname[];		/* 0x8 fc_len - 8 bytes, not NUL-terminated */
};

struct ext4_fc_inode {
	__le32	fc_ino;			/* 0x0 */
	__u8	fc_raw_inode[];		/* 0x4 the on-disk inode, fc_len - 4 bytes */
};

struct ext4_fc_tail {
	__le32	fc_tid;			/* 0x0 */
	__le32	fc_crc;			/* 0x4 crc32c, seed 0, of the records since the
					 * previous tail and of this tail up to fc_crc */
};

/* s_encoding, s_encoding_flags (casefold) */
#define EXT4_ENC_UTF8_12_1	1
#define EXT4_ENC_STRICT_MODE_FL	0x0001	/* refuse invalid UTF-8 names */

/* s_encrypt_algos (encrypt): what mke2fs records */
#define EXT4_ENCRYPTION_MODE_AES_256_XTS	1
#define EXT4_ENCRYPTION_MODE_AES_256_CTS	4

/* mmp block */
#define EXT4_MMP_MAGIC		0x004D4D50
#define EXT4_MMP_SEQ_CLEAN	0xFF4D4D50	/* unmounted cleanly */
#define EXT4_MMP_SEQ_FSCK	0xE24D4D50	/* e2fsck is running */
#define EXT4_MMP_SEQ_MAX	0xE24D4D4F	/* highest in-use sequence */

/* the multi-mount protection block at s_mmp_block (kernel struct mmp_struct) */
struct ext4_mmp_block {
	__le32	mmp_magic;		/* 0x000 EXT4_MMP_MAGIC */
	__le32	mmp_seq;		/* 0x004 EXT4_MMP_SEQ_* or a sequence */
	__le64	mmp_time;		/* 0x008 last update, seconds */
	__u8	mmp_nodename[64];	/* 0x010 host that updated it */
	__u8	mmp_bdevname[32];	/* 0x050 its device name */
	__le16	mmp_check_interval;	/* 0x070 seconds */
	__le16	mmp_pad1;		/* 0x072 */
	__le32	mmp_pad2[226];		/* 0x074 */
	__le32	mmp_checksum;		/* 0x3FC crc32c(csum_seed, 0..0x3FB) */
};

/*
 * e2fsprogs undo file, format "E2UNDO02" (lib/ext2fs/undo_io.c, misc/e2undo.c);
 * the layout and its rules are in lib/undo.c.  Little-endian.
 */
#define E2UNDO_MAGIC		"E2UNDO02"
#define E2UNDO_KEY_MAGIC	0xCADECADE
#define E2UNDO_STATE_FINISHED	0x1	/* the tool closed the file */
#define E2UNDO_COMPAT_FS_OFFSET	0x1	/* fs_offset is meaningful */
#define E2UNDO_MIN_BLOCK	1024
#define E2UNDO_MAX_BLOCK	1048576
#define E2UNDO_MAX_EXTENT	512	/* undo blocks one key may cover */

struct e2undo_header {
	char	magic[8];		/* 0x00 "E2UNDO02" */
	__le64	num_keys;		/* 0x08 keys in all key blocks */
	__le64	super_offset;		/* 0x10 undo block holding the superblock copy */
	__le64	key_offset;		/* 0x18 undo block of the first key block */
	__le32	block_size;		/* 0x20 undo block size */
	__le32	fs_block_size;		/* 0x24 unit of undo_key.fsblk */
	__le32	sb_crc;			/* 0x28 crc32c(~0) of the superblock copy */
	__le32	state;			/* 0x2C E2UNDO_STATE_* */
	__le32	f_compat;		/* 0x30 E2UNDO_COMPAT_* */
	__le32	f_incompat;		/* 0x34 none defined */
	__le32	f_rocompat;		/* 0x38 none defined */
	__le32	pad32;			/* 0x3C */
	__le64	fs_offset;		/* 0x40 byte offset of the filesystem on the device */
	__u8	padding[436];		/* 0x48 */
	__le32	header_crc;		/* 0x1FC crc32c(~0) of bytes 0x000..0x1FB */
};

struct e2undo_key {
	__le64	fsblk;			/* 0x0 target, in fs_block_size units from fs_offset */
	__le32	blk_crc;		/* 0x8 crc32c(~0) of the saved bytes */
	__le32	size;			/* 0xC saved bytes */
};

struct e2undo_key_block {
	__le32	magic;			/* 0x0 E2UNDO_KEY_MAGIC */
	__le32	crc;			/* 0x4 crc32c(~0) of the block with this field 0 */
	__le64	reserved;		/* 0x8 */
	struct e2undo_key keys[];	/* 0x10 block_size / 16 - 1 of them */
};

#define EK_OFF_ASSERT(s, f, off) _Static_assert(offsetof(struct s, f) == (off), #s "." #f)
EK_OFF_ASSERT(ext4_super_block, s_magic, 0x38);
EK_OFF_ASSERT(ext4_mmp_block, mmp_check_interval, 0x70);
EK_OFF_ASSERT(ext4_mmp_block, mmp_checksum, 0x3FC);
EK_OFF_ASSERT(ext4_super_block, s_uuid, 0x68);
EK_OFF_ASSERT(ext4_super_block, s_journal_uuid, 0xD0);
EK_OFF_ASSERT(ext4_super_block, s_desc_size, 0xFE);
EK_OFF_ASSERT(ext4_super_block, s_jnl_blocks, 0x10C);
EK_OFF_ASSERT(ext4_super_block, s_blocks_count_hi, 0x150);
EK_OFF_ASSERT(ext4_super_block, s_mmp_block, 0x168);
EK_OFF_ASSERT(ext4_super_block, s_kbytes_written, 0x178);
EK_OFF_ASSERT(ext4_super_block, s_first_error_func, 0x1A8);
EK_OFF_ASSERT(ext4_super_block, s_mount_opts, 0x200);
EK_OFF_ASSERT(ext4_super_block, s_lpf_ino, 0x268);
EK_OFF_ASSERT(ext4_super_block, s_checksum_seed, 0x270);
EK_OFF_ASSERT(ext4_super_block, s_orphan_file_inum, 0x280);
EK_OFF_ASSERT(ext4_super_block, s_checksum, 0x3FC);
_Static_assert(sizeof(struct ext4_super_block) == 1024, "ext4_super_block size");
EK_OFF_ASSERT(ext4_group_desc, bg_checksum, 0x1E);
EK_OFF_ASSERT(ext4_group_desc, bg_block_bitmap_csum_hi, 0x38);
_Static_assert(sizeof(struct ext4_group_desc) == 64, "ext4_group_desc size");
EK_OFF_ASSERT(ext4_inode, i_block, 0x28);
EK_OFF_ASSERT(ext4_inode, i_generation, 0x64);
EK_OFF_ASSERT(ext4_inode, l_i_checksum_lo, 0x7C);
EK_OFF_ASSERT(ext4_inode, i_extra_isize, 0x80);
EK_OFF_ASSERT(ext4_inode, i_crtime, 0x90);
EK_OFF_ASSERT(ext4_inode, i_projid, 0x9C);
_Static_assert(sizeof(struct ext4_inode) == 160, "ext4_inode size");
_Static_assert(sizeof(struct ext4_extent_header) == 12, "extent header");
_Static_assert(sizeof(struct ext4_extent) == 12, "extent");
_Static_assert(sizeof(struct ext4_extent_idx) == 12, "extent idx");
_Static_assert(sizeof(struct ext4_dir_entry_2) == 8, "dirent");
_Static_assert(sizeof(struct ext4_dir_entry_tail) == 12, "dirent tail");
_Static_assert(sizeof(struct dx_root_info) == 8, "dx_root_info");
_Static_assert(sizeof(struct ext4_xattr_header) == 32, "xattr header");
_Static_assert(sizeof(struct ext4_xattr_entry) == 16, "xattr entry");
_Static_assert(sizeof(struct ext4_fc_tl) == 4, "fc tl");
_Static_assert(sizeof(struct ext4_fc_head) == 8, "fc head");
_Static_assert(sizeof(struct ext4_fc_add_range) == 16, "fc add range");
_Static_assert(sizeof(struct ext4_fc_del_range) == 12, "fc del range");
_Static_assert(sizeof(struct ext4_fc_dentry_info) == 8, "fc dentry info");
_Static_assert(sizeof(struct ext4_fc_inode) == 4, "fc inode");
_Static_assert(sizeof(struct ext4_fc_tail) == 8, "fc tail");

EK_OFF_ASSERT(e2undo_header, fs_offset, 0x40);
EK_OFF_ASSERT(e2undo_header, header_crc, 0x1FC);
_Static_assert(sizeof(struct e2undo_header) == 512, "e2undo header");
_Static_assert(sizeof(struct e2undo_key) == 16, "e2undo key");
_Static_assert(sizeof(struct e2undo_key_block) == 16, "e2undo key block head");

#endif /* EK_ONDISK_H */
