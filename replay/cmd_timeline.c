// SPDX-License-Identifier: MIT
/*
 * cmd_timeline.c - extkit-replay timeline: the journal as a picture.
 *
 * Three panels, one SVG (--svg FILE), the same numbers as text or JSON:
 *
 *   ring        one bar per transaction at its place in the log (journal
 *               blocks s_first..s_maxlen), its width and height the blocks
 *               it logged, split by what each logged block is in the image
 *               as replaying the log leaves it (owner.c: bitmap, inode
 *               table, directory, extent/indirect block, file data, free
 *               there, other metadata) and the journal-only blocks
 *               (descriptors, revoke blocks, the commit); revoke records
 *               marked; torn, bad-checksum and stale transactions drawn as
 *               such; the live region, its start and end, and the ring's
 *               wrap point
 *   time        the same bars on a commit-time axis (transactions without
 *               a usable commit time in a strip at the right)
 *   seeks       the checkpoint seek profile: home block against log order
 *               of the blocks replay writes, columns where a move of more
 *               than --gap blocks happens marked; the totals are
 *               `replay seeks`' log_order ones (ek_seek_add)
 *
 * Every number drawn is carried as a data-* attribute (and a <title> for
 * people), named as list --json and seeks --json name it, so a test can
 * compare the picture with them.  Stale transactions come from the ring
 * outside the live region (ek_jlog_stale_walk, as `orphans` counts them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"
#include "replay.h"

enum tl_cat {
	TL_BITMAP, TL_ITABLE, TL_DIR, TL_TREE, TL_DATA, TL_FREE, TL_OTHER, TL_UNKNOWN,
	TL_JOURNAL_ONLY, TL_NCAT
};

static const struct {
	const char *key;	/* JSON key, data-kind-* suffix */
	const char *label;	/* legend */
	const char *color;
} cats[TL_NCAT] = {
	[TL_BITMAP] = { "bitmap", "bitmap", "#d62728" },
	[TL_ITABLE] = { "inode_table", "inode table", "#ff7f0e" },
	[TL_DIR] = { "directory", "directory", "#2ca02c" },
	[TL_TREE] = { "tree", "extent/indirect block", "#9467bd" },
	[TL_DATA] = { "data", "file data", "#1f77b4" },
	[TL_FREE] = { "free", "free after replay (stale home)", "#bcbd22" },
	[TL_OTHER] = { "other", "other metadata (super, GDT, xattr, journal)", "#8c564b" },
	[TL_UNKNOWN] = { "unknown", "owner not known", "#c7c7c7" },
	[TL_JOURNAL_ONLY] = { "journal_only", "journal only (descriptor, revoke, commit)", "#7f7f7f" },
};

static enum tl_cat cat_of(enum ek_blk_owner_kind k)
{
	switch (k) {
	case EK_OWNER_BLOCK_BITMAP:
	case EK_OWNER_INODE_BITMAP:
		return TL_BITMAP;
	case EK_OWNER_INODE_TABLE:
		return TL_ITABLE;
	case EK_OWNER_DIR:
		return TL_DIR;
	case EK_OWNER_EXTENT_INDEX:
	case EK_OWNER_EXTENT_LEAF:
	case EK_OWNER_INDIRECT:
		return TL_TREE;
	case EK_OWNER_DATA:
		return TL_DATA;
	case EK_OWNER_FREE:
		return TL_FREE;
	default:
		return TL_OTHER;
	}
}

struct tl_txn {
	const struct ek_jtxn *t;
	uint64_t cat[TL_NCAT];
	bool bad_csum;		/* a descriptor, revoke or data block failed its checksum */
};

struct tl_stale {
	ek_tid_t tid;
	uint32_t first, last;	/* journal blocks */
	uint64_t blocks;	/* headers and the data blocks they describe */
};

struct tl_seekcol {
	uint64_t min, max;	/* home blocks in the column */
	uint64_t writes, jumps;
};

#define TL_W		1000.0
#define TL_ML		80.0
#define TL_MR		20.0
#define TL_PW		(TL_W - TL_ML - TL_MR)
#define TL_PH		170.0
#define TL_COLS		910	/* seek columns, one per unit of the plot's width */

struct timeline {
	struct tl_txn *tx;
	size_t ntx;
	struct tl_stale *stale;
	size_t nstale, stale_cap;
	bool owners_known;
	bool have_upto;		/* owners: the image as replaying up to upto leaves it */
	ek_tid_t upto;
	struct ek_seekstat seek;
	struct tl_seekcol col[TL_COLS];
	uint64_t max_blocks;	/* tallest bar */
};

