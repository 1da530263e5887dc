// SPDX-License-Identifier: MIT
/* fsck_pass5.c - the checker's pass 5 (bitmaps and counts) and the quota usage */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* ---- pass 5 ------------------------------------------------------------------- */

/* "+5 -(7--9)": bits set in @want and not in @have are "+", the reverse "-" */
static void bitmap_diff(const uint8_t *have, const uint8_t *want, uint64_t nbits, uint64_t base,
			uint64_t scale, char *out, size_t outlen, uint64_t *ndiff)
{
	size_t used = 0;

	*ndiff = 0;
	out[0] = 0;
	for (uint64_t b = 0; b < nbits;) {
		bool h, w;
		uint64_t e = b + 1, hw, ww = 0;

		/* 64 equal bits at a time */
		if (!(b & 63) && b + 64 <= nbits) {
			memcpy(&hw, have + (b >> 3), 8);
			if (want)
				memcpy(&ww, want + (b >> 3), 8);
			if (hw == ww) {
				b += 64;
				continue;
			}
		}
		h = ek_bit_test(have, b);
		w = want && ek_bit_test(want, b);
		if (h == w) {
			b++;
			continue;
		}
		while (e < nbits && ek_bit_test(have, e) == h && (want && ek_bit_test(want, e)) == w)
			e++;
		*ndiff += e - b;
		if (used + 48 < outlen) {
			unsigned long long s = base + b * scale, l = base + (e - 1) * scale;

			used += s == l ? snprintf(out + used, outlen - used, " %c%llu", w ? '+' : '-', s) :
					 snprintf(out + used, outlen - used, " %c(%llu--%llu)",
						  w ? '+' : '-', s, l);
		} else if (used + 5 < outlen && out[used - 1] != '.') {
			used += snprintf(out + used, outlen - used, " ...");
		}
		b = e;
	}
}

/* is the bitmap on disk and checksummed (an uninit group's is computed)? */
static bool csum_checked(const struct ek_fs *fs, const struct ek_group *grp, bool inode)
{
	return fs->has_csum &&
	       !(grp->flags & (inode ? EXT4_BG_INODE_UNINIT : EXT4_BG_BLOCK_UNINIT));
}

/* is group @g's bitmap read from disk (not computed for an uninit group)? */
static bool on_disk(const struct ek_fs *fs, const struct ek_group *grp, bool inode)
{
	return !((fs->has_csum || fs->has_gdt_csum) &&
		 (grp->flags & (inode ? EXT4_BG_INODE_UNINIT : EXT4_BG_BLOCK_UNINIT)));
}

/*
 * As e2fsck at the end of pass 5: one finding per kind of bitmap whose
 * padding is not set in some group; the fix writes those bitmaps (the
 * set pads every bitmap it holds).  @bad: per kind, a group found so.
 */
static int check_padding(struct check *c, const bool bad[2], uint8_t *map)
{
	struct ek_fs *fs = c->fs;

	for (int inode = 0; inode < 2; inode++) {
		int err = 0;

		if (!bad[inode] || !fsck_report(c, inode ? EK_PR_INODE_BITMAP_PADDING :
						EK_PR_BLOCK_BITMAP_PADDING, AT_GROUP(-1)))
			continue;
		for (uint32_t g = 0; g < fs->group_count && !err; g++) {
			uint8_t *b;

			if (!on_disk(fs, &fs->groups[g], inode) || ek_bitmap_read(fs, g, inode, map) ||
			    ek_bitmap_padding_ok(fs, g, inode, map))
				continue;
			err = ek_wset_bitmap(c->ws, g, inode, &b);
		}
		fsck_fix_done(c, err);
		if (err == -ENOMEM)
			return err;
	}
	return 0;
}

/* the clusters set in the first @nbits bits of @map */
static uint64_t bits_set(const uint8_t *map, uint64_t nbits)
{
	uint64_t n = 0, b = 0;

	for (; b + 64 <= nbits; b += 64) {
		uint64_t w;

		memcpy(&w, map + (b >> 3), 8);
		n += (uint64_t)__builtin_popcountll(w);
	}
	for (; b < nbits; b++)
		n += ek_bit_test(map, b);
	return n;
}

