// SPDX-License-Identifier: MIT
/*
 * repair_dir.c - directory repairs of extkit-fsck's pass 2 (repair.c holds
 * the fixes of single entries).
 *
 * A directory whose blocks or index are damaged, or that holds a name
 * twice, is rewritten whole from the entries that could be read, as
 * e2fsck's pass 3A (rehash.c) does: the blocks come from dir.c's builder
 * (ek_dir_build, the one that extkit-mkfs -d uses), so a directory that
 * needs more than one block is indexed again when the filesystem has
 * dir_index, with fresh leaf and index checksums.  The new blocks go into
 * the directory's first logical blocks; the blocks past them are freed
 * (ek_inode_truncate) and i_size shrinks to the new length.
 *
 * A directory whose first blocks have holes or unwritten extents, or too
 * few blocks, gets a new map (extent-mapped ones): its blocks in logical
 * order, then new ones from the caller's allocator.
 *
 * (or, mapped by its direct block pointers alone, new pointers).
 *
 * A casefolded directory's index hashes its names folded (ek_dir_build
 * with its flags).
 *
 * Refused (-EK_UNSUPP, nothing changed): inline directories, casefolded
 * encrypted ones (their hash needs the encryption key), and a new map for
 * a directory with indirect blocks or on bigalloc.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define IOFF(f) offsetof(struct ext4_inode, f)

/*
 * The directory's blocks, extent-mapped: its data blocks in logical order
 * become logical blocks 0..@nb-1 (more from @alloc when it has fewer), the
 * others are freed, as e2fsck's pass 1 closes the holes of a directory
 * ("block N should be at block M") and pass 2 allocates the missing ones.
 * Every block it needs (data and extent tree) is allocated from @alloc
 * before anything changes; without @alloc, -EK_UNSUPP when it would need
 * new ones.  The physical blocks in *@out (@nb, malloc'd).
 */