static int add_stale(void *arg, const struct ek_jstale_blk *b)
{
	struct timeline *tl = arg;
	struct tl_stale *s = tl->nstale ? &tl->stale[tl->nstale - 1] : NULL;

	/* consecutive headers of one sequence are one stale transaction */
	if (!s || s->tid != b->seq || b->jblk < s->last) {
		if (ek_grow(&tl->stale, &tl->stale_cap, tl->nstale + 1, sizeof(*tl->stale)))
			return -ENOMEM;
		s = &tl->stale[tl->nstale++];
		*s = (struct tl_stale){ .tid = b->seq, .first = b->jblk };
	}
	s->last = b->jblk + b->ndata;
	s->blocks += 1 + b->ndata;
	return 0;
}

/* what the logged blocks are: the image as replaying the plan leaves it */
static int classify(struct rp *r, struct timeline *tl)
{
	struct ek_jplan_view view = { r->j, &r->plan };
	struct ek_fs *rfs = NULL;
	struct ek_blk_owner *own = NULL;
	ek_blk_t *homes = NULL;
	size_t n = 0, k = 0;
	int err;

	for (size_t i = 0; i < tl->ntx; i++)
		n += tl->tx[i].t->ntags;
	if (!n)
		return 0;
	err = ek_fs_open(r->image, &(struct ek_open_opts){
				.flags = r->fs->flags & EK_OPEN_IGNORE_CSUM, .offset = r->offset,
				.overlay = ek_jplan_overlay, .overlay_arg = &view }, &rfs);
	if (err)
		goto out;
	homes = ek_calloc(n, sizeof(*homes));
	own = ek_calloc(n, sizeof(*own));
	if (!homes || !own) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < tl->ntx; i++)
		for (uint32_t g = 0; g < tl->tx[i].t->ntags; g++)
			homes[k++] = tl->tx[i].t->tags[g].home;
	err = ek_blocks_owner(rfs, homes, n, own);
	if (err && err != -ENOMEM && err != -EINVAL) {
		fprintf(stderr, "%s: warning: some block owners may be unknown: %s\n", r->prog,
			ek_error_msg(err));
		err = 0;
	}
	if (!err) {
		k = 0;
		for (size_t i = 0; i < tl->ntx; i++)
			for (uint32_t g = 0; g < tl->tx[i].t->ntags; g++)
				tl->tx[i].cat[cat_of(own[k++].kind)]++;
		tl->owners_known = true;
	}
out:
	if (err)
		fprintf(stderr, "%s: warning: cannot tell what the logged blocks are: %s\n", r->prog,
			ek_error_msg(err));
	free(own);
	free(homes);
	ek_fs_close(rfs);
	return err == -ENOMEM ? err : 0;
}

static void timeline_release(struct timeline *tl)
{
	free(tl->tx);
	free(tl->stale);
}

static int timeline_collect(struct rp *r, struct timeline *tl)
{
	uint64_t writes = 0, w = 0;
	int err;

	memset(tl, 0, sizeof(*tl));
	tl->ntx = r->log.ntxns;
	tl->tx = ek_calloc(tl->ntx ? tl->ntx : 1, sizeof(*tl->tx));
	if (!tl->tx)
		return -ENOMEM;
	for (size_t i = 0; i < tl->ntx; i++) {
		struct tl_txn *x = &tl->tx[i];
		const struct ek_jtxn *t = &r->log.txns[i];

		x->t = t;
		x->bad_csum = t->desc_csum_bad || t->bad_tags;
		x->cat[TL_JOURNAL_ONLY] = t->nblocks > t->ntags ? t->nblocks - t->ntags : 0;
		if (t->nblocks > tl->max_blocks)
			tl->max_blocks = t->nblocks;
		if (t->state == EK_JTXN_COMMITTED && ek_tid_after(r->log.end_tid, t->tid)) {
			tl->have_upto = true;
			tl->upto = t->tid;
		}
	}
	if (r->plan.nwrites == 0)
		tl->have_upto = false;
	err = classify(r, tl);
	if (!err && !tl->owners_known)
		for (size_t i = 0; i < tl->ntx; i++)
			tl->tx[i].cat[TL_UNKNOWN] = tl->tx[i].t->ntags;
	if (!err)
		err = ek_jlog_stale_walk(r->j, &r->log, add_stale, tl);
	for (size_t i = 0; !err && i < tl->nstale; i++)
		if (tl->stale[i].blocks > tl->max_blocks)
			tl->max_blocks = tl->stale[i].blocks;
	if (err)
		return err;

	/* the seek profile: the blocks replay writes, in log order (as `seeks`);
	 * each tag's fate asked once */
	{
		size_t ntags = 0, k = 0;
		uint8_t *written;

		for (size_t i = 0; i < tl->ntx; i++)
			ntags += tl->tx[i].t->ntags;
		written = ek_calloc(ntags ? ntags : 1, 1);
		if (!written)
			return -ENOMEM;
		for (size_t i = 0; i < tl->ntx; i++) {
			const struct ek_jtxn *t = tl->tx[i].t;

			for (uint32_t g = 0; g < t->ntags; g++, k++) {
				written[k] = t->state == EK_JTXN_COMMITTED &&
					     ek_jplan_fate(&r->plan, r->j, t, &t->tags[g]) == EK_JFATE_WRITTEN;
				writes += written[k];
			}
		}
		k = 0;
		for (size_t i = 0; i < tl->ntx; i++) {
			const struct ek_jtxn *t = tl->tx[i].t;

			for (uint32_t g = 0; g < t->ntags; g++) {
				uint64_t home = t->tags[g].home, jump;
				struct tl_seekcol *c;

				if (!written[k++])
					continue;
				jump = ek_seek_add(&tl->seek, home, r->gap);
				c = &tl->col[writes > TL_COLS ? w * TL_COLS / writes : w];
				if (!c->writes || home < c->min)
					c->min = home;
				if (!c->writes || home > c->max)
					c->max = home;
				c->writes++;
				c->jumps += jump != 0;
				w++;
			}
		}
		free(written);
	}
	return 0;
}