int fsck_pass5(struct check *c)
{
	struct ek_fs *fs = c->fs;
	uint32_t ipg = fs->sb.inodes_per_group;
	uint64_t free_blocks = 0, desc_free_blocks = 0;
	uint32_t free_inodes = 0, desc_free_inodes = 0;
	/* one group at a time: what we computed, and what the image holds */
	uint8_t *want_i = ek_calloc(1, fs->blksz), *want_b = ek_calloc(1, fs->blksz);
	uint8_t *have_i = ek_malloc(fs->blksz), *have_b = ek_malloc(fs->blksz);
	char diff[320];	/* within a finding's message[400], " ..." when cut */
	bool pad_bad[2] = { false, false };
	int ret = 0;

	if (!want_i || !want_b || !have_i || !have_b) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];
		uint64_t nclusters = ((uint64_t)ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >>
				     fs->cluster_bits;
		uint32_t gfree, ifree = 0, dirs = 0, nino, nscan;
		const uint8_t *want = c->bmap[g];
		uint64_t ndiff;
		int err = ek_bitmap_read(fs, g, false, have_b);

		fsck_units(c, 5, g, fs->group_count);
		if (!want) {
			/* nothing claimed here: its metadata only */
			memset(want_b, 0, fs->blksz);
			fsck_paint_meta(c, g, want_b);
			want = want_b;
		}
		gfree = (uint32_t)(nclusters - bits_set(want, nclusters));
		free_blocks += (uint64_t)gfree << fs->cluster_bits;
		if (err) {
			fsck_report(c, EK_PR_BITMAP_UNREADABLE, AT_GROUP(g), g, ek_error_msg(err));
		} else {
			if (csum_checked(fs, grp, false) &&
			    ek_bitmap_csum(fs, have_b, false) != grp->block_bitmap_csum &&
			    fsck_report(c, EK_PR_BITMAP_CHECKSUM, AT_GROUP(g), g, "block"))
				fsck_fix_done(c, ek_fix_group_bitmap(c->ws, g, false, have_b, 0));
			if (on_disk(fs, grp, false) && !ek_bitmap_padding_ok(fs, g, false, have_b))
				pad_bad[0] = true;
			bitmap_diff(have_b, want, nclusters, ek_group_first_block(fs, g),
				    ek_cluster_ratio(fs), diff, sizeof(diff), &ndiff);
			if (ndiff && fsck_report_if(c, !c->claims_incomplete, EK_PR_BLOCK_BITMAP_DIFFERS,
					       AT_GROUP(g), g, diff))
				fsck_fix_done(c, ek_fix_group_bitmap(c->ws, g, false, want, nclusters));
		}
		desc_free_blocks += (uint64_t)grp->free_blocks << fs->cluster_bits;
		desc_free_inodes += grp->free_inodes;
		if (grp->free_blocks != gfree &&
		    fsck_report_if(c, !c->claims_incomplete, EK_PR_GROUP_FREE_BLOCKS, AT_GROUP(g), g,
			      grp->free_blocks, gfree))
			fsck_fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_FREE_BLOCKS, gfree));

		/* the group's inodes (the last group may hold fewer); only those
		 * with state, or reserved, are looked at one by one */
		nino = (uint64_t)g * ipg >= fs->sb.inodes_count ? 0 :
		       fs->sb.inodes_count - (uint64_t)g * ipg < ipg ?
		       (uint32_t)(fs->sb.inodes_count - (uint64_t)g * ipg) : ipg;
		nscan = c->ig[g].n < nino ? c->ig[g].n : nino;
		if ((uint64_t)g * ipg + 1 < fs->sb.first_ino &&
		    fs->sb.first_ino - 1 - (uint64_t)g * ipg > nscan)
			nscan = fs->sb.first_ino - 1 - (uint64_t)g * ipg < nino ?
				(uint32_t)(fs->sb.first_ino - 1 - (uint64_t)g * ipg) : nino;
		memset(want_i, 0, fs->blksz);
		for (uint32_t i = 0; i < nscan; i++) {
			ek_ino_t ino = (ek_ino_t)g * ipg + i + 1;
			uint8_t fl = fsck_iflags(c, ino);

			/* the reserved inodes are always in use */
			if ((fl & IN_USE) || ino < fs->sb.first_ino) {
				want_i[i >> 3] |= 1u << (i & 7);
				c->sum->inodes_used++;
			} else {
				ifree++;
			}
			dirs += (fl & (IN_USE | IS_DIR)) == (IN_USE | IS_DIR);
		}
		ifree += nino - nscan;
		free_inodes += ifree;
		if (c->o->bitmaps)
			c->o->bitmaps(c->o->arg, g, want, nclusters, want_i, ipg);
		err = ek_bitmap_read(fs, g, true, have_i);
		if (err) {
			fsck_report(c, EK_PR_BITMAP_UNREADABLE, AT_GROUP(g), g, ek_error_msg(err));
		} else {
			if (csum_checked(fs, grp, true) &&
			    ek_bitmap_csum(fs, have_i, true) != grp->inode_bitmap_csum &&
			    fsck_report(c, EK_PR_BITMAP_CHECKSUM, AT_GROUP(g), g, "inode"))
				fsck_fix_done(c, ek_fix_group_bitmap(c->ws, g, true, have_i, 0));
			if (on_disk(fs, grp, true) && !ek_bitmap_padding_ok(fs, g, true, have_i))
				pad_bad[1] = true;
			bitmap_diff(have_i, want_i, ipg, (uint64_t)g * ipg + 1, 1, diff, sizeof(diff),
				    &ndiff);
			if (ndiff && fsck_report(c, EK_PR_INODE_BITMAP_DIFFERS, AT_GROUP(g), g, diff))
				fsck_fix_done(c, ek_fix_group_bitmap(c->ws, g, true, want_i, ipg));
		}
		if (grp->free_inodes != ifree &&
		    fsck_report(c, EK_PR_GROUP_FREE_INODES, AT_GROUP(g), g, grp->free_inodes, ifree))
			fsck_fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_FREE_INODES, ifree));
		if (grp->used_dirs != dirs &&
		    fsck_report(c, EK_PR_GROUP_DIRS, AT_GROUP(g), g, grp->used_dirs, dirs))
			fsck_fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_USED_DIRS, dirs));
	}
	fsck_units(c, 5, fs->group_count, fs->group_count);
	c->sum->blocks_used = fs->sb.blocks_count - free_blocks;
	/*
	 * The kernel keeps the superblock's totals in memory and seldom writes
	 * them: like e2fsck, take them as the sum of the group counts, and
	 * fsck_report the totals only where those are wrong.
	 */
	if (desc_free_blocks != free_blocks &&
	    fsck_report_if(c, !c->claims_incomplete, EK_PR_FREE_BLOCKS, AT_GROUP(-1),
		      (unsigned long long)desc_free_blocks, (unsigned long long)free_blocks))
		fsck_fix_done(c, ek_fix_super_counts(c->ws, free_blocks, free_inodes));
	if (desc_free_inodes != free_inodes &&
	    fsck_report(c, EK_PR_FREE_INODES, AT_GROUP(-1), desc_free_inodes, free_inodes))
		fsck_fix_done(c, ek_fix_super_counts(c->ws, c->claims_incomplete ?
						fs->sb.free_blocks_count : free_blocks, free_inodes));
	ret = check_padding(c, pad_bad, have_b);
	if (ret)
		goto out;
	/* a repaired image gets the superblock's totals right too, as e2fsck
	 * sets them (they are the sum of the groups' when the kernel reads
	 * them): with other fixes silently; alone as a finding of its own,
	 * repairing only, as e2fsck's pass 5 (PR_5_FREE_*_COUNT: preen fixes
	 * them without a word, -n leaves them without a verdict) */
	if (c->ws && !c->claims_incomplete &&
	    (fs->sb.free_blocks_count != free_blocks || fs->sb.free_inodes_count != free_inodes)) {
		if (c->sum->fixed[EK_SEV_ERROR] || c->sum->fixed[EK_SEV_WARNING])
			ret = ek_fix_super_counts(c->ws, free_blocks, free_inodes);
		else if (fsck_report(c, EK_PR_SUPER_FREE_COUNTS, AT_GROUP(-1),
				     (unsigned long long)fs->sb.free_blocks_count,
				     fs->sb.free_inodes_count, (unsigned long long)free_blocks,
				     free_inodes))
			fsck_fix_done(c, ek_fix_super_counts(c->ws, free_blocks, free_inodes));
	}
