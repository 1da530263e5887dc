// SPDX-License-Identifier: MIT
/*
 * fsck.c - the checker: e2fsck's passes, read-only, reporting findings
 * from the one table (problems.def) through a callback.
 *
 * This file: the findings table, report() and commit(), the per-inode
 * state and the computed block map, and the driver (ek_fsck_check); the
 * passes live in fsck_pass0.c (the filesystem's own inodes), fsck_pass1.c,
 * fsck_pass1b.c, fsck_pass2.c, fsck_pass34.c and fsck_pass5.c, sharing
 * struct check through fsck_int.h.
 *
 *   pass 1  every inode in use: its checksum, dtime, block map (extent tree
 *           or indirect blocks, walked by map.c's checked walk), xattr
 *           block and htree flag; the blocks it claims, counted against
 *           i_blocks and marked in an in-memory block map, where a block
 *           marked twice is multiply claimed (metadata is marked first)
 *   pass 2  every directory's entries (dir.c's checked iterator): inode
 *           numbers, entries to unused inodes, file types; references per
 *           inode and each directory's '..'; then each htree index, walked
 *           from the root through dir.c's dx codecs: every block in use
 *           named by exactly one index entry, interior nodes where the
 *           root's depth says, and the names of each leaf hashing into
 *           the range of the entries leading to it (their hashes noted
 *           during the entry walk, so a leaf is read once)
 *   pass 3  every directory reaches the root through '..'
 *   pass 4  link counts against the references pass 2 counted
 *   pass 5  the block and inode bitmaps and every free count against what
 *           passes 1 and 2 computed; then, as e2fsck after pass 5, each
 *           quota file's usage per id against what pass 1 counted
 *
 * Repair (opts.repair): a finding with a fix is reported fixable; when the
 * tool answers EK_FSCK_FIX, fsck_report() returns true and the site applies the
 * fix into c->ws (lib/repair.c) and says how it went (fsck_fix_done); the set
 * is committed at the end of each pass (commit()), so the next pass reads
 * the repaired image, and the checker's own state is updated by the site.
 *
 * Memory grows with what is in use, not with the size of the image: a
 * computed block bitmap only for groups where a block is claimed (the
 * metadata of the others is painted from a sorted list of ranges when
 * pass 5 compares them), 3 bytes per inode (flags and file type, link
 * count, references; counts past 254 in a small overflow table) only for
 * groups with inodes in use, up to the last one, 12 bytes per directory
 * ('..' and the entry naming it), and per quota type a record per id seen.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

static const struct ek_problem problems[] = {
#define EK_PROBLEM_ASK(name, pass, sev, preen, msg, fix, question) \
	{ #name, pass, sev, (preen) & ~(EK_NOT_A_FIX | EK_NO_CHANGE | EK_PREEN_NOMSG), \
	  ((preen) & EK_NOT_A_FIX) != 0, ((preen) & EK_NO_CHANGE) != 0, \
	  ((preen) & EK_PREEN_NOMSG) != 0, msg, fix, question },
#define EK_PROBLEM(name, pass, sev, preen, msg, fix) \
	EK_PROBLEM_ASK(name, pass, sev, preen, msg, fix, "Fix")
#include "problems.def"
#undef EK_PROBLEM
#undef EK_PROBLEM_ASK
};

const struct ek_problem *ek_problem_get(enum ek_problem_id id)
{
	return id < EK_PR_COUNT ? &problems[id] : NULL;
}
/* the site applied the pending fix (@err 0) or could not: the tool is told */
void fsck_fix_done(struct check *c, int err)
{
	struct ek_finding f = c->pending;

	if (!c->have_pending)
		return;
	c->have_pending = false;
	f.fixed = !err;
	if (!err) {
		c->sum->fixed[problems[f.id].severity]++;
		/* unsharing, as e2fsck: the copies are asked for, not fixes */
		c->sum->fixed_not_a_fix += problems[f.id].not_a_fix ||
			(c->o->unshare_blocks && f.id == EK_PR_BLOCK_CLAIMED_TWICE);
		c->sum->fixed_no_change += problems[f.id].no_change;
	}
	else if ((err == -ENOMEM || err == -EIO) && !c->err)
		c->err = err;	/* not the image's fault: the check stops */
	if (c->o->fixed)
		c->o->fixed(c->o->arg, &f);
}

bool fsck_shares_allowed(const struct check *c)
{
	return ek_has_ro_compat(c->fs, EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS) &&
	       !c->o->unshare_blocks;
}

/* the groups of c->distrusted read as if their UNINIT flags and
 * itable_unused were clear, as libext2fs reads a group whose checksum is
 * bad (pass 0 marks them; a commit's refresh reads the flags again) */
static void distrust_flags(struct check *c)
{
	for (uint32_t g = 0; c->distrusted && g < c->fs->group_count; g++)
		if (c->distrusted[g]) {
			c->fs->groups[g].flags &= ~(EXT4_BG_BLOCK_UNINIT | EXT4_BG_INODE_UNINIT);
			c->fs->groups[g].itable_unused = 0;
		}
}

static bool cancelled(struct check *c)
{
	if (c->o->cancel && *c->o->cancel)
		c->stop = true;
	return c->stop;
}

/*
 * Report finding @id at @where; true when the site is to apply its fix
 * (repairing, the finding has one, @can_fix, and the tool said
 * EK_FSCK_FIX), then followed by fsck_fix_done().
 */
static bool vreport(struct check *c, bool can_fix, enum ek_problem_id id,
		    const struct ek_finding *where, va_list ap)
{
	struct ek_finding f = *where;
	const struct ek_problem *p = &problems[id];
	int answer;

	fsck_fix_done(c, -EINVAL);	/* a site that did not say: not fixed */
	f.id = id;
	vsnprintf(f.message, sizeof(f.message), p->message, ap);
	c->sum->findings[p->severity]++;
	f.fixable = c->ws && p->fix && can_fix && !cancelled(c) && !c->err;
	f.preen = c->o->unshare_blocks && id == EK_PR_BLOCK_CLAIMED_TWICE ? EK_PREEN_FIX : p->preen;
	f.fixed = false;
	f.seq = c->nfindings++;
	if (c->o->path && fsck_path_note(c, &f) && !c->err)
		c->err = -ENOMEM;
	f.entry_name = NULL;	/* (not the tool's) */
	f.entry_len = 0;
	answer = c->o->report ? c->o->report(c->o->arg, &f) : 0;
	if (answer < 0)
		c->stop = c->halted = true;
	if (!f.fixable || answer != EK_FSCK_FIX) {
		if (id == EK_PR_INODE_DAMAGED || id == EK_PR_BLOCK_MAP_DAMAGED ||
		    id == EK_PR_XATTR_BLOCK_BAD || id == EK_PR_XATTR_DAMAGED ||
		    id == EK_PR_BLOCK_CLAIMED_TWICE || id == EK_PR_BITMAP_UNREADABLE ||
		    id == EK_PR_GROUP_DESC_DAMAGED || id == EK_PR_JOURNAL_INODE_BAD)
			c->claims_incomplete = true;
		/* entries left unread: passes 3 and 4 connect and clear nothing */
		if (id == EK_PR_DIR_DAMAGED)
			c->names_incomplete = true;
		return false;
	}
	c->pending = f;
	c->have_pending = true;
	return true;
}

bool fsck_report(struct check *c, enum ek_problem_id id, const struct ek_finding *where, ...)
{
	va_list ap;
	bool fix;

	va_start(ap, where);
	fix = vreport(c, true, id, where, ap);
	va_end(ap);
	return fix;
}

/* the same where this occurrence has no fix (@can_fix false) */
bool fsck_report_if(struct check *c, bool can_fix, enum ek_problem_id id,
		      const struct ek_finding *where, ...)
{
	va_list ap;
	bool fix;

	va_start(ap, where);
	fix = vreport(c, can_fix, id, where, ap);
	va_end(ap);
	return fix;
}