/* ---- text and JSON -------------------------------------------------------- */

static void emit(struct rp *r, const struct timeline *tl)
{
	struct ek_out *o = r->out;
	const struct ek_jsb *sb = &r->j->sb;
	bool clean;

	ek_out_obj_begin(o, NULL);
	clean = ek_jlog_emit_status(o, r->j, &r->log);
	ek_out_obj_begin(o, "ring");
	ek_out_u64(o, "first_block", sb->first);
	ek_out_u64(o, "end_block", sb->last);	/* the wrap point: the log goes on at first */
	ek_out_u64(o, "live_start", sb->start);
	ek_out_u64(o, "live_end", sb->start ? r->log.end_jblk : 0);
	ek_out_bool(o, "live_wraps", sb->start && r->log.end_jblk < sb->start);
	ek_out_obj_end(o);
	ek_out_bool(o, "owners_known", tl->owners_known);
	if (tl->have_upto)
		ek_out_u64(o, "owners_after_tid", tl->upto);
	else
		ek_out_null(o, "owners_after_tid");
	if (!clean) {
		ek_out_text(o, "%10s %-12s %7s %6s", "tid", "state", "first", "blocks");
		for (int c = 0; c < TL_NCAT; c++)
			ek_out_text(o, " %s", cats[c].key);
		ek_out_text(o, " revokes\n");
	}
	ek_out_arr_begin(o, "transactions");
	for (size_t i = 0; i < tl->ntx; i++) {
		const struct tl_txn *x = &tl->tx[i];
		const struct ek_jtxn *t = x->t;

		ek_out_text(o, "%10u %-12s %7u %6u", t->tid, ek_jtxn_state_name(t->state),
			    t->first_jblk, t->nblocks);
		for (int c = 0; c < TL_NCAT; c++)
			ek_out_text(o, " %*llu", (int)strlen(cats[c].key),
				    (unsigned long long)x->cat[c]);
		ek_out_text(o, " %7u%s\n", t->nrevokes, x->bad_csum ? "  bad checksum" : "");
		/* list --json's fields (no delta), then the timeline's own */
		ek_out_obj_begin(o, NULL);
		ek_jtxn_emit_fields(o, r->j, t, -1, 0);
		ek_out_bool(o, "bad_checksum", x->bad_csum);
		ek_out_obj_begin(o, "kinds");
		for (int c = 0; c < TL_NCAT; c++)
			ek_out_u64(o, cats[c].key, x->cat[c]);
		ek_out_obj_end(o);
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	if (tl->nstale)
		ek_out_text(o, "stale transactions (outside the live region): %zu\n", tl->nstale);
	ek_out_arr_begin(o, "stale");
	for (size_t i = 0; i < tl->nstale; i++) {
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "tid", tl->stale[i].tid);
		ek_out_u64(o, "first_block", tl->stale[i].first);
		ek_out_u64(o, "blocks", tl->stale[i].blocks);
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	ek_out_text(o, "seeks (gap %llu), log order: %llu writes, %llu jumps, distance %llu\n",
		    (unsigned long long)r->gap, (unsigned long long)tl->seek.writes,
		    (unsigned long long)tl->seek.jumps, (unsigned long long)tl->seek.distance);
	ek_out_obj_begin(o, "seeks");
	ek_out_u64(o, "gap", r->gap);
	ek_out_u64(o, "writes", tl->seek.writes);
	ek_out_u64(o, "jumps", tl->seek.jumps);
	ek_out_u64(o, "distance", tl->seek.distance);
	ek_out_obj_end(o);
	ek_out_obj_end(o);
}

/* ---- the picture ---------------------------------------------------------- */

static void vline(struct ek_svg *s, double x, double y0, double y1, const char *color, bool dash)
{
	ek_svg_begin(s, "line");
	ek_svg_attr_num(s, "x1", x);
	ek_svg_attr_num(s, "x2", x);
	ek_svg_attr_num(s, "y1", y0);
	ek_svg_attr_num(s, "y2", y1);
	ek_svg_attr(s, "stroke", "%s", color);
	if (dash)
		ek_svg_attr(s, "stroke-dasharray", "4 3");
	ek_svg_end(s);
}

/* one stacked bar, bottom at @base, @scale units per block */
static void stack(struct ek_svg *s, const struct tl_txn *x, double px, double w, double base,
		  double scale)
{
	double y = base;

	for (int c = 0; c < TL_NCAT; c++) {
		double h = x->cat[c] * scale;

		if (!x->cat[c])
			continue;
		y -= h;
		ek_svg_rect(s, px, y, w, h, cats[c].color);
		ek_svg_attr(s, "class", "seg");
		ek_svg_attr(s, "data-kind", "%s", cats[c].key);
		ek_svg_attr_u64(s, "data-count", x->cat[c]);
		ek_svg_end(s);
	}
}

/* torn, bad commit, bad checksum: an outline; revokes: a mark above */
static void marks(struct ek_svg *s, const struct tl_txn *x, double px, double w, double base,
		  double top)
{
	const struct ek_jtxn *t = x->t;
	const char *color = t->state != EK_JTXN_COMMITTED ? "#d00000" : x->bad_csum ? "#ff8c00" : NULL;

	if (color) {
		ek_svg_rect(s, px - 0.5, top - 0.5, w + 1, base - top + 1, "none");
		ek_svg_attr(s, "stroke", "%s", color);
		ek_svg_attr(s, "stroke-width", "1.5");
		if (t->state == EK_JTXN_TORN)
			ek_svg_attr(s, "stroke-dasharray", "3 2");
		ek_svg_attr(s, "class", "state-mark");
		ek_svg_end(s);
	}
	if (t->nrevokes) {
		double cx = px + w / 2;

		ek_svg_begin(s, "path");
		ek_svg_attr(s, "class", "revoke-mark");
		ek_svg_attr(s, "d", "M%.2f %.2fl-3 -6h6z", cx, top - 1);
		ek_svg_attr(s, "fill", "#6a0dad");
		ek_svg_end(s);
	}
}

static void txn_title(struct rp *r, struct ek_svg *s, const struct tl_txn *x)
{
	const struct ek_jtxn *t = x->t;
	char iso[32] = "no commit time", line[600];
	size_t off;

	if (t->commit_jblk && ek_jtxn_time_ok(r->j, t))
		ek_fmt_iso(t->commit_sec, iso, sizeof(iso));
	off = snprintf(line, sizeof(line), "tid %u (%s%s), journal blocks %u+%u, %s, %u revoke records:",
		       t->tid, ek_jtxn_state_name(t->state), x->bad_csum ? ", bad checksum" : "",
		       t->first_jblk, t->nblocks, iso, t->nrevokes);
	for (int c = 0; c < TL_NCAT && off < sizeof(line); c++)
		if (x->cat[c])
			off += snprintf(line + off, sizeof(line) - off, " %s %llu", cats[c].key,
					(unsigned long long)x->cat[c]);
	ek_svg_title(s, "%s", line);
}

static void txn_data(struct rp *r, struct ek_svg *s, const struct tl_txn *x)
{
	const struct ek_jtxn *t = x->t;

	ek_svg_attr_u64(s, "data-tid", t->tid);
	ek_svg_attr(s, "data-state", "%s", ek_jtxn_state_name(t->state));
	ek_svg_attr_u64(s, "data-first-block", t->first_jblk);
	if (t->commit_jblk)
		ek_svg_attr_u64(s, "data-commit-block", t->commit_jblk);
	ek_svg_attr_u64(s, "data-blocks", t->nblocks);
	ek_svg_attr_u64(s, "data-data-blocks", t->ntags);
	ek_svg_attr_u64(s, "data-revoke-records", t->nrevokes);
	if (t->commit_jblk) {
		ek_svg_attr(s, "data-commit-sec", "%lld", (long long)t->commit_sec);
		ek_svg_attr_u64(s, "data-commit-nsec", t->commit_nsec);
		ek_svg_attr(s, "data-commit-time-ok", "%s", ek_jtxn_time_ok(r->j, t) ? "true" : "false");
	}
	ek_svg_attr(s, "data-bad-checksum", "%s", x->bad_csum ? "true" : "false");
	for (int c = 0; c < TL_NCAT; c++) {
		char name[48];

		snprintf(name, sizeof(name), "data-kind-%s", cats[c].key);
		for (char *p = name; *p; p++)
			if (*p == '_')
				*p = '-';
		ek_svg_attr_u64(s, name, x->cat[c]);
	}
}

static void legend(struct ek_svg *s, double y)
{
	double x = TL_ML;

	ek_svg_begin(s, "g");
	ek_svg_attr(s, "class", "legend");
	for (int c = 0; c < TL_NCAT; c++)
		ek_svg_swatch(s, &x, &y, TL_ML, TL_W - TL_MR, cats[c].color, NULL, cats[c].label);
	y += 16;
	x = TL_ML;
	ek_svg_rect(s, x, y - 9, 10, 10, "none");
	ek_svg_attr(s, "stroke", "#d00000");
	ek_svg_attr(s, "stroke-dasharray", "3 2");
	ek_svg_end(s);
	ek_svg_label(s, x + 14, y, NULL, "torn / bad commit (red)");
	x += 170;
	ek_svg_rect(s, x, y - 9, 10, 10, "none");
	ek_svg_attr(s, "stroke", "#ff8c00");
	ek_svg_end(s);
	ek_svg_label(s, x + 14, y, NULL, "bad checksum");
	x += 110;
	ek_svg_begin(s, "path");
	ek_svg_attr(s, "d", "M%.2f %.2fl-3 -6h6z", x + 5, y);
	ek_svg_attr(s, "fill", "#6a0dad");
	ek_svg_end(s);
	ek_svg_label(s, x + 14, y, NULL, "revoke records");
	x += 120;
	ek_svg_rect(s, x, y - 9, 10, 10, "#e0e0e0");
	ek_svg_end(s);
	ek_svg_label(s, x + 14, y, NULL, "stale (outside the live log)");
	x += 190;
	ek_svg_rect(s, x, y - 9, 10, 10, "#e6f4e6");
	ek_svg_end(s);
	ek_svg_label(s, x + 14, y, NULL, "live region");
	ek_svg_end(s);
}

static void axis_label(struct ek_svg *s, double y, const char *what, uint64_t max)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)max);
	ek_svg_label(s, TL_ML - 6, y + 10, "end", buf);
	ek_svg_label(s, TL_ML - 6, y + TL_PH, "end", "0");
	ek_svg_begin(s, "text");
	ek_svg_attr_num(s, "x", 14);
	ek_svg_attr_num(s, "y", y + TL_PH / 2);
	ek_svg_attr(s, "transform", "rotate(-90 14 %.2f)", y + TL_PH / 2);
	ek_svg_attr(s, "text-anchor", "middle");
	ek_svg_text(s, "%s", what);
	ek_svg_end(s);
}

