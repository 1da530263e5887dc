// SPDX-License-Identifier: MIT
/*
 * journal.c - the jbd2 journal: superblock, location, block mapping.
 *
 * An internal journal lives in inode s_journal_inum (8); its block map is
 * also copied into the superblock's s_jnl_blocks (i_block[15], then
 * i_size_high, i_size) for when the inode is damaged.  Journal block N is
 * logical block N of that inode.  The log is a ring over [s_first, last),
 * where last is s_maxlen, less the fast-commit area when there is one.
 * Validation order as elsewhere: magic and block type, unknown incompat
 * features refused, checksum, then geometry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

uint32_t ek_jsb_csum(const void *raw)
{
	journal_superblock_t sb;

	memcpy(&sb, raw, sizeof(sb));
	sb.s_checksum = 0;
	return ek_crc32c(~0u, &sb, sizeof(sb));
}

#define jsb_bad(...) ek_corrupt_fs("journal superblock: " __VA_ARGS__)

int ek_jsb_decode(const void *raw, uint32_t blksz, bool ignore_csum, struct ek_jsb *out)
{
	const journal_superblock_t *r = raw;
	struct ek_jsb j = { 0 };
	uint32_t magic = be32_to_cpu(r->s_header.h_magic);

	if (magic != JBD2_MAGIC_NUMBER)
		return jsb_bad("bad magic 0x%08x", magic);
	j.version = be32_to_cpu(r->s_header.h_blocktype) == JBD2_SUPERBLOCK_V2 ? 2 :
		    be32_to_cpu(r->s_header.h_blocktype) == JBD2_SUPERBLOCK_V1 ? 1 : 0;
	if (!j.version)
		return jsb_bad("block type %u is not a superblock",
			       be32_to_cpu(r->s_header.h_blocktype));
	if (j.version == 2) {
		j.compat = be32_to_cpu(r->s_feature_compat);
		j.incompat = be32_to_cpu(r->s_feature_incompat);
		j.ro_compat = be32_to_cpu(r->s_feature_ro_compat);
		if (j.incompat & ~JBD2_KNOWN_INCOMPAT)
			return ek_unsupp("journal superblock: unknown incompat features 0x%x",
					 j.incompat & ~JBD2_KNOWN_INCOMPAT);
		if ((j.incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2) &&
		    (j.incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3))
			return jsb_bad("both checksum v2 and v3 are set");
		/* the kernel's journal_check_superblock() refuses this mix */
		if ((j.compat & JBD2_FEATURE_COMPAT_CHECKSUM) &&
		    (j.incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)))
			return jsb_bad("both checksum v1 and v2/v3 are set");
	}
	j.checksum = be32_to_cpu(r->s_checksum);
	j.checksum_type = r->s_checksum_type;
	if (j.incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		if (j.checksum_type != JBD2_CRC32C_CHKSUM && !ignore_csum)
			return ek_unsupp("journal superblock: checksum type %u is not crc32c",
					 j.checksum_type);
		if (ek_jsb_csum(raw) != j.checksum && !ignore_csum)
			return ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_NONE, 0,
					 "journal superblock: checksum 0x%08x does not match 0x%08x",
					 j.checksum, ek_jsb_csum(raw));
	}

	j.blocksize = be32_to_cpu(r->s_blocksize);
	j.maxlen = be32_to_cpu(r->s_maxlen);
	j.first = be32_to_cpu(r->s_first);
	j.sequence = be32_to_cpu(r->s_sequence);
	j.start = be32_to_cpu(r->s_start);
	j.errno_ = (int32_t)be32_to_cpu(r->s_errno);
	if (blksz && j.blocksize != blksz)
		return jsb_bad("block size %u, the filesystem's is %u", j.blocksize, blksz);
	if (j.blocksize < 1024 || j.blocksize > 65536 || (j.blocksize & (j.blocksize - 1)))
		return jsb_bad("block size %u invalid", j.blocksize);
	if (j.maxlen < JBD2_MIN_JOURNAL_BLOCKS)
		return jsb_bad("%u blocks, fewer than the minimum %u", j.maxlen,
			       JBD2_MIN_JOURNAL_BLOCKS);
	j.last = j.maxlen;
	if (j.incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) {
		j.num_fc_blks = be32_to_cpu(r->s_num_fc_blks);
		if (!j.num_fc_blks)
			j.num_fc_blks = JBD2_DEFAULT_FC_BLOCKS;
		if (j.num_fc_blks >= j.maxlen || j.maxlen - j.num_fc_blks < JBD2_MIN_JOURNAL_BLOCKS)
			return jsb_bad("%u fast-commit blocks leave too small a log of %u blocks",
				       j.num_fc_blks, j.maxlen);
		j.last = j.maxlen - j.num_fc_blks;
	}
	if (j.first == 0 || j.first >= j.last)
		return jsb_bad("first log block %u outside 1..%u", j.first, j.last - 1);
	if (j.start && (j.start < j.first || j.start >= j.last))
		return jsb_bad("log start %u outside %u..%u", j.start, j.first, j.last - 1);
	if (j.version == 2) {
		memcpy(j.uuid, r->s_uuid, 16);
		j.nr_users = be32_to_cpu(r->s_nr_users);
		j.max_transaction = be32_to_cpu(r->s_max_transaction);
		j.max_trans_data = be32_to_cpu(r->s_max_trans_data);
	}
	*out = j;
	return 0;
}

