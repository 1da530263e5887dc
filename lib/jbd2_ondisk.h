/* SPDX-License-Identifier: MIT */
/*
 * jbd2_ondisk.h - raw jbd2 journal structures, all big-endian.
 *
 * Names follow the kernel's include/linux/jbd2.h.  Every journal block the
 * log writes starts with a journal_header_t; data blocks do not (a data
 * block that starts with the magic is logged "escaped": its first four
 * bytes are zeroed and the tag carries JBD2_FLAG_ESCAPE).
 */
#ifndef EK_JBD2_ONDISK_H
#define EK_JBD2_ONDISK_H

#include <stddef.h>
#include "endian.h"

#define JBD2_MAGIC_NUMBER	0xC03B3998U

/* h_blocktype */
#define JBD2_DESCRIPTOR_BLOCK	1
#define JBD2_COMMIT_BLOCK	2
#define JBD2_SUPERBLOCK_V1	3
#define JBD2_SUPERBLOCK_V2	4
#define JBD2_REVOKE_BLOCK	5
#define JBD2_FC_BLOCK		6	/* fast-commit blocks carry no header; kept for names */

typedef struct journal_header_s {
	__be32	h_magic;		/* 0x0 */
	__be32	h_blocktype;		/* 0x4 */
	__be32	h_sequence;		/* 0x8 transaction id */
} journal_header_t;

/* checksum algorithms in commit blocks (s_checksum_type, h_chksum_type) */
#define JBD2_CRC32_CHKSUM	1
#define JBD2_MD5_CHKSUM		2
#define JBD2_SHA1_CHKSUM	3
#define JBD2_CRC32C_CHKSUM	4
#define JBD2_CRC32_CHKSUM_SIZE	4
#define JBD2_CHECKSUM_BYTES	(32 / sizeof(__u32))

/* commit block */
struct commit_header {
	__be32	h_magic;		/* 0x00 */
	__be32	h_blocktype;		/* 0x04 */
	__be32	h_sequence;		/* 0x08 */
	unsigned char h_chksum_type;	/* 0x0C */
	unsigned char h_chksum_size;	/* 0x0D */
	unsigned char h_padding[2];	/* 0x0E */
	__be32	h_chksum[JBD2_CHECKSUM_BYTES];	/* 0x10 */
	__be64	h_commit_sec;		/* 0x30 */
	__be32	h_commit_nsec;		/* 0x38 */
};

/* descriptor tags: the size depends on the features, see ek_jbd2_tag_bytes() */
typedef struct journal_block_tag3_s {
	__be32	t_blocknr;		/* 0x0 home block, low 32 bits */
	__be32	t_flags;		/* 0x4 JBD2_FLAG_* */
	__be32	t_blocknr_high;		/* 0x8 with INCOMPAT_64BIT */
	__be32	t_checksum;		/* 0xC crc32c(uuid, seq, data) with CSUM_V3 */
} journal_block_tag3_t;

typedef struct journal_block_tag_s {
	__be32	t_blocknr;		/* 0x0 */
	__be16	t_checksum;		/* 0x4 low 16 bits, CSUM_V2 */
	__be16	t_flags;		/* 0x6 */
	__be32	t_blocknr_high;		/* 0x8 with INCOMPAT_64BIT */
} journal_block_tag_t;

/* tail of descriptor and revoke blocks with CSUM_V2/V3 */
struct jbd2_journal_block_tail {
	__be32	t_checksum;
};

typedef struct jbd2_journal_revoke_header_s {
	journal_header_t r_header;	/* 0x0 */
	__be32	r_count;		/* 0xC bytes used in the block, header included */
} jbd2_journal_revoke_header_t;

/* t_flags */
#define JBD2_FLAG_ESCAPE	1	/* on-disk block is escaped */
#define JBD2_FLAG_SAME_UUID	2	/* no UUID follows the tag */
#define JBD2_FLAG_DELETED	4	/* (unused) */
#define JBD2_FLAG_LAST_TAG	8	/* last tag in this descriptor block */

