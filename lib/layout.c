// SPDX-License-Identifier: MIT
/*
 * layout.c - allocation layout: per-file fragmentation and the free-space
 * extent histogram.
 *
 * A file's "extents" are its mapping entries (extents, or maximal runs of
 * an indirect map); "runs" merge entries that are physically adjacent too.
 * The ideal count is the fewest entries that could hold its blocks:
 * ceil(blocks / max entry length), 32768 blocks for an extent and a block
 * group for an indirect map.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

static unsigned log2_u64(uint64_t v)
{
	unsigned l = 0;

	while (v >>= 1)
		l++;
	return l;
}

struct frag_walk {
	struct ek_frag *f;
	ek_blk_t next_pblk;	/* physical block after the previous entry */
	uint64_t next_lblk;
	bool any;
};

static int frag_cb(void *arg, const struct ek_mapping *m)
{
	struct frag_walk *w = arg;
	struct ek_frag *f = w->f;

	if (m->kind == EK_MAP_TREE) {
		f->tree_blocks++;
		return 0;
	}
	if (m->kind != EK_MAP_DATA)
		return 0;
	f->extents++;
	f->blocks += m->len;
	f->hist[log2_u64(m->len)]++;
	if (!w->any || m->pblk != w->next_pblk)
		f->runs++;
	if (w->any && m->lblk != w->next_lblk)
		f->holes++;
	w->any = true;
	w->next_pblk = m->pblk + m->len;
	w->next_lblk = m->lblk + m->len;
	return 0;
}

int ek_layout_file(struct ek_fs *fs, const struct ek_inode *ei, struct ek_frag *out)
{
	struct frag_walk w = { .f = out };
	uint64_t maxlen;
	int err;

	memset(out, 0, sizeof(*out));
	err = ek_map_walk(fs, ei, frag_cb, &w);
	maxlen = (ei->flags & EXT4_EXTENTS_FL) ? EXT_INIT_MAX_LEN : fs->sb.blocks_per_group;
	out->ideal = (out->blocks + maxlen - 1) / maxlen;
	return err;
}

/* account one maximal free run of @run blocks (0: none) */
static void free_run_end(struct ek_freefrag *out, uint64_t run)
{
	if (!run)
		return;
	out->extents++;
	out->hist[log2_u64(run)]++;
	out->hist_blocks[log2_u64(run)] += run;
	if (run < out->min_extent)
		out->min_extent = run;
	if (run > out->max_extent)
		out->max_extent = run;
}

int ek_layout_free(struct ek_fs *fs, uint64_t chunk_blocks, struct ek_freefrag *out)
{
	uint64_t run = 0, chunk_free = 0;
	uint32_t ratio = ek_cluster_ratio(fs);
	ek_blk_t first = fs->sb.first_data_block;
	int err;

	memset(out, 0, sizeof(*out));
	out->chunk_blocks = chunk_blocks;
	out->min_extent = UINT64_MAX;
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const uint8_t *map;
		uint64_t nclusters = ((uint64_t)ek_group_blocks(fs, g) + ratio - 1) / ratio;
		bool was_cached = fs->block_bitmaps[g] != NULL;

		err = ek_block_bitmap_get(fs, g, &map);
		if (err)
			return err;
		for (uint64_t c = 0; c < nclusters; c++) {
			ek_blk_t blk = ek_group_first_block(fs, g) + c * ratio;
			bool used;

			/* without chunks, a byte of the bitmap all free or all used at once */
			if (!chunk_blocks && !(c & 7) && c + 8 <= nclusters &&
			    (map[c >> 3] == 0 || map[c >> 3] == 0xFF)) {
				if (map[c >> 3]) {
					free_run_end(out, run);
					run = 0;
				} else {
					run += 8 * (uint64_t)ratio;
					out->free_blocks += 8 * (uint64_t)ratio;
				}
				c += 7;
				continue;
			}
			used = ek_bit_test(map, c);

			if (chunk_blocks && (blk - first) % chunk_blocks == 0) {
				if (blk != first && chunk_free == chunk_blocks)
					out->free_chunks++;
				chunk_free = 0;
				out->total_chunks++;
			}
			if (!used) {
				chunk_free += ratio;
				run += ratio;
				out->free_blocks += ratio;
				continue;
			}
			free_run_end(out, run);
			run = 0;
		}
		/*
		 * One group's bitmap at a time: an 8 TiB filesystem has 64 Ki
		 * groups, 256 MiB of bitmaps at 4 KiB blocks.  Those another
		 * command had loaded stay cached.
		 */
		if (!was_cached) {
			free(fs->block_bitmaps[g]);
			fs->block_bitmaps[g] = NULL;
		}
	}
	if (chunk_blocks && chunk_free == chunk_blocks)
		out->free_chunks++;
	free_run_end(out, run);
	if (!out->extents)
		out->min_extent = 0;
	out->total_blocks = fs->sb.blocks_count;	/* as e2freefrag */
	return 0;
}

/* ---- checkpoint seek profile --------------------------------------------- */

uint64_t ek_seek_add(struct ek_seekstat *s, uint64_t home, uint64_t gap)
{
	uint64_t dist = 0;

	if (s->have) {
		dist = home > s->prev ? home - s->prev : s->prev - home;
		if (dist > gap) {
			s->jumps++;
			s->distance += dist;
		} else {
			dist = 0;
		}
	}
	s->have = true;
	s->prev = home;
	s->writes++;
	return dist;
}