void ek_jsb_encode(const struct ek_jsb *in, void *raw)
{
	journal_superblock_t *r = raw;

	r->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	r->s_header.h_blocktype = cpu_to_be32(in->version == 1 ? JBD2_SUPERBLOCK_V1 :
					      JBD2_SUPERBLOCK_V2);
	r->s_blocksize = cpu_to_be32(in->blocksize);
	r->s_maxlen = cpu_to_be32(in->maxlen);
	r->s_first = cpu_to_be32(in->first);
	r->s_sequence = cpu_to_be32(in->sequence);
	r->s_start = cpu_to_be32(in->start);
	r->s_errno = cpu_to_be32((uint32_t)in->errno_);
	if (in->version == 1)
		return;
	r->s_feature_compat = cpu_to_be32(in->compat);
	r->s_feature_incompat = cpu_to_be32(in->incompat);
	r->s_feature_ro_compat = cpu_to_be32(in->ro_compat);
	memcpy(r->s_uuid, in->uuid, 16);
	r->s_nr_users = cpu_to_be32(in->nr_users);
	r->s_max_transaction = cpu_to_be32(in->max_transaction);
	r->s_max_trans_data = cpu_to_be32(in->max_trans_data);
	r->s_checksum_type = in->checksum_type;
	r->s_num_fc_blks = cpu_to_be32(in->num_fc_blks);
	if (in->incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3))
		r->s_checksum = cpu_to_be32(ek_jsb_csum(raw));
}

int ek_jbd2_tag_bytes(uint32_t incompat)
{
	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		return sizeof(journal_block_tag3_t);
	return 8 + ((incompat & JBD2_FEATURE_INCOMPAT_64BIT) ? 4 : 0) +
	       ((incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2) ? 2 : 0);
}

/* ---- locating an internal journal ----------------------------------------- */

struct jmap_build {
	struct ek_journal *j;
	size_t cap;
};

static int jmap_add(void *arg, const struct ek_mapping *m)
{
	struct jmap_build *b = arg;
	struct ek_journal *j = b->j;

	if (m->kind != EK_MAP_DATA)
		return 0;
	if (ek_grow(&j->runs, &b->cap, j->nruns + 1, sizeof(*j->runs)))
		return -ENOMEM;
	j->runs[j->nruns++] = (struct ek_jrun){ m->lblk, m->pblk, m->len };
	return 0;
}

