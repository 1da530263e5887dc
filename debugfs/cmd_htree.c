// SPDX-License-Identifier: MIT
/*
 * cmd_htree.c - htree: dump a hash-indexed directory, its index blocks and
 * the leaf entries with their hashes.
 */
#include <stdlib.h>
#include <string.h>
#include "debugfs.h"

struct htree {
	struct dbg *d;
	struct ek_inode *dir;
	int hash_version;
	bool fold;		/* casefolded: names hash folded */
	uint64_t nblocks;	/* directory size in blocks: bounds every block number */
	int err;
};

static int leaf_entry(void *arg, const struct ek_dirent *de)
{
	struct htree *h = arg;
	uint32_t hash = 0, minor = 0;

	ek_dx_hash_name(h->hash_version, h->fold, de->name, de->name_len, h->d->fs->sb.hash_seed,
			&hash, &minor);
	ek_out_text(h->d->out, "%u 0x%08x-%08x (%u) %.*s   \n", de->ino, hash, minor, de->rec_len,
		    de->name_len, de->name);
	ek_out_obj_begin(h->d->out, NULL);
	ek_out_u64(h->d->out, "inode", de->ino);
	ek_out_name(h->d->out, "name", de->name, de->name_len);
	ek_out_u64(h->d->out, "hash", hash);
	ek_out_u64(h->d->out, "minor_hash", minor);
	ek_out_u64(h->d->out, "rec_len", de->rec_len);
	ek_out_obj_end(h->d->out);
	return 0;
}

/* walk the entries of one leaf block (logical @lblk) */
/* ek_dirent_walk's callback: the used entries of a leaf */
static int leaf_one(void *arg, uint8_t *buf, uint32_t prev, uint32_t off, uint32_t rec_len)
{
	struct ek_dirent de = ek_dirent_decode(buf, off, rec_len);

	(void)prev;
	if (de.ino)
		leaf_entry(arg, &de);
	return 0;
}

static int dump_leaf(struct htree *h, uint64_t lblk)
{
	struct ek_fs *fs = h->d->fs;
	uint8_t *buf = malloc(fs->blksz);
	uint32_t end = fs->blksz;
	ek_blk_t pblk = 0;
	int err;

	if (!buf)
		return -ENOMEM;
	err = ek_file_read_block(fs, h->dir, lblk, buf);
	if (err)
		goto out;
	if (fs->has_csum)
		end -= sizeof(struct ext4_dir_entry_tail);
	ek_map_bmap(fs, h->dir, lblk, &pblk, NULL);
	ek_out_text(h->d->out, "Reading directory block %llu, phys %llu\n",
		    (unsigned long long)lblk, (unsigned long long)pblk);
	ek_out_arr_begin(h->d->out, "entries");
	err = ek_dirent_walk(fs, h->dir->ino, pblk, buf, 0, end, false, leaf_one, h);
	ek_out_arr_end(h->d->out);
	if (fs->has_csum && !err) {
		uint32_t want = get_le32(buf + fs->blksz - 4);
		bool ok = want == ek_dir_leaf_csum(fs, h->dir, buf);

		ek_out_text(h->d->out, "leaf block checksum: 0x%08x%s\n", want, ok ? "  " : " (bad)");
		ek_out_u64(h->d->out, "leaf_checksum", want);
		ek_out_bool(h->d->out, "leaf_checksum_ok", ok);
	} else {
		ek_out_text(h->d->out, "\n");
	}
out:
	free(buf);
	return err;
}