/* the tool told what became of the fixes since the last commit */
static void told_committed(struct check *c, int err)
{
	if (c->o->committed)
		c->o->committed(c->o->arg, err);
}

/* the end of a pass: its fixes committed (lib/repair.c), a new set begun */
static int commit(struct check *c)
{
	size_t n;
	unsigned ntx = 0;
	int err;

	fsck_fix_done(c, -EINVAL);
	if (c->err) {
		told_committed(c, c->err);
		return c->err;
	}
	n = c->ws ? ek_wset_count(c->ws) : 0;
	if (n) {
		if (!c->o->journal && !c->told_no_journal && c->o->no_journal) {
			c->o->no_journal(c->o->arg, "no journal: repairs are written in order, not atomically; "
					     "if interrupted, run extkit-fsck again");
			c->told_no_journal = true;
		}
		/* a journal the run cleared logs nothing */
		err = ek_repair_commit(&c->ws, c->in_place || c->jnl_cleared ? NULL : c->o->journal,
				       c->o->now, &ntx);
		c->in_place = false;
		told_committed(c, err);
		if (err)
			return err;
		c->sum->commits += ntx ? ntx : 1;
		c->sum->blocks_written += n;
		distrust_flags(c);	/* the refresh read them again */
	} else {
		told_committed(c, 0);
	}
	return cancelled(c) ? -ECANCELED : 0;
}

/* -E unshare_blocks, every shared block copied: the feature goes (as e2fsck,
 * without a finding) */
static int unshare_done(struct check *c)
{
	struct ext4_super_block *sb;

	if (!c->ws || !c->o->unshare_blocks || c->dups_left ||
	    !ek_has_ro_compat(c->fs, EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS))
		return 0;
	sb = ek_wset_super(c->ws);
	if (!sb)
		return -ENOMEM;
	sb->s_feature_ro_compat &= ~cpu_to_le32(EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS);
	return commit(c);
}

/* the end of a whole check that may write: the fixes left committed, then
 * the superblock stamped (fsck_stamp_checked) in a commit of its own that
 * is no fix: it leaves the verdict and "modified" alone */
static int stamp(struct check *c)
{
	bool left = c->sum->findings[EK_SEV_ERROR] > c->sum->fixed[EK_SEV_ERROR];
	unsigned ntx = 0;
	int err = commit(c);

	/* in place, as e2fsck: the journal is empty by now, and a superblock
	 * torn here is one the next check reads from its backup */
	if (!err)
		err = fsck_stamp_checked(c, left);
	if (!err)
		err = ek_repair_commit(&c->ws, NULL, c->o->now, &ntx);
	return err;
}

/* a check stopped with what it fixed committed: as e2fsck, the errors
 * flag after a preen halt, the valid flag cleared after a cancel, so the
 * next boot's fsck -p checks again (nothing when a set is left open) */
static void stamp_stopped(struct check *c)
{
	struct ext4_super_block *sb;
	uint16_t state;
	unsigned ntx = 0;

	fsck_fix_done(c, -EINVAL);
	if (!c->ws || ek_wset_count(c->ws) || !(sb = ek_wset_super(c->ws)))
		return;
	state = le16_to_cpu(sb->s_state);
	sb->s_state = cpu_to_le16(c->halted ? state | EXT4_ERROR_FS : state & ~EXT4_VALID_FS);
	if (c->o->now > 0)
		ek_time_set(&sb->s_wtime, &sb->s_wtime_hi, c->o->now);
	if (ek_repair_commit(&c->ws, NULL, c->o->now, &ntx))
		ek_fs_warn(c->fs, "the superblock's state could not be written");
}

/* a pass's fixes so far committed, so what follows reads them (a salvaged
 * block; pass 1D: each inode's copies in one transaction) */
int fsck_commit(struct check *c)
{
	return commit(c);
}

/*
 * FLUSH_BLOCKS blocks of a set: 256 KiB at 4 KiB, four flushes a commit.
 * (Test-only: EK_TEST_FLUSH_BLOCKS=N commits at N blocks, so that small
 * images commit in the middle of a pass.)
 */
#define FLUSH_BLOCKS 64

static long flush_blocks(void)
{
	static long at;

	if (!at) {
		const char *t = getenv("EK_TEST_FLUSH_BLOCKS");

		at = t && atol(t) > 0 ? atol(t) : FLUSH_BLOCKS;
	}
	return at;
}

/* would fsck_flush() commit now */
static bool flush_due(const struct check *c)
{
	return c->ws && !c->have_pending && ek_wset_count(c->ws) >= (size_t)flush_blocks();
}

int fsck_flush(struct check *c)
{
	return flush_due(c) ? commit(c) : 0;
}

/* between pass 1's inode table chunks */
static int pass1_between(void *arg, bool may_write)
{
	struct check *c = arg;
	unsigned commits = c->sum->commits;
	int err;

	if (!flush_due(c))
		return 0;
	if (!may_write)
		return EK_SCAN_WANT_WRITE;
	err = fsck_flush(c);
	return err ? err : c->sum->commits != commits ? EK_SCAN_WROTE : 0;
}

/* progress within a pass, when the tool asked for it */
void fsck_units(struct check *c, unsigned pass, uint64_t done, uint64_t total)
{
	if (c->o->progress_units)
		c->o->progress_units(c->o->arg, pass, done, total);
}


