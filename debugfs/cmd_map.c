// SPDX-License-Identifier: MIT
/*
 * cmd_map.c - map: the allocation map of the filesystem.
 *
 * Groups are rows (several groups a row when there are more than
 * MAP_ROWS), each row MAP_COLS cells, each cell a fixed range of blocks
 * coloured by the kind that holds most of its blocks (ek_owner_census in
 * owner.c counts them).  The cost is fixed by the number of cells and
 * the groups: bitmaps are read and inodes walked only up to
 * MAP_DETAIL_GROUPS groups; past that free space comes from the group
 * descriptors and files' blocks show as "in use" (the journal is always
 * named), so a 16 TiB filesystem draws in about the time a small one does.
 * --file PATH outlines the cells holding that file's blocks (data, and
 * the extent or indirect blocks mapping them, as debugfs `blocks` lists).  Beside the
 * map: the free-space histogram freefrag prints (ek_layout_free), when the
 * bitmaps are read.
 *
 * Every number is a data-* attribute: per cell its first block, blocks
 * and the count of each kind in it; totals per kind on the map; per
 * histogram bar its extents and blocks; the file's blocks per cell.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "debugfs.h"

#define MAP_COLS		64
#define MAP_ROWS		128
#define MAP_DETAIL_GROUPS	8192	/* read bitmaps and walk inodes up to this */

static const char *kind_color(enum ek_blk_owner_kind k)
{
	switch (k) {
	case EK_OWNER_FREE: return "#f4f4f4";
	case EK_OWNER_UNKNOWN: return "#9ecae1";	/* in use, not named: files when not walked */
	case EK_OWNER_OUTSIDE: return "#ffffff";
	case EK_OWNER_BOOT: return "#000000";
	case EK_OWNER_SUPER: return "#e31a1c";
	case EK_OWNER_GDT: return "#fb9a99";
	case EK_OWNER_RESERVED_GDT: return "#fdd0cf";
	case EK_OWNER_BLOCK_BITMAP: return "#ff7f00";
	case EK_OWNER_INODE_BITMAP: return "#fdbf6f";
	case EK_OWNER_INODE_TABLE: return "#ffd92f";
	case EK_OWNER_MMP: return "#6a3d9a";
	case EK_OWNER_JOURNAL: return "#984ea3";
	case EK_OWNER_DIR: return "#33a02c";
	case EK_OWNER_EXTENT_INDEX: return "#a6761d";
	case EK_OWNER_EXTENT_LEAF: return "#d8b365";
	case EK_OWNER_INDIRECT: return "#8c510a";
	case EK_OWNER_XATTR: return "#e7298a";
	case EK_OWNER_DATA: return "#1f78b4";
	}
	return "#777777";
}

struct map {
	uint32_t gpr;		/* groups per row */
	uint32_t rpg;		/* rows per group (few groups: a group over several rows) */
	uint32_t rows;
	uint64_t per_cell;
	size_t ncells;
	struct ek_owner_census c;
	uint64_t totals[EK_OWNER_NKINDS];
	bool detail;		/* bitmaps read and inodes walked */
	struct ek_freefrag ff;
	bool have_ff;
	/* --file */
	const char *path;
	ek_ino_t ino;
	uint64_t *file;		/* per cell: the file's blocks in it */
	uint64_t file_blocks, file_extents;
};

/*
 * The kind a cell shows: the one with the most blocks; on a tie the named
 * kind over free and unknown (the later in the enum),
 * outside the filesystem only when nothing else is there.
 */
static enum ek_blk_owner_kind dominant(const uint64_t *count)
{
	enum ek_blk_owner_kind best = EK_OWNER_OUTSIDE;
	uint64_t n = 0;

	for (int k = 0; k < EK_OWNER_NKINDS; k++)
		if (k != EK_OWNER_OUTSIDE && count[k] && count[k] >= n)
			best = k, n = count[k];
	return best;
}

