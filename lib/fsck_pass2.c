// SPDX-License-Identifier: MIT
/* fsck_pass2.c - the checker's pass 2: directory entries and htree indexes */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* ---- pass 2 ------------------------------------------------------------------ */

struct dirwalk {
	struct check *c;
	ek_ino_t dir;
	struct dinfo *di;	/* the directory's own entry */
	bool encrypted;		/* names are ciphertext: any byte may appear */
	uint32_t policy;	/* its encryption policy (struct check's crypt) */
	int dx_version;		/* htree: the hash of its names (ek_dx_hash), or -1 */
	const struct ek_inode *ei;	/* the directory's inode (repairs edit its blocks) */
	struct rbuf *rb;	/* repairing: the entries kept for a rebuild, else NULL */
	ek_ino_t *lost_found;	/* the root's "lost+found" entry, once walked */
	int64_t hole;		/* the first logical block below i_size not mapped, or -1 */
	bool mapped;		/* it maps a data block */
	bool rebuild_tried;	/* dir_rebuild() ran; its result: */
	int rebuild_err;
	/* block 0 of a directory in blocks: entries seen there, and whether
	 * the first is '.' naming the directory and the second '..' */
	unsigned nfirst;
	bool dot_ok, dotdot_ok;
	unsigned ndot, ndotdot;	/* '.' and '..' entries seen anywhere */
	const char *dot_unterminated;	/* repairing: "." or "..", reported after the walk */
	/* repairing: a root the dx codec refused, reported after the entry walk */
	int root_fault;		/* a problem ID, or -1 */
	ek_blk_t root_fault_blk;
	char root_fault_msg[320];	/* as struct ek_error's */
	struct blkmemo *memo;	/* repairing: the blocks salvage_blocks() read */
};

/*
 * Repairing, the blocks of the directory being walked that
 * salvage_blocks() read (up to MEMO_BYTES of them, from block 0), kept so
 * that the entry walk does not read them again; valid until the next
 * commit.  Its buffers are reused from directory to directory.
 */
#define MEMO_BYTES (256u << 10)
struct blkmemo {
	struct ek_dir_preread pre;	/* pre.n is 0 when nothing is held */
	ek_blk_t *pblk;
	uint8_t *data;
	uint64_t cap;		/* blocks pblk and data have room for */
	uint64_t commits;	/* c->sum->commits when they were read */
};

/*
 * Repairing: the entries of the directory being read that a rebuild keeps
 * (every one the walk read and no fix cleared), with their names, in one
 * buffer reused from directory to directory.
 */
struct rbent {
	size_t at;		/* the name, in names */
	ek_ino_t ino;
	uint8_t len, type;
	bool dup;		/* a name seen before in the directory */
};

struct rbuf {
	struct rbent *v;
	size_t n, cap;
	ek_blk_t *dots;		/* the inodes of the '.' and '..' entries counted */
	size_t ndots, dots_cap;
	char *names;
	size_t len, names_cap;
};

/* one leaf of an htree directory: the lowest and highest hash of its names */
struct dxleaf {
	uint32_t lblk, min, max;
};

const char *fsck_type_name(uint16_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return "a regular file";
	case 0040000: return "a directory";
	case 0020000: return "a character device";
	case 0060000: return "a block device";
	case 0010000: return "a fifo";
	case 0140000: return "a socket";
	case 0120000: return "a symlink";
	}
	return "of no known type";
}

uint8_t fsck_mode_ftype(uint16_t mode)
{
	static const uint8_t ft[16] = {
		[001] = EXT4_FT_FIFO, [002] = EXT4_FT_CHRDEV, [004] = EXT4_FT_DIR,
		[006] = EXT4_FT_BLKDEV, [010] = EXT4_FT_REG_FILE, [012] = EXT4_FT_SYMLINK,
		[014] = EXT4_FT_SOCK,
	};

	return ft[(mode >> 12) & 017];
}

uint64_t fsck_name_hash(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ (uint8_t)*p++) * 0x100000001b3ull;
	return h;
}

/*
 * The bytes two names of the directory being read are the same by: in a
 * casefolded one its folded form after a 1, or when it does not fold
 * (invalid UTF-8) its bytes after a 0, as the kernel compares them
 * (generic_ci_match(): names that do not fold match by their bytes).
 * Into @buf (EK_CASEFOLD_MAX + 1 bytes) unless not casefolded; its length.
 */
static size_t name_key(const struct check *c, const char *name, size_t len, char *buf,
		       const char **key)
{
	int n;

	*key = name;
	if (!c->fold)
		return len;
	n = ek_utf8_casefold(name, len, buf + 1, EK_CASEFOLD_MAX);
	buf[0] = n >= 0;
	if (n < 0) {
		memcpy(buf + 1, name, len);
		n = (int)len;
	}
	*key = buf;
	return (size_t)n + 1;
}

static uint64_t name_slot_hash(const struct check *c, const char *name, size_t len)
{
	char buf[EK_CASEFOLD_MAX + 1];
	const char *key;
	size_t n = name_key(c, name, len, buf, &key);

	return fsck_name_hash(key, n);
}

/* @a and @b are one name in the directory being read (see name_key()) */
static bool same_name(const struct check *c, const char *a, size_t alen, const char *b,
		      size_t blen)
{
	if (c->fold) {
		int r = ek_utf8_casecmp(a, alen, b, blen);

		if (r >= 0)
			return r == 0;
	}
	return alen == blen && !memcmp(a, b, alen);
}

/* remember @name in the directory being read; 1 if seen there already */
static int name_seen(struct check *c, const char *name, size_t len)
{
	size_t i;

	if ((c->nnames + 1) * 2 > c->nslots) {
		size_t n = c->nslots ? c->nslots * 2 : 256;
		uint32_t *v = ek_calloc(n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < c->nslots; k++) {
			uint32_t at = c->name_slots[k];

			if (!at)
				continue;
			for (i = name_slot_hash(c, c->names + at, (uint8_t)c->names[at - 1]) & (n - 1); v[i];
			     i = (i + 1) & (n - 1))
				;
			v[i] = at;
		}
		free(c->name_slots);
		c->name_slots = v;
		c->nslots = n;
	}
	for (i = name_slot_hash(c, name, len) & (c->nslots - 1); c->name_slots[i];
	     i = (i + 1) & (c->nslots - 1)) {
		uint32_t at = c->name_slots[i];

		if (same_name(c, c->names + at, (uint8_t)c->names[at - 1], name, len))
			return 1;
	}
	/* stored as a length byte then the name; offsets fit: a directory is < 4 GiB */
	if (ek_grow(&c->names, &c->names_cap, c->names_len + len + 1, 1))
		return -ENOMEM;
	c->names[c->names_len] = (char)len;
	memcpy(c->names + c->names_len + 1, name, len);
	c->name_slots[i] = (uint32_t)(c->names_len + 1);
	c->names_len += len + 1;
	c->nnames++;
	return 0;
}