out:
	free(want_i);
	free(want_b);
	free(have_i);
	free(have_b);
	return ret;
}

/* ---- quota, after pass 5 (e2fsck's quota_compare_and_update) ------------------- */

/* inode numbers e2fsck's e2fsck_validate_quota_inodes() refuses */
static bool quota_ino_invalid(const struct ek_fs *fs, ek_ino_t ino)
{
	return ino == EXT4_BAD_INO || ino == EXT4_ROOT_INO || ino == 5 /* boot loader */ ||
	       ino == 6 /* undelete directory */ || ino == EXT4_RESIZE_INO ||
	       ino == EXT4_JOURNAL_INO || ino == 9 /* exclude */ || ino == 10 /* replica */ ||
	       ino > fs->sb.inodes_count;
}

/* the types whose usage pass 1 counts; a quota inode no inode can be is named */
void fsck_quota_setup(struct check *c)
{
	struct ek_fs *fs = c->fs;

	if (!ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_QUOTA))
		return;
	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++) {
		ek_ino_t ino = ek_quota_inum(fs, t);

		if (!ino)
			continue;
		if (quota_ino_invalid(fs, ino)) {
			/* as e2fsck: the superblock names no file of that type */
			if (fsck_report(c, EK_PR_QUOTA_INODE_INVALID, AT_INODE(ino), ino,
					ek_quota_type_name(t)))
				fsck_fix_done(c, ek_fix_quota_inum(c->ws, t, 0));
			continue;
		}
		c->quota_on[t] = true;
	}
}