static int file_cb(void *arg, const struct ek_mapping *m)
{
	struct map *mp = arg;
	ek_blk_t b = m->pblk, end = mp->c.first + mp->ncells * mp->per_cell;
	uint64_t len = m->kind == EK_MAP_TREE ? 1 : m->len;

	/* its data and the extent or indirect blocks mapping them, as debugfs blocks */
	if (m->kind == EK_MAP_DATA)
		mp->file_extents++;
	else if (m->kind != EK_MAP_TREE)
		return 0;
	mp->file_blocks += len;
	if (b < mp->c.first || b >= end)
		return 0;
	if (len > end - b)
		len = end - b;
	while (len) {
		size_t k = (b - mp->c.first) / mp->per_cell;
		uint64_t room = mp->c.first + (k + 1) * mp->per_cell - b, n = len < room ? len : room;

		mp->file[k] += n;
		b += n;
		len -= n;
	}
	return 0;
}

static int map_build(struct dbg *d, struct map *mp)
{
	struct ek_fs *fs = d->fs;
	uint64_t bpg = fs->sb.blocks_per_group, row_blocks;
	int err;

	mp->gpr = fs->group_count <= MAP_ROWS ? 1 : (fs->group_count + MAP_ROWS - 1) / MAP_ROWS;
	/* few groups: each over up to 16 rows, a power of two so rows split it evenly */
	mp->rpg = 1;
	while (mp->gpr == 1 && mp->rpg < 16 && (uint64_t)fs->group_count * mp->rpg * 2 <= MAP_ROWS &&
	       bpg % ((uint64_t)mp->rpg * 2 * MAP_COLS) == 0)
		mp->rpg *= 2;
	mp->rows = (fs->group_count + mp->gpr - 1) / mp->gpr * mp->rpg;
	row_blocks = bpg * mp->gpr / mp->rpg;
	mp->per_cell = (row_blocks + MAP_COLS - 1) / MAP_COLS;
	/* a last group cut short: only the rows that hold some of it */
	if (fs->sb.blocks_count > fs->sb.first_data_block && mp->per_cell) {
		uint64_t span = fs->sb.blocks_count - fs->sb.first_data_block;
		uint64_t held = (span + mp->per_cell * MAP_COLS - 1) / (mp->per_cell * MAP_COLS);

		if (held < mp->rows)
			mp->rows = (uint32_t)held;
	}
	mp->ncells = (size_t)mp->rows * MAP_COLS;
	mp->detail = fs->group_count <= MAP_DETAIL_GROUPS;
	mp->c = (struct ek_owner_census){
		.first = fs->sb.first_data_block, .per_cell = mp->per_cell, .ncells = mp->ncells,
		.read_bitmaps = mp->detail, .walk_inodes = mp->detail,
	};
	mp->c.count = ek_calloc(mp->ncells, sizeof(*mp->c.count));
	mp->file = ek_calloc(mp->ncells, sizeof(*mp->file));
	if (!mp->c.count || !mp->file)
		return -ENOMEM;
	err = ek_owner_census(fs, &mp->c);
	if (err == -ENOMEM || err == -EINVAL)
		return err;
	if (err)
		dbg_warn(d, "map: some blocks may be shown as in use, owner unknown: %s",
			 ek_error_msg(err));
	for (size_t i = 0; i < mp->ncells; i++)
		for (int k = 0; k < EK_OWNER_NKINDS; k++)
			mp->totals[k] += mp->c.count[i][k];
	if (mp->detail) {
		err = ek_layout_free(fs, 0, &mp->ff);
		if (err == -ENOMEM)
			return err;
		mp->have_ff = !err;
		if (err)
			dbg_warn(d, "map: no free-space histogram: %s", ek_error_msg(err));
	}
	if (mp->path) {
		struct ek_inode ei;

		err = dbg_parse_ino(d, mp->path, &mp->ino);
		if (err)
			return err;
		err = dbg_read_inode(d, mp->ino, &ei);
		if (err)
			return err;
		err = ek_map_walk(fs, &ei, file_cb, mp);
		ek_inode_release(&ei);
		if (err == -ENOMEM)
			return err;
		if (err)
			dbg_warn(d, "map: '%s': its map ends early: %s", mp->path, ek_error_msg(err));
	}
	return 0;
}