static int remap(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw, uint32_t nb,
		 const struct ek_dir_alloc *alloc, ek_blk_t **out)
{
	struct ek_extlist l;
	ek_blk_t *p, *spare = NULL;
	uint64_t have = 0, freed = 0, nspare;
	size_t runs = 0;
	int64_t tree_delta = 0;
	int err = ek_extlist_load(fs, ws, ino, raw, &l);

	*out = NULL;
	if (err)
		return err;
	p = ek_calloc(nb, sizeof(*p));
	if (!p) {
		ek_extlist_release(&l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l.n && have < nb; i++)
		for (uint32_t k = 0; k < l.v[i].len && have < nb; k++)
			p[have++] = l.v[i].pblk + k;
	if (have < nb && !alloc) {
		err = ek_unsupp("directory inode %u: %llu blocks mapped, %u needed", ino,
				(unsigned long long)have, nb);
		goto out;
	}
	for (; have < nb && !err; have++)
		err = alloc->fn(alloc->arg, have ? p[have - 1] + 1 : 0, &p[have]);
	if (err)
		goto out;
	/* the extents of the new map (as ek_extlist_insert merges them), and
	 * the tree blocks they need beyond the old tree's: allocated before
	 * the map changes */
	for (uint32_t i = 0, len = 0; i < nb; i++, len++)
		if (!i || p[i] != p[i - 1] + 1 || len == EXT_INIT_MAX_LEN) {
			runs++;
			len = 0;
		}
	nspare = ek_extent_tree_blocks(fs, runs);
	nspare = nspare > l.ntree ? nspare - l.ntree : 0;
	if (nspare && !alloc) {
		err = ek_unsupp("directory inode %u: its blocks would need a larger extent tree", ino);
		goto out;
	}
	if (nspare && !(spare = ek_calloc(nspare, sizeof(*spare))))
		err = -ENOMEM;
	for (size_t i = 0; i < nspare && !err; i++)
		err = alloc->fn(alloc->arg, i ? spare[i - 1] + 1 : p[0], &spare[i]);
	if (err)
		goto out;
	/* every block unmapped and freed, then the ones kept mapped again */
	err = ek_extlist_punch(&l, ws, 0, (uint64_t)UINT32_MAX + 1, &freed);
	for (uint32_t i = 0; i < nb && !err; i++) {
		struct ek_ext e = { .lblk = i, .len = 1, .pblk = p[i] };

		err = ek_wset_mark_block(ws, p[i], true);
		if (!err)
			err = ek_extlist_insert(&l, &e);
	}
	if (!err)
		err = ek_extlist_store_spare(fs, ws, ino, raw, &l, spare, nspare, &tree_delta);
	if (!err)
		ek_inode_add_blocks(fs, raw, -(int64_t)freed + nb + tree_delta);
out:
	free(spare);
	ek_extlist_release(&l);
	if (err)
		free(p);
	else
		*out = p;
	return err;
}

static int beyond_direct(void *arg, const struct ek_mapping *m)
{
	(void)arg;
	return m->kind == EK_MAP_DATA && m->lblk + m->len > EXT4_NDIR_BLOCKS;
}

/*
 * The same for a directory whose data lies in its 12 direct block
 * pointers (indirect blocks mapping nothing are left as they are):
 * pointers 0..@nb-1 set to its blocks in order, then new ones from
 * @alloc; the others freed and cleared.
 */
static int remap_direct(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw,
			uint32_t nb, const struct ek_dir_alloc *alloc, ek_blk_t **out)
{
	uint8_t *ib = raw + IOFF(i_block);
	ek_blk_t *p, old[EXT4_NDIR_BLOCKS];
	uint32_t have = 0, nold = 0;
	int err = 0;

	*out = NULL;
	if (nb > EXT4_NDIR_BLOCKS)
		return ek_unsupp("directory inode %u: its indirect map is not redone", ino);
	if (get_le32(ib + 4 * EXT4_IND_BLOCK) || get_le32(ib + 4 * EXT4_DIND_BLOCK) ||
	    get_le32(ib + 4 * EXT4_TIND_BLOCK)) {
		struct ek_inode ei = { 0 };

		err = ek_inode_decode(fs, ino, raw, &ei);
		if (!err || err == -EK_BADCRC)
			err = ek_map_walk(fs, &ei, beyond_direct, NULL);
		ek_inode_release(&ei);
		if (err)
			return err < 0 ? err : ek_unsupp("directory inode %u: its indirect map is "
							 "not redone", ino);
	}
	for (unsigned i = 0; i < EXT4_NDIR_BLOCKS; i++) {
		ek_blk_t b = get_le32(ib + 4 * i);

		if (b && !ek_fs_block_valid(fs, b))
			return ek_corrupt_ino(ino, "directory block pointer %u is %llu, outside the "
					      "filesystem", i, (unsigned long long)b);
		if (b)
			old[nold++] = b;
	}
	if (nold < nb && !alloc)
		return ek_unsupp("directory inode %u: %u blocks mapped, %u needed", ino, nold, nb);
	p = ek_calloc(nb, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (; have < nb && have < nold; have++)
		p[have] = old[have];
	for (; have < nb && !err; have++)
		err = alloc->fn(alloc->arg, have ? p[have - 1] + 1 : 0, &p[have]);
	for (uint32_t i = nb; i < nold && !err; i++)
		err = ek_wset_mark_block(ws, old[i], false);
	if (err) {
		free(p);
		return err;
	}
	for (unsigned i = 0; i < EXT4_NDIR_BLOCKS; i++)
		put_le32(ib + 4 * i, i < nb ? (uint32_t)p[i] : 0);
	ek_inode_add_blocks(fs, raw, (int64_t)nb - nold);
	*out = p;
	return 0;
}

/*
 * Directory @ino's unwritten extents marked written, as e2fsck's pass 1
 * does for a directory ("extent marked uninitialized"): what they hold is
 * read as entries (salvaged when it is not).
 */
int ek_fix_dir_written(struct ek_wset *ws, ek_ino_t ino)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_extlist l;
	int64_t tree_delta = 0;
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	if (!(get_le32(raw + IOFF(i_flags)) & EXT4_EXTENTS_FL))
		return ek_err(-EINVAL, "directory inode %u has no extents", ino);
	err = ek_extlist_load(fs, ws, ino, raw, &l);
	if (err)
		return err;
	for (size_t i = 0; i < l.n; i++)
		l.v[i].unwritten = false;
	/* as many extents or fewer (neighbours may merge): the old tree holds them */
	err = ek_extlist_store(fs, ws, ino, raw, &l, &tree_delta);
	ek_extlist_release(&l);
	if (err)
		return err;
	ek_inode_add_blocks(fs, raw, tree_delta);
	ek_inode_csum_set(fs, ino, raw);
	return 0;
}

void ek_dir_built_make(const struct ek_fs *fs, struct ek_dir_built *b, struct ek_dirent_new *ents)
{
	b->blocks = NULL;
	b->err = ek_dir_build(fs, b->ino, b->gen, b->flags, b->parent, EK_HTREE_SLACK_PERCENT, true,
			      ents, b->n, &b->blocks, &b->nb, &b->indexed);
	if (b->err)
		b->msg = *ek_last_error();
}

void ek_dir_built_release(struct ek_dir_built *b)
{
	free(b->blocks);
	b->blocks = NULL;
}

int ek_fix_dir_rebuild(struct ek_wset *ws, ek_ino_t ino, ek_ino_t parent,
		       struct ek_dirent_new *ents, size_t n, const struct ek_dir_alloc *alloc,
		       bool *indexed)
{
	return ek_fix_dir_rebuild_built(ws, ino, parent, ents, n, alloc, NULL, indexed);
}

/* was *@b built for this directory as it is now */
static bool built_fits(const struct ek_dir_built *b, ek_ino_t ino, const struct ek_inode *ei,
		       ek_ino_t parent, size_t n)
{
	const uint32_t used = EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL;	/* what ek_dir_build reads of them */

	return b && b->ino == ino && b->gen == ei->generation &&
	       (b->flags & used) == (ei->flags & used) &&
	       b->parent == parent && b->n == n;
}

int ek_fix_dir_rebuild_built(struct ek_wset *ws, ek_ino_t ino, ek_ino_t parent,
			     struct ek_dirent_new *ents, size_t n, const struct ek_dir_alloc *alloc,
			     struct ek_dir_built *built, bool *indexed)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_inode ei;
	uint8_t *raw, *blocks = NULL;
	ek_blk_t *where = NULL;
	uint32_t nb = 0, flags;
	uint64_t old;
	bool in_place = true;
	int err = ek_wset_inode(ws, ino, &raw);

	*indexed = false;
	if (err)
		return err;
	err = ek_inode_decode(fs, ino, raw, &ei);
	if (err && err != -EK_BADCRC)
		return err;
	err = 0;
	flags = get_le32(raw + IOFF(i_flags));
	if (!ek_is_dir(ei.mode)) {
		err = ek_err(-EINVAL, "inode %u is not a directory", ino);
		goto out;
	}
	if (flags & EXT4_INLINE_DATA_FL) {
		err = ek_unsupp("directory inode %u: an inline directory is not rebuilt", ino);
		goto out;
	}
	if ((flags & EXT4_CASEFOLD_FL) && (flags & EXT4_ENCRYPT_FL)) {
		err = ek_unsupp("directory inode %u: a casefolded encrypted directory is not "
				"rebuilt (its names hash with the encryption key)", ino);
		goto out;
	}
	old = (ei.size + fs->blksz - 1) >> fs->log_blksz;
	/* e2fsck -D's slack in the index leaves; packed full when the room
	 * would need a map larger than the directory's (remap() refuses,
	 * having changed nothing) */
	if (!built_fits(built, ino, &ei, parent, n))
		built = NULL;
	for (unsigned slack = EK_HTREE_SLACK_PERCENT;; slack = 0) {
		free(blocks);
		blocks = NULL;
		if (built && slack) {
			/* (taken over: the caller's release frees nothing more) */
			blocks = built->blocks;
			nb = built->nb;
			*indexed = built->indexed;
			built->blocks = NULL;
			err = built->err;
			if (err)
				*(struct ek_error *)ek_last_error() = built->msg;
		} else {
			err = ek_dir_build(fs, ino, ei.generation, ei.flags, parent, slack, true,
					   ents, n, &blocks, &nb, indexed);
		}
		if (err)
			goto out;
		/* in place when the first blocks are mapped and written: the rest cut */
		in_place = nb <= old;
		for (uint32_t l = 0; l < nb && in_place; l++) {
			ek_blk_t pblk;
			bool unwritten = false;

			err = ek_map_bmap(fs, &ei, l, &pblk, &unwritten);
			if (err)
				goto out;
			in_place = pblk && !unwritten && ek_fs_block_valid(fs, pblk);
		}
		if (in_place)
			break;
		/* holes, unwritten blocks or too few: the map redone (extents only) */
		if (fs->cluster_bits) {
			err = ek_unsupp("directory inode %u: its block map has holes or too few "
					"blocks, the rebuilt directory is not written", ino);
			goto out;
		}
		err = flags & EXT4_EXTENTS_FL ? remap(fs, ws, ino, raw, nb, alloc, &where) :
						remap_direct(fs, ws, ino, raw, nb, alloc, &where);
		if (err != -EK_UNSUPP || !slack || !*indexed)
			break;
	}
	if (err)
		goto out;
	for (uint32_t l = 0; l < nb && !err; l++) {
		ek_blk_t pblk = where ? where[l] : 0;

		if (!where)
			err = ek_map_bmap(fs, &ei, l, &pblk, NULL);
		if (!err)
			err = ek_wset_put(ws, pblk, blocks + (size_t)l * fs->blksz);
	}
	if (err)
		goto out;
	if (*indexed)
		flags |= EXT4_INDEX_FL;
	else
		flags &= ~(uint32_t)EXT4_INDEX_FL;
	put_le32(raw + IOFF(i_flags), flags);
	if (nb != old || !in_place)
		ek_inode_size_set(raw, (uint64_t)nb << fs->log_blksz);
	if (in_place && nb < old)
		err = ek_inode_truncate(fs, ws, ino, raw);
	ek_inode_csum_set(fs, ino, raw);
out:
	free(blocks);
	free(where);
	ek_inode_release(&ei);
	return err;
}