/*
 * A quota file written anew (e2fsck's "Update quota info for quota type
 * N"): every id's usage as counted (an id whose charge is uncertain keeps
 * the file's), the limits, grace ends and grace periods of @old when it
 * was readable, else none; in blocks from the checker's allocator, the
 * old file's freed (@in_use: pass 1 claimed them).  Prepared before the
 * findings are reported (quota_rebuild_prepare: can it be done?), written
 * at the first fix accepted (quota_rebuild_write), once.
 */
struct qrebuild {
	uint8_t *data;
	size_t len;
	bool can;
	int done;	/* 1: not written yet; else the write's result */
};

static int quota_rebuild_prepare(struct check *c, unsigned t, const struct ek_quota *old,
				 struct qrebuild *rb)
{
	struct ek_fs *fs = c->fs;
	struct ek_quota_usage *u = NULL;
	size_t n = c->quota[t].count, no = old ? old->count : 0, i = 0, j = 0, k = 0;
	struct ek_dquot *dq;
	uint64_t need;
	int err;

	memset(rb, 0, sizeof(*rb));
	rb->done = 1;
	err = ek_quota_tally_sorted(&c->quota[t], &u);
	if (err)
		return err;
	dq = ek_calloc(n + no ? n + no : 1, sizeof(*dq));
	if (!dq) {
		free(u);
		return -ENOMEM;
	}
	/* both lists ascend by id: merge them */
	while (i < no || j < n) {
		const struct ek_dquot *d = i < no ? &old->dq[i] : NULL;
		const struct ek_quota_usage *cu = j < n ? &u[j] : NULL;

		if (d && (!cu || d->id < cu->id)) {
			dq[k] = *d;
			dq[k].curinodes = dq[k].curspace = 0;	/* nothing counted */
			i++;
		} else if (!d || cu->id < d->id) {
			dq[k] = (struct ek_dquot){ .id = cu->id, .curinodes = cu->inodes,
						    .curspace = cu->space };
			j++;
		} else {
			dq[k] = *d;
			if (!cu->uncertain) {
				dq[k].curinodes = cu->inodes;
				dq[k].curspace = cu->space;
			}
			i++;
			j++;
		}
		k++;
	}
	free(u);
	err = ek_quota_encode(t, dq, k, &rb->data, &rb->len);
	free(dq);
	if (err)
		return err == -EINVAL ? 0 : err;	/* (cannot be: ids ascend) */
	if (old)
		ek_quota_set_grace(rb->data, rb->len, old->bgrace, old->igrace);
	/* its data and, at most, a map block per 256 of it and a few more */
	need = (rb->len >> fs->log_blksz) + 1;
	need += need / (fs->blksz / 4) + 4;
	/* bigalloc: the allocator hands out clusters; a map left unread: the
	 * free blocks are not known */
	rb->can = c->ws && !ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_BIGALLOC) &&
		  !c->claims_incomplete && fsck_room_for(c, need);
	return 0;
}