static int dump_index(struct htree *h, const struct ek_dx_node *n, unsigned level)
{
	struct ek_fs *fs = h->d->fs;
	int err = 0;

	ek_out_text(h->d->out, "Number of entries (count): %u\nNumber of entries (limit): %u%s\n",
		    n->count, n->limit, n->limit != n->expect_limit ? " (unexpected)" : "");
	if (n->has_tail)
		ek_out_text(h->d->out, "Checksum: 0x%08x%s\n", n->csum,
			    n->csum != n->expect_csum ? " (bad)" : "");
	ek_out_u64(h->d->out, "count", n->count);
	ek_out_u64(h->d->out, "limit", n->limit);
	if (n->has_tail) {
		ek_out_u64(h->d->out, "checksum", n->csum);
		ek_out_bool(h->d->out, "checksum_ok", n->csum == n->expect_csum);
	}
	for (unsigned i = 0; i < n->count; i++)
		ek_out_text(h->d->out, "Entry #%u: Hash 0x%08x, block %u\n", i,
			    ek_dx_entry_hash(n, i), ek_dx_entry_block(n, i));
	ek_out_text(h->d->out, "\n");
	ek_out_arr_begin(h->d->out, "children");
	for (unsigned i = 0; i < n->count && !err; i++) {
		uint32_t blk = ek_dx_entry_block(n, i);

		ek_out_text(h->d->out, "Entry #%u: Hash 0x%08x, block %u\n", i,
			    ek_dx_entry_hash(n, i), blk);
		ek_out_obj_begin(h->d->out, NULL);
		ek_out_u64(h->d->out, "hash", ek_dx_entry_hash(n, i));
		ek_out_u64(h->d->out, "block", blk);
		if (blk >= h->nblocks) {
			err = ek_corrupt_ino(h->dir->ino, "htree entry %u points to block %u past the directory end (%llu blocks)",
					     i, blk, (unsigned long long)h->nblocks);
		} else if (level > 0) {
			uint8_t *buf = malloc(fs->blksz);
			struct ek_dx_node child;

			err = buf ? ek_file_read_block(fs, h->dir, blk, buf) : -ENOMEM;
			if (!err) {
				err = ek_dx_node_parse(fs, h->dir, blk, buf, &child);
				if (err == -EK_BADCRC) {
					dbg_warn(h->d, "htree: warning: %s", ek_error_msg(err));
					err = 0;
				}
				if (!err)
					err = dump_index(h, &child, level - 1);
			}
			free(buf);
		} else {
			err = dump_leaf(h, blk);
		}
		ek_out_obj_end(h->d->out);
	}
	ek_out_arr_end(h->d->out);
	return err;
}

int do_htree(struct dbg *d, int argc, char **argv)
{
	struct ek_inode dir = { 0 };
	struct ek_dx_node root;
	struct htree h = { .d = d, .dir = &dir };
	uint8_t *buf = NULL;
	ek_ino_t ino;
	int err;

	(void)argc;
	err = dbg_parse_ino(d, argv[1], &ino);
	if (!err)
		err = dbg_read_inode(d, ino, &dir);
	if (err) {
		ek_inode_release(&dir);
		return dbg_fail(d, "htree", err);
	}
	if (!ek_is_dir(dir.mode) || !(dir.flags & EXT4_INDEX_FL) || ek_inode_has_inline(&dir)) {
		dbg_errorf(d, "htree: '%s' is not a hash-indexed directory", argv[1]);
		ek_inode_release(&dir);
		return 1;
	}
	h.nblocks = dir.size >> d->fs->log_blksz;
	buf = malloc(d->fs->blksz);
	err = buf ? ek_file_read_block(d->fs, &dir, 0, buf) : -ENOMEM;
	if (!err) {
		err = ek_dx_root_parse(d->fs, &dir, 0, buf, &root);
		if (err == -EK_BADCRC) {
			dbg_warn(d, "htree: warning: %s", ek_error_msg(err));
			err = 0;
		}
	}
	if (!err) {
		h.hash_version = ek_dx_hash_version(d->fs, root.hash_version);
		h.fold = ek_dir_folds(d->fs, dir.flags);
		ek_out_text(d->out, "Root node dump:\n\t Reserved zero: 0\n\t Hash Version: %u\n"
			    "\t Info length: %u\n\t Indirect levels: %u\n\t Flags: %u\n",
			    root.hash_version, root.info_length, root.indirect_levels,
			    root.unused_flags);
		ek_out_obj_begin(d->out, NULL);
		ek_out_u64(d->out, "inode", ino);
		ek_out_u64(d->out, "hash_version", root.hash_version);
		ek_out_u64(d->out, "indirect_levels", root.indirect_levels);
		err = dump_index(&h, &root, root.indirect_levels);
		ek_out_obj_end(d->out);
	}
	free(buf);
	ek_inode_release(&dir);
	return err ? dbg_fail(d, "htree", err) : 0;
}