/* append @b to the growing array *v (*n used of *cap) */
int fsck_blk_push(ek_blk_t **v, size_t *n, size_t *cap, ek_blk_t b)
{
	if (ek_grow(v, cap, *n + 1, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = b;
	return 0;
}



/* ---- per-inode state ----------------------------------------------------------- */

#define DIR_REACHED 0x1		/* c->dflags: REACHED */
#define DIR_GONE 0x2		/* IS_DIR cleared by a repair (the entry stays: pass 3 walks by index) */

/* inode @ino's group state and its index there, or NULL when it has none */
static struct igrp *igrp_at(const struct check *c, ek_ino_t ino, uint32_t *i)
{
	uint32_t ipg = c->fs->sb.inodes_per_group;
	struct igrp *g;

	if (ino < 1 || ino > c->fs->sb.inodes_count)
		return NULL;
	g = &c->ig[(ino - 1) / ipg];
	*i = (ino - 1) % ipg;
	return *i < g->n ? g : NULL;
}

/* inode @ino's state byte, or NULL when its group holds none that far */
static uint8_t *ist(const struct check *c, ek_ino_t ino)
{
	uint32_t i;
	struct igrp *g = igrp_at(c, ino, &i);

	return g ? g->st + i : NULL;
}

/* the same, made when missing (zeros); NULL only when memory runs out */
static uint8_t *ist_make(struct check *c, ek_ino_t ino)
{
	uint32_t ipg = c->fs->sb.inodes_per_group;
	struct igrp *g = &c->ig[(ino - 1) / ipg];
	uint32_t i = (ino - 1) % ipg;

	if (i >= g->cap) {
		/* grows as pass 1 walks the group in order: doubling, up to the group */
		uint32_t cap = g->cap ? g->cap : 64;
		uint8_t *v;

		while (cap <= i)
			cap = cap > ipg / 2 ? ipg : cap * 2;
		v = realloc(g->st, cap);
		if (!v)
			return NULL;
		g->st = v;
		if (g->wide) {
			v = realloc(g->wide, cap);
			if (!v)
				return NULL;
			g->wide = v;
		}
		g->cap = cap;
	}
	if (i >= g->n) {
		memset(g->st + g->n, 0, i + 1 - g->n);
		if (g->wide)
			memset(g->wide + g->n, 0, i + 1 - g->n);
		g->n = i + 1;
	}
	return g->st + i;
}

static size_t inoset_find(const struct inoset *s, ek_ino_t ino)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool inoset_has(const struct inoset *s, ek_ino_t ino)
{
	size_t at;

	if (!s->n)
		return false;
	at = inoset_find(s, ino);
	return at < s->n && s->v[at] == ino;
}

static int inoset_add(struct inoset *s, ek_ino_t ino)
{
	size_t at = s->n && s->v[s->n - 1] < ino ? s->n : inoset_find(s, ino);

	if (at < s->n && s->v[at] == ino)
		return 0;
	if (ek_grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
		return -ENOMEM;
	memmove(&s->v[at + 1], &s->v[at], (s->n - at) * sizeof(*s->v));
	s->v[at] = ino;
	s->n++;
	return 0;
}

static void inoset_del(struct inoset *s, ek_ino_t ino)
{
	size_t at;

	if (!s->n)
		return;
	at = inoset_find(s, ino);
	if (at < s->n && s->v[at] == ino) {
		memmove(&s->v[at], &s->v[at + 1], (s->n - at - 1) * sizeof(*s->v));
		s->n--;
	}
}

/* the directory entry of @ino's flags, or NULL when it has none */
static uint8_t *dflags_of(const struct check *c, ek_ino_t ino)
{
	const struct dinfo *d = fsck_dinfo_of(c, ino);

	return d ? &c->dflags[d - c->dirs] : NULL;
}

uint8_t fsck_iflags(const struct check *c, ek_ino_t ino)
{
	const uint8_t *p = ist(c, ino);
	uint8_t f;

	if (!p)
		return 0;
	f = *p & (IN_USE | 7u << FT_SHIFT);
	/* (a directory is one with an entry in c->dirs, and its type so) */
	if (*p >> FT_SHIFT == EXT4_FT_DIR) {
		const uint8_t *d = dflags_of(c, ino);

		if (d && !(*d & DIR_GONE))
			f |= IS_DIR | (*d & DIR_REACHED ? REACHED : 0);
	}
	if (inoset_has(&c->ea_inodes, ino))
		f |= IS_EA;
	if (inoset_has(&c->bad_block_inodes, ino))
		f |= IN_BAD_BLOCK;
	return f;
}

int fsck_iflags_or(struct check *c, ek_ino_t ino, uint8_t bits)
{
	uint8_t *p = ist_make(c, ino), *d;
	int err = 0;

	if (!p)
		return -ENOMEM;
	*p |= bits & IN_USE;
	/* IS_DIR: a directory's entry, which fsck_dir_add() makes (one a
	 * repair cleared is one again); REACHED: directories only */
	d = bits & (IS_DIR | REACHED) ? dflags_of(c, ino) : NULL;
	if (d && (bits & IS_DIR))
		*d &= (uint8_t)~DIR_GONE;
	if (d && (bits & REACHED))
		*d |= DIR_REACHED;
	if (bits & IS_EA)
		err = inoset_add(&c->ea_inodes, ino);
	if (!err && (bits & IN_BAD_BLOCK))
		err = inoset_add(&c->bad_block_inodes, ino);
	return err;
}

/* a repair cleared inode @ino's @bits (IN_USE, IS_DIR: pass 5 counts it free) */
void fsck_iflags_clear(struct check *c, ek_ino_t ino, uint8_t bits)
{
	uint8_t *p = ist(c, ino), *d = dflags_of(c, ino);

	if (p)
		*p &= (uint8_t)~(bits & IN_USE);
	if (d && (bits & IS_DIR))
		*d |= DIR_GONE;
	if (d && (bits & REACHED))
		*d &= (uint8_t)~DIR_REACHED;
	if (bits & IS_EA)
		inoset_del(&c->ea_inodes, ino);
	if (bits & IN_BAD_BLOCK)
		inoset_del(&c->bad_block_inodes, ino);
}

/* the type bits of i_mode, from the file type pass 1 kept */
uint16_t fsck_imode(const struct check *c, ek_ino_t ino)
{
	static const uint16_t mode[8] = {
		[EXT4_FT_REG_FILE] = 0100000, [EXT4_FT_DIR] = 0040000,
		[EXT4_FT_CHRDEV] = 0020000, [EXT4_FT_BLKDEV] = 0060000,
		[EXT4_FT_FIFO] = 0010000, [EXT4_FT_SOCK] = 0140000,
		[EXT4_FT_SYMLINK] = 0120000,
	};
	const uint8_t *p = ist(c, ino);

	return p ? mode[*p >> FT_SHIFT] : 0;
}

/* @ino's first slot in an overflow table of @cap (a power of 2) slots:
 * the product's high bits (its low ones follow ino mod cap, which the
 * inodes at one place in every group share) */
static size_t ovf_slot(ek_ino_t ino, size_t cap)
{
	return cap < 2 ? 0 : (size_t)(((uint64_t)ino * 0x9E3779B97F4A7C15ull) >> (64 - __builtin_ctzll(cap)));
}

/* the overflow entry of @ino, made when @make (NULL: none, or no memory) */
static struct ovf *ovf_get(struct check *c, ek_ino_t ino, bool make)
{
	size_t i;

	if ((c->novf + 1) * 2 > c->ovf_cap && make) {
		size_t n = c->ovf_cap ? c->ovf_cap * 2 : 64;
		struct ovf *v = ek_calloc(n, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t k = 0; k < c->ovf_cap; k++) {
			if (!c->ovf[k].ino)
				continue;
			for (i = ovf_slot(c->ovf[k].ino, n); v[i].ino; i = (i + 1) & (n - 1))
				;
			v[i] = c->ovf[k];
		}
		free(c->ovf);
		c->ovf = v;
		c->ovf_cap = n;
	}
	if (!c->ovf_cap)
		return NULL;
	for (i = ovf_slot(ino, c->ovf_cap); c->ovf[i].ino; i = (i + 1) & (c->ovf_cap - 1))
		if (c->ovf[i].ino == ino)
			return &c->ovf[i];
	if (!make)
		return NULL;
	c->novf++;
	c->ovf[i] = (struct ovf){ .ino = ino };
	return &c->ovf[i];
}

/* the stored count that means "the overflow entry's" in @g */
static unsigned count_ovf(const struct igrp *g)
{
	return g->wide ? WIDE_OVF : COUNT_OVF;
}

/* the count @which (ST_LINKS, ST_REFS) of inode @i of @g, as stored */
static unsigned count_raw(const struct igrp *g, uint32_t i, int which)
{
	if (g->wide)
		return (g->wide[i] >> (which == ST_LINKS ? 0 : 4)) & 0xF;
	return (g->st[i] >> which) & COUNT_OVF;
}

static void count_raw_set(struct igrp *g, uint32_t i, int which, unsigned v)
{
	if (g->wide) {
		int sh = which == ST_LINKS ? 0 : 4;

		g->wide[i] = (uint8_t)((g->wide[i] & ~(0xF << sh)) | v << sh);
	} else {
		g->st[i] = (uint8_t)((g->st[i] & ~(COUNT_OVF << which)) | v << which);
	}
}

/*
 * The group's counts moved into a byte of their own per inode (two
 * nibbles), when one of them reaches COUNT_OVF: a group of directories
 * with subdirectories or of hard links costs two bytes an inode, not an
 * overflow entry each.  -ENOMEM.
 */
static int widen(struct igrp *g)
{
	uint8_t *w = malloc(g->cap ? g->cap : 1);

	if (!w)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n; i++)
		w[i] = (uint8_t)(((g->st[i] >> ST_LINKS) & COUNT_OVF) |
				 ((g->st[i] >> ST_REFS) & COUNT_OVF) << 4);
	for (uint32_t i = 0; i < g->n; i++)
		g->st[i] &= (uint8_t)~(COUNT_OVF << ST_LINKS | COUNT_OVF << ST_REFS);
	g->wide = w;
	return 0;
}

/* count @which of @ino set to @v: in its group, or its overflow entry */
static int count_set(struct check *c, ek_ino_t ino, int which, uint32_t v)
{
	uint32_t i;
	struct igrp *g = igrp_at(c, ino, &i);
	struct ovf *o;

	if (!g)
		return -ENOMEM;	/* (ist_make made it) */
	if (!g->wide && v >= COUNT_OVF && widen(g))
		return -ENOMEM;
	if (v < count_ovf(g)) {
		/* (an overflow entry's other count stays: count_raw says which holds) */
		count_raw_set(g, i, which, v);
		return 0;
	}
	o = ovf_get(c, ino, true);
	if (!o)
		return -ENOMEM;
	if (which == ST_LINKS)
		o->links = (uint16_t)v;
	else
		o->refs = v;
	count_raw_set(g, i, which, count_ovf(g));
	return 0;
}

static uint32_t count_get(const struct check *c, ek_ino_t ino, int which)
{
	uint32_t i;
	const struct igrp *g = igrp_at(c, ino, &i);
	const struct ovf *o;
	unsigned v;

	if (!g)
		return 0;
	v = count_raw(g, i, which);
	if (v != count_ovf(g))
		return v;
	o = ovf_get((struct check *)c, ino, false);
	return !o ? 0 : which == ST_LINKS ? o->links : o->refs;
}

uint32_t fsck_links_of(const struct check *c, ek_ino_t ino)
{
	return count_get(c, ino, ST_LINKS);
}

uint32_t fsck_refs_of(const struct check *c, ek_ino_t ino)
{
	return count_get(c, ino, ST_REFS);
}

/* pass 1: the inode is in use with this mode and link count */
int fsck_inode_in_use(struct check *c, ek_ino_t ino, uint16_t mode, uint16_t links)
{
	uint8_t *p = ist_make(c, ino);

	if (!p)
		return -ENOMEM;
	*p = (uint8_t)((*p & ~(7u << FT_SHIFT)) | IN_USE | fsck_mode_ftype(mode) << FT_SHIFT);
	return count_set(c, ino, ST_LINKS, links);
}

/* a repair cleared @ino in pass 1: not in use, not a directory */
void fsck_inode_forget(struct check *c, ek_ino_t ino)
{
	uint32_t i;
	struct igrp *g = igrp_at(c, ino, &i);
	struct dinfo *d = fsck_dinfo_of(c, ino);

	if (g) {
		g->st[i] = 0;
		if (g->wide)
			g->wide[i] = 0;
	}
	inoset_del(&c->ea_inodes, ino);
	inoset_del(&c->bad_block_inodes, ino);
	if (d) {
		size_t at = (size_t)(d - c->dirs);

		memmove(d, d + 1, (c->ndirs - at - 1) * sizeof(*d));
		memmove(&c->dflags[at], &c->dflags[at + 1], c->ndirs - at - 1);
		c->ndirs--;
	}
	if (c->crypt)
		c->crypt[ino] = 0;
}

/* pass 2: one more entry names @ino (in use) */
int fsck_ref_add(struct check *c, ek_ino_t ino)
{
	if (!ist_make(c, ino))
		return -ENOMEM;
	return count_set(c, ino, ST_REFS, count_get(c, ino, ST_REFS) + 1);
}

/* a repair took away an entry that named @ino (counted by fsck_ref_add) */
void fsck_ref_drop(struct check *c, ek_ino_t ino)
{
	uint32_t n = count_get(c, ino, ST_REFS);

	/* (a smaller count needs no memory: the overflow entry keeps it) */
	if (n)
		count_set(c, ino, ST_REFS, n - 1);
}

static int dinfo_cmp(const void *key, const void *elt)
{
	ek_ino_t k = *(const ek_ino_t *)key, e = ((const struct dinfo *)elt)->ino;

	return k < e ? -1 : k > e;
}

/* the directory @ino's entry, or NULL when it is not a directory in use */
struct dinfo *fsck_dinfo_of(const struct check *c, ek_ino_t ino)
{
	return c->ndirs ? bsearch(&ino, c->dirs, c->ndirs, sizeof(*c->dirs), dinfo_cmp) : NULL;
}

ek_ino_t fsck_named_in_of(const struct check *c, ek_ino_t ino)
{
	const struct dinfo *d = fsck_dinfo_of(c, ino);

	return d ? d->named_in : 0;
}

/* pass 1 meets directories in inode order: the table stays sorted */
int fsck_dir_add(struct check *c, ek_ino_t ino)
{
	size_t at = c->ndirs;

	/* pass 1 adds them in order; a repair's new directory goes in its place */
	while (at && c->dirs[at - 1].ino >= ino) {
		if (c->dirs[at - 1].ino == ino) {
			c->dflags[at - 1] &= (uint8_t)~DIR_GONE;
			return 0;
		}
		at--;
	}
	if (ek_grow(&c->dirs, &c->dirs_cap, c->ndirs + 1, sizeof(*c->dirs)) ||
	    ek_grow(&c->dflags, &c->dflags_cap, c->ndirs + 1, 1))
		return -ENOMEM;
	memmove(&c->dirs[at + 1], &c->dirs[at], (c->ndirs - at) * sizeof(*c->dirs));
	memmove(&c->dflags[at + 1], &c->dflags[at], c->ndirs - at);
	c->dirs[at] = (struct dinfo){ .ino = ino };
	c->dflags[at] = 0;
	c->ndirs++;
	return 0;
}

/* ---- the computed block map -------------------------------------------------- */

/* set bits [@from, @to] of @map */
static void set_bits(uint8_t *map, uint64_t from, uint64_t to)
{
	while (from <= to && (from & 7))
		map[from >> 3] |= 1u << (from & 7), from++;
	if (from + 8 <= to + 1) {
		memset(map + (from >> 3), 0xFF, (to + 1 - from) >> 3);
		from += (to + 1 - from) & ~(uint64_t)7;
	}
	while (from <= to)
		map[from >> 3] |= 1u << (from & 7), from++;
}

/* is @blk in the filesystem's critical metadata (mark_metadata's ranges)? */
bool fsck_in_meta(const struct check *c, ek_blk_t blk)
{
	size_t lo = 0, hi = c->nmeta;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->meta[mid].blk + c->meta[mid].len <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nmeta && c->meta[lo].blk <= blk;
}

/* paint the metadata that lies in group @g into its cluster bitmap @map */
void fsck_paint_meta(const struct check *c, uint32_t g, uint8_t *map)
{
	const struct ek_fs *fs = c->fs;
	ek_blk_t first = ek_group_first_block(fs, g), last = ek_group_last_block(fs, g);
	size_t lo = 0, hi = c->nmeta;

	/* the first range ending after @first */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->meta[mid].blk + c->meta[mid].len <= first)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->nmeta && c->meta[lo].blk <= last; lo++) {
		ek_blk_t s = c->meta[lo].blk > first ? c->meta[lo].blk : first;
		ek_blk_t e = c->meta[lo].blk + c->meta[lo].len - 1;

		if (e > last)
			e = last;
		set_bits(map, (s - first) >> fs->cluster_bits, (e - first) >> fs->cluster_bits);
	}
}

