// SPDX-License-Identifier: MIT
/*
 * fs.c - open a filesystem: superblock, descriptors, lazy bitmaps.
 *
 * Every read of an open filesystem (superblock, descriptors, bitmaps,
 * inode tables, maps, directories, xattrs) ends in ek_io_pread(), so a
 * read overlay given at open (ek_open_opts.overlay) is seen by all of them,
 * the inode-table chunk cache and the lazily loaded bitmaps included.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

void ek_fs_warn(struct ek_fs *fs, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (fs->nwarnings >= EK_MAX_WARNINGS) {
		fs->warnings_dropped++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) >= 0)
		fs->warnings[fs->nwarnings++] = msg;
	va_end(ap);
}

/*
 * Blocks a pointer may name: past the first data block and never block 0,
 * which holds the boot sector and superblock even when s_first_data_block
 * is 0 (4 KiB blocks).
 */
bool ek_fs_block_valid(const struct ek_fs *fs, ek_blk_t blk)
{
	return blk > 0 && blk >= fs->sb.first_data_block && blk < fs->sb.blocks_count;
}

bool ek_fs_range_valid(const struct ek_fs *fs, ek_blk_t blk, uint64_t count)
{
	return ek_fs_block_valid(fs, blk) && count <= fs->sb.blocks_count - blk;
}

int ek_fs_read_blocks(struct ek_fs *fs, ek_blk_t blk, uint32_t count, void *buf)
{
	/* block 0 is legitimately read for the boot sector / 4k superblock block */
	if (blk >= fs->sb.blocks_count || count > fs->sb.blocks_count - blk)
		return ek_corrupt(blk, "read of %u blocks outside the filesystem (%llu blocks)",
				  count, (unsigned long long)fs->sb.blocks_count);
	return ek_io_pread(fs->io, buf, (size_t)count << fs->log_blksz,
			   (uint64_t)blk << fs->log_blksz);
}

static int read_super(struct ek_fs *fs, const struct ek_open_opts *o)
{
	bool ignore = o->flags & EK_OPEN_IGNORE_CSUM;
	int err;

	if (!o->superblock) {
		err = ek_io_pread(fs->io, fs->raw_sb, EXT4_SUPERBLOCK_SIZE, EXT4_SUPERBLOCK_OFFSET);
		if (err)
			return err;
		return ek_super_decode(fs->raw_sb, ignore, &fs->sb);
	}

	/* a backup superblock: try the given block size, or each one */
	err = -EINVAL;
	for (uint32_t bs = 1024; bs <= 65536; bs <<= 1) {
		if (o->blocksize && bs != o->blocksize)
			continue;
		if (o->superblock > UINT64_MAX / bs)
			break;
		err = ek_io_pread(fs->io, fs->raw_sb, EXT4_SUPERBLOCK_SIZE, o->superblock * bs);
		if (err)
			continue;
		err = ek_super_decode(fs->raw_sb, ignore, &fs->sb);
		if (!err && (1024u << fs->sb.log_block_size) != bs)
			err = ek_corrupt_fs("superblock at block %llu: block size %u, expected %u",
					    (unsigned long long)o->superblock,
					    1024u << fs->sb.log_block_size, bs);
		if (!err)
			return 0;
	}
	if (err == -EINVAL)
		return ek_err(-EINVAL, "no valid superblock at block %llu",
			      (unsigned long long)o->superblock);
	return err;
}

/*
 * With an overlay, the superblock read from the image gives the block size
 * the overlay's blocks have; then the superblock is read again through it
 * (a replayed log may carry block 0) and must keep that block size.
 */
static int overlay_super(struct ek_fs *fs, const struct ek_open_opts *o)
{
	uint32_t log = fs->sb.log_block_size;
	int err;

	if (o->flags & EK_OPEN_RW)
		return ek_err(-EINVAL, "a read overlay is for read-only opens");
	err = ek_io_set_overlay(fs->io, o->overlay, o->overlay_arg, 10 + log);
	if (!err)
		err = read_super(fs, o);
	if (!err && fs->sb.log_block_size != log)
		err = ek_corrupt_fs("superblock through the overlay: block size %u, the image's is %u",
				    1024u << fs->sb.log_block_size, 1024u << log);
	return err;
}