static void panel_ring(struct rp *r, const struct timeline *tl, struct ek_svg *s, double y0)
{
	const struct ek_jsb *sb = &r->j->sb;
	double span = sb->last > sb->first ? sb->last - sb->first : 1;
	double base = y0 + TL_PH, scale = tl->max_blocks ? (TL_PH - 10) / tl->max_blocks : 1;
	double bx = TL_PW / span;	/* units per journal block */
	uint32_t start = sb->start, end = r->log.end_jblk;
#define XJ(b) (TL_ML + ((double)(b) - sb->first) * bx)

	ek_svg_begin(s, "g");
	ek_svg_attr(s, "class", "panel-ring");
	ek_svg_attr_u64(s, "data-first-block", sb->first);
	ek_svg_attr_u64(s, "data-end-block", sb->last);
	ek_svg_attr_u64(s, "data-live-start", start);
	ek_svg_attr_u64(s, "data-live-end", start ? end : 0);
	ek_svg_attr_u64(s, "data-transactions", tl->ntx);
	ek_svg_attr_u64(s, "data-stale-transactions", tl->nstale);
	ek_svg_label(s, TL_ML, y0 - 8, NULL,
		     "Log order: each transaction at its place in the journal ring (journal blocks)");
	ek_svg_rect(s, TL_ML, y0, TL_PW, TL_PH, "#fafafa");
	ek_svg_attr(s, "stroke", "#999");
	ek_svg_end(s);
	/* the live region, in one piece or two around the wrap */
	if (start) {
		ek_svg_begin(s, "g");
		ek_svg_attr(s, "class", "live-region");
		ek_svg_attr_u64(s, "data-start", start);
		ek_svg_attr_u64(s, "data-end", end);
		ek_svg_title(s, "live region: journal blocks %u..%u%s", start, end,
			     end < start ? " (wraps)" : "");
		if (end >= start) {
			ek_svg_rect(s, XJ(start), y0, (end - start) * bx, TL_PH, "#e6f4e6");
			ek_svg_end(s);
		} else {
			ek_svg_rect(s, XJ(start), y0, (sb->last - start) * bx, TL_PH, "#e6f4e6");
			ek_svg_end(s);
			ek_svg_rect(s, XJ(sb->first), y0, (end - sb->first) * bx, TL_PH, "#e6f4e6");
			ek_svg_end(s);
		}
		ek_svg_end(s);
		vline(s, XJ(start), y0, base + 4, "#2a7d2a", false);
		ek_svg_label(s, XJ(start), base + 26, "middle", "start");
		vline(s, XJ(end), y0, base + 4, "#2a7d2a", true);
		ek_svg_label(s, XJ(end), base + 38, "middle", "end");
	}
	/* the wrap point: after the last block the log goes on at the first */
	ek_svg_begin(s, "g");
	ek_svg_attr(s, "class", "wrap-point");
	ek_svg_attr_u64(s, "data-block", sb->last);
	ek_svg_attr(s, "data-live-wraps", "%s", start && end < start ? "true" : "false");
	ek_svg_title(s, "wrap point: after journal block %u the log goes on at block %u", sb->last - 1,
		     sb->first);
	vline(s, XJ(sb->last), y0 - 4, base + 4, "#000", true);
	ek_svg_label(s, XJ(sb->last), y0 - 8, "end", "wrap \xe2\x86\xba");
	ek_svg_end(s);
	/* stale transactions: faded, where they still lie */
	for (size_t i = 0; i < tl->nstale; i++) {
		const struct tl_stale *st = &tl->stale[i];
		double h = st->blocks * scale;

		ek_svg_begin(s, "g");
		ek_svg_attr(s, "class", "stale");
		ek_svg_attr_u64(s, "data-tid", st->tid);
		ek_svg_attr_u64(s, "data-first-block", st->first);
		ek_svg_attr_u64(s, "data-blocks", st->blocks);
		ek_svg_title(s, "stale transaction %u: %llu blocks from journal block %u (not replayed)",
			     st->tid, (unsigned long long)st->blocks, st->first);
		ek_svg_rect(s, XJ(st->first), base - h, (st->last - st->first + 1) * bx > 1 ?
		     (st->last - st->first + 1) * bx : 1, h, "#e0e0e0");
		ek_svg_attr(s, "stroke", "#b0b0b0");
		ek_svg_attr(s, "stroke-width", "0.5");
		ek_svg_end(s);
		ek_svg_end(s);
	}
	for (size_t i = 0; i < tl->ntx; i++) {
		const struct tl_txn *x = &tl->tx[i];
		const struct ek_jtxn *t = x->t;
		uint32_t first = t->first_jblk, n = t->nblocks;
		double top = base - (double)n * scale;
		/* a transaction that runs past the ring's end goes on at its start */
		uint32_t n1 = first + (uint64_t)n > sb->last ? sb->last - first : n;
		double w1 = n1 * bx < 1 ? 1 : n1 * bx;

		ek_svg_begin(s, "g");
		ek_svg_attr(s, "class", "txn");
		txn_data(r, s, x);
		txn_title(r, s, x);
		stack(s, x, XJ(first), w1, base, scale);
		marks(s, x, XJ(first), w1, base, top);
		if (n1 < n) {
			double w2 = (n - n1) * bx < 1 ? 1 : (n - n1) * bx;

			stack(s, x, XJ(sb->first), w2, base, scale);
			marks(s, x, XJ(sb->first), w2, base, top);
		}
		ek_svg_end(s);
	}
	axis_label(s, y0, "blocks logged", tl->max_blocks);
	{
		char a[24], b[24];

		snprintf(a, sizeof(a), "%u", sb->first);
		snprintf(b, sizeof(b), "%u", sb->last);
		ek_svg_label(s, TL_ML, base + 14, "start", a);
		ek_svg_label(s, TL_ML + TL_PW, base + 14, "end", b);
	}
	ek_svg_end(s);
#undef XJ
}