static int quota_rebuild_write(struct check *c, ek_ino_t ino, bool in_use, struct qrebuild *rb)
{
	struct ek_ind_sink sink = { .alloc = fsck_sink_alloc, .put = fsck_sink_put, .arg = c };
	uint64_t freed = 0;
	int err;

	if (rb->done != 1)
		return rb->done;
	err = ek_fix_quota_file(c->ws, ino, rb->data, rb->len, in_use, 0, &sink, c->o->now,
				&freed);
	if (!err && !in_use) {
		/* an inode pass 1 did not count in use: it is now */
		err = ek_wset_mark_inode(c->ws, ino, true, false);
		if (!err)
			err = fsck_inode_in_use(c, ino, 0100600, 1);
		if (!err)
			c->sum->inodes_used++;	/* the summary line counts it */
	}
	if (!err)
		c->sum->blocks_used -= freed < c->sum->blocks_used ? freed : c->sum->blocks_used;
	rb->done = err;
	return err;
}

static void quota_rebuild_release(struct qrebuild *rb)
{
	free(rb->data);
	rb->data = NULL;
}

/* quota_rebuild_prepare() for a file that cannot be read: the limits of
 * the entries its tree still reaches kept (as e2fsck keeps those its scan
 * read before the error) */
static int quota_salvage(struct check *c, unsigned t, ek_ino_t ino, struct qrebuild *rb)
{
	struct ek_quota old;
	uint8_t *buf = NULL;
	size_t len;
	int err = ek_quota_read_raw(c->fs, ino, t, &buf, &len);

	memset(&old, 0, sizeof(old));
	if (!err)
		err = ek_quota_salvage(buf, len, t, ino, &old);
	free(buf);
	if (err == -ENOMEM) {
		ek_quota_release(&old);
		return err;
	}
	err = quota_rebuild_prepare(c, t, err ? NULL : &old, rb);
	ek_quota_release(&old);
	return err;
}