/* the computed bitmap of group @g, made (with its metadata) on first use */
static uint8_t *group_map(struct check *c, uint32_t g)
{
	if (!c->bmap[g] && (c->bmap[g] = ek_calloc(1, c->fs->blksz)))
		fsck_paint_meta(c, g, c->bmap[g]);
	return c->bmap[g];
}

/* fsck_mark @blk in use; true when it was already */
int fsck_mark(struct check *c, ek_blk_t blk, bool *was)
{
	struct ek_fs *fs = c->fs;
	uint32_t g = ek_group_of_block(fs, blk);
	uint64_t bit = (blk - ek_group_first_block(fs, g)) >> fs->cluster_bits;
	uint8_t *map = group_map(c, g);

	*was = false;
	if (!map)
		return -ENOMEM;
	if (ek_bit_test(map, bit)) {
		*was = true;
		return 0;
	}
	map[bit >> 3] |= 1u << (bit & 7);
	return 0;
}

/* a repair released @blk (a cleared inode's, a rebuilt tree's): no longer
 * claimed, so pass 5 frees it */
void fsck_unmark(struct check *c, ek_blk_t blk)
{
	struct ek_fs *fs = c->fs;
	uint32_t g;
	uint64_t bit;

	if (blk < fs->sb.first_data_block || blk >= fs->sb.blocks_count)
		return;
	g = ek_group_of_block(fs, blk);
	bit = (blk - ek_group_first_block(fs, g)) >> fs->cluster_bits;
	if (c->bmap[g])
		c->bmap[g][bit >> 3] &= ~(1u << (bit & 7));
	c->map_clears++;
}