/*
 * As libext2fs opening a backup superblock: the backup's descriptors are as
 * old as mkfs or the last resize, so their BLOCK_UNINIT and INODE_UNINIT
 * flags and unused inode counts say nothing of today's groups.  Every group
 * is taken as initialised (its bitmaps read, its whole inode table
 * scanned), in memory, with the checksums set to match.
 */
static void backup_groups_initialised(struct ek_fs *fs)
{
	if (!fs->has_csum && !fs->has_gdt_csum)
		return;
	for (uint32_t g = 0; g < fs->group_count; g++) {
		uint8_t *d = fs->gd_raw + (size_t)g * fs->desc_size;

		put_le16(d + offsetof(struct ext4_group_desc, bg_flags),
			 get_le16(d + offsetof(struct ext4_group_desc, bg_flags)) &
			 ~(EXT4_BG_BLOCK_UNINIT | EXT4_BG_INODE_UNINIT));
		ek_gd_set(fs, d, EK_GD_ITABLE_UNUSED, 0);
		put_le16(d + offsetof(struct ext4_group_desc, bg_checksum),
			 ek_group_desc_csum(fs, g, d));
	}
	ek_groups_load(fs);
}

static int read_descriptors(struct ek_fs *fs)
{
	uint32_t nblocks = (fs->group_count + fs->desc_per_block - 1) / fs->desc_per_block;
	uint64_t bytes = (uint64_t)nblocks * fs->blksz;
	ek_blk_t sb_blk = fs->sb_block ? fs->sb_block : fs->sb.first_data_block;
	int err;

	/* a physical bound before allocating: the table must fit in the image */
	if (bytes > ek_io_size(fs->io))
		return ek_corrupt_fs("superblock: %u groups need %llu bytes of descriptors, "
				     "more than the image holds", fs->group_count,
				     (unsigned long long)bytes);
	fs->gd_raw = ek_malloc(bytes);
	fs->groups = ek_calloc(fs->group_count, sizeof(*fs->groups));
	fs->block_bitmaps = ek_calloc(fs->group_count, sizeof(uint8_t *));
	fs->inode_bitmaps = ek_calloc(fs->group_count, sizeof(uint8_t *));
	if (!fs->gd_raw || !fs->groups || !fs->block_bitmaps || !fs->inode_bitmaps)
		return -ENOMEM;
	for (uint32_t i = 0; i < nblocks; i++) {
		ek_blk_t blk = ek_gdt_block(fs, sb_blk, i);

		if (blk >= fs->sb.blocks_count)
			return ek_corrupt(blk, "group descriptor block %u outside the filesystem", i);
		err = ek_fs_read_blocks(fs, blk, 1, fs->gd_raw + (size_t)i * fs->blksz);
		if (err)
			return err;
	}
	return ek_groups_load(fs);
}

/*
 * The values every reader derives from a decoded superblock (fs->sb):
 * block and cluster size, group count, descriptor and inode sizes, the
 * checksum seed.  fs->io must be set (the size check warns).
 */
void ek_fs_derive(struct ek_fs *fs)
{
	fs->log_blksz = 10 + fs->sb.log_block_size;
	fs->blksz = 1u << fs->log_blksz;
	fs->cluster_bits = fs->sb.log_cluster_size - fs->sb.log_block_size;
	fs->group_count = (fs->sb.blocks_count - fs->sb.first_data_block +
			   fs->sb.blocks_per_group - 1) / fs->sb.blocks_per_group;
	fs->desc_size = fs->sb.desc_size;
	fs->desc_per_block = fs->blksz / fs->desc_size;
	fs->inode_size = fs->sb.inode_size;
	fs->inodes_per_block = fs->blksz / fs->inode_size;
	fs->itable_blocks = ((uint64_t)fs->sb.inodes_per_group * fs->inode_size +
			     fs->blksz - 1) / fs->blksz;
	fs->has_csum = ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	fs->has_gdt_csum = !fs->has_csum &&
			   ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_GDT_CSUM);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		fs->csum_seed = fs->sb.checksum_seed;
	else
		fs->csum_seed = ek_crc32c(~0u, fs->sb.uuid, 16);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG) &&
	    fs->sb.first_meta_bg > (fs->group_count + fs->desc_per_block - 1) / fs->desc_per_block) {
		ek_fs_warn(fs, "superblock: first_meta_bg %u is past the descriptor table",
			   fs->sb.first_meta_bg);
		fs->sb.first_meta_bg = (fs->group_count + fs->desc_per_block - 1) /
				       fs->desc_per_block;
	}
	if (fs->io && (uint64_t)fs->sb.blocks_count << fs->log_blksz > ek_io_size(fs->io))
		ek_fs_warn(fs, "filesystem has %llu blocks but the image holds only %llu",
			   (unsigned long long)fs->sb.blocks_count,
			   (unsigned long long)(ek_io_size(fs->io) >> fs->log_blksz));
}