static int quota_compare(struct check *c, unsigned t, ek_ino_t ino, const struct ek_quota *q)
{
	struct ek_quota_usage *u;
	const char *name = ek_quota_type_name(t);
	size_t n = c->quota[t].count, i = 0, j = 0;
	struct qrebuild rb = { .done = 1 };
	bool missing = false;
	int err = ek_quota_tally_sorted(&c->quota[t], &u);

	if (err)
		return err;
	/* an id counted that the file lacks: an entry cannot be added in
	 * place, so the file is written anew with every id (as e2fsck does
	 * for any difference); else each usage is set in its entry */
	for (size_t k = 0; k < n; k++)
		if (!u[k].uncertain && (u[k].space || u[k].inodes) && !ek_quota_find(q, u[k].id))
			missing = true;
	if (missing && c->ws && (err = quota_rebuild_prepare(c, t, q, &rb))) {
		free(u);
		return err;
	}
	/* both lists ascend by id: merge them */
	while (i < q->count || j < n) {
		const struct ek_dquot *d = i < q->count ? &q->dq[i] : NULL;
		const struct ek_quota_usage *cu = j < n ? &u[j] : NULL;

		if (d && (!cu || d->id < cu->id)) {
			/* nothing counted for this id */
			if ((d->curspace || d->curinodes) &&
			    fsck_report_if(c, !missing || rb.can, EK_PR_QUOTA_USAGE_WRONG,
					   AT_INODE(ino), name, d->id,
					   (unsigned long long)d->curspace,
					   (unsigned long long)d->curinodes, 0ull, 0ull))
				fsck_fix_done(c, missing ? quota_rebuild_write(c, ino, true, &rb) :
						 ek_fix_quota_usage(c->ws, ino, t, d->id, 0, 0));
			i++;
		} else if (!d || cu->id < d->id) {
			if (!cu->uncertain && (cu->space || cu->inodes) &&
			    fsck_report_if(c, rb.can, EK_PR_QUOTA_ENTRY_MISSING, AT_INODE(ino), name,
					   cu->id, (unsigned long long)cu->space,
					   (unsigned long long)cu->inodes))
				fsck_fix_done(c, quota_rebuild_write(c, ino, true, &rb));
			j++;
		} else {
			if (!cu->uncertain && (d->curspace != cu->space || d->curinodes != cu->inodes) &&
			    fsck_report_if(c, !missing || rb.can, EK_PR_QUOTA_USAGE_WRONG,
					   AT_INODE(ino), name, d->id,
					   (unsigned long long)d->curspace,
					   (unsigned long long)d->curinodes,
					   (unsigned long long)cu->space, (unsigned long long)cu->inodes))
				fsck_fix_done(c, missing ? quota_rebuild_write(c, ino, true, &rb) :
						 ek_fix_quota_usage(c->ws, ino, t, d->id, cu->inodes,
								    cu->space));
			i++;
			j++;
		}
	}
	quota_rebuild_release(&rb);
	free(u);
	return 0;
}

int fsck_check_quota(struct check *c)
{
	struct ek_fs *fs = c->fs;

	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++) {
		ek_ino_t ino = ek_quota_inum(fs, t);
		const char *name = ek_quota_type_name(t);
		struct qrebuild rb = { .done = 1 };
		struct ek_quota q;
		bool in_use = true;
		int err;

		if (!c->quota_on[t])
			continue;
		if (!(fsck_iflags(c, ino) & IN_USE)) {
			/* (inodes 3 and 4: their mode is pass 1's finding) */
			if (ino < fs->sb.first_ino)
				continue;
			/* as e2fsck, which cannot open it: the file made anew */
			err = c->ws ? quota_rebuild_prepare(c, t, NULL, &rb) : 0;
			if (!err && fsck_report_if(c, rb.can, EK_PR_QUOTA_INODE_BAD, AT_INODE(ino),
						   name, ino, "not in use"))
				fsck_fix_done(c, quota_rebuild_write(c, ino, false, &rb));
			quota_rebuild_release(&rb);
			if (err)
				return err;
			continue;
		}
		/* a mode pass 1 left (QUOTA_INODE_BAD not fixed), a table block unread */
		if (fsck_imode(c, ino) != 0100000 || (fsck_iflags(c, ino) & IN_BAD_BLOCK))
			continue;
		err = ek_quota_read(fs, ino, t, &q);
		if (err == -ENOMEM)
			return err;
		if (err) {
			/* as e2fsck: the file made anew from the counts */
			const char *why = ek_error_msg(err);
			char msg[sizeof(((struct ek_finding *)0)->message)];

			snprintf(msg, sizeof(msg), "%s", why);
			err = c->ws ? quota_salvage(c, t, ino, &rb) : 0;
			if (!err && fsck_report_if(c, rb.can, EK_PR_QUOTA_FILE_DAMAGED, AT_INODE(ino),
						   msg))
				fsck_fix_done(c, quota_rebuild_write(c, ino, in_use, &rb));
			quota_rebuild_release(&rb);
		} else {
			err = quota_compare(c, t, ino, &q);
		}
		ek_quota_release(&q);
		if (err == -ENOMEM)
			return err;
	}
	return 0;
}