/* metadata, kept as a range: marked in a group's bitmap when it is made */
static int mark_meta(struct check *c, ek_blk_t blk, uint64_t n)
{
	ek_blk_t lo = c->fs->sb.first_data_block, hi = c->fs->sb.blocks_count;
	ek_blk_t end = blk + n < blk ? hi : blk + n;

	/* block 0 holds the superblock when first_data_block is 0; outside
	 * the filesystem: the descriptor checks name it */
	if (blk < lo)
		blk = lo;
	if (end > hi)
		end = hi;
	if (blk >= end)
		return 0;
	if (ek_grow(&c->meta, &c->meta_cap, c->nmeta + 1, sizeof(*c->meta)))
		return -ENOMEM;
	c->meta[c->nmeta++] = (struct range){ blk, end - blk };
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* superblock copies, descriptors, reserved GDT, bitmaps, inode tables, MMP */
static int mark_metadata(struct check *c)
{
	struct ek_fs *fs = c->fs;
	size_t n = 0;
	int err = 0;

	/* 1 KiB blocks with first_data_block 0 (bigalloc): block 0 is the boot block */
	if (fs->sb.first_data_block == 0 && fs->blksz == 1024)
		err = mark_meta(c, 0, 1);
	for (uint32_t g = 0; g < fs->group_count && !err; g++) {
		const struct ek_group *grp = &fs->groups[g];
		ek_blk_t first = ek_group_first_block(fs, g);

		if (first == 0 && fs->blksz == 1024)
			first = 1;
		uint8_t moved = c->reloc ? c->reloc[g] : 0;	/* 1 block, 2 inode bitmap */

		err = mark_meta(c, first, ek_group_sb_gdt_blocks(fs, g));
		if (!err && !(moved & 1))
			err = mark_meta(c, grp->block_bitmap, 1);
		if (!err && !(moved & 2))
			err = mark_meta(c, grp->inode_bitmap, 1);
		if (!err)
			err = mark_meta(c, grp->inode_table, fs->itable_blocks);
	}
	if (!err && ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP))
		err = mark_meta(c, le64_to_cpu(fs->raw_sb->s_mmp_block), 1);
	if (err || !c->nmeta)
		return err;
	/* sorted and merged: overlapping copies (a hostile layout) fsck_mark once */
	qsort(c->meta, c->nmeta, sizeof(*c->meta), range_cmp);
	for (size_t i = 1; i < c->nmeta; i++) {
		struct range *last = &c->meta[n];

		if (c->meta[i].blk <= last->blk + last->len) {
			ek_blk_t e = c->meta[i].blk + c->meta[i].len;

			if (e > last->blk + last->len)
				last->len = e - last->blk;
		} else {
			c->meta[++n] = c->meta[i];
		}
	}
	c->nmeta = n + 1;
	return 0;
}

/* ---- allocation by repairs ----------------------------------------------------- */

/* group @g's bitmap as this pass's set will leave it (NULL: unreadable) */
static const uint8_t *disk_bitmap(struct check *c, uint32_t g, bool inode)
{
	struct ek_fs *fs = c->fs;
	const uint8_t *map = ek_wset_find(c->ws, inode ? fs->groups[g].inode_bitmap
							 : fs->groups[g].block_bitmap);
	int err;

	if (map)
		return map;
	err = inode ? ek_inode_bitmap_get(fs, g, &map) : ek_block_bitmap_get(fs, g, &map);
	return err ? NULL : map;
}

/*
 * A block (bigalloc: the first of a cluster) for a repair, at or after
 * @goal, wrapping: free both in the computed map (nothing claims it) and
 * in the on-disk bitmap (a block claimed by a map the check could not
 * read, or by an inode pass 1 has not reached, is not handed out); once
 * every claim is known (c->claims_done, nothing left unread), free in
 * the computed map is enough, as for e2fsck: a block only the bitmap
 * marks is leaked.  Marked in both, the bitmap and the counts
 * through c->ws, so pass 5 finds them equal.
 */
/* what fsck_alloc_block's scan knows of the group it is in */
struct take_state {
	uint8_t *map;		/* its computed bitmap */
	const uint8_t *disk;	/* its on-disk bitmap (NULL: unreadable), once tried */
	bool disk_tried;
	bool skipped;		/* a group was left out, its bitmap unreadable */
};

/* can a repair have cluster s->bit of group s->g?  The on-disk bitmap is
 * read at the group's first candidate: unreadable, the group is left out
 * (the set could not mark the block there) */
static int repair_may_take(struct check *c, struct ek_cluster_scan *s, ek_blk_t blk,
			   struct take_state *t)
{
	if (s->new_group) {
		t->map = group_map(c, s->g);
		t->disk = NULL;
		t->disk_tried = false;
		if (!t->map)
			return -ENOMEM;
	}
	if (ek_bit_test(t->map, s->bit) || !ek_fs_block_valid(c->fs, blk))
		return 0;
	if (!t->disk_tried) {
		t->disk = disk_bitmap(c, s->g, false);
		t->disk_tried = true;
	}
	if (!t->disk) {
		t->skipped = true;
		ek_cluster_scan_skip_group(s);
		return 0;
	}
	/* the bitmap's bit matters only while some claims are unknown */
	return !((!c->claims_done || c->claims_incomplete) && ek_bit_test(t->disk, s->bit));
}

/* the scan moved past the clusters from s->next on that @map holds in use,
 * a word then a byte at a time (a repair's goal is often in full space) */