static bool dot_or_dotdot(const struct ek_dirent *de)
{
	return (de->name_len == 1 && de->name[0] == '.') ||
	       (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.');
}

/*
 * Block @b is claimed more than once (another inode, or metadata): a
 * directory repair does not write it, which could destroy the other
 * owner's data until pass 1B-D's cloning exists.  c->dups is sorted at
 * the start of pass 2.
 */
static bool shared_block(const struct check *c, ek_blk_t b)
{
	size_t k = ek_lower_u64(c->dups, c->ndups, b);

	return k < c->ndups && c->dups[k] == b;
}

/*
 * e2fsck's pass 3A without -D: repairing a filesystem with dir_index, a
 * directory of 3 blocks or more without an index is indexed (pass 2
 * queues it, fsck_pass3a() rebuilds it after pass 3; not a fix: the exit
 * status stays 0).  Asked by the tool (ek_fsck_opts.index_dirs).
 */
static bool pass3a_indexes(const struct check *c, const struct ek_inode *ei)
{
	return c->o->index_dirs && ek_has_compat(c->fs, EXT4_FEATURE_COMPAT_DIR_INDEX) &&
	       !(ei->flags & EXT4_INDEX_FL) && ei->size >> c->fs->log_blksz >= 3;
}

/* ---- pass 2: rebuilding a directory (repairing) --------------------------------- */

/* keep entry @de (file type @type) for a rebuild; -ENOMEM */
static int rb_keep(struct dirwalk *w, const struct ek_dirent *de, uint8_t type, bool dup)
{
	struct rbuf *rb = w->rb;

	if (!rb)
		return 0;
	if (dot_or_dotdot(de))	/* a rebuild writes its own */
		return fsck_blk_push(&rb->dots, &rb->ndots, &rb->dots_cap, de->ino);
	if (ek_grow(&rb->v, &rb->cap, rb->n + 1, sizeof(*rb->v)))
		return -ENOMEM;
	if (ek_grow(&rb->names, &rb->names_cap, rb->len + de->name_len, 1))
		return -ENOMEM;
	memcpy(rb->names + rb->len, de->name, de->name_len);
	rb->v[rb->n++] = (struct rbent){ rb->len, de->ino, de->name_len, type, dup };
	rb->len += de->name_len;
	return 0;
}


/* @delta bytes more (or, wrapping, fewer) charged to directory @ei's ids */
static int quota_recharge(struct check *c, const struct ek_inode *ei, uint64_t delta)
{
	uint32_t id[EK_QUOTA_TYPES] = { ei->uid, ei->gid, ei->projid };

	for (unsigned t = 0; t < EK_QUOTA_TYPES && delta; t++) {
		int err;

		if (!c->quota_on[t] ||
		    (t == EK_QUOTA_PRJ && c->fs->inode_size <= EXT4_GOOD_OLD_INODE_SIZE))
			continue;
		err = ek_quota_tally_add(&c->quota[t], id[t], 0, delta, false);
		if (err)
			return err;
	}
	return 0;
}

/* a block for a rebuilt directory: fsck's allocator, marked in both maps */
static int rebuild_alloc(void *arg, ek_blk_t goal, ek_blk_t *out)
{
	return fsck_alloc_block(arg, goal, out);
}

struct oldblocks {
	ek_blk_t *v;
	size_t n, cap;
};

/* the blocks of the directory's map (data and tree), which a rebuild may free */
static int old_block_cb(void *arg, const struct ek_mapping *m)
{
	struct oldblocks *o = arg;

	if (m->kind == EK_MAP_TREE)
		return fsck_blk_push(&o->v, &o->n, &o->cap, m->pblk);
	if (m->kind != EK_MAP_DATA)
		return 0;
	/* the map walk checked each run lies in the filesystem */
	for (uint64_t k = 0; k < m->len; k++) {
		int err = fsck_blk_push(&o->v, &o->n, &o->cap, m->pblk + k);

		if (err)
			return err;
	}
	return 0;
}

/*
 * A name for a duplicate of @name that the directory does not hold, made
 * as e2fsck's pass 3A makes one: grown into the padding of its entry (by
 * 2 bytes when the padding has them, else to the next multiple of 4), its
 * last bytes then "~0", "~1"...  Into @out (256 bytes); its length, or 0
 * when none was found.  After "~15", numbers go on from *@next, which
 * only grows: many copies of one name cost a few tries each, not a scan.
 */
static unsigned dup_rename(struct check *c, const char *name, unsigned len, char *out,
			   unsigned *next)
{
	unsigned room = ((len - 1) & 3) < 2 ? len + 2 : (len + 3) & ~3u;

	if (room > 255)
		room = 255;
	for (unsigned i = 0, k = 0; i < 1000; i++, k = i < 16 ? i : (*next)++) {
		char suf[16];	/* "~" and up to 10 digits */
		unsigned sl = (unsigned)snprintf(suf, sizeof(suf), "~%u", k);
		unsigned keep = room > sl ? room - sl : 0;
		int seen;

		if (keep > len)
			keep = len;
		memcpy(out, name, keep);
		memcpy(out + keep, suf, sl);
		seen = name_seen(c, out, keep + sl);
		if (seen < 0)
			return 0;
		if (!seen)
			return keep + sl;
	}
	return 0;
}

#define DUP_KEEP	0
#define DUP_DROP	1
#define DUP_RENAME	2

struct dupkey {
	const char *name;	/* name_key(): malloc'd in a casefolded directory */
	size_t len;
	ek_ino_t ino;
	size_t i;
};

/* by name, then inode number down (e2fsck's name_cmp), then place */
static int cmp_dupkey(const void *a, const void *b)
{
	const struct dupkey *x = a, *y = b;
	int r = x->len != y->len ? (x->len < y->len ? -1 : 1) : memcmp(x->name, y->name, x->len);

	if (r)
		return r;
	if (x->ino != y->ino)
		return x->ino > y->ino ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * What a rebuild does with each entry of @rb (@act: DUP_*), as e2fsck's
 * pass 3A: the entries of one name in order of inode number down, each
 * against the one before it: dropped when both name the same inode and
 * that one was not dropped itself, else renamed (so a third name of one
 * inode stays as a "~0" link, as e2fsck leaves it).  -ENOMEM, else 0.
 */
static int dup_actions(const struct check *c, const struct rbuf *rb, uint8_t *act)
{
	struct dupkey *k;
	char buf[EK_CASEFOLD_MAX + 1];
	size_t ndup = 0;
	int err = 0;

	for (size_t i = 0; i < rb->n; i++)
		ndup += rb->v[i].dup;
	if (!ndup)	/* every name once: each entry kept */
		return 0;
	k = ek_calloc(rb->n, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < rb->n; i++) {
		const char *key;
		size_t n = name_key(c, rb->names + rb->v[i].at, rb->v[i].len, buf, &key);

		if (c->fold) {
			char *copy = ek_malloc(n ? n : 1);

			if (!copy) {
				err = -ENOMEM;
				goto out;
			}
			key = memcpy(copy, key, n);
		}
		k[i] = (struct dupkey){ key, n, rb->v[i].ino, i };
	}
	qsort(k, rb->n, sizeof(*k), cmp_dupkey);
	for (size_t j = 1; j < rb->n; j++) {
		const struct dupkey *p = &k[j - 1], *e = &k[j];

		if (p->len != e->len || memcmp(p->name, e->name, e->len))
			continue;
		act[e->i] = p->ino == e->ino && act[p->i] != DUP_DROP ? DUP_DROP : DUP_RENAME;
	}
out:
	if (c->fold)
		for (size_t i = 0; i < rb->n; i++)
			free((char *)k[i].name);
	free(k);
	return err;
}

/* a rebuild between its two halves: what rebuild_prepare() made of the entries */
struct rebuild {
	struct oldblocks old;
	struct ek_dirent_new *ents;
	char *renamed;
	ek_ino_t *dropped;
	size_t n, ndropped;
	ek_ino_t parent;
	bool no_parent;
};

static void rebuild_release(struct rebuild *r)
{
	free(r->old.v);
	free(r->ents);
	free(r->renamed);
	free(r->dropped);
	memset(r, 0, sizeof(*r));
}

/*
 * The first half of dir_rebuild(): the directory's blocks listed (none
 * shared), its new entries (of the entries of one name, those
 * dup_actions() drops are dropped, the others but the first renamed;
 * dropped in an encrypted directory, whose names cannot be changed
 * without the key) and its parent.  Reads the walk's name table, so it
 * runs right after the walk.
 */
static int rebuild_prepare(struct dirwalk *w, struct rebuild *r)
{
	struct check *c = w->c;
	struct rbuf *rb = w->rb;
	uint8_t *act = NULL;	/* per entry kept for the rebuild: DUP_* */
	size_t nrenamed = 0;
	unsigned next_k = 16;
	int err;

	memset(r, 0, sizeof(*r));
	r->parent = w->di->parent;
	if (!rb || !c->ws)
		return -EINVAL;
	err = ek_map_walk(c->fs, w->ei, old_block_cb, &r->old);
	if (err) {
		if (err != -ENOMEM)
			err = ek_unsupp("directory inode %u: its block map cannot be read, the "
					"directory is not rebuilt", w->dir);
		return err;
	}
	for (size_t i = 0; i < r->old.n; i++)
		if (shared_block(c, r->old.v[i]))
			return ek_unsupp("directory inode %u: block %llu is claimed by another "
					 "owner too, the directory is not rebuilt", w->dir,
					 (unsigned long long)r->old.v[i]);
	r->ents = ek_calloc(rb->n ? rb->n : 1, sizeof(*r->ents));
	r->dropped = ek_calloc(rb->n ? rb->n : 1, sizeof(*r->dropped));
	act = ek_calloc(rb->n ? rb->n : 1, 1);
	err = -ENOMEM;
	if (!r->ents || !r->dropped || !act || dup_actions(c, rb, act))
		goto out;
	/* room for the new names, 256 bytes each, only for the entries renamed */
	for (size_t i = 0; i < rb->n; i++)
		nrenamed += act[i] == DUP_RENAME;
	if (nrenamed && !(r->renamed = ek_calloc(nrenamed, 256)))
		goto out;
	nrenamed = 0;
	for (size_t i = 0; i < rb->n; i++) {
		const struct rbent *e = &rb->v[i];
		struct ek_dirent_new *to = &r->ents[r->n];
		const char *name = rb->names + e->at;

		if (act[i] == DUP_DROP || (act[i] == DUP_RENAME && w->encrypted)) {
			r->dropped[r->ndropped++] = e->ino;
			continue;
		}
		if (act[i] == DUP_RENAME) {
			char *nn = r->renamed + nrenamed++ * 256;

			to->name_len = (uint8_t)dup_rename(c, name, e->len, nn, &next_k);
			if (!to->name_len) {
				err = ek_unsupp("directory inode %u: no new name for duplicate entry",
						w->dir);
				goto out;
			}
			name = nn;
		} else {
			to->name_len = e->len;
		}
		to->name = name;
		to->ino = e->ino;
		to->file_type = e->type;
		r->n++;
	}
	/* a directory without '..': the root, which pass 3 corrects; while
	 * the root is not in use (cleared, pass 3 makes it anew) no
	 * reference is counted to it, and pass 3 counts the parent it sets */
	if (!r->parent || r->parent > c->fs->sb.inodes_count) {
		r->parent = EXT4_ROOT_INO;
		r->no_parent = !(fsck_iflags(c, EXT4_ROOT_INO) & IN_USE);
	}
	err = 0;
out:
	free(act);
	return err;
}

/*
 * The second half: the directory rewritten (lib: ek_fix_dir_rebuild, with
 * @built when its blocks were built ahead), the space it gained or gave
 * back charged, the references counted anew and its old blocks forgotten.
 */
static int rebuild_finish(struct dirwalk *w, struct rebuild *r, struct ek_dir_built *built)
{
	struct check *c = w->c;
	struct rbuf *rb = w->rb;
	uint64_t blocks0;
	uint8_t *raw;
	bool indexed;
	int err = ek_wset_inode(c->ws, w->dir, &raw);

	if (err)
		return err;
	blocks0 = ek_inode_iblocks(c->fs, raw);
	err = ek_fix_dir_rebuild_built(c->ws, w->dir, r->parent, r->ents, r->n,
				       &(struct ek_dir_alloc){ rebuild_alloc, c }, built, &indexed);
	if (err)
		return err;
	/* the space the directory gained or gave back, charged as pass 1 did */
	if (!(get_le32(raw + offsetof(struct ext4_inode, i_flags)) & EXT4_HUGE_FILE_FL))
		err = quota_recharge(c, w->ei, (ek_inode_iblocks(c->fs, raw) - blocks0) * 512);
	if (err)
		return err;
	/* the references the walk counted for '.' and '..' give way to the new ones */
	for (size_t i = 0; i < rb->ndots; i++)
		fsck_ref_drop(c, (ek_ino_t)rb->dots[i]);
	err = fsck_ref_add(c, w->dir);
	if (!err)
		err = r->no_parent ? 0 : fsck_ref_add(c, r->parent);
	if (err)
		return err;
	w->di->parent = r->no_parent ? 0 : r->parent;
	if (r->old.n > 1)
		qsort(r->old.v, r->old.n, sizeof(*r->old.v), ek_cmp_u64);
	fsck_forget_freed(c, r->old.v, r->old.n);
	for (size_t i = 0; i < r->ndropped; i++)
		fsck_ref_drop(c, r->dropped[i]);
	return 0;
}

/*
 * Rewrite the directory being walked from the entries kept, as e2fsck's
 * pass 3A: rebuild_prepare() then rebuild_finish().  Once per directory:
 * later findings it fixes get the same result.
 */
static int dir_rebuild(struct dirwalk *w)
{
	struct rebuild r;
	int err;

	if (w->rebuild_tried)
		return w->rebuild_err;
	w->rebuild_tried = true;
	err = rebuild_prepare(w, &r);
	if (!err)
		err = rebuild_finish(w, &r, NULL);
	rebuild_release(&r);
	w->rebuild_err = err;
	return err;
}

/* ---- pass 2: salvaging damaged blocks (repairing) --------------------------------- */

struct salvage {
	struct dirwalk *w;
	uint8_t *buf;
	uint64_t nblocks;
	uint64_t next;		/* the first logical block not yet mapped */
	bool any;		/* a block was salvaged into c->ws */
	bool unwritten_seen;	/* DIR_UNWRITTEN reported */
	bool written;		/* and fixed: its blocks are read as the others */
};

static int salvage_cb(void *arg, const struct ek_mapping *m)
{
	struct salvage *s = arg;
	struct check *c = s->w->c;
	struct ek_fs *fs = c->fs;
	uint64_t end;

	if (m->kind != EK_MAP_DATA)
		return 0;
	s->w->mapped = true;
	if (m->lblk >= s->nblocks)
		return 0;
	end = m->len > s->nblocks - m->lblk ? s->nblocks : m->lblk + m->len;
	/* the first hole below i_size (an unwritten block is read: DIR_UNWRITTEN) */
	if (s->w->hole < 0 && m->lblk > s->next)
		s->w->hole = (int64_t)s->next;
	if (end > s->next)
		s->next = end;
	if (m->unwritten && !s->unwritten_seen) {
		/* e2fsck's pass 1: a directory's blocks are written ones */
		s->unwritten_seen = true;
		if (fsck_report(c, EK_PR_DIR_UNWRITTEN, AT_INODE(s->w->dir), s->w->dir,
				(unsigned long long)m->lblk)) {
			int err = ek_fix_dir_written(c->ws, s->w->dir);

			fsck_fix_done(c, err);
			s->written = !err;
			s->any |= !err;
		}
	}
	if ((m->unwritten && !s->written) || !c->ws)
		return 0;
	for (uint64_t l = m->lblk; l < end && !c->err; l++) {
		ek_blk_t pblk = m->pblk + (l - m->lblk);
		struct ek_finding at = { .ino = s->w->dir, .blk = pblk, .has_blk = true, .group = -1 };
		struct blkmemo *memo = s->w->memo;
		bool kept = memo && l < memo->pre.n;
		uint8_t *buf = kept ? memo->data + (l << fs->log_blksz) : s->buf;
		uint32_t off;
		uint8_t *b;
		int err;

		if (shared_block(c, pblk) || ek_fs_read_blocks(fs, pblk, 1, buf))
			continue;	/* the entry walk names it */
		if (kept)
			memo->pblk[l] = pblk;
		if (!ek_dir_block_salvage(fs, s->w->ei, l, buf, &off))
			continue;
		if (kept)
			memo->pblk[l] = 0;	/* (salvaged in buf: read again) */
		if (!fsck_report(c, EK_PR_DIR_SALVAGE, &at, s->w->dir, (unsigned long long)l, off))
			continue;
		err = ek_wset_block(c->ws, pblk, &b);
		if (!err) {
			memcpy(b, buf, fs->blksz);
			ek_dir_block_reseal(fs, s->w->ei, l, b);
			s->any = true;
		}
		fsck_fix_done(c, err);
	}
	return c->err == -ENOMEM ? -ENOMEM : 0;
}

/*
 * An inline directory's two regions (i_block after the parent: "block 0";
 * the value of system.data: "block 1", as e2fsck numbers them), each
 * salvaged as a block is when the checker refuses an entry of it, and
 * committed; the offset named is the region's own.  As salvage_blocks().
 */
static int dotdot_clear(struct check *c, struct dirwalk *w);

static int salvage_inline(struct dirwalk *w)
{
	struct check *c = w->c;
	struct ek_fs *fs = c->fs;
	bool any = false;
	int err;

	if (!c->ws)
		return 0;
	/* '..' out of range: set to 0 as e2fsck clears it, pass 3 sets it */
	if (get_le32(ek_inode_i_block(w->ei)) > fs->sb.inodes_count &&
	    fsck_report(c, EK_PR_ENTRY_BAD_INODE, &(struct ek_finding){ .ino = w->dir, .dir = w->dir,
			.group = -1, .entry_name = "..", .entry_len = 2 }, "..", w->dir, get_le32(ek_inode_i_block(w->ei)))) {
		err = dotdot_clear(c, w);
		fsck_fix_done(c, err);
		any |= !err;
	}
	for (int r = 0; r < 2 && !c->err; r++) {
		struct ek_finding at = { .ino = w->dir, .group = -1 };
		uint8_t ib[EXT4_N_BLOCKS * 4], *v = NULL;
		size_t len = 0;
		uint32_t off;
		int n;

		if (r == 0) {
			memcpy(ib, ek_inode_i_block(w->ei), sizeof(ib));
			n = ek_dir_inline_salvage(fs, w->ei, ib, 4, sizeof(ib), &off);
		} else {
			err = ek_xattr_get(fs, w->ei, EXT4_XATTR_INDEX_SYSTEM, "data", 4, &v, &len);
			if (err == -ENOMEM)
				return err;
			/* none, or unreadable (pass 1 named it), or past what a value holds */
			n = err || len > EK_XATTR_SIZE_MAX ? 0 :
			    ek_dir_inline_salvage(fs, w->ei, v, 0, (uint32_t)len, &off);
			free(v);
		}
		if (n <= 0 || !fsck_report(c, EK_PR_DIR_SALVAGE, &at, w->dir, (unsigned long long)r, off))
			continue;
		err = ek_fix_inline_dir_salvage(c->ws, w->ei, r);
		fsck_fix_done(c, err);
		any |= !err;
	}
	if (c->err == -ENOMEM)
		return -ENOMEM;
	if (!any)
		return 0;
	err = fsck_commit(c);
	return err ? err : 1;
}

/* @m made ready for the first @nblocks blocks of a directory (as many of
 * them as MEMO_BYTES holds; none when that memory is not to be had) */
static void memo_start(const struct check *c, struct blkmemo *m, uint64_t nblocks)
{
	uint64_t n = MEMO_BYTES >> c->fs->log_blksz;

	if (n > nblocks)
		n = nblocks;
	m->pre.n = 0;
	if (n > m->cap) {
		ek_blk_t *p = realloc(m->pblk, n * sizeof(*p));
		uint8_t *d;

		if (p)
			m->pblk = p;
		d = p ? realloc(m->data, n << c->fs->log_blksz) : NULL;
		if (!d)
			return;
		m->data = d;
		m->cap = n;
	}
	memset(m->pblk, 0, n * sizeof(*m->pblk));
	m->pre = (struct ek_dir_preread){ .n = n, .pblk = m->pblk, .data = m->data };
	m->commits = c->sum->commits;
}

/*
 * Before the entry walk of a directory in blocks: its first hole below
 * i_size noted (w->hole); repairing, every block whose entries the
 * checker refuses is salvaged as e2fsck's pass 2 does (lib:
 * ek_dir_block_salvage) and committed, so the walk reads the entries the
 * damage hid.  -ENOMEM or a commit's error, 1 when a repair was committed
 * (the inode is to be read again), else 0.
 */
static int salvage_blocks(struct dirwalk *w)
{
	struct check *c = w->c;
	struct salvage s = { .w = w, .nblocks = (w->ei->size + c->fs->blksz - 1) >> c->fs->log_blksz };
	int err;

	if (ek_inode_has_inline(w->ei))
		return salvage_inline(w);
	if (c->ws && !(s.buf = ek_malloc(c->fs->blksz)))
		return -ENOMEM;
	if (w->memo)
		memo_start(c, w->memo, s.nblocks);
	err = ek_map_walk(c->fs, w->ei, salvage_cb, &s);
	free(s.buf);
	if (err == -ENOMEM)
		return err;
	if (!err && w->hole < 0 && s.next < s.nblocks)
		w->hole = (int64_t)s.next;
	if (!s.any)
		return 0;	/* a damaged map: pass 1 named it */
	err = fsck_commit(c);
	return err ? err : 1;
}

/* ---- pass 2: htree indexes ----------------------------------------------------- */

/*
 * The hash of entry @de of the htree directory being walked, folded into
 * the range of its leaf: casefolded and encrypted directories store it
 * after the name (siphash needs the key), casefolded ones hash the folded
 * name (ek_dx_hash_name), the others the name as stored (an encrypted name
 * is hashed as its ciphertext, as the kernel does).  -ENOMEM, else 0.
 */
static int htree_note(struct check *c, const struct dirwalk *w, const struct ek_dirent *de)
{
	struct dxleaf *last = c->ndxl ? &c->dxl[c->ndxl - 1] : NULL;
	uint32_t hash, minor;

	if (w->dx_version == EXT4_HASH_SIPHASH) {
		if (dot_or_dotdot(de))
			return 0;	/* no hash stored: ek_dirent_check() allowed none */
		hash = get_le32((const uint8_t *)de->name + de->name_len);
	} else if (ek_dx_hash_name(w->dx_version, c->fold, de->name, de->name_len,
				   c->fs->sb.hash_seed, &hash, &minor)) {
		return 0;
	}
	hash &= ~1u;
	if (last && last->lblk == de->lblk) {
		if (hash < last->min)
			last->min = hash;
		if (hash > last->max)
			last->max = hash;
		return 0;
	}
	if (last && last->lblk > de->lblk)
		c->dxl_unsorted = true;
	if (ek_grow(&c->dxl, &c->dxl_cap, c->ndxl + 1, sizeof(*c->dxl)))
		return -ENOMEM;	/* @last is stale from here */
	c->dxl[c->ndxl++] = (struct dxleaf){ (uint32_t)de->lblk, hash, hash };
	return 0;
}

static int cmp_dxleaf(const void *a, const void *b)
{
	const struct dxleaf *x = a, *y = b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

/* a run of the directory's mapped blocks, and the index of its first among all */
struct dxrun {
	uint64_t lblk, len, rank;
	ek_blk_t pblk;
};

struct dxcheck {
	struct check *c;
	struct dirwalk *w;
	const struct ek_inode *dir;
	unsigned levels;	/* the root's indirect_levels */
	uint64_t nblocks;	/* i_size in blocks */
	struct dxrun *runs;
	size_t nruns, runs_cap;
	uint64_t nmapped;
	uint8_t *named;		/* per mapped block (by rank): an index entry names it */
};

static int dx_run_cb(void *arg, const struct ek_mapping *m)
{
	struct dxcheck *x = arg;
	uint64_t len = m->len;

	/* unwritten blocks and holes read as holes: dir.c names them */
	if (m->kind != EK_MAP_DATA || m->unwritten || m->lblk >= x->nblocks)
		return 0;
	if (len > x->nblocks - m->lblk)
		len = x->nblocks - m->lblk;
	if (ek_grow(&x->runs, &x->runs_cap, x->nruns + 1, sizeof(*x->runs)))
		return -ENOMEM;
	x->runs[x->nruns++] = (struct dxrun){ m->lblk, len, 0, m->pblk };
	return 0;
}

static int cmp_dxrun(const void *a, const void *b)
{
	const struct dxrun *x = a, *y = b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

/* the run holding logical block @lblk, or NULL for a hole */
static const struct dxrun *dx_run_of(const struct dxcheck *x, uint64_t lblk)
{
	size_t lo = 0, hi = x->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->runs[mid].lblk + x->runs[mid].len <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nruns && x->runs[lo].lblk <= lblk ? &x->runs[lo] : NULL;
}

static const struct dxleaf *dx_leaf_of(const struct check *c, uint32_t lblk)
{
	size_t lo = 0, hi = c->ndxl;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->dxl[mid].lblk < lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ndxl && c->dxl[lo].lblk == lblk ? &c->dxl[lo] : NULL;
}

/* an index block the dx codec refused (the rule @fault, in words @msg) */
static void dx_report(struct check *c, struct dirwalk *w, ek_blk_t pblk, unsigned fault,
		      const char *msg)
{
	static const enum ek_problem_id id[] = {
		[EK_DX_ROOT] = EK_PR_HTREE_ROOT_BAD,
		[EK_DX_HASH_VERSION] = EK_PR_HTREE_HASH_VERSION,
		[EK_DX_ROOT_FLAGS] = EK_PR_HTREE_ROOT_FLAGS,
		[EK_DX_LEVELS] = EK_PR_HTREE_TOO_DEEP,
		[EK_DX_NOT_NODE] = EK_PR_HTREE_NOT_NODE,
		[EK_DX_LIMIT] = EK_PR_HTREE_LIMIT,
		[EK_DX_COUNT] = EK_PR_HTREE_COUNT,
		[EK_DX_BLOCK] = EK_PR_HTREE_BAD_BLOCK,
		[EK_DX_ORDER] = EK_PR_HTREE_ORDER,
	};
	struct ek_finding at = { .ino = w->dir, .blk = pblk, .has_blk = true, .group = -1 };

	/* a bad checksum alone: the entry walk named it (DIR_DAMAGED) */
	if (fault == EK_DX_OK || fault == EK_DX_CSUM || fault >= sizeof(id) / sizeof(id[0]))
		return;
	if (fsck_report(c, id[fault], &at, msg))
		fsck_fix_done(c, dir_rebuild(w));
}

static void dx_report_fault(struct check *c, struct dirwalk *w, ek_blk_t pblk,
			    const struct ek_dx_node *n, int err)
{
	dx_report(c, w, pblk, n->fault, ek_error_msg(err));
}

/*
 * The entries of index block @n (logical block @lblk) at @depth (root: 0),
 * whose names must hash into [@lo, @hi]: each child named once, read as
 * an interior node above the leaves, its leaf's hashes checked at the
 * bottom.  Each block is visited once (a second name is a finding), so a
 * hostile index costs at most a read per directory block.  Returns 0, 1
 * when an index block is unusable (named; the index is then given up, as
 * a repair rebuilds it: the blocks below it are not named unreferenced),
 * or -ENOMEM.
 */
static int dx_walk(struct dxcheck *x, const struct ek_dx_node *n, uint32_t lblk, unsigned depth,
		   uint32_t lo, uint32_t hi)
{
	struct check *c = x->c;
	struct ek_fs *fs = c->fs;

	for (unsigned i = 0; i < n->count; i++) {
		uint32_t b = ek_dx_entry_block(n, i), elo = lo, ehi = hi;
		const struct dxrun *r = dx_run_of(x, b);
		struct ek_finding at = { .ino = x->dir->ino, .group = -1 };
		uint64_t k;
		ek_blk_t pb;

		/* entry i covers [hash i, hash i+1], without the continuation bit */
		if (i && (ek_dx_entry_hash(n, i) & ~1u) > elo)
			elo = ek_dx_entry_hash(n, i) & ~1u;
		if (i + 1 < n->count && (ek_dx_entry_hash(n, i + 1) & ~1u) < ehi)
			ehi = ek_dx_entry_hash(n, i + 1) & ~1u;
		if (!r) {
			ek_corrupt_ino(x->dir->ino, "htree directory: entry %u of index block %u points to block %u, which is not allocated",
				       i, lblk, b);
			if (fsck_report(c, EK_PR_HTREE_BAD_BLOCK, &at, ek_error_msg(-EK_CORRUPT)))
				fsck_fix_done(c, dir_rebuild(x->w));
			return 1;
		}
		k = r->rank + (b - r->lblk);
		pb = r->pblk + (b - r->lblk);
		at.blk = pb;
		at.has_blk = true;
		if (ek_bit_test(x->named, k)) {
			if (fsck_report(c, EK_PR_HTREE_REFERENCED_TWICE, &at, x->dir->ino, b,
					(unsigned long long)pb))
				fsck_fix_done(c, dir_rebuild(x->w));
			continue;
		}
		x->named[k >> 3] |= 1u << (k & 7);
		if (depth < x->levels) {
			uint8_t *buf = c->dxbuf + (size_t)(depth + 1) * fs->blksz;
			struct ek_dx_node child;
			int err = ek_fs_read_blocks(fs, pb, 1, buf);

			if (err == -ENOMEM)
				return err;
			if (err)
				continue;	/* the entry walk read it too and named it */
			err = ek_dx_node_parse(fs, x->dir, pb, buf, &child);
			if (err && err != -EK_BADCRC) {
				dx_report_fault(c, x->w, pb, &child, err);
				return 1;
			}
			err = dx_walk(x, &child, b, depth + 1, elo, ehi);
			if (err)
				return err;
		} else {
			const struct dxleaf *l = dx_leaf_of(c, b);

			if (l && (l->min < elo || l->max > ehi) &&
			    fsck_report(c, EK_PR_HTREE_HASH_RANGE, &at, x->dir->ino, b,
					(unsigned long long)pb, l->min, l->max, elo, ehi))
				fsck_fix_done(c, dir_rebuild(x->w));
		}
	}
	return 0;
}

/*
 * The entry's file type against its inode's mode @mode, as e2fsck's
 * check_filetype(): a wrong type is reported (preen stops there), a
 * missing one too (preen sets it).
 */
static void check_ftype(struct check *c, const struct dirwalk *w, const struct ek_dirent *de,
			const struct ek_finding *at, const char *name, uint16_t mode)
{
	struct ek_fs *fs = c->fs;
	uint8_t want = fsck_mode_ftype(mode);

	/* the Hurd keeps no file types, whatever the feature says (e2fsck) */
	if (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FILETYPE) ||
	    le32_to_cpu(fs->raw_sb->s_creator_os) == 1 /* EXT4_OS_HURD */ || de->file_type == want)
		return;
	if (de->file_type ?
	    fsck_report_if(c, !de->deleted, EK_PR_ENTRY_FILETYPE, at, name, w->dir,
			   de->file_type, de->ino, fsck_type_name(mode)) :
	    /* e2fsck's preen sets a missing type, not a wrong one */
	    fsck_report_if(c, !de->deleted, EK_PR_ENTRY_FILETYPE_UNSET, at, name, w->dir,
			   de->ino, fsck_type_name(mode)))
		fsck_fix_done(c, ek_fix_dirent_type(c->ws, w->ei, de, want));
}

/*
 * An entry naming an inode pass 1 did not read because its group's
 * descriptor says the inode table is unused there (INODE_UNINIT, or past
 * bg_itable_unused): as e2fsck, the descriptor is believed less than the
 * entry.  Fixed by marking the table in use and running the passes again
 * (true: the entry waits for that run); left, the entry is judged as it is.
 */
static bool unscanned(struct check *c, const struct dirwalk *w, const struct ek_dirent *de,
		      const struct ek_finding *at, const char *name)
{
	struct ek_fs *fs = c->fs;
	uint32_t g = ek_group_of_ino(fs, de->ino);
	uint32_t bit = (de->ino - 1) % fs->sb.inodes_per_group;
	const struct ek_group *grp = &fs->groups[g];

	if (!(fs->has_csum || fs->has_gdt_csum) || grp->csum_bad)
		return false;	/* pass 1 read the whole table */
	if (grp->flags & EXT4_BG_INODE_UNINIT) {
		if (!fsck_report(c, EK_PR_ENTRY_INODE_UNINIT_GROUP, at, name, w->dir, de->ino, g))
			return false;
		fsck_fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_FLAGS,
						    grp->flags & ~EXT4_BG_INODE_UNINIT));
		c->restart = true;
		return true;
	}
	if (grp->itable_unused <= fs->sb.inodes_per_group &&
	    bit >= fs->sb.inodes_per_group - grp->itable_unused) {
		if (!fsck_report(c, EK_PR_ENTRY_INODE_IN_UNUSED_AREA, at, name, w->dir, de->ino, g))
			return false;
		fsck_fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_ITABLE_UNUSED, 0));
		c->restart = true;
		return true;
	}
	return false;
}