int ek_fs_open(const char *path, const struct ek_open_opts *opts, struct ek_fs **out)
{
	static const struct ek_open_opts defaults;
	const struct ek_open_opts *o = opts ? opts : &defaults;
	struct ek_fs *fs;
	int err;

	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->flags = o->flags;
	fs->raw_sb = calloc(1, EXT4_SUPERBLOCK_SIZE);
	if (!fs->raw_sb) {
		err = -ENOMEM;
		goto out_close;
	}
	err = ek_io_open(path, (o->flags & EK_OPEN_RW) ? EK_IO_RW : 0, o->offset, &fs->io);
	if (err)
		goto out_close;
	err = read_super(fs, o);
	if (err)
		goto out_close;
	if (o->overlay) {
		err = overlay_super(fs, o);
		if (err)
			goto out_close;
	}

	fs->sb_block = o->superblock;
	ek_fs_derive(fs);
	err = read_descriptors(fs);
	if (err)
		goto out_close;
	if (fs->sb_block)
		backup_groups_initialised(fs);
	*out = fs;
	return 0;

out_close:
	ek_fs_close(fs);
	return err;
}

int ek_fs_refresh(struct ek_fs *fs)
{
	uint32_t nblocks = (fs->group_count + fs->desc_per_block - 1) / fs->desc_per_block;
	ek_blk_t sb_blk = fs->sb_block ? fs->sb_block : fs->sb.first_data_block;
	struct ek_super old = fs->sb;
	uint64_t at = fs->sb_block ? fs->sb_block << fs->log_blksz : EXT4_SUPERBLOCK_OFFSET;
	int err;

	ek_inode_cache_drop(fs);
	for (uint32_t g = 0; g < fs->group_count; g++) {
		free(fs->block_bitmaps[g]);
		free(fs->inode_bitmaps[g]);
		fs->block_bitmaps[g] = fs->inode_bitmaps[g] = NULL;
	}
	err = ek_io_pread(fs->io, fs->raw_sb, EXT4_SUPERBLOCK_SIZE, at);
	if (!err)
		err = ek_super_decode(fs->raw_sb, true, &fs->sb);
	if (err)
		return err;
	/* a repair never changes the geometry the derived fields hold */
	if (fs->sb.blocks_count != old.blocks_count || fs->sb.inodes_count != old.inodes_count ||
	    fs->sb.log_block_size != old.log_block_size || fs->sb.desc_size != old.desc_size ||
	    fs->sb.blocks_per_group != old.blocks_per_group ||
	    fs->sb.inodes_per_group != old.inodes_per_group || fs->sb.inode_size != old.inode_size) {
		fs->sb = old;
		return ek_corrupt_fs("superblock: the geometry changed under a write");
	}
	fs->sb.first_meta_bg = old.first_meta_bg;	/* as ek_fs_derive() clamped it */
	for (uint32_t i = 0; i < nblocks; i++) {
		err = ek_fs_read_blocks(fs, ek_gdt_block(fs, sb_blk, i), 1,
					fs->gd_raw + (size_t)i * fs->blksz);
		if (err)
			return err;
	}
	return ek_groups_load(fs);
}

void ek_fs_close(struct ek_fs *fs)
{
	if (!fs)
		return;
	if (fs->block_bitmaps)
		for (uint32_t g = 0; g < fs->group_count; g++)
			free(fs->block_bitmaps[g]);
	if (fs->inode_bitmaps)
		for (uint32_t g = 0; g < fs->group_count; g++)
			free(fs->inode_bitmaps[g]);
	for (unsigned i = 0; i < fs->nwarnings; i++)
		free(fs->warnings[i]);
	free(fs->block_bitmaps);
	free(fs->inode_bitmaps);
	ek_inode_cache_drop(fs);
	free(fs->groups);
	free(fs->gd_raw);
	free(fs->raw_sb);
	ek_io_close(fs->io);
	free(fs);
}