static void skip_full(struct ek_cluster_scan *s, const uint8_t *map)
{
	static const uint8_t full[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	while (!(s->next & 63) && s->next + 64 <= s->end && !memcmp(map + (s->next >> 3), full, 8))
		s->next += 64;
	while (!(s->next & 7) && s->next + 8 <= s->end && map[s->next >> 3] == 0xff)
		s->next += 8;
}

int fsck_alloc_block(struct check *c, ek_blk_t goal, ek_blk_t *out)
{
	struct ek_fs *fs = c->fs;
	struct ek_cluster_scan s;
	struct take_state t = { 0 };
	ek_blk_t blk, start, from;
	/* the memo holds while only the computed map decides (see struct check) */
	bool memo = c->claims_done && !c->claims_incomplete;
	bool memo_ok = memo && c->full_clears == c->map_clears && c->full_to > c->full_from;
	bool jumped = false;	/* past the memo's range already */

	if (!c->ws)
		return -EINVAL;
	if (goal < fs->sb.first_data_block || goal >= fs->sb.blocks_count)
		goal = fs->sb.first_data_block;
	/* from: where the taken stretch that ends at the block found begins */
	start = from = goal;
	if (memo_ok && goal >= c->full_from && goal <= c->full_to) {	/* (at full_to: carried on) */
		start = c->full_to;
		from = c->full_from;
		jumped = true;
	}
	ek_cluster_scan_start(fs, start, &s);
	while (ek_cluster_scan_next(c->fs, &s, &blk)) {
		int ok;
		int err;

		if (memo_ok && !jumped && blk >= goal && blk >= c->full_from && blk < c->full_to) {
			/* reached the memo's range from below, not wrapped: on past it */
			jumped = true;
			start = c->full_to;
			ek_cluster_scan_start(fs, start, &s);
			continue;
		}
		ok = repair_may_take(c, &s, blk, &t);
		if (ok < 0)
			return ok;
		if (!ok) {
			skip_full(&s, t.map);
			continue;
		}
		err = ek_wset_mark_block(c->ws, blk, true);
		if (err)
			return err;
		t.map[s.bit >> 3] |= 1u << (s.bit & 7);
		*out = blk;
		/* not wrapped, no group left out: from up to blk all taken */
		if (memo && blk >= start && !t.skipped) {
			c->full_from = from;
			c->full_to = blk + 1;
			c->full_clears = c->map_clears;
		}
		return 0;
	}
	return ek_err(-ENOSPC, "no free block left for the repair");
}

/* are there @want blocks fsck_alloc_block would hand out?  Nothing marked */
bool fsck_room_for(struct check *c, uint64_t want)
{
	struct ek_cluster_scan s;
	struct take_state t = { 0 };
	uint64_t n = 0;
	ek_blk_t blk;

	if (!c->ws)
		return want == 0;
	ek_cluster_scan_start(c->fs, 0, &s);
	while (n < want && ek_cluster_scan_next(c->fs, &s, &blk)) {
		int ok = repair_may_take(c, &s, blk, &t);

		if (ok < 0)
			return false;
		n += ok;
	}
	return n >= want;
}

/* a block a repair took back (fsck_alloc_block's, or a tree block a map no
 * longer uses): free in the computed map and, through c->ws, on disk */
int fsck_free_block(struct check *c, ek_blk_t blk)
{
	struct ek_fs *fs = c->fs;
	uint32_t g;
	uint64_t bit;
	uint8_t *map;

	if (!c->ws || !ek_fs_block_valid(fs, blk))
		return -EINVAL;
	g = ek_group_of_block(fs, blk);
	bit = (blk - ek_group_first_block(fs, g)) >> fs->cluster_bits;
	map = group_map(c, g);
	if (!map)
		return -ENOMEM;
	map[bit >> 3] &= ~(1u << (bit & 7));
	c->map_clears++;
	return ek_wset_mark_block(c->ws, blk, false);
}

/*
 * An inode for a repair, in group @goal_group or the next with one free
 * (past the reserved inodes): free in the computed state and, until every
 * inode has been read (as fsck_alloc_block's claims), in the on-disk
 * bitmap too; once all are read the computed state is enough, as for
 * e2fsck, so a run cut after an allocation's bitmap write and run again
 * takes the same inode.  Marked in use with @mode and @links in both (a
 * directory also counted in its group and known to pass 3); the caller
 * writes it whole.
 */
int fsck_alloc_inode(struct check *c, uint32_t goal_group, uint16_t mode, uint16_t links,
		     ek_ino_t *out)
{
	struct ek_fs *fs = c->fs;
	uint32_t ipg = fs->sb.inodes_per_group;
	bool dir = (mode & 0170000) == 0040000;
	bool every_inode_read = c->claims_done && !c->claims_incomplete;

	if (!c->ws)
		return -EINVAL;
	for (uint32_t k = 0; k < fs->group_count; k++) {
		uint32_t g = (goal_group + k) % fs->group_count;
		const uint8_t *disk = disk_bitmap(c, g, true);

		if (!disk)
			continue;
		for (uint32_t bit = 0; bit < ipg; bit++) {
			ek_ino_t ino = (ek_ino_t)g * ipg + bit + 1;
			int err;

			if (ino < fs->sb.first_ino || ino > fs->sb.inodes_count)
				continue;
			if ((ek_bit_test(disk, bit) && !every_inode_read) ||
			    (fsck_iflags(c, ino) & (IN_USE | IN_BAD_BLOCK)))
				continue;
			err = ek_wset_mark_inode(c->ws, ino, true, dir);
			if (!err)
				err = fsck_inode_in_use(c, ino, mode, links);
			if (!err && dir)
				err = fsck_iflags_or(c, ino, IS_DIR);
			if (!err && dir)
				err = fsck_dir_add(c, ino);
			if (err)
				return err;
			*out = ino;
			return 0;
		}
	}
	return ek_err(-ENOSPC, "no free inode left for the repair");
}

/*
 * Blocks a repair may have freed (a directory cut shorter): each one the
 * set's bitmap now has free is freed in the computed map too, so pass 5
 * does not mark it in use again.
 */
void fsck_forget_freed(struct check *c, const ek_blk_t *blks, size_t n)
{
	struct ek_fs *fs = c->fs;

	for (size_t i = 0; i < n; i++) {
		uint32_t g;
		uint64_t bit;
		const uint8_t *disk;

		if (!ek_fs_block_valid(fs, blks[i]))
			continue;
		g = ek_group_of_block(fs, blks[i]);
		bit = (blks[i] - ek_group_first_block(fs, g)) >> fs->cluster_bits;
		disk = disk_bitmap(c, g, false);
		if (disk && (!ek_bit_test(disk, bit) || ek_wset_is_held(c->ws, blks[i], false)) &&
		    c->bmap[g]) {
			c->bmap[g][bit >> 3] &= ~(1u << (bit & 7));
			c->map_clears++;
		}
	}
}

/* ---- the whole check ----------------------------------------------------------- */

/*
 * As e2fsck, the bitmaps and free counts change in pass 5: the frees the
 * fixes of passes 0-4 made (an inode cleared, a tree or directory rebuilt
 * smaller) were held back in the write sets (ek_wset_hold_frees), so a
 * check stopped before pass 5 (a preen halt, a cancel, a kill) leaves
 * every bitmap and count as it found it, but for what the fixes
 * allocated.  Pass 5 begins by writing them, in a commit of its own,
 * each one only where the finished passes' map agrees: a block no claim
 * holds, an inode not in use; none when some claims are unknown (pass 5
 * frees nothing then).  What pass 5 then finds is what was wrong before.
 */
static int release_held(struct check *c)
{
	struct ek_fs *fs = c->fs;
	const struct ek_held_free *h;
	size_t n;
	int err = 0;

	if (!c->ws)
		return 0;
	ek_wset_hold_frees(c->ws, false);
	h = ek_wset_held(c->ws, &n);
	for (size_t i = 0; i < n && !err && !c->claims_incomplete; i++) {
		if (h[i].inode) {
			if (h[i].num >= fs->sb.first_ino && !(fsck_iflags(c, h[i].num) & IN_USE))
				err = ek_wset_mark_inode(c->ws, h[i].num, false, h[i].dir);
		} else if (ek_fs_block_valid(fs, h[i].num)) {
			uint32_t g = ek_group_of_block(fs, h[i].num);
			uint64_t bit = (h[i].num - ek_group_first_block(fs, g)) >> fs->cluster_bits;
			bool used = c->bmap[g] ? ek_bit_test(c->bmap[g], bit) : fsck_in_meta(c, h[i].num);

			if (!used)
				err = ek_wset_mark_block(c->ws, h[i].num, false);
		}
	}
	ek_wset_held_clear(c->ws);
	return err ? err : commit(c);
}


/* groups [@g, @end): the first whose tables lie outside the filesystem */
static int desc_check(const struct ek_fs *fs, uint32_t g, uint32_t end)
{
	for (; g < end; g++) {
		const struct ek_group *grp = &fs->groups[g];

		if (!ek_fs_block_valid(fs, grp->block_bitmap))
			return ek_corrupt_grp(g, "block bitmap at block %llu is outside the filesystem",
					      (unsigned long long)grp->block_bitmap);
		if (!ek_fs_block_valid(fs, grp->inode_bitmap))
			return ek_corrupt_grp(g, "inode bitmap at block %llu is outside the filesystem",
					      (unsigned long long)grp->inode_bitmap);
		if (!ek_fs_range_valid(fs, grp->inode_table, fs->itable_blocks))
			return ek_corrupt_grp(g, "inode table at block %llu is outside the filesystem",
					      (unsigned long long)grp->inode_table);
	}
	return 0;
}

int ek_fsck_desc_check(const struct ek_fs *fs)
{
	return desc_check(fs, 0, fs->group_count);
}

/*
 * Passes 1 to 5 (and the metadata map and quota set-up they need), each
 * committing its fixes.  A fix that changes what pass 1 reads (an inode
 * table's unused area) sets c->restart: the passes run again from the
 * start on the repaired image, as e2fsck restarts.
 */
static int run_passes(struct check *c)
{
	struct ek_fs *fs = c->fs;
	const struct ek_fsck_opts *o = c->o;
	int err = 0;

	fsck_quota_setup(c);
	if (!err)
		err = mark_metadata(c);
	if (!err && o->progress)
		o->progress(o->arg, 1);
	if (!err)
		fsck_units(c, 1, 0, fs->group_count);
	if (!err)
		err = ek_inode_scan_between(fs, fsck_pass1_inode, pass1_between, c);
	if (!err && !c->root_scanned)
		err = fsck_pass1_root(c);
	/* an inode table to be made anew (fsck_relocate_tables) is not read:
	 * the scan's complaint about it is that finding's */
	if (err == -EK_CORRUPT && !c->restarts && fsck_itables_pending(c))
		err = 0;
	if (!err)
		err = fsck_mark_bad_itable(c);
	if (!err)
		err = fsck_bad_blocks_tables(c);
	c->sum->stats.bad_blocks = c->nbad;
	if (!err)
		err = fsck_mark_xattr(c);
	/* (an inode in a bad block of an inode table was not read) */
	c->claims_done = !c->nbad;
	if (!err)
		err = fsck_pass1b(c);
	if (!err)
		err = fsck_check_xattr_refs(c);
	if (!err)
		fsck_check_features(c);
	/* (tables are moved once: a restart finds them moved) */
	if (!err && !c->restarts)
		err = fsck_relocate_tables(c);
	if (!err)
		fsck_units(c, 1, fs->group_count, fs->group_count);
	if (!err)
		err = commit(c);
	if (!err && o->progress)
		o->progress(o->arg, 2);
	if (!err)
		err = fsck_pass2(c);
	if (!err)
		err = commit(c);
	if (!err && c->restart)
		return 0;	/* as e2fsck, straight after pass 2 */
	if (!err && o->progress)
		o->progress(o->arg, 3);
	if (!err)
		fsck_pass3(c);
	if (!err)
		err = commit(c);
	/* as e2fsck, after pass 3: a preen halt before it leaves nothing written */
	if (!err && !c->stop)
		err = fsck_pass3a(c);
	if (!err)
		err = commit(c);
	if (!err && o->progress)
		o->progress(o->arg, 4);
	if (!err)
		err = fsck_pass4(c);
	if (!err)
		err = commit(c);
	if (!err)
		err = release_held(c);
	if (!err && o->progress)
		o->progress(o->arg, 5);
	if (!err)
		err = fsck_pass5(c);
	if (!err)
		err = fsck_check_quota(c);
	if (!err)
		err = commit(c);
	return err;
}

/* free what a run of the passes computed; the struct keeps only what lasts */
static void state_release(struct check *c)
{
	struct ek_fs *fs = c->fs;

	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++)
		ek_quota_tally_release(&c->quota[t]);
	for (uint32_t g = 0; c->bmap && g < fs->group_count; g++)
		free(c->bmap[g]);
	for (uint32_t g = 0; c->ig && g < fs->group_count; g++) {
		free(c->ig[g].st);
		free(c->ig[g].wide);
	}
	free(c->ovf);
	free(c->dirs);
	free(c->dflags);
	free(c->ea_inodes.v);
	free(c->bad_block_inodes.v);
	free(c->meta);
	free(c->dups);
	free(c->misaligned);
	free(c->bad);
	free(c->xblk);
	free(c->name_slots);
	free(c->names);
	free(c->crypt);
	free(c->pol);
	free(c->pol_slots);
	free(c->dxl);
	free(c->dxbuf);
	free(c->pass3a);
	free(c->xv);
	free(c->xtree);
	fsck_xattr_release(c);
	*c = (struct check){ .fs = c->fs, .o = c->o, .sum = c->sum, .bmap = c->bmap, .ig = c->ig,
			     .ws = c->ws, .err = c->err, .stop = c->stop,
			     .told_no_journal = c->told_no_journal, .restarts = c->restarts,
			     .reloc = c->reloc, .distrusted = c->distrusted,
			     .in_place = c->in_place,
			     .nfindings = c->nfindings, .paths = c->paths,
			     .jnl_cleared = c->jnl_cleared };
	if (c->bmap)
		memset(c->bmap, 0, fs->group_count * sizeof(*c->bmap));
	if (c->ig)
		memset(c->ig, 0, fs->group_count * sizeof(*c->ig));
}