/* ---- text and JSON ------------------------------------------------------------ */

static void map_emit(struct dbg *d, const struct map *mp)
{
	struct ek_out *o = d->out;
	struct ek_fs *fs = d->fs;

	ek_out_text(o, "Allocation map: %llu blocks, %u group%s, %u rows (%u group%s a row, %u row%s "
		    "a group), %d cells a row, %llu block%s a cell\n",
		    (unsigned long long)fs->sb.blocks_count, fs->group_count, ek_s(fs->group_count),
		    mp->rows, mp->gpr, ek_s(mp->gpr), mp->rpg, ek_s(mp->rpg), MAP_COLS,
		    (unsigned long long)mp->per_cell, ek_s(mp->per_cell));
	if (!mp->detail)
		ek_out_text(o, "(more than %d groups: free space from the group descriptors, files' blocks not walked)\n",
			    MAP_DETAIL_GROUPS);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER))
		ek_out_text(o, "(the journal needs recovery: this is the image as it is, not as a "
			    "replay would leave it; extkit-replay apply --output COPY makes that)\n");
	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "blocks", fs->sb.blocks_count);
	ek_out_u64(o, "groups", fs->group_count);
	ek_out_u64(o, "rows", mp->rows);
	ek_out_u64(o, "groups_per_row", mp->gpr);
	ek_out_u64(o, "rows_per_group", mp->rpg);
	ek_out_u64(o, "columns", MAP_COLS);
	ek_out_u64(o, "blocks_per_cell", mp->per_cell);
	ek_out_u64(o, "first_block", mp->c.first);
	ek_out_bool(o, "detailed", mp->detail);
	ek_out_bool(o, "needs_recovery", ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER));
	ek_out_u64(o, "walked_inodes", mp->c.walked_inodes);
	ek_out_obj_begin(o, "kinds");
	for (int k = 0; k < EK_OWNER_NKINDS; k++) {
		if (mp->totals[k])
			ek_out_text(o, "  %-18s %14llu\n", ek_blk_owner_kind_name(k),
				    (unsigned long long)mp->totals[k]);
		ek_out_u64(o, ek_blk_owner_kind_name(k), mp->totals[k]);
	}
	ek_out_obj_end(o);
	if (mp->have_ff) {
		ek_out_obj_begin(o, "free_extents");
		ek_out_u64(o, "free_blocks", mp->ff.free_blocks);
		ek_out_u64(o, "extents", mp->ff.extents);
		ek_out_arr_begin(o, "histogram");
		for (int i = 0; i < 64; i++) {
			if (!mp->ff.hist[i])
				continue;
			ek_out_obj_begin(o, NULL);
			ek_out_u64(o, "min_blocks", 1ull << i);
			ek_out_u64(o, "extents", mp->ff.hist[i]);
			ek_out_u64(o, "blocks", mp->ff.hist_blocks[i]);
			ek_out_obj_end(o);
		}
		ek_out_arr_end(o);
		ek_out_obj_end(o);
	} else {
		ek_out_null(o, "free_extents");
	}
	if (mp->path) {
		ek_out_text(o, "file %s (inode %u): %llu block%s in %llu extent%s\n", mp->path, mp->ino,
			    (unsigned long long)mp->file_blocks, ek_s(mp->file_blocks),
			    (unsigned long long)mp->file_extents, ek_s(mp->file_extents));
		ek_out_obj_begin(o, "file");
		ek_out_name(o, "path", mp->path, strlen(mp->path));
		ek_out_u64(o, "inode", mp->ino);
		ek_out_u64(o, "blocks", mp->file_blocks);
		ek_out_u64(o, "extents", mp->file_extents);
		ek_out_obj_end(o);
	} else {
		ek_out_null(o, "file");
	}
	ek_out_obj_end(o);
}

/* ---- the picture -------------------------------------------------------------- */