/* the journal inode as recorded in s_jnl_blocks (e2fsprogs' backup) */
static int backup_inode(struct ek_fs *fs, struct ek_inode *ei)
{
	const struct ext4_super_block *sb = fs->raw_sb;
	struct ext4_inode *r;

	if (sb->s_jnl_backup_type != 1)	/* EXT3_JNL_BACKUP_BLOCKS */
		return ek_corrupt_fs("journal: no backup of the journal inode in the superblock");
	memset(ei, 0, sizeof(*ei));
	ei->raw = calloc(1, fs->inode_size);
	if (!ei->raw)
		return -ENOMEM;
	r = (struct ext4_inode *)ei->raw;
	memcpy(r->i_block, sb->s_jnl_blocks, sizeof(r->i_block));
	ei->ino = fs->sb.journal_inum;
	ei->mode = 0100600;
	ei->size = le32_to_cpu(sb->s_jnl_blocks[16]) |
		   (uint64_t)le32_to_cpu(sb->s_jnl_blocks[15]) << 32;
	ei->blocks = ei->size >> 9;
	if (get_le16(r->i_block) == EXT4_EXT_MAGIC)
		ei->flags = EXT4_EXTENTS_FL;
	return 0;
}

static int map_journal(struct ek_journal *j, struct ek_inode *ei)
{
	struct jmap_build b = { .j = j };
	int err;

	free(j->runs);
	j->runs = NULL;
	j->nruns = 0;
	if (!ek_is_reg(ei->mode))
		return ek_corrupt_ino(ei->ino, "journal inode is not a regular file (mode 0%o)", ei->mode);
	err = ek_map_walk(j->fs, ei, jmap_add, &b);
	if (err == -EK_BADCRC)
		err = 0;	/* a tree-block checksum does not move the journal */
	if (err)
		return err;
	j->nblocks = ei->size >> j->fs->log_blksz;
	if (!j->nruns || j->runs[0].lblk != 0)
		return ek_corrupt_ino(ei->ino, "journal block 0 is not mapped");
	return 0;
}

/*
 * The filesystem (or device) block of journal block @jblk, and in *@len how
 * many of the @max blocks from @jblk on follow it on disk.
 */
int ek_journal_bmap_run(const struct ek_journal *j, uint64_t jblk, uint64_t max, ek_blk_t *pblk,
			uint64_t *len)
{
	size_t lo = 0, hi = j->nruns;

	if (j->dev) {
		if (jblk >= j->nblocks)
			return ek_corrupt_fs("journal block %llu is past the journal device's end",
					     (unsigned long long)jblk);
		*pblk = jblk;	/* as jbd2_journal_bmap(): device blocks, no offset */
		*len = j->nblocks - jblk < max ? j->nblocks - jblk : max;
		return 0;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct ek_jrun *r = &j->runs[mid];

		if (jblk < r->lblk)
			hi = mid;
		else if (jblk >= r->lblk + r->len)
			lo = mid + 1;
		else {
			*pblk = r->pblk + (jblk - r->lblk);
			*len = r->len - (jblk - r->lblk) < max ? r->len - (jblk - r->lblk) : max;
			return 0;
		}
	}
	return ek_corrupt_fs("journal block %llu is not mapped", (unsigned long long)jblk);
}

int ek_journal_bmap(const struct ek_journal *j, uint64_t jblk, ek_blk_t *pblk)
{
	uint64_t len;

	return ek_journal_bmap_run(j, jblk, 1, pblk, &len);
}

int ek_journal_read_blocks(const struct ek_journal *j, uint64_t jblk, uint32_t count, void *buf)
{
	uint8_t *p = buf;
	unsigned shift = j->fs->log_blksz;

	/* one read per stretch that is contiguous on disk */
	while (count) {
		ek_blk_t pblk;
		uint64_t n;
		int err = ek_journal_bmap_run(j, jblk, count, &pblk, &n);

		if (!err && j->dev)
			err = ek_io_pread(j->dev, p, (size_t)n << shift, pblk << shift);
		else if (!err)
			err = ek_fs_read_blocks(j->fs, pblk, (uint32_t)n, p);
		if (err)
			return err;
		p += (size_t)n << shift;
		jblk += n;
		count -= (uint32_t)n;
	}
	return 0;
}