static bool has_time(struct rp *r, const struct ek_jtxn *t)
{
	return t->commit_jblk && ek_jtxn_time_ok(r->j, t);
}

static void panel_time(struct rp *r, const struct timeline *tl, struct ek_svg *s, double y0)
{
	double tmin = 0, tmax = 0, base = y0 + TL_PH;
	double scale = tl->max_blocks ? (TL_PH - 10) / tl->max_blocks : 1;
	double strip = 0, pw, bw;
	size_t timed = 0, untimed = 0, k = 0;

	for (size_t i = 0; i < tl->ntx; i++) {
		const struct ek_jtxn *t = tl->tx[i].t;
		double v = (double)t->commit_sec + t->commit_nsec / 1e9;

		if (!has_time(r, t)) {
			untimed++;
			continue;
		}
		if (!timed || v < tmin)
			tmin = v;
		if (!timed || v > tmax)
			tmax = v;
		timed++;
	}
	if (untimed)
		strip = 80;
	pw = TL_PW - strip - (untimed ? 10 : 0);
	bw = tl->ntx ? pw / (double)tl->ntx * 0.8 : 4;
	if (bw > 12)
		bw = 12;
	if (bw < 1)
		bw = 1;
	ek_svg_begin(s, "g");
	ek_svg_attr(s, "class", "panel-time");
	ek_svg_attr_u64(s, "data-timed", timed);
	ek_svg_attr_u64(s, "data-untimed", untimed);
	ek_svg_label(s, TL_ML, y0 - 8, NULL, "Commit time: each transaction at its commit time");
	ek_svg_rect(s, TL_ML, y0, TL_PW, TL_PH, "#fafafa");
	ek_svg_attr(s, "stroke", "#999");
	ek_svg_end(s);
	if (untimed) {
		ek_svg_rect(s, TL_ML + TL_PW - strip, y0, strip, TL_PH, "#f0f0f0");
		ek_svg_end(s);
		ek_svg_label(s, TL_ML + TL_PW - strip / 2, base + 14, "middle", "no commit time");
	}
	for (size_t i = 0; i < tl->ntx; i++) {
		const struct tl_txn *x = &tl->tx[i];
		const struct ek_jtxn *t = x->t;
		double v = (double)t->commit_sec + t->commit_nsec / 1e9, px;

		if (has_time(r, t))
			px = TL_ML + (tmax > tmin ? (v - tmin) / (tmax - tmin) * (pw - bw) : 0);
		else
			px = TL_ML + TL_PW - strip + 4 + (strip - 8 - bw) *
			     (untimed > 1 ? (double)k++ / (untimed - 1) : 0);
		ek_svg_begin(s, "g");
		ek_svg_attr(s, "class", "txn-time");
		ek_svg_attr_u64(s, "data-tid", t->tid);
		txn_title(r, s, x);
		stack(s, x, px, bw, base, scale);
		marks(s, x, px, bw, base, base - (double)t->nblocks * scale);
		ek_svg_end(s);
	}
	axis_label(s, y0, "blocks logged", tl->max_blocks);
	if (timed) {
		char a[32], b[48];

		ek_fmt_iso((int64_t)tmin, a, sizeof(a));
		snprintf(b, sizeof(b), "+%.3f s", tmax - tmin);
		ek_svg_label(s, TL_ML, base + 14, "start", a);
		ek_svg_label(s, TL_ML + pw, base + 14, "end", b);
	}
	ek_svg_end(s);
}