#define M_ML	96.0	/* row labels */
#define M_TOP	110.0
#define M_CW	10.0
#define M_GW	(MAP_COLS * M_CW)
#define M_HX	(M_ML + M_GW + 40)	/* histogram */
#define M_HW	300.0
#define M_W	(M_HX + M_HW + 20)

static void legend(struct ek_svg *s, const struct map *mp)
{
	double x = M_ML, y = 44;

	ek_svg_begin(s, "g");
	ek_svg_attr(s, "class", "legend");
	for (int k = 0; k < EK_OWNER_NKINDS; k++) {
		const char *name = k == EK_OWNER_UNKNOWN ?
				   (mp->detail ? "in use, owner unknown" : "in use (files, not walked)") :
				   ek_blk_owner_kind_name(k);
		if (k == EK_OWNER_OUTSIDE || k == EK_OWNER_BOOT)
			continue;
		ek_svg_swatch(s, &x, &y, M_ML, M_W - 20, kind_color(k), "#888", name);
	}
	if (mp->path) {
		if (x + 120 > M_W - 20)
			x = M_ML, y += 16;
		ek_svg_rect(s, x, y - 9, 10, 10, "none");
		ek_svg_attr(s, "stroke", "#000");
		ek_svg_attr(s, "stroke-width", "2");
		ek_svg_end(s);
		ek_svg_label(s, x + 14, y, NULL, "the file's blocks");
	}
	ek_svg_end(s);
}

static void histogram(struct dbg *d, struct ek_svg *s, const struct map *mp, double y0)
{
	uint64_t max = 0;
	double y = y0 + 24;
	char label[64], num[64];

	ek_svg_begin(s, "g");
	ek_svg_attr(s, "class", "free-histogram");
	ek_svg_label(s, M_HX, y0, NULL, "Free space extents (freefrag)");
	if (!mp->have_ff) {
		snprintf(label, sizeof(label), "not drawn: more than %d groups", MAP_DETAIL_GROUPS);
		ek_svg_label(s, M_HX, y, NULL, label);
		ek_svg_end(s);
		return;
	}
	ek_svg_attr_u64(s, "data-free-blocks", mp->ff.free_blocks);
	ek_svg_attr_u64(s, "data-extents", mp->ff.extents);
	for (int i = 0; i < 64; i++)
		if (mp->ff.hist_blocks[i] > max)
			max = mp->ff.hist_blocks[i];
	for (int i = 0; i < 64; i++) {
		double w;

		if (!mp->ff.hist[i])
			continue;
		dbg_free_range_label(d->fs->blksz, i, label, sizeof(label));
		w = max ? (M_HW - 150) * mp->ff.hist_blocks[i] / (double)max : 0;
		ek_svg_begin(s, "g");
		ek_svg_attr(s, "class", "free-bucket");
		ek_svg_attr_u64(s, "data-min-blocks", 1ull << i);
		ek_svg_attr_u64(s, "data-extents", mp->ff.hist[i]);
		ek_svg_attr_u64(s, "data-blocks", mp->ff.hist_blocks[i]);
		ek_svg_title(s, "%s: %llu free extents, %llu blocks", label,
			     (unsigned long long)mp->ff.hist[i], (unsigned long long)mp->ff.hist_blocks[i]);
		ek_svg_label(s, M_HX, y + 9, NULL, label);
		ek_svg_rect(s, M_HX + 100, y, w < 1 ? 1 : w, 11, "#74a9cf");
		ek_svg_end(s);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)mp->ff.hist[i]);
		ek_svg_label(s, M_HX + 104 + w, y + 9, NULL, num);
		ek_svg_end(s);
		y += 15;
	}
	snprintf(label, sizeof(label), "%llu free block%s in %llu extent%s",
		 (unsigned long long)mp->ff.free_blocks, ek_s(mp->ff.free_blocks),
		 (unsigned long long)mp->ff.extents, ek_s(mp->ff.extents));
	ek_svg_label(s, M_HX, y + 12, NULL, label);
	ek_svg_end(s);
}