int ek_journal_read(const struct ek_journal *j, uint64_t jblk, void *buf)
{
	return ek_journal_read_blocks(j, jblk, 1, buf);
}

/* one journal block written, flushed when @flush */
static int journal_put(const struct ek_journal *j, uint64_t jblk, const void *buf, size_t len,
		       bool flush)
{
	ek_blk_t pblk;
	int err = ek_journal_bmap(j, jblk, &pblk);

	if (err)
		return err;
	err = ek_io_pwrite(j->dev ? j->dev : j->fs->io, buf, len, pblk << j->fs->log_blksz);
	if (!err && flush)
		err = ek_io_sync(j->dev ? j->dev : j->fs->io);
	return err;
}

int ek_journal_write(const struct ek_journal *j, uint64_t jblk, const void *buf, size_t len)
{
	return journal_put(j, jblk, buf, len, true);
}

static int journal_sb_out(struct ek_journal *j, bool flush)
{
	journal_superblock_t *jsb = (journal_superblock_t *)j->raw_sb;

	if (j->leave_journal)
		return 0;
	if (be32_to_cpu(jsb->s_header.h_blocktype) == JBD2_SUPERBLOCK_V2 &&
	    (be32_to_cpu(jsb->s_feature_incompat) &
	     (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)))
		jsb->s_checksum = cpu_to_be32(ek_jsb_csum(jsb));
	return journal_put(j, j->dev ? j->dev_start : 0, jsb, sizeof(*jsb), flush);
}

int ek_journal_put_sb(struct ek_journal *j)
{
	return journal_sb_out(j, false);
}

int ek_journal_write_sb(struct ek_journal *j)
{
	return journal_sb_out(j, true);
}

int ek_journal_clear_v2_fields(struct ek_journal *j)
{
	const size_t v1 = offsetof(journal_superblock_t, s_feature_compat);
	struct ek_jsb sb;
	int err;

	if (j->dev)
		return ek_err(-EINVAL, "journal: an external journal's users are its own");
	memset(j->raw_sb + v1, 0, sizeof(j->raw_sb) - v1);
	err = ek_jsb_decode(j->raw_sb, j->fs->blksz, true, &sb);
	if (err)
		return err;
	j->sb = sb;
	return ek_journal_write_sb(j);
}

/* a journal of @fs and a block buffer, both for the caller to free */
static int journal_alloc(struct ek_fs *fs, struct ek_journal **j, uint8_t **buf)
{
	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return ek_err(-ENOENT, "the filesystem has no journal");
	*j = calloc(1, sizeof(**j));
	*buf = ek_malloc(fs->blksz);
	if (!*j || !*buf) {
		free(*j);
		free(*buf);
		return -ENOMEM;
	}
	(*j)->fs = fs;
	return 0;
}

int ek_journal_open_dev(struct ek_fs *fs, const char *path, unsigned flags,
			struct ek_journal **out)
{
	struct ext4_super_block dsb;
	struct ek_journal *j;
	const journal_superblock_t *jsb;
	uint8_t *buf;
	uint32_t dblk;
	uint64_t dblocks;
	bool found = false;
	int err;