static void panel_seeks(struct rp *r, const struct timeline *tl, struct ek_svg *s, double y0)
{
	double base = y0 + TL_PH, maxh = r->fs->sb.blocks_count ? r->fs->sb.blocks_count : 1;
	size_t ncols = tl->seek.writes < TL_COLS ? tl->seek.writes : TL_COLS;
	double cw = ncols ? TL_PW / ncols : 1;

	ek_svg_begin(s, "g");
	ek_svg_attr(s, "class", "panel-seeks");
	ek_svg_attr_u64(s, "data-gap", r->gap);
	ek_svg_attr_u64(s, "data-writes", tl->seek.writes);
	ek_svg_attr_u64(s, "data-jumps", tl->seek.jumps);
	ek_svg_attr_u64(s, "data-distance", tl->seek.distance);
	ek_svg_title(s, "checkpoint seek profile, log order: %llu writes, %llu jumps over %llu blocks, distance %llu",
		     (unsigned long long)tl->seek.writes, (unsigned long long)tl->seek.jumps,
		     (unsigned long long)r->gap, (unsigned long long)tl->seek.distance);
	{
		char head[200];

		snprintf(head, sizeof(head),
			 "Checkpoint seek profile: home block against log order; %llu writes, %llu jumps over %llu blocks (red)",
			 (unsigned long long)tl->seek.writes, (unsigned long long)tl->seek.jumps,
			 (unsigned long long)r->gap);
		ek_svg_label(s, TL_ML, y0 - 8, NULL, head);
	}
	ek_svg_rect(s, TL_ML, y0, TL_PW, TL_PH, "#fafafa");
	ek_svg_attr(s, "stroke", "#999");
	ek_svg_end(s);
	for (size_t i = 0; i < ncols; i++) {
		const struct tl_seekcol *c = &tl->col[i];
		double ylo = base - (double)c->min / maxh * TL_PH, yhi = base - (double)c->max / maxh * TL_PH;

		if (!c->writes)
			continue;
		if (ylo - yhi < 2)
			yhi = ylo - 2;
		ek_svg_rect(s, TL_ML + i * cw, yhi, cw > 1 ? cw : 1, ylo - yhi, "#1f77b4");
		ek_svg_end(s);
		if (c->jumps) {
			ek_svg_rect(s, TL_ML + i * cw, y0, cw > 1 ? cw : 1, 6, "#d00000");
			ek_svg_attr(s, "class", "jump");
			ek_svg_attr_u64(s, "data-jumps", c->jumps);
			ek_svg_end(s);
		}
	}
	axis_label(s, y0, "home block", r->fs->sb.blocks_count);
	{
		char b[40];

		snprintf(b, sizeof(b), "%llu", (unsigned long long)tl->seek.writes);
		ek_svg_label(s, TL_ML, base + 14, "start", "write 0");
		ek_svg_label(s, TL_ML + TL_PW, base + 14, "end", b);
	}
	ek_svg_end(s);
}