/*
 * What the kernel's recovery refuses (o->journal_refused), cleared as e2fsck
 * clears it: a log (e2fsck's "Journal checksum error found", then the
 * journal reset) dropped through o->journal, its superblock written at
 * once, then needs_recovery cleared in the pass-0 commit (killed between
 * the two, the next run finds a clean journal with needs_recovery and
 * clears it); an orphan list or orphan-file block the mount cannot follow
 * reset (lib/orphan.c).  Left unfixed (a step with no fix, or the answer
 * no), nothing is repaired: a log left in place would be replayed over
 * the repairs, and the commits go through that journal.
 */
static int refused_fix(struct check *c)
{
	const struct ek_fsck_opts *o = c->o;
	const char *step = o->journal_refused_step ? o->journal_refused_step : "";
	bool log = !strcmp(step, "journal"), orphans = !strcmp(step, "orphan inodes");
	char loss[160];
	int err = 0;

	if (log)
		snprintf(loss, sizeof(loss), o->journal_refused_lost ?
			 "; clearing the log loses its %u committed transaction%s" :
			 "; the log holds no committed transaction%.0u%s", o->journal_refused_lost,
			 o->journal_refused_lost == 1 ? "" : "s");
	else if (orphans)
		snprintf(loss, sizeof(loss), "; clearing what cannot be followed drops the "
			 "orphans it names (those inodes are left to the check)");
	else
		snprintf(loss, sizeof(loss), ": the image is checked as it is");
	if (fsck_report_if(c, (log && o->journal && !o->journal->dev) || orphans,
			   EK_PR_JOURNAL_REFUSED, AT_GROUP(-1), step, o->journal_refused, loss)) {
		if (log) {
			uint32_t lost;

			err = ek_journal_drop_log(o->journal, &lost);
			if (!err) {
				struct ext4_super_block *sb = ek_wset_super(c->ws);

				if (sb)
					sb->s_feature_incompat &=
						~cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
				else
					err = -ENOMEM;
			}
		} else {
			struct ek_orphans_reset r;

			err = ek_fix_orphans_reset(c->ws, o->now, &r);
		}
		fsck_fix_done(c, err);
		if (!err)
			return 0;
	}
	if (err == -ENOMEM || err == -EIO)
		return err;
	/* not fixed: the check reports, and writes nothing */
	ek_wset_free(c->ws);
	c->ws = NULL;
	return 0;
}