/* the '..' of the directory being walked set to 0 (its parent: pass 3) */
static int dotdot_clear(struct check *c, struct dirwalk *w)
{
	int err = ek_fix_dotdot(c->ws, w->dir, 0);

	if (!err)
		w->di->parent = 0;
	return err;
}

/*
 * An entry naming an inode it cannot name (@id: out of range, or not in
 * use): cleared (@clearable), or '..' set to 0 (@dotdot) when repairing;
 * else kept for a rebuild.
 */
static int entry_to_nowhere(struct check *c, struct dirwalk *w, const struct ek_dirent *de,
			    const struct ek_finding *at, const char *name, int seen, bool clearable,
			    bool dotdot, enum ek_problem_id id)
{
	if (fsck_report_if(c, clearable || dotdot, id, at, name, w->dir, de->ino)) {
		int err = clearable ? ek_fix_dirent_clear(c->ws, w->ei, de) : dotdot_clear(c, w);

		fsck_fix_done(c, err);
		if (!err && clearable)
			return 0;
	}
	return dot_or_dotdot(de) ? 0 : rb_keep(w, de, de->file_type, seen);
}

static int pass2_entry(void *arg, const struct ek_dirent *de)
{
	struct dirwalk *w = arg;
	struct check *c = w->c;
	struct ek_fs *fs = c->fs;
	char name[256];
	struct ek_finding at = { .ino = de->ino, .dir = w->dir, .group = -1 };
	struct ek_dirent renamed;
	bool bad_encoding = false;	/* a name strict mode refuses, kept */
	bool clearable, dotdot;
	uint16_t mode;
	uint8_t fl;
	int seen;

	if (de->lblk == 0 && !ek_inode_has_inline(w->ei)) {
		if (w->nfirst == 0)
			w->dot_ok = de->name_len == 1 && de->name[0] == '.' && de->ino == w->dir;
		else if (w->nfirst == 1)
			w->dotdot_ok = de->name_len == 2 && !memcmp(de->name, "..", 2);
		w->nfirst++;
	}
	if (!de->ino)	/* unused: seen only for the places of '.' and '..' */
		return 0;
	memcpy(name, de->name, de->name_len);
	name[de->name_len] = 0;
	at.entry_name = name;	/* (renamed below in place, its length kept) */
	at.entry_len = de->name_len;
	/* a file an earlier finding names, named here (its path) */
	if (c->paths && fsck_path_seen(c, w->dir, de))
		return -ENOMEM;
	/* a second '.' or '..' (e2fsck: a duplicate '.' entry): cleared */
	if (dot_or_dotdot(de) && (de->name_len == 1 ? w->ndot++ : w->ndotdot++) &&
	    fsck_report_if(c, !de->deleted && !ek_inode_has_inline(w->ei), EK_PR_ENTRY_DUP_DOT, &at,
			   name, w->dir)) {
		int err = ek_fix_dirent_clear(c->ws, w->ei, de);

		fsck_fix_done(c, err);
		if (!err)
			return 0;
	}
	/* a strict casefolded directory takes UTF-8 names only (e2fsck's
	 * encoded_check_name()); renamed before its hash is noted, and one
	 * left as it is not hashed (that finding is the one, as e2fsck's) */
	if (c->fold && (fs->sb.encoding_flags & EXT4_ENC_STRICT_MODE_FL) && !dot_or_dotdot(de) &&
	    ek_utf8_validate(de->name, de->name_len)) {
		bad_encoding = true;
		if (fsck_report_if(c, !de->deleted && !ek_inode_has_inline(w->ei),
				   EK_PR_ENTRY_BAD_ENCODING, &at, name, w->dir)) {
			int err = ek_fix_dirent_encoding(c->ws, w->ei, de);

			fsck_fix_done(c, err);
			if (!err) {
				ek_dirent_name_fix_encoding((uint8_t *)name, de->name_len);
				renamed = *de;
				renamed.name = name;
				de = &renamed;
				bad_encoding = false;
			}
		}
	}
	/* block 0 is the htree root: its '.' and '..' are no leaf's */
	if (w->dx_version >= 0 && de->lblk && !bad_encoding && htree_note(c, w, de))
		return -ENOMEM;
	if (de->name_len == 2 && !memcmp(de->name, "..", 2)) {
		w->di->parent = de->ino;
	}
	if (w->dir == EXT4_ROOT_INO && de->name_len == 10 && !memcmp(de->name, "lost+found", 10))
		*w->lost_found = de->ino;
	if (!w->encrypted && (memchr(de->name, '/', de->name_len) || memchr(de->name, 0, de->name_len)) &&
	    fsck_report_if(c, !de->deleted && !ek_inode_has_inline(w->ei), EK_PR_ENTRY_BAD_NAME, &at,
			   name, w->dir)) {
		int err = ek_fix_dirent_name(c->ws, w->ei, de);

		fsck_fix_done(c, err);
		if (!err) {	/* the rest of the checks see the new name */
			ek_dirent_name_fix((uint8_t *)name, de->name_len);
			renamed = *de;
			renamed.name = name;
			de = &renamed;
		}
	}
	/* e2fsck: the byte after '.' or '..' is a NUL (a record holds it) */
	if (dot_or_dotdot(de) && de->rec_len >= 12 && de->name[de->name_len]) {
		if (w->rb)	/* its fix rebuilds the directory: after the walk */
			w->dot_unterminated = de->name_len == 1 ? "." : "..";
		else
			fsck_report(c, EK_PR_ENTRY_DOT_UNTERMINATED, &at, name, w->dir);
	}
	seen = name_seen(c, de->name, de->name_len);
	if (seen < 0)
		return seen;
	/* repairing, a duplicate is reported after the walk: its fix rebuilds
	 * the directory, which needs every entry */
	if (seen && !w->rb)
		fsck_report(c, EK_PR_ENTRY_DUPLICATE, &at, name, w->dir);
	/* an entry is cleared (not '.' or '..', which pass 3 owns), as e2fsck */
	clearable = !dot_or_dotdot(de) && !de->deleted;
	/* '..' (the second entry of block 0) naming no inode in use: set to 0,
	 * as e2fsck; pass 3 then sets it to the parent (h-lnf) */
	dotdot = de->name_len == 2 && !memcmp(de->name, "..", 2) && !de->deleted && !de->lblk &&
		 de->offset == 12 && !ek_inode_has_inline(w->ei);
	if (de->ino > fs->sb.inodes_count || (de->ino < fs->sb.first_ino &&
					     de->ino != EXT4_ROOT_INO && de->ino != 0)) {
		return entry_to_nowhere(c, w, de, &at, name, seen, clearable, dotdot,
					EK_PR_ENTRY_BAD_INODE);
	}
	/* (the inode's flags and type: nothing below changes them) */
	fl = fsck_iflags(c, de->ino);
	if (!(fl & IN_USE) && !de->deleted && unscanned(c, w, de, &at, name)) {
		struct ek_inode ei;
		int err;

		if (dot_or_dotdot(de))
			return 0;
		/* as e2fsck, its type is judged by the inode as the table holds
		 * it (a zeroed inode: no type), before the passes run again */
		err = ek_inode_read(fs, de->ino, &ei);
		if (err == -ENOMEM) {
			ek_inode_release(&ei);
			return err;
		}
		if (!err || err == -EK_BADCRC || err == -EK_CORRUPT)
			check_ftype(c, w, de, &at, name, ei.mode);
		ek_inode_release(&ei);
		return rb_keep(w, de, de->file_type, seen);
	}
	/* (while a restart is due, pass 1 skipped inodes it is to read: none is cleared) */
	if (!(fl & IN_USE) && !c->restart) {
		return entry_to_nowhere(c, w, de, &at, name, seen, clearable, dotdot,
					EK_PR_ENTRY_UNUSED_INODE);
	}
	/* its inode cannot be read: the entry cleared, as e2fsck (the inode
	 * stays in use, in its bad block) */
	if ((fl & IN_BAD_BLOCK) &&
	    fsck_report_if(c, clearable, EK_PR_ENTRY_INODE_IN_BAD_BLOCK, &at, name, w->dir, de->ino)) {
		int err = ek_fix_dirent_clear(c->ws, w->ei, de);

		fsck_fix_done(c, err);
		if (!err)
			return 0;
	}
	/* an inode xattrs hold as a value, also named by a directory entry:
	 * the entry goes (e2fsck 1.47.1), the xattrs keep it; one no xattr
	 * refers to is pass 4's */
	if (fsck_ea_refs(c, de->ino) &&
	    fsck_report_if(c, clearable, EK_PR_ENTRY_EA_INODE, &at, name, w->dir, de->ino)) {
		int err = ek_fix_dirent_clear(c->ws, w->ei, de);

		fsck_fix_done(c, err);
		if (!err)
			return 0;
	}
	if (fsck_ref_add(c, de->ino))
		return -ENOMEM;
	/* e2fsck -v: its fs_total_count and fs_links_count */
	c->sum->stats.entries++;
	c->sum->stats.entry_links += fsck_refs_of(c, de->ino) > 1;
	if (w->policy && !dot_or_dotdot(de)) {
		int r = fsck_check_encrypted_entry(c, w->ei, w->policy, de, &at, name, clearable);

		if (r <= 0)
			return r;	/* cleared (0), or out of memory */
	}
	/* a directory has one name: its parent in pass 3 */
	if ((fl & IS_DIR) && !dot_or_dotdot(de)) {
		struct dinfo *d = fsck_dinfo_of(c, de->ino);

		if (!d || d->named_in || de->ino == EXT4_ROOT_INO) {
			if (fsck_report_if(c, clearable, EK_PR_ENTRY_DIR_LINK, &at, name, w->dir,
					   de->ino)) {
				int err = ek_fix_dirent_clear(c->ws, w->ei, de);

				fsck_fix_done(c, err);
				if (!err) {
					fsck_ref_drop(c, de->ino);
					return 0;
				}
			}
		} else
			d->named_in = w->dir;
	}
	mode = fsck_imode(c, de->ino);
	if (!(fl & IN_BAD_BLOCK))
		check_ftype(c, w, de, &at, name, mode);
	/* a rebuild gives the entry its inode's type (a type the inode's mode
	 * does not say: the entry's own) */
	return rb_keep(w, de, fsck_mode_ftype(mode) ? fsck_mode_ftype(mode) : de->file_type, seen);
}