#define JBD2_USERS_MAX		48
#define JBD2_USERS_SIZE		(16 * JBD2_USERS_MAX)

typedef struct journal_superblock_s {
	journal_header_t s_header;	/* 0x000 */
	__be32	s_blocksize;		/* 0x00C journal device block size */
	__be32	s_maxlen;		/* 0x010 blocks in the journal */
	__be32	s_first;		/* 0x014 first block of log information */
	__be32	s_sequence;		/* 0x018 first commit id expected in the log */
	__be32	s_start;		/* 0x01C block of the log start, 0 = clean */
	__be32	s_errno;		/* 0x020 error value, as set by jbd2_journal_abort() */
	/* v2 only */
	__be32	s_feature_compat;	/* 0x024 */
	__be32	s_feature_incompat;	/* 0x028 */
	__be32	s_feature_ro_compat;	/* 0x02C */
	__u8	s_uuid[16];		/* 0x030 */
	__be32	s_nr_users;		/* 0x040 filesystems sharing the log */
	__be32	s_dynsuper;		/* 0x044 */
	__be32	s_max_transaction;	/* 0x048 */
	__be32	s_max_trans_data;	/* 0x04C */
	__u8	s_checksum_type;	/* 0x050 */
	__u8	s_padding2[3];		/* 0x051 */
	__be32	s_num_fc_blks;		/* 0x054 fast-commit blocks, 0 = default 256 */
	__be32	s_head;			/* 0x058 */
	__be32	s_padding[40];		/* 0x05C */
	__be32	s_checksum;		/* 0x0FC crc32c(~0, sb) with CSUM_V2/V3 */
	__u8	s_users[JBD2_USERS_SIZE]; /* 0x100 ids of the sharing filesystems */
} journal_superblock_t;

#define JBD2_FEATURE_COMPAT_CHECKSUM		0x00000001
#define JBD2_FEATURE_INCOMPAT_REVOKE		0x00000001
#define JBD2_FEATURE_INCOMPAT_64BIT		0x00000002
#define JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT	0x00000004
#define JBD2_FEATURE_INCOMPAT_CSUM_V2		0x00000008
#define JBD2_FEATURE_INCOMPAT_CSUM_V3		0x00000010
#define JBD2_FEATURE_INCOMPAT_FAST_COMMIT	0x00000020
#define JBD2_KNOWN_COMPAT	JBD2_FEATURE_COMPAT_CHECKSUM
#define JBD2_KNOWN_INCOMPAT	(JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_64BIT | \
				 JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT | JBD2_FEATURE_INCOMPAT_CSUM_V2 | \
				 JBD2_FEATURE_INCOMPAT_CSUM_V3 | JBD2_FEATURE_INCOMPAT_FAST_COMMIT)
#define JBD2_DEFAULT_FC_BLOCKS	256
#define JBD2_MIN_JOURNAL_BLOCKS	1024

_Static_assert(sizeof(journal_header_t) == 12, "journal_header_t");
_Static_assert(offsetof(struct commit_header, h_commit_sec) == 0x30, "h_commit_sec");
_Static_assert(sizeof(journal_block_tag3_t) == 16, "tag3");
_Static_assert(sizeof(journal_block_tag_t) == 12, "tag");
_Static_assert(sizeof(jbd2_journal_revoke_header_t) == 16, "revoke header");
_Static_assert(offsetof(journal_superblock_t, s_uuid) == 0x30, "s_uuid");
_Static_assert(offsetof(journal_superblock_t, s_num_fc_blks) == 0x54, "s_num_fc_blks");
_Static_assert(offsetof(journal_superblock_t, s_checksum) == 0xFC, "s_checksum");
_Static_assert(sizeof(journal_superblock_t) == 1024, "journal_superblock_t");

#endif /* EK_JBD2_ONDISK_H */