	if (fs->sb.journal_inum)
		return ek_err(-EINVAL, "the filesystem's journal is internal (inode %u): "
			      "it has no journal device", fs->sb.journal_inum);
	err = journal_alloc(fs, &j, &buf);
	if (err)
		return err;
	err = ek_io_open(path, (flags & EK_OPEN_RW) ? EK_IO_RW : 0, 0, &j->dev);
	if (!err)
		err = ek_io_pread(j->dev, &dsb, sizeof(dsb), EXT4_SUPERBLOCK_OFFSET);
	if (err)
		goto out;
	/* the device's own superblock: magic, journal_dev, block size, UUID */
	if (le16_to_cpu(dsb.s_magic) != EXT4_SUPER_MAGIC ||
	    !(le32_to_cpu(dsb.s_feature_incompat) & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV)) {
		err = ek_corrupt_fs("'%s' is not an external journal device", path);
		goto out;
	}
	dblk = 1024u << (le32_to_cpu(dsb.s_log_block_size) & 7);
	if (le32_to_cpu(dsb.s_log_block_size) > 6 || dblk != fs->blksz) {
		err = ek_corrupt_fs("journal device '%s' has %u-byte blocks, the filesystem %u",
				    path, dblk, fs->blksz);
		goto out;
	}
	if (memcmp(dsb.s_uuid, fs->raw_sb->s_journal_uuid, 16)) {
		err = ek_corrupt_fs("journal device '%s' is not the one the filesystem names (UUID differs)",
				    path);
		goto out;
	}
	/* as the kernel's ext4_get_dev_journal(): the journal superblock is
	 * in the block after the device's ext4 superblock; journal block
	 * numbers are the device's own */
	j->dev_start = EXT4_SUPERBLOCK_OFFSET / fs->blksz + 1;
	dblocks = le32_to_cpu(dsb.s_blocks_count_lo);
	if (le32_to_cpu(dsb.s_feature_incompat) & EXT4_FEATURE_INCOMPAT_64BIT)
		dblocks |= (uint64_t)le32_to_cpu(dsb.s_blocks_count_hi) << 32;
	if (dblocks <= j->dev_start + 1 || (dblocks << fs->log_blksz) > ek_io_size(j->dev)) {
		err = ek_corrupt_fs("journal device '%s': %llu blocks do not fit the device",
				    path, (unsigned long long)dblocks);
		goto out;
	}
	j->nblocks = dblocks;
	err = ek_journal_read(j, j->dev_start, buf);
	if (!err)
		err = ek_jsb_decode(buf, fs->blksz, flags & EK_OPEN_IGNORE_CSUM, &j->sb);
	if (err)
		goto out;
	jsb = (const void *)buf;
	if (j->sb.nr_users > JBD2_USERS_MAX) {
		err = ek_corrupt_fs("journal superblock: %u users, more than %u", j->sb.nr_users,
				    JBD2_USERS_MAX);
		goto out;
	}
	for (uint32_t i = 0; i < j->sb.nr_users; i++)
		found |= !memcmp(jsb->s_users + 16 * i, fs->sb.uuid, 16);
	if (!found) {
		err = ek_corrupt_fs("journal device '%s' does not list this filesystem among its users",
				    path);
		goto out;
	}
	if (j->sb.maxlen > j->nblocks) {
		err = ek_corrupt_fs("journal superblock: %u blocks, the device holds %llu",
				    j->sb.maxlen, (unsigned long long)j->nblocks);
		goto out;
	}
	memcpy(j->raw_sb, buf, sizeof(j->raw_sb));
out:
	free(buf);
	if (err) {
		ek_journal_close(j);
		return err;
	}
	*out = j;
	return 0;
}

int ek_journal_open(struct ek_fs *fs, unsigned flags, struct ek_journal **out)
{
	struct ek_journal *j;
	struct ek_inode ei = { 0 };
	uint8_t *buf = NULL;
	int err;

	if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) && !fs->sb.journal_inum)
		return ek_err(-ENODEV, "the journal is on an external device, which was not given");
	err = journal_alloc(fs, &j, &buf);
	if (err)
		return err;
	err = ek_inode_read(fs, fs->sb.journal_inum, &ei);
	if (!err || err == -EK_BADCRC)
		err = map_journal(j, &ei);
	if (!err)
		err = ek_journal_read(j, 0, buf);
	if (!err)
		err = ek_jsb_decode(buf, fs->blksz, flags & EK_OPEN_IGNORE_CSUM, &j->sb);
	if (err && err != -EK_UNSUPP && err != -ENOMEM && err != -EK_BADCRC) {
		/* the inode or what it maps is damaged: try the superblock's copy */
		ek_fs_warn(fs, "journal inode: %s; using the superblock's backup", ek_error_msg(err));
		ek_inode_release(&ei);
		err = backup_inode(fs, &ei);
		if (!err)
			err = map_journal(j, &ei);
		if (!err)
			err = ek_journal_read(j, 0, buf);
		if (!err)
			err = ek_jsb_decode(buf, fs->blksz, flags & EK_OPEN_IGNORE_CSUM, &j->sb);
		j->from_backup = true;
	}
	if (!err && j->sb.maxlen > j->nblocks)
		err = ek_corrupt_fs("journal superblock: %u blocks, the journal inode maps %llu",
				    j->sb.maxlen, (unsigned long long)j->nblocks);
	if (!err)
		memcpy(j->raw_sb, buf, sizeof(j->raw_sb));
	ek_inode_release(&ei);
	free(buf);
	if (err) {
		ek_journal_close(j);
		return err;
	}
	*out = j;
	return 0;
}