/*
 * Directory inode @ino into @out (ek_inode_decode: freed by
 * ek_inode_release), its inode table block kept in @blk (@at, @have):
 * directories come in inode order, often several to a block, and one block
 * costs less memory than the chunk cache of ek_inode_read().
 */
static int dir_inode_read(struct check *c, ek_ino_t ino, uint8_t *blk, ek_blk_t *at, bool *have,
			  struct ek_inode *out)
{
	struct ek_fs *fs = c->fs;
	ek_blk_t b;
	uint32_t off;
	int err;

	memset(out, 0, sizeof(*out));
	err = ek_inode_loc(fs, ino, &b, &off);
	if (err)
		return err;
	if (!*have || *at != b) {
		*have = false;
		err = ek_fs_read_blocks(fs, b, 1, blk);
		if (err)
			return err;
		*have = true;
		*at = b;
	}
	err = ek_inode_decode(fs, ino, blk + off, out);
	/* as pass 1 walked it (PR_1_UNSET_EXTENT_FL: fixed, or left under -n) */
	if ((!err || err == -EK_BADCRC) && fsck_extents_unflagged(c, out))
		out->flags |= EXT4_EXTENTS_FL;
	return err;
}

/*
 * The root of htree directory @dir, read into c->dxbuf and checked before
 * the entry walk, which then hashes the names by its hash version:
 * 1 when the index is usable (*root filled), 0 when not (a finding made,
 * or an unreadable block 0 the entry walk names), -ENOMEM.
 */