#define TL_H (100 + 3 * (TL_PH + 60) + 10)

static void draw(struct rp *r, const struct timeline *tl, struct ek_svg *s)
{
	const char *name = strrchr(r->image, '/') ? strrchr(r->image, '/') + 1 : r->image;

	ek_svg_doc_begin(s, TL_W, TL_H);
	ek_svg_attr(s, "class", "extkit-timeline");
	ek_svg_attr(s, "data-owners-known", "%s", tl->owners_known ? "true" : "false");
	if (tl->have_upto)
		ek_svg_attr_u64(s, "data-owners-after-tid", tl->upto);
	ek_svg_title(s, "journal timeline of %s", name);
	ek_svg_rect(s, 0, 0, TL_W, TL_H, "#fff");
	ek_svg_end(s);
	ek_svg_begin(s, "text");
	ek_svg_attr_num(s, "x", TL_ML);
	ek_svg_attr_num(s, "y", 20);
	ek_svg_attr(s, "font-size", "14");
	ek_svg_attr(s, "font-weight", "bold");
	ek_svg_text(s, "Journal timeline: %s: %zu transaction%s, %zu stale", name, tl->ntx,
		    tl->ntx == 1 ? "" : "s", tl->nstale);
	ek_svg_end(s);
	legend(s, 40);
	panel_ring(r, tl, s, 100);
	panel_time(r, tl, s, 100 + TL_PH + 60);
	panel_seeks(r, tl, s, 100 + 2 * (TL_PH + 60));
	ek_svg_end(s);
}