int ek_fsck_check(struct ek_fs *fs, const struct ek_fsck_opts *o, struct ek_fsck_summary *sum)
{
	struct check c = { .fs = fs, .o = o, .sum = sum };
	int err;

	memset(sum, 0, sizeof(*sum));
	/* the per-inode state grows with the inodes in use, each in an inode
	 * table the image holds: a count it cannot hold is damage first */
	if ((uint64_t)fs->sb.inodes_count * fs->inode_size > ek_io_size(fs->io) + (1ull << 20))
		return ek_corrupt_fs("superblock: %u inodes of %u bytes do not fit in the image's "
				     "%llu bytes", fs->sb.inodes_count, fs->inode_size,
				     (unsigned long long)ek_io_size(fs->io));
	sum->inodes_count = fs->sb.inodes_count;
	sum->blocks_count = fs->sb.blocks_count;
	/* per group: a pointer and a few words (the group count is bounded by
	 * the descriptors the image holds) */
	c.bmap = ek_calloc(fs->group_count, sizeof(*c.bmap));
	c.ig = ek_calloc(fs->group_count, sizeof(*c.ig));
	err = c.bmap && c.ig ? 0 : -ENOMEM;
	if (!err && o->repair) {
		/* every write of the repair (journal, homes) is saved in the undo file first */
		if (!(fs->flags & EK_OPEN_RW))
			err = ek_err(-EINVAL, "repair needs the filesystem opened read-write");
		if (!err && o->undo)
			err = ek_io_set_undo(fs->io, o->undo);
		if (!err)
			err = ek_wset_init(fs, &c.ws);
		/* frees reach the bitmaps and counts in pass 5 only (release_held) */
		if (!err)
			ek_wset_hold_frees(c.ws, true);
	}
	if (!err && o->journal_refused)
		err = refused_fix(&c);
	/* as e2fsck's "invalid journal": an internal journal that cannot be read
	 * is cleared (written in place: there is no journal to log it) */
	if (o->journal_err &&
	    fsck_report_if(&c, fs->sb.journal_inum == EXT4_JOURNAL_INO &&
			   (o->journal_err == -EK_CORRUPT || o->journal_err == -EK_BADCRC),
			   EK_PR_JOURNAL_UNUSABLE, AT_INODE(fs->sb.journal_inum),
			   ek_error_msg(o->journal_err))) {
		err = ek_fix_journal_clear(c.ws);
		fsck_fix_done(&c, err);
		c.in_place = !err;
		c.jnl_cleared = !err;	/* made again after the passes */
		err = err == -ENOMEM ? err : 0;
	} else if (o->journal_err && c.ws && ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER)) {
		/* left, with a log that may still be replayed over the repairs:
		 * nothing is repaired */
		ek_wset_free(c.ws);
		c.ws = NULL;
	}
	/* as e2fsck: an internal journal's version 2 superblock with more than
	 * one user holds a version 1 superblock's leftovers, cleared (the
	 * journal superblock is written at once: the commits go through it) */
	if (o->journal_sb_bad &&
	    fsck_report_if(&c, c.ws && o->journal && !o->journal->dev &&
			   o->journal->sb.version == 2 && o->journal->sb.nr_users > 1 &&
			   !memcmp(fs->raw_sb->s_journal_uuid, (uint8_t[16]){ 0 }, 16),
			   EK_PR_JOURNAL_SUPERBLOCK_BAD, AT_INODE(fs->sb.journal_inum),
			   o->journal_sb_bad)) {
		err = ek_journal_clear_v2_fields(o->journal);
		fsck_fix_done(&c, err);
		err = err == -ENOMEM ? err : 0;
	}
	/* as e2fsck: the backup's superblock and descriptors become the primary's,
	 * written in place (a journal found through a damaged primary is no
	 * place to log the primary itself) */
	if (o->backup_sb &&
	    fsck_report_if(&c, fs->sb_block == o->backup_sb, EK_PR_BACKUP_SUPERBLOCK, AT_GROUP(-1),
			   o->backup_why ? o->backup_why : "", (unsigned long long)o->backup_sb)) {
		err = ek_fix_super_primary(c.ws);
		fsck_fix_done(&c, err);
		c.in_place = !err;
		err = err == -ENOMEM ? err : 0;
	}
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];
		bool bad = fsck_check_group_tables(&c, g);

		/* a descriptor with a table it cannot hold keeps its bad checksum */
		if (grp->csum_bad &&
		    fsck_report_if(&c, !bad, EK_PR_GROUP_DESC_CHECKSUM, AT_GROUP(g), g, grp->checksum,
			      ek_group_desc_csum(fs, g, fs->gd_raw + (size_t)g * fs->desc_size))) {
			uint8_t *d;
			/* as e2fsck: flags a bad checksum guarded are not believed
			 * (the bitmaps are read from disk, the inode table whole) */
			int e = ek_wset_desc(c.ws, g, &d);	/* seal sets the checksum */

			if (!e && (fs->has_csum || fs->has_gdt_csum))
				e = ek_fix_group_count(c.ws, g, EK_GD_FLAGS, grp->flags &
						       ~(EXT4_BG_BLOCK_UNINIT | EXT4_BG_INODE_UNINIT));
			if (!e && (fs->has_csum || fs->has_gdt_csum))
				e = ek_fix_group_count(c.ws, g, EK_GD_ITABLE_UNUSED, 0);
			fsck_fix_done(&c, e);
		}
		/* fixed or not, as libext2fs: the check reads the group as if
		 * those flags were clear (-n then finds what -y will) */
		if (grp->csum_bad && !bad && (fs->has_csum || fs->has_gdt_csum)) {
			if (!c.distrusted && !(c.distrusted = ek_calloc(fs->group_count, 1))) {
				err = -ENOMEM;
				break;
			}
			c.distrusted[g] = 1;
		}
	}
	distrust_flags(&c);
	if (!err)
		fsck_check_super_fields(&c);
	if (!err)
		err = fsck_check_meta_conflicts(&c);
	if (!err)
		err = fsck_check_resize_inode(&c);
	if (!err)
		fsck_check_mmp(&c);
	if (!err)
		err = fsck_check_journal_inode(&c);
	if (!err)
		err = commit(&c);	/* pass 0's fixes */
	while (!err && !o->pass0_only) {
		err = run_passes(&c);
		if (err || !c.restart || c.restarts >= 3)
			break;
		state_release(&c);
		c.restarts++;
		/* what the passes count is counted again; findings and fixes stay */
		sum->inodes_used = sum->blocks_used = sum->dirs = sum->fragmented = 0;
		memset(&sum->stats, 0, sizeof(sum->stats));
		if (o->restarting)
			o->restarting(o->arg);
	}
	if (!err && !o->pass0_only)
		err = unshare_done(&c);
	if (!err && !o->pass0_only)
		err = fsck_journal_recreate(&c);	/* as e2fsck, after pass 5 */
	if (!err && !o->pass0_only)
		err = fsck_resize_recreate(&c);
	if (!err && !o->pass0_only)
		err = fsck_mmp_recreate(&c);
	/* (no set: what the kernel refuses was left, nothing is written) */
	if (!err && o->repair && !o->pass0_only && c.ws)
		err = stamp(&c);
	else if (err == -ECANCELED && o->repair)
		stamp_stopped(&c);
	fsck_fix_done(&c, -EINVAL);
	/* stopped in a pass: what it fixed is left in a set never written */
	if (err)
		told_committed(&c, err);
	/* the findings' paths, while the passes' directories are known */
	if ((!err || err == -ECANCELED) && !o->pass0_only && c.ndirs) {
		int perr = fsck_paths_resolve(&c);

		err = err ? err : perr;
	}
	state_release(&c);
	fsck_paths_free(&c);
	ek_wset_free(c.ws);
	if (o->repair && o->undo)
		ek_io_set_undo(fs->io, NULL);
	free(c.bmap);
	free(c.ig);
	free(c.reloc);
	free(c.distrusted);
	return err;
}
