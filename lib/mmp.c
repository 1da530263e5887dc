// SPDX-License-Identifier: MIT
/*
 * mmp.c - the multi-mount protection block (incompat mmp): one block at
 * s_mmp_block that a mounting kernel or e2fsck stamps with a sequence,
 * its host and device names and the time, so a second host sees it is in
 * use.  Layout: struct ext4_mmp_block in ondisk.h (kernel mmp_struct);
 * checksum crc32c(csum_seed) of the bytes before mmp_checksum, as the
 * kernel's ext4_mmp_csum().
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

int ek_mmp_block_check(const struct ek_fs *fs, ek_blk_t blk)
{
	/* as libext2fs' MMP read: block first_data_block is the superblock */
	if (blk <= fs->sb.first_data_block || blk >= fs->sb.blocks_count)
		return ek_corrupt_fs("MMP block %llu is outside the filesystem",
				     (unsigned long long)blk);
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];
		ek_blk_t first = ek_group_first_block(fs, g);
		uint32_t meta = ek_group_sb_gdt_blocks(fs, g);

		if (first == 0 && fs->blksz == 1024)
			first = 1;
		if ((meta && blk >= first && blk - first < meta) || blk == grp->block_bitmap ||
		    blk == grp->inode_bitmap ||
		    (blk >= grp->inode_table && blk - grp->inode_table < fs->itable_blocks))
			return ek_corrupt(blk, "MMP block %llu is group %u's metadata",
					  (unsigned long long)blk, g);
	}
	return 0;
}

void ek_mmp_encode(const struct ek_fs *fs, const struct ek_mmp *m, void *buf)
{
	struct ext4_mmp_block *b = buf;

	memset(buf, 0, fs->blksz);
	b->mmp_magic = cpu_to_le32(m->magic);
	b->mmp_seq = cpu_to_le32(m->seq);
	b->mmp_time = cpu_to_le64((uint64_t)m->time);
	memcpy(b->mmp_nodename, m->nodename, strnlen(m->nodename, sizeof(b->mmp_nodename)));
	memcpy(b->mmp_bdevname, m->bdevname, strnlen(m->bdevname, sizeof(b->mmp_bdevname)));
	b->mmp_check_interval = cpu_to_le16((uint16_t)m->check_interval);
	if (fs->has_csum)
		b->mmp_checksum = cpu_to_le32(ek_crc32c(fs->csum_seed, buf,
							offsetof(struct ext4_mmp_block,
								 mmp_checksum)));
}

enum ek_mmp_seq_state ek_mmp_seq_state(uint32_t seq)
{
	if (seq == EXT4_MMP_SEQ_CLEAN)
		return EK_MMP_CLEAN;
	if (seq == EXT4_MMP_SEQ_FSCK)
		return EK_MMP_FSCK;
	return seq <= EXT4_MMP_SEQ_MAX ? EK_MMP_LIVE : EK_MMP_UNKNOWN;
}

int ek_mmp_read(struct ek_fs *fs, struct ek_mmp *out)
{
	const struct ext4_mmp_block *m;
	ek_blk_t blk = le64_to_cpu(fs->raw_sb->s_mmp_block);
	uint8_t *buf;
	int err;

	memset(out, 0, sizeof(*out));
	out->block = blk;
	if (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP))
		return -EINVAL;
	err = ek_mmp_block_check(fs, blk);
	if (err)
		return err;
	buf = ek_malloc(fs->blksz);
	if (!buf)
		return -ENOMEM;
	err = ek_fs_read_blocks(fs, blk, 1, buf);
	if (err)
		goto out;
	m = (const struct ext4_mmp_block *)buf;
	out->magic = le32_to_cpu(m->mmp_magic);
	if (out->magic != EXT4_MMP_MAGIC) {
		err = ek_corrupt(blk, "MMP block magic 0x%08x is not 0x%08x", out->magic,
				 EXT4_MMP_MAGIC);
		goto out;
	}
	out->seq = le32_to_cpu(m->mmp_seq);
	out->time = (int64_t)le64_to_cpu(m->mmp_time);
	memcpy(out->nodename, m->mmp_nodename, sizeof(m->mmp_nodename));
	memcpy(out->bdevname, m->mmp_bdevname, sizeof(m->mmp_bdevname));
	out->check_interval = le16_to_cpu(m->mmp_check_interval);
	out->checksum = le32_to_cpu(m->mmp_checksum);
	if (fs->has_csum) {
		out->csum_want = ek_crc32c(fs->csum_seed, buf,
					   offsetof(struct ext4_mmp_block, mmp_checksum));
		out->csum_bad = out->csum_want != out->checksum;
	}
out:
	free(buf);
	return err;
}