/*
 * e2fsck's rules for the journal superblock beyond what recovery needs
 * (e2fsck_journal_load): the kernel replays such a journal, e2fsck will
 * not use it (its exit status has 8 and 4) until the fields are cleared.
 */
int ek_journal_check_sb(const struct ek_journal *j)
{
	/* a version 1 superblock's v2 fields are ignored (e2fsck -y clears
	 * them; -n calls the filesystem clean) */
	if (j->sb.version == 2 && j->sb.nr_users > 1)
		return jsb_bad("%u filesystems use the journal: only one is supported",
			       j->sb.nr_users);
	if (j->sb.ro_compat)	/* jbd2 knows no ro_compat feature */
		return jsb_bad("unknown read-only compatible features 0x%x", j->sb.ro_compat);
	return 0;
}

void ek_journal_close(struct ek_journal *j)
{
	if (!j)
		return;
	ek_io_close(j->dev);
	free(j->runs);
	free(j);
}

/* ---- the journal superblock as JSON: one key set for every tool ------------ */

const char *ek_jsb_feature_name(int word, int bit, char *buf, size_t len)
{
	/* dumpe2fs's names (lib/e2p), so stats lines compare with its output */
	static const char *incompat[32] = {
		"journal_incompat_revoke", "journal_64bit", "journal_async_commit",
		"journal_checksum_v2", "journal_checksum_v3",
	};
	const char *n = word == 0 && bit == 0 ? "journal_checksum" :
			word == 1 && bit >= 0 && bit < 32 ? incompat[bit] : NULL;

	if (n)
		return n;
	snprintf(buf, len, "FEATURE_%c%d", "CIR"[word < 0 || word > 2 ? 0 : word], bit);
	return buf;
}

void ek_journal_emit(struct ek_out *o, const struct ek_journal *j, const char *device)
{
	const struct ek_jsb *s = &j->sb;
	char uuid[40], unk[16];

	if (j->dev) {
		ek_out_null(o, "inode");
		ek_out_str(o, "device", device ? device : "");
	} else {
		ek_out_u64(o, "inode", j->fs->sb.journal_inum);
		ek_out_null(o, "device");
	}
	ek_out_bool(o, "mapped_from_backup", j->from_backup);
	ek_out_u64(o, "version", s->version);
	ek_out_u64(o, "block_size", s->blocksize);
	ek_out_u64(o, "blocks", s->maxlen);
	ek_out_u64(o, "first", s->first);
	ek_out_u64(o, "last", s->last);
	ek_out_u64(o, "fast_commit_blocks", s->num_fc_blks);
	ek_out_arr_begin(o, "features");
	for (int w = 0; w < 3; w++) {
		uint32_t v = w == 0 ? s->compat : w == 1 ? s->incompat : s->ro_compat;

		for (int b = 0; b < 32; b++)
			if (v & (1u << b))
				ek_out_str(o, NULL, ek_jsb_feature_name(w, b, unk, sizeof(unk)));
	}
	ek_out_arr_end(o);
	/* the raw masks beside the names, keyed as the filesystem superblock's */
	ek_out_u64(o, "feature_compat", s->compat);
	ek_out_u64(o, "feature_incompat", s->incompat);
	ek_out_u64(o, "feature_ro_compat", s->ro_compat);
	ek_out_str(o, "uuid", ek_fmt_uuid(s->uuid, uuid, sizeof(uuid)));
	ek_out_u64(o, "sequence", s->sequence);
	ek_out_u64(o, "start", s->start);
	ek_out_s64(o, "errno", s->errno_);
	ek_out_u64(o, "users", s->nr_users);
	ek_out_u64(o, "max_transaction", s->max_transaction);
	ek_out_u64(o, "checksum_type", s->checksum_type);
	ek_out_u64(o, "checksum", s->checksum);
	ek_out_bool(o, "needs_recovery", s->start != 0);
}