static int htree_root(struct check *c, struct dirwalk *w, const struct ek_inode *dir,
		      struct ek_dx_node *root)
{
	struct ek_fs *fs = c->fs;
	ek_blk_t pblk;
	int err;

	if (!c->dxbuf && !(c->dxbuf = ek_calloc(3, fs->blksz)))
		return -ENOMEM;
	err = ek_dir_read_block(fs, dir, 0, c->dxbuf, &pblk);
	if (err)
		return err == -ENOMEM ? err : 0;
	err = ek_dx_root_parse(fs, dir, pblk, c->dxbuf, root);
	if (err && err != -EK_BADCRC && w->rb && root->fault != EK_DX_OK && root->fault != EK_DX_CSUM) {
		/* its fix rebuilds the directory from every entry: after the walk */
		w->root_fault = root->fault;
		w->root_fault_blk = pblk;
		snprintf(w->root_fault_msg, sizeof(w->root_fault_msg), "%s", ek_error_msg(err));
		return 0;
	}
	if (err && err != -EK_BADCRC) {
		dx_report_fault(c, w, pblk, root, err);
		return 0;
	}
	/* casefolded names hash folded (c->fold); encrypted ones: the stored hash */
	w->dx_version = ek_dx_hash_version(fs, root->hash_version);
	return 1;
}

