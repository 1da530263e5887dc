// SPDX-License-Identifier: MIT
/*
 * cmd_frag.c - frag (per-file fragmentation, -r for a whole tree with an
 * extent-size histogram) and freefrag (free-space extents, like e2freefrag).
 */
#include <stdlib.h>
#include <string.h>
#include "debugfs.h"

struct frag_tree {
	struct dbg *d;
	bool verbose, dirs;
	unsigned long files, dirs_seen, fragmented, errors;
	struct ek_frag total;
	ek_ino_t *stack;
	unsigned depth;
	char path[4096];
};

#define FRAG_MAX_DEPTH 1024

static void frag_line(struct dbg *d, const char *path, const struct ek_inode *ei,
		      const struct ek_frag *f)
{
	ek_out_text(d->out, "%s: %llu extent%s, %llu run%s, ideal %llu, %llu blocks%s\n", path,
		    (unsigned long long)f->extents, f->extents == 1 ? "" : "s",
		    (unsigned long long)f->runs, f->runs == 1 ? "" : "s",
		    (unsigned long long)f->ideal, (unsigned long long)f->blocks,
		    f->runs > f->ideal ? " (fragmented)" : "");
	ek_out_obj_begin(d->out, NULL);
	ek_out_name(d->out, "path", path, strlen(path));
	ek_out_u64(d->out, "inode", ei->ino);
	ek_out_u64(d->out, "blocks", f->blocks);
	ek_out_u64(d->out, "extents", f->extents);
	ek_out_u64(d->out, "runs", f->runs);
	ek_out_u64(d->out, "ideal", f->ideal);
	ek_out_u64(d->out, "holes", f->holes);
	ek_out_u64(d->out, "tree_blocks", f->tree_blocks);
	ek_out_bool(d->out, "fragmented", f->runs > f->ideal);
	ek_out_obj_end(d->out);
}

static void frag_visit(struct frag_tree *t, ek_ino_t ino);