int timeline_draw(struct rp *r, struct ek_svg *s)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	int err;

	if (!tl)
		return fprintf(stderr, "%s: timeline: %s\n", r->prog, ek_error_msg(-ENOMEM)), 1;
	err = timeline_collect(r, tl);
	if (!err)
		draw(r, tl, s);
	else
		fprintf(stderr, "%s: timeline: %s\n", r->prog, ek_error_msg(err));
	timeline_release(tl);
	free(tl);
	return err ? 1 : 0;
}

int do_timeline(struct rp *r, int argc, char **argv)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	FILE *f = NULL;
	int err, ret = 1;

	(void)argc, (void)argv;
	if (!tl)
		return fprintf(stderr, "%s: timeline: %s\n", r->prog, ek_error_msg(-ENOMEM)), 1;
	err = timeline_collect(r, tl);
	if (err) {
		fprintf(stderr, "%s: timeline: %s\n", r->prog, ek_error_msg(err));
		goto out;
	}
	if (r->svg) {
		struct ek_svg s;

		f = strcmp(r->svg, "-") ? fopen(r->svg, "w") : stdout;
		if (!f) {
			fprintf(stderr, "%s: cannot create '%s': %s\n", r->prog, r->svg, strerror(errno));
			goto out;
		}
		ek_svg_init(&s, f, false);
		draw(r, tl, &s);
		err = ek_svg_finish(&s);
		if (f != stdout && fclose(f))
			err = -errno;
		if (err) {
			fprintf(stderr, "%s: cannot write '%s': %s\n", r->prog, r->svg, ek_error_msg(err));
			goto out;
		}
	}
	/* the numbers, as text or JSON, unless the picture went to stdout */
	if (!r->svg || strcmp(r->svg, "-"))
		emit(r, tl);
	ret = 0;
out:
	timeline_release(tl);
	free(tl);
	return ret;
}