/*
 * After the entry walk of htree directory @dir noted its leaves' hashes:
 * walk the index from @root (in c->dxbuf), then name the blocks in use
 * that no entry named.
 */
static int htree_check(struct check *c, struct dirwalk *w, const struct ek_inode *dir,
		       const struct ek_dx_node *root)
{
	struct ek_fs *fs = c->fs;
	struct dxcheck x = { .c = c, .w = w, .dir = dir, .levels = root->indirect_levels,
			     .nblocks = (dir->size + fs->blksz - 1) >> fs->log_blksz };
	int err;

	if (c->dxl_unsorted)
		qsort(c->dxl, c->ndxl, sizeof(*c->dxl), cmp_dxleaf);
	err = ek_map_walk(fs, dir, dx_run_cb, &x);
	if (err == -ENOMEM)
		goto out;
	err = 0;	/* a damaged map: the runs read so far (pass 1 named it) */
	if (x.nruns > 1)
		qsort(x.runs, x.nruns, sizeof(*x.runs), cmp_dxrun);
	for (size_t i = 0; i < x.nruns; i++) {
		x.runs[i].rank = x.nmapped;
		x.nmapped += x.runs[i].len;
	}
	/* mapped blocks lie in the filesystem: the bitmap is bounded by its size */
	x.named = ek_calloc((x.nmapped + 7) / 8, 1);
	if (!x.named) {
		err = -ENOMEM;
		goto out;
	}
	if (x.nruns && x.runs[0].lblk == 0)
		x.named[0] |= 1;	/* the root */
	err = dx_walk(&x, root, 0, 0, 0, UINT32_MAX);
	for (size_t i = 0; i < x.nruns && err == 0; i++)
		for (uint64_t k = 0; k < x.runs[i].len; k++) {
			uint64_t rank = x.runs[i].rank + k;

			if (ek_bit_test(x.named, rank))
				continue;
			if (fsck_report(c, EK_PR_HTREE_UNREFERENCED, &(struct ek_finding){ .ino = dir->ino,
					.blk = x.runs[i].pblk + k, .has_blk = true, .group = -1 },
					dir->ino, (unsigned)(x.runs[i].lblk + k),
					(unsigned long long)(x.runs[i].pblk + k)))
				fsck_fix_done(c, dir_rebuild(w));
		}
out:
	free(x.runs);
	free(x.named);
	return err < 0 ? err : 0;
}