int ek_journal_dev_attach(struct ek_io *io, const uint8_t *add_user, int64_t now,
			  uint32_t *blksz, uint8_t *uuid)
{
	struct ext4_super_block dsb;
	struct ek_jsb jsb;
	uint8_t *buf = NULL;
	uint32_t bs, log;
	uint64_t off;
	bool found = false;
	int err;

	if ((err = ek_super_read_primary(io, &dsb)))
		return err;
	if (le16_to_cpu(dsb.s_magic) != EXT4_SUPER_MAGIC ||
	    !(le32_to_cpu(dsb.s_feature_incompat) & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV))
		return ek_corrupt_fs("not an external journal device (no ext4 superblock with "
				     "journal_dev)");
	log = le32_to_cpu(dsb.s_log_block_size);
	if (log > 6)
		return ek_corrupt_fs("journal device superblock: block size 2^%u KiB", log);
	bs = 1024u << log;
	/* the journal superblock: the block after the device's ext4 superblock */
	off = (uint64_t)(EXT4_SUPERBLOCK_OFFSET / bs + 1) * bs;
	if (!(buf = ek_malloc(bs)))
		return -ENOMEM;
	if ((err = ek_io_pread(io, buf, bs, off)) ||
	    (err = ek_jsb_decode(buf, bs, false, &jsb)))
		goto out;
	if (jsb.nr_users > JBD2_USERS_MAX) {
		err = ek_corrupt_fs("journal superblock: %u users, more than %u", jsb.nr_users,
				    JBD2_USERS_MAX);
		goto out;
	}
	*blksz = bs;
	memcpy(uuid, dsb.s_uuid, 16);
	if (!add_user)
		goto out;
	{
		journal_superblock_t *raw = (void *)buf;

		for (uint32_t i = 0; i < jsb.nr_users; i++)
			found |= !memcmp(raw->s_users + 16 * i, add_user, 16);
		if (!found) {
			if (jsb.nr_users == JBD2_USERS_MAX) {
				err = ek_err(-ENOSPC, "the journal device has %u users already",
					     JBD2_USERS_MAX);
				goto out;
			}
			memcpy(raw->s_users + 16 * jsb.nr_users, add_user, 16);
			jsb.nr_users++;
		}
	}
	ek_jsb_encode(&jsb, buf);
	if ((err = ek_io_pwrite(io, buf, bs, off)))
		goto out;
	/* e2fsprogs closes the device as a filesystem opened for writing */
	ek_time_set(&dsb.s_wtime, &dsb.s_wtime_hi, now);
	/*
	 * mke2fs 1.47.0 counts the journal superblock's write in a count that
	 * is running (not 0): one KiB, two with 1 KiB blocks (measured with 1,
	 * 2 and 4 KiB journal devices)
	 */
	if (dsb.s_kbytes_written)
		dsb.s_kbytes_written = cpu_to_le64(le64_to_cpu(dsb.s_kbytes_written) +
						   (bs == 1024 ? 2 : 1));
	err = ek_super_write_primary(io, &dsb);
out:
	free(buf);
	return err;
}

uint32_t ek_journal_hole_blocks(const struct ek_journal *j, uint64_t jblk, uint32_t count)
{
	unsigned shift = j->fs->log_blksz;
	ek_blk_t pblk;
	uint64_t n, hole;

	if (ek_journal_bmap_run(j, jblk, count, &pblk, &n) || !n)
		return 0;
	hole = ek_io_hole_len(j->dev ? j->dev : j->fs->io, pblk << shift, n << shift);
	return (uint32_t)(hole >> shift);
}