static void map_draw(struct dbg *d, const struct map *mp, struct ek_svg *s)
{
	struct ek_fs *fs = d->fs;
	double ch = mp->rows > 64 ? 5 : mp->rows > 32 ? 8 : 12;
	double gh = mp->rows * ch, h = M_TOP + (gh > 300 ? gh : 300) + 40;
	const char *img = ek_io_path(fs->io), *base = strrchr(img, '/') ? strrchr(img, '/') + 1 : img;
	char line[256];

	ek_svg_doc_begin(s, M_W, h);
	ek_svg_attr(s, "class", "extkit-map");
	ek_svg_title(s, "allocation map of %s", base);
	ek_svg_rect(s, 0, 0, M_W, h, "#fff");
	ek_svg_end(s);
	ek_svg_begin(s, "text");
	ek_svg_attr_num(s, "x", M_ML);
	ek_svg_attr_num(s, "y", 20);
	ek_svg_attr(s, "font-size", "14");
	ek_svg_attr(s, "font-weight", "bold");
	ek_svg_text(s, "Allocation map: %s: %llu blocks of %u bytes, %u groups", base,
		    (unsigned long long)fs->sb.blocks_count, fs->blksz, fs->group_count);
	ek_svg_end(s);
	legend(s, mp);

	ek_svg_begin(s, "g");
	ek_svg_attr(s, "class", "map");
	ek_svg_attr_u64(s, "data-blocks", fs->sb.blocks_count);
	ek_svg_attr_u64(s, "data-groups", fs->group_count);
	ek_svg_attr_u64(s, "data-rows", mp->rows);
	ek_svg_attr_u64(s, "data-groups-per-row", mp->gpr);
	ek_svg_attr_u64(s, "data-rows-per-group", mp->rpg);
	ek_svg_attr_u64(s, "data-blocks-per-cell", mp->per_cell);
	ek_svg_attr(s, "data-detailed", "%s", mp->detail ? "true" : "false");
	for (int k = 0; k < EK_OWNER_NKINDS; k++) {
		char name[48];

		snprintf(name, sizeof(name), "data-total-%s", ek_blk_owner_kind_name(k));
		for (char *p = name; *p; p++)
			if (*p == '_')
				*p = '-';
		ek_svg_attr_u64(s, name, mp->totals[k]);
	}
	snprintf(line, sizeof(line), "%s; a cell is %llu blocks, shown as the kind holding most of them",
		 mp->gpr > 1 ? "rows of several groups" : mp->rpg > 1 ? "each group over several rows" :
		 "one row per group",
		 (unsigned long long)mp->per_cell);
	ek_svg_label(s, M_ML, M_TOP - 8, NULL, line);
	for (uint32_t r = 0; r < mp->rows; r++) {
		if (mp->rpg > 1 ? r % mp->rpg == 0 && (mp->rows / mp->rpg <= 32 || r / mp->rpg % 4 == 0) :
		    mp->rows <= 32 || r % (mp->rows / 16) == 0) {
			if (mp->gpr == 1)
				snprintf(line, sizeof(line), "group %u", r / mp->rpg);
			else
				snprintf(line, sizeof(line), "groups %u-", r * mp->gpr);
			ek_svg_begin(s, "text");
			ek_svg_attr_num(s, "x", M_ML - 6);
			ek_svg_attr_num(s, "y", M_TOP + r * ch + ch - 1);
			ek_svg_attr(s, "text-anchor", "end");
			ek_svg_attr(s, "font-size", ch < 8 ? "8" : "10");
			ek_svg_text_bytes(s, line, strlen(line));
			ek_svg_end(s);
		}
		for (int col = 0; col < MAP_COLS; col++) {
			size_t i = (size_t)r * MAP_COLS + col;
			const uint64_t *cnt = mp->c.count[i];
			enum ek_blk_owner_kind k = dominant(cnt);
			ek_blk_t first = mp->c.first + i * mp->per_cell;
			size_t off;

			if (first >= fs->sb.blocks_count)
				continue;	/* the last row's cells past the end */
			ek_svg_rect(s, M_ML + col * M_CW, M_TOP + r * ch, M_CW - 0.5, ch - 0.5, kind_color(k));
			ek_svg_attr(s, "class", "cell");
			ek_svg_attr_u64(s, "data-first", first);
			ek_svg_attr(s, "data-kind", "%s", ek_blk_owner_kind_name(k));
			off = snprintf(line, sizeof(line), "blocks %llu-%llu:", (unsigned long long)first,
				       (unsigned long long)(first + mp->per_cell - 1));
			for (int kk = 0; kk < EK_OWNER_NKINDS; kk++) {
				char name[48];

				if (!cnt[kk])
					continue;
				snprintf(name, sizeof(name), "data-%s", ek_blk_owner_kind_name(kk));
				for (char *p = name; *p; p++)
					if (*p == '_')
						*p = '-';
				ek_svg_attr_u64(s, name, cnt[kk]);
				if (off < sizeof(line))
					off += snprintf(line + off, sizeof(line) - off, " %s %llu",
							ek_blk_owner_kind_name(kk),
							(unsigned long long)cnt[kk]);
			}
			ek_svg_title(s, "%s", line);
			ek_svg_end(s);
		}
	}
	ek_svg_end(s);
	if (mp->path) {
		ek_svg_begin(s, "g");
		ek_svg_attr(s, "class", "file");
		ek_svg_attr_bytes(s, "data-path", mp->path, strlen(mp->path));
		ek_svg_attr_u64(s, "data-inode", mp->ino);
		ek_svg_attr_u64(s, "data-blocks", mp->file_blocks);
		ek_svg_attr_u64(s, "data-extents", mp->file_extents);
		ek_svg_title(s, "%s (inode %u): %llu block%s in %llu extent%s", mp->path, mp->ino,
			     (unsigned long long)mp->file_blocks, ek_s(mp->file_blocks),
			     (unsigned long long)mp->file_extents, ek_s(mp->file_extents));
		for (size_t i = 0; i < mp->ncells; i++) {
			if (!mp->file[i])
				continue;
			ek_svg_rect(s, M_ML + (i % MAP_COLS) * M_CW + 0.75, M_TOP + (i / MAP_COLS) * ch + 0.75,
			     M_CW - 2, ch - 2, "none");
			ek_svg_attr(s, "class", "file-cell");
			ek_svg_attr(s, "stroke", "#000");
			ek_svg_attr(s, "stroke-width", "1.5");
			ek_svg_attr_u64(s, "data-first", mp->c.first + i * mp->per_cell);
			ek_svg_attr_u64(s, "data-blocks", mp->file[i]);
			ek_svg_end(s);
		}
		ek_svg_end(s);
	}
	histogram(d, s, mp, M_TOP - 8);
	ek_svg_end(s);
}

int do_map(struct dbg *d, int argc, char **argv)
{
	struct map mp = { 0 };
	const char *svg = NULL;
	int err, ret = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--svg") && i + 1 < argc)
			svg = argv[++i];
		else if (!strcmp(argv[i], "--file") && i + 1 < argc)
			mp.path = argv[++i];
		else
			return dbg_usage("map");
	}
	err = map_build(d, &mp);
	if (err) {
		dbg_fail(d, "map", err);
		goto out;
	}
	if (svg) {
		FILE *f = strcmp(svg, "-") ? fopen(svg, "w") : stdout;
		struct ek_svg s;

		if (!f) {
			dbg_errorf(d, "map: cannot create '%s': %s", svg, strerror(errno));
			goto out;
		}
		ek_svg_init(&s, f, false);
		map_draw(d, &mp, &s);
		err = ek_svg_finish(&s);
		if (f != stdout && fclose(f) && !err)
			err = -errno;
		if (err) {
			dbg_errorf(d, "map: cannot write '%s': %s", svg, ek_error_msg(err));
			goto out;
		}
	}
	if (!svg || strcmp(svg, "-"))
		map_emit(d, &mp);
	ret = 0;
out:
	free(mp.c.count);
	free(mp.file);
	return ret;
}