int fsck_pass2(struct check *c)
{
	struct ek_fs *fs = c->fs;
	uint8_t *iblk = ek_malloc(fs->blksz);
	ek_blk_t iblk_at = 0;
	bool iblk_have = false;
	struct rbuf rb = { 0 };
	struct blkmemo memo = { 0 };
	ek_ino_t lost_found = 0;
	int ret = 0;

	if (!iblk || fsck_paths_pass2(c)) {
		free(iblk);
		return -ENOMEM;
	}
	if (c->ndups > 1)	/* for shared_block() */
		qsort(c->dups, c->ndups, sizeof(*c->dups), ek_cmp_u64);

	for (size_t d = 0; d < c->ndirs; d++) {
		ek_ino_t ino = c->dirs[d].ino;
		struct dirwalk w = { .c = c, .dir = ino, .di = &c->dirs[d], .dx_version = -1,
				     .rb = c->ws ? &rb : NULL, .root_fault = -1,
				     .lost_found = &lost_found, .hole = -1,
				     .memo = c->ws ? &memo : NULL };
		struct ek_dx_node root;
		struct ek_inode ei;
		int err, dx = 0;
		bool walked = false, dots;
		char dmsg[320];

		fsck_units(c, 2, d, c->ndirs);
		memo.pre.n = 0;
		if ((fsck_iflags(c, ino) & (IN_USE | IS_DIR)) != (IN_USE | IS_DIR))
			continue;
		c->sum->dirs++;
		c->nnames = c->names_len = 0;
		if (c->name_slots)
			memset(c->name_slots, 0, c->nslots * sizeof(*c->name_slots));
		c->ndxl = 0;
		c->dxl_unsorted = false;
		rb.n = rb.len = rb.ndots = 0;
		err = dir_inode_read(c, ino, iblk, &iblk_at, &iblk_have, &ei);
		w.encrypted = ei.flags & EXT4_ENCRYPT_FL;
		c->fold = (!err || err == -EK_BADCRC) && ek_dir_folds(fs, ei.flags);
		w.ei = &ei;
		w.policy = c->crypt ? c->crypt[ino] : 0;
		if (!err || err == -EK_BADCRC) {
			int serr = salvage_blocks(&w);

			if (serr == 1) {	/* its map may have changed */
				ek_inode_release(&ei);
				iblk_have = false;
				err = dir_inode_read(c, ino, iblk, &iblk_at, &iblk_have, &ei);
				serr = err == -ENOMEM ? err : 0;	/* else named below */
			}
			if (serr) {
				ek_inode_release(&ei);
				ret = serr;
				break;
			}
		}
		if ((!err || err == -EK_BADCRC) && ek_dir_is_htree(fs, &ei))
			dx = htree_root(c, &w, &ei, &root);
		if (dx < 0) {
			ek_inode_release(&ei);
			ret = dx;
			break;
		}
		if (!err || err == -EK_BADCRC) {
			walked = true;
			/* as e2fsck's pass 2, every block: an unwritten one
			 * is DIR_UNWRITTEN's (its fix marks it written) */
			/* (the blocks salvage_blocks read, unless a commit came since;
			 * pass2_entry's fixes commit nothing) */
			bool memo_valid = memo.pre.n && memo.commits == c->sum->commits;

			err = ek_dir_iterate_preread(fs, &ei, EK_DIR_INCLUDE_EMPTY | EK_DIR_READ_UNWRITTEN,
						     pass2_entry, &w, memo_valid ? &memo.pre : NULL);
		}
		if (err == -ENOMEM) {
			ek_inode_release(&ei);
			ret = err;
			break;
		}
		if (err)	/* before the repairs below record errors of their own */
			snprintf(dmsg, sizeof(dmsg), "%s", ek_error_msg(err));
		/* repairing: what the walk put off (see htree_root, pass2_entry) */
		if (w.root_fault >= 0)
			dx_report(c, &w, w.root_fault_blk, (unsigned)w.root_fault, w.root_fault_msg);
		for (size_t i = 0; w.rb && i < rb.n; i++) {
			char name[256];

			if (!rb.v[i].dup)
				continue;
			memcpy(name, rb.names + rb.v[i].at, rb.v[i].len);
			name[rb.v[i].len] = 0;
			if (fsck_report(c, EK_PR_ENTRY_DUPLICATE, &(struct ek_finding){ .ino = rb.v[i].ino,
					.dir = ino, .group = -1, .entry_name = name,
					.entry_len = rb.v[i].len }, name, ino))
				fsck_fix_done(c, dir_rebuild(&w));
		}
		/* '.' and '..' first in block 0, NUL after them (e2fsck's pass 2) */
		if (w.dot_unterminated &&
		    fsck_report(c, EK_PR_ENTRY_DOT_UNTERMINATED, AT_INODE(ino), w.dot_unterminated, ino))
			fsck_fix_done(c, dir_rebuild(&w));
		/* (a block 0 whose first entry is refused: named as damage, as
		 * e2fsck -n gives up such a block; salvaged, its entries count) */
		dots = walked && !ek_inode_has_inline(&ei) && (w.nfirst || !w.mapped);
		if (dots && !w.dot_ok && fsck_report(c, EK_PR_DIR_NO_DOT, AT_INODE(ino), ino))
			fsck_fix_done(c, dir_rebuild(&w));
		if (dots && !w.dotdot_ok && fsck_report(c, EK_PR_DIR_NO_DOTDOT, AT_INODE(ino), ino))
			fsck_fix_done(c, dir_rebuild(&w));
		/* a hole in a linear directory (an htree's is damage the walk
		 * names), as e2fsck's pass 2 but with largedir, which allows them */
		if (walked && w.hole >= 0 && !ek_dir_is_htree(fs, &ei) &&
		    !ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR) &&
		    fsck_report(c, EK_PR_DIR_HOLE, AT_INODE(ino), ino, (unsigned long long)w.hole))
			fsck_fix_done(c, dir_rebuild(&w));
		/* damaged blocks: the directory rebuilt from the entries read,
		 * with new checksums (the walk reads past a bad entry's block) */
		if (err && fsck_report_if(c, walked && (err == -EK_CORRUPT || err == -EK_BADCRC) &&
					  !ek_inode_has_inline(&ei),
					  EK_PR_DIR_DAMAGED, AT_INODE(ino), dmsg))
			fsck_fix_done(c, dir_rebuild(&w));
		err = 0;
		if (dx && !(w.rebuild_tried && !w.rebuild_err))
			err = htree_check(c, &w, &ei, &root);
		/* -D: a directory the checks left alone, rebuilt as e2fsck -D
		 * does (one the lib cannot rebuild, e.g. casefolded and
		 * encrypted, is left;
		 * lost+found keeps the empty blocks that reconnecting needs) */
		if (!err && c->ws && walked && !w.rebuild_tried && ino != lost_found &&
		    !ek_inode_has_inline(&ei)) {
			/* (never halting, pass 3A's indexing is done here, as -D's
			 * rebuilds are, while the entries are at hand; but not for
			 * the root, which pass 3 may give a lost+found entry (it
			 * adds to linear directories only), nor for a directory
			 * without '..', which pass 3 names as it is) */
			bool early = c->o->never_halts && ino != EXT4_ROOT_INO && w.di->parent &&
				     pass3a_indexes(c, &ei);

			if (c->o->optimize_dirs || early) {
				if (!dir_rebuild(&w))
					c->sum->dirs_optimized++;
			} else if (pass3a_indexes(c, &ei)) {
				err = fsck_blk_push(&c->pass3a, &c->npass3a, &c->pass3a_cap, ino);
			}
		}
		ek_inode_release(&ei);
		if (err == -ENOMEM) {
			ret = err;
			break;
		}
		/* between directories (rebuilt ones: -D, pass 3A) */
		if ((ret = fsck_flush(c)))
			break;
	}
	free(iblk);
	free(rb.v);
	free(rb.names);
	free(rb.dots);
	free(memo.pblk);
	free(memo.data);
	if (!ret)
		fsck_units(c, 2, c->ndirs, c->ndirs);
	return ret;
}