static int frag_entry(void *arg, const struct ek_dirent *de)
{
	struct frag_tree *t = arg;
	size_t len = strlen(t->path);

	if ((de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	if (len + 1 + de->name_len >= sizeof(t->path)) {
		t->errors++;
		return 0;
	}
	snprintf(t->path + len, sizeof(t->path) - len, "%s%.*s",
		 len && t->path[len - 1] == '/' ? "" : "/", de->name_len, de->name);
	frag_visit(t, de->ino);
	t->path[len] = 0;
	return 0;
}

static void frag_visit(struct frag_tree *t, ek_ino_t ino)
{
	struct ek_inode ei = { 0 };
	struct ek_frag f;
	int err = ek_inode_read(t->d->fs, ino, &ei);

	if (err && err != -EK_BADCRC && !(err == -EK_CORRUPT && ei.raw)) {
		dbg_warn(t->d, "frag: '%s': %s", t->path, ek_error_msg(err));
		t->errors++;
		ek_inode_release(&ei);
		return;
	}
	if (ek_is_reg(ei.mode) || (t->dirs && ek_is_dir(ei.mode))) {
		err = ek_layout_file(t->d->fs, &ei, &f);
		if (err && err != -EK_BADCRC) {
			dbg_warn(t->d, "frag: '%s': %s", t->path, ek_error_msg(err));
			t->errors++;
		}
		t->files++;
		t->total.blocks += f.blocks;
		t->total.extents += f.extents;
		t->total.runs += f.runs;
		t->total.ideal += f.ideal;
		t->total.tree_blocks += f.tree_blocks;
		for (int i = 0; i < 64; i++)
			t->total.hist[i] += f.hist[i];
		if (f.runs > f.ideal)
			t->fragmented++;
		if (t->verbose)
			frag_line(t->d, t->path, &ei, &f);
	}
	if (ek_is_dir(ei.mode)) {
		bool loop = false;

		for (unsigned i = 0; i < t->depth; i++)
			loop |= t->stack[i] == ino;
		if (loop || t->depth >= FRAG_MAX_DEPTH) {
			dbg_warn(t->d, "frag: '%s': directory loop or tree too deep", t->path);
			t->errors++;
		} else {
			t->stack[t->depth++] = ino;
			t->dirs_seen++;
			err = ek_dir_iterate(t->d->fs, &ei, 0, frag_entry, t);
			t->depth--;
			if (err && err != -EK_BADCRC) {
				dbg_warn(t->d, "frag: '%s': %s", t->path, ek_error_msg(err));
				t->errors++;
			}
		}
	}
	ek_inode_release(&ei);
}

int do_frag(struct dbg *d, int argc, char **argv)
{
	struct frag_tree t = { .d = d };
	bool recurse = false;
	const char *arg = ".";
	ek_ino_t ino;
	int c, err;

	while ((c = getopt(argc, argv, "dvr")) != -1) {
		switch (c) {
		case 'd':
			t.dirs = true;
			break;
		case 'v':
			t.verbose = true;
			break;
		case 'r':
			recurse = true;
			break;
		default:
			return dbg_usage("frag");
		}
	}
	if (argc - optind > 1)
		return dbg_usage("frag");
	if (optind < argc)
		arg = argv[optind];
	err = dbg_parse_ino(d, arg, &ino);
	if (err)
		return dbg_fail(d, "frag", err);
	snprintf(t.path, sizeof(t.path), "%s", arg);

	if (!recurse) {
		struct ek_inode ei = { 0 };
		struct ek_frag f;

		err = dbg_read_inode(d, ino, &ei);
		if (!err) {
			err = ek_layout_file(d->fs, &ei, &f);
			if (!err || err == -EK_BADCRC)
				frag_line(d, arg, &ei, &f), err = 0;
		}
		ek_inode_release(&ei);
		return err ? dbg_fail(d, "frag", err) : 0;
	}

	t.stack = calloc(FRAG_MAX_DEPTH, sizeof(*t.stack));
	if (!t.stack)
		return dbg_fail(d, "frag", -ENOMEM);
	ek_out_obj_begin(d->out, NULL);
	if (t.verbose)
		ek_out_arr_begin(d->out, "files");
	frag_visit(&t, ino);
	if (t.verbose)
		ek_out_arr_end(d->out);

	ek_out_text(d->out, "Files: %lu  Directories: %lu  Blocks: %llu  Tree blocks: %llu\n",
		    t.files, t.dirs_seen, (unsigned long long)t.total.blocks,
		    (unsigned long long)t.total.tree_blocks);
	ek_out_text(d->out, "Extents: %llu  Runs: %llu  Ideal: %llu  Fragmented files: %lu (%.1f%%)\n",
		    (unsigned long long)t.total.extents, (unsigned long long)t.total.runs,
		    (unsigned long long)t.total.ideal, t.fragmented,
		    t.files ? 100.0 * t.fragmented / t.files : 0.0);
	ek_out_u64(d->out, "files", t.files);
	ek_out_u64(d->out, "directories", t.dirs_seen);
	ek_out_u64(d->out, "blocks", t.total.blocks);
	ek_out_u64(d->out, "tree_blocks", t.total.tree_blocks);
	ek_out_u64(d->out, "extents", t.total.extents);
	ek_out_u64(d->out, "runs", t.total.runs);
	ek_out_u64(d->out, "ideal", t.total.ideal);
	ek_out_u64(d->out, "fragmented_files", t.fragmented);
	ek_out_u64(d->out, "errors", t.errors);
	ek_out_text(d->out, "Extent size histogram (blocks):\n");
	ek_out_arr_begin(d->out, "extent_size_histogram");
	for (int i = 0; i < 64; i++) {
		if (!t.total.hist[i])
			continue;
		ek_out_text(d->out, "  %10llu - %-10llu : %llu\n", 1ull << i, (2ull << i) - 1,
			    (unsigned long long)t.total.hist[i]);
		ek_out_obj_begin(d->out, NULL);
		ek_out_u64(d->out, "min_blocks", 1ull << i);
		ek_out_u64(d->out, "max_blocks", (2ull << i) - 1);
		ek_out_u64(d->out, "extents", t.total.hist[i]);
		ek_out_obj_end(d->out);
	}
	ek_out_arr_end(d->out);
	ek_out_obj_end(d->out);
	free(t.stack);
	return t.errors ? 1 : 0;
}

/*
 * e2freefrag's range label: the start of bucket @i and its end, both in the
 * start's unit (K, M, G...), the number 5 wide: "  512M... 1024M-".
 */
void dbg_free_range_label(uint32_t blksz, int i, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	uint64_t start = ((uint64_t)blksz << i) >> 10;
	int u = 0;
	char end[32];

	while (start >= 1024 && u < 5) {
		start >>= 10;
		u++;
	}
	snprintf(end, sizeof(end), "%5llu%c-", (unsigned long long)start * 2, units[u]);
	snprintf(buf, len, "%5llu%c...%7s", (unsigned long long)start, units[u], end);
}

int do_freefrag(struct dbg *d, int argc, char **argv)
{
	struct ek_freefrag ff;
	uint64_t chunk_kb = 0, chunk_blocks = 0;
	uint32_t blksz = d->fs->blksz;
	char label[64];
	int c, err;

	while ((c = getopt(argc, argv, "c:")) != -1) {
		if (c != 'c' || dbg_parse_u64(optarg, &chunk_kb) || !chunk_kb ||
		    (chunk_kb & (chunk_kb - 1)))
			return dbg_usage("freefrag");
	}
	if (optind != argc)
		return dbg_usage("freefrag");
	if (chunk_kb) {
		chunk_blocks = chunk_kb * 1024 / blksz;
		if (!chunk_blocks) {
			dbg_errorf(d, "freefrag: chunk size must be at least the block size");
			return 1;
		}
	}
	err = ek_layout_free(d->fs, chunk_blocks, &ff);
	if (err)
		return dbg_fail(d, "freefrag", err);

	ek_out_text(d->out, "Device: %s\nBlocksize: %u bytes\n", ek_io_path(d->fs->io), blksz);
	ek_out_text(d->out, "Total blocks: %llu\nFree blocks: %llu (%.1f%%)\n",
		    (unsigned long long)ff.total_blocks, (unsigned long long)ff.free_blocks,
		    ff.total_blocks ? 100.0 * ff.free_blocks / ff.total_blocks : 0.0);
	if (chunk_blocks)
		ek_out_text(d->out, "\nChunksize: %llu bytes (%llu blocks)\nTotal chunks: %llu\nFree chunks: %llu (%.1f%%)\n",
			    (unsigned long long)chunk_blocks * blksz, (unsigned long long)chunk_blocks,
			    (unsigned long long)ff.total_chunks, (unsigned long long)ff.free_chunks,
			    ff.total_chunks ? 100.0 * ff.free_chunks / ff.total_chunks : 0.0);
	ek_out_text(d->out, "\nMin. free extent: %llu KB \nMax. free extent: %llu KB\nAvg. free extent: %llu KB\n",
		    (unsigned long long)ff.min_extent * blksz / 1024,
		    (unsigned long long)ff.max_extent * blksz / 1024,
		    /* as e2freefrag: the average in whole blocks, then in KB */
		    ff.extents ? (unsigned long long)(ff.free_blocks / ff.extents * blksz / 1024) : 0ull);
	ek_out_text(d->out, "Num. free extent: %llu\n\nHISTOGRAM OF FREE EXTENT SIZES:\n",
		    (unsigned long long)ff.extents);
	ek_out_text(d->out, "%s :  %12s  %12s  %7s\n", "Extent Size Range", "Free extents",
		    "Free Blocks", "Percent");

	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "block_size", blksz);
	ek_out_u64(d->out, "total_blocks", ff.total_blocks);
	ek_out_u64(d->out, "free_blocks", ff.free_blocks);
	ek_out_u64(d->out, "free_extents", ff.extents);
	ek_out_u64(d->out, "min_extent_blocks", ff.min_extent);
	ek_out_u64(d->out, "max_extent_blocks", ff.max_extent);
	if (chunk_blocks) {
		ek_out_u64(d->out, "chunk_blocks", chunk_blocks);
		ek_out_u64(d->out, "total_chunks", ff.total_chunks);
		ek_out_u64(d->out, "free_chunks", ff.free_chunks);
	}
	ek_out_arr_begin(d->out, "histogram");
	for (int i = 0; i < 64; i++) {
		if (!ff.hist[i])
			continue;
		dbg_free_range_label(blksz, i, label, sizeof(label));
		ek_out_text(d->out, "%s  :  %12llu  %12llu  %6.2f%%\n", label,
			    (unsigned long long)ff.hist[i], (unsigned long long)ff.hist_blocks[i],
			    ff.free_blocks ? 100.0 * ff.hist_blocks[i] / ff.free_blocks : 0.0);
		ek_out_obj_begin(d->out, NULL);
		ek_out_u64(d->out, "min_blocks", 1ull << i);
		ek_out_u64(d->out, "max_blocks", (2ull << i) - 1);
		ek_out_u64(d->out, "extents", ff.hist[i]);
		ek_out_u64(d->out, "blocks", ff.hist_blocks[i]);
		ek_out_obj_end(d->out);
	}
	ek_out_arr_end(d->out);
	ek_out_obj_end(d->out);
	return 0;
}