/* ---- pass 3A: indexing the directories pass 2 queued ------------------------------ */

/* an entry of a directory pass 3A rebuilds, kept with its inode's type */
static int pass3a_entry(void *arg, const struct ek_dirent *de)
{
	struct dirwalk *w = arg;
	uint8_t type = fsck_mode_ftype(fsck_imode(w->c, de->ino));
	int seen = dot_or_dotdot(de) ? 0 : name_seen(w->c, de->name, de->name_len);

	if (seen < 0)
		return seen;
	return rb_keep(w, de, type ? type : de->file_type, seen);
}

/*
 * Pass 3A's builder: a thread that builds one directory's blocks
 * (ek_dir_built_make: hashing, sorting and laying out its names, a third
 * of the pass) while the caller writes the directory before it, commits
 * and reads the next.  It reads only its own copy of the filesystem's
 * scalar fields, which a commit's refresh of c->fs does not touch.
 * Without a second CPU the caller builds at the hand-over.
 */
struct builder {
	struct ek_fs fs;		/* c->fs's scalars; its pointers NULL */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ek_dir_built *job;	/* handed over, not yet built */
	struct ek_dirent_new *ents;
	bool threaded, stop;
	pthread_t tid;
};

static void *builder_main(void *arg)
{
	struct builder *b = arg;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!b->job && !b->stop)
			pthread_cond_wait(&b->cond, &b->lock);
		if (!b->job)
			break;
		pthread_mutex_unlock(&b->lock);
		ek_dir_built_make(&b->fs, b->job, b->ents);
		pthread_mutex_lock(&b->lock);
		b->job = NULL;
		pthread_cond_broadcast(&b->cond);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

static void builder_start(struct builder *b, const struct ek_fs *fs, size_t ndirs)
{
	memset(b, 0, sizeof(*b));
	b->fs = *fs;
	b->fs.io = NULL;
	b->fs.raw_sb = NULL;
	b->fs.groups = NULL;
	b->fs.gd_raw = NULL;
	b->fs.block_bitmaps = b->fs.inode_bitmaps = NULL;
	memset(b->fs.warnings, 0, sizeof(b->fs.warnings));
	b->fs.nwarnings = 0;
	b->fs.itcache = NULL;
	if (ndirs < 2 || !ek_threads_wanted())
		return;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	b->threaded = !pthread_create(&b->tid, NULL, builder_main, b);
	if (!b->threaded) {
		pthread_cond_destroy(&b->cond);
		pthread_mutex_destroy(&b->lock);
	}
}

/* wait until the builder is idle */
static void builder_wait(struct builder *b)
{
	if (!b->threaded)
		return;
	pthread_mutex_lock(&b->lock);
	while (b->job)
		pthread_cond_wait(&b->cond, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

/* *@job built from @ents: by the builder (the builder idle), or here */
static void builder_hand(struct builder *b, struct ek_dir_built *job, struct ek_dirent_new *ents)
{
	if (!b->threaded) {
		ek_dir_built_make(&b->fs, job, ents);
		return;
	}
	pthread_mutex_lock(&b->lock);
	b->job = job;
	b->ents = ents;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static void builder_end(struct builder *b)
{
	if (!b->threaded)
		return;
	builder_wait(b);
	pthread_mutex_lock(&b->lock);
	b->stop = true;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->tid, NULL);
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
}

/* one directory of pass 3A, from its read to its rewrite */
struct p3dir {
	struct dirwalk w;
	struct ek_inode ei;
	struct rbuf rb;		/* (its buffers kept from directory to directory) */
	struct rebuild r;
	struct ek_dir_built built;
	bool pending;		/* read, prepared and handed to the builder */
};

/*
 * Directory @ino read into @d and its rebuild prepared: 0, 1 when it is
 * left as it is (changed since pass 2, unreadable, or not rebuilt), or
 * -ENOMEM.
 */
static int pass3a_read(struct check *c, ek_ino_t ino, struct p3dir *d, uint8_t *iblk,
		       ek_blk_t *iblk_at, bool *iblk_have)
{
	struct ek_fs *fs = c->fs;
	struct dinfo *di = fsck_dinfo_of(c, ino);
	struct rbuf *rb = &d->rb;
	int err;

	if (!di || ino == c->lnf ||
	    (fsck_iflags(c, ino) & (IN_USE | IS_DIR)) != (IN_USE | IS_DIR))
		return 1;
	d->w = (struct dirwalk){ .c = c, .dir = ino, .di = di, .rb = rb, .dx_version = -1,
				 .root_fault = -1, .hole = -1 };
	rb->n = rb->len = rb->ndots = 0;
	c->nnames = c->names_len = 0;
	if (c->name_slots)
		memset(c->name_slots, 0, c->nslots * sizeof(*c->name_slots));
	err = dir_inode_read(c, ino, iblk, iblk_at, iblk_have, &d->ei);
	if (!err && !pass3a_indexes(c, &d->ei))
		err = 1;	/* changed since pass 2 */
	if (!err) {
		d->w.ei = &d->ei;
		d->w.encrypted = d->ei.flags & EXT4_ENCRYPT_FL;
		d->w.policy = c->crypt ? c->crypt[ino] : 0;
		c->fold = ek_dir_folds(fs, d->ei.flags);
		err = ek_dir_iterate(fs, &d->ei, 0, pass3a_entry, &d->w);
	}
	if (!err) {
		d->w.rebuild_tried = true;
		err = rebuild_prepare(&d->w, &d->r);
		if (err)
			rebuild_release(&d->r);
	}
	if (err) {
		ek_inode_release(&d->ei);
		return err == -ENOMEM ? err : 1;
	}
	d->built = (struct ek_dir_built){ .ino = ino, .parent = d->r.parent,
					  .gen = d->ei.generation, .flags = d->ei.flags,
					  .n = d->r.n };
	return 0;
}

/* what @d holds of the directory pending, freed */
static void p3dir_drop(struct p3dir *d)
{
	rebuild_release(&d->r);
	ek_dir_built_release(&d->built);
	ek_inode_release(&d->ei);
	d->pending = false;
}

/* @d's rewrite, once the builder is done with it; then a commit when one is due */
static int pass3a_write(struct check *c, struct p3dir *d)
{
	int err = rebuild_finish(&d->w, &d->r, &d->built);

	if (!err)
		c->sum->dirs_optimized++;
	p3dir_drop(d);
	return err == -ENOMEM ? err : fsck_flush(c);
}

/*
 * e2fsck's pass 3A: the directories pass 2 queued (pass3a_indexes) read
 * again, as passes 2 and 3 left them, and rebuilt with an index.  One whose
 * entries no longer read cleanly is left as it is.  A pipeline: directory
 * k is read and prepared, handed to the builder, and then k-1, built
 * meanwhile, is written (so k's names are hashed while k-1 is written and
 * committed and k+1 read).
 */
int fsck_pass3a(struct check *c)
{
	struct ek_fs *fs = c->fs;
	struct p3dir d[2] = { 0 };
	struct builder b;
	uint8_t *iblk;
	ek_blk_t iblk_at = 0;
	bool iblk_have = false;
	int ret = 0;

	/* (named as e2fsck names it, also when pass 2 did the work) */
	if (c->ws && (c->npass3a || c->sum->dirs_optimized) && c->o->progress)
		c->o->progress(c->o->arg, EK_FSCK_PASS_3A);
	if (!c->npass3a || !c->ws)
		return 0;
	iblk = ek_malloc(fs->blksz);
	if (!iblk)
		return -ENOMEM;
	builder_start(&b, fs, c->npass3a);
	for (size_t k = 0, cur = 0; k < c->npass3a && !ret; k++) {
		struct p3dir *now = &d[cur], *prev = &d[cur ^ 1];
		int err = pass3a_read(c, (ek_ino_t)c->pass3a[k], now, iblk, &iblk_at, &iblk_have);

		if (err < 0) {
			/* (out of memory: the one built before is not written, the run stops) */
			ret = err;
			break;
		}
		builder_wait(&b);
		if (!err) {
			builder_hand(&b, &now->built, now->r.ents);
			now->pending = true;
			cur ^= 1;
		}
		if (prev->pending)
			ret = pass3a_write(c, prev);
	}
	builder_end(&b);
	for (unsigned i = 0; i < 2; i++) {
		if (d[i].pending && !ret)
			ret = pass3a_write(c, &d[i]);
		if (d[i].pending)
			p3dir_drop(&d[i]);
		free(d[i].rb.v);
		free(d[i].rb.names);
		free(d[i].rb.dots);
	}
	free(iblk);
	return ret;
}
