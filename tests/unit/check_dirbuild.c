// SPDX-License-Identifier: MIT
/*
 * check_dirbuild.c - ek_dir_build(): a new directory's blocks built in
 * memory, then read back with dir.c's own parsers (ek_dirent_check,
 * ek_dx_root_parse, ek_dx_node_parse): every entry present once, rec_len
 * chains packed and tiling each block, checksums, hash order and ranges,
 * the block order, every name found through the index as the kernel's
 * dx_probe + ext4_htree_next_block would, runs of equal hashes across
 * leaves, the linear fallback without dir_index, 1, 4 and 64 KiB blocks,
 * three levels with largedir and the error without it.
 */
#include "unit.h"

#define DIR_INO	11
#define PARENT	2
#define GEN	0x5eed1234u
#define MAX_LEVELS 3

static struct unit_fs U;
static uint32_t BS;

static void fs_setup(uint32_t blksz, bool csum, uint32_t compat, uint32_t incompat,
		     uint8_t hash_version, bool unsigned_hash)
{
	unit_fs_init(&U, blksz, 256, compat | EXT4_FEATURE_COMPAT_EXT_ATTR, incompat,
		     csum ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0);
	BS = blksz;
	if (blksz == 65536) {		/* a whole inode table block */
		U.sb.s_inodes_per_group = cpu_to_le32(256);
		U.sb.s_inodes_count = cpu_to_le32(256);
	}
	U.sb.s_def_hash_version = hash_version;
	U.sb.s_flags = cpu_to_le32(unsigned_hash ? EXT2_FLAGS_UNSIGNED_HASH : EXT2_FLAGS_SIGNED_HASH);
	ck_assert_msg(unit_fs_open(&U, 0) == 0, "open: %s", ek_error_msg(-EK_CORRUPT));
}

static void fs_std(uint32_t blksz, bool csum)
{
	fs_setup(blksz, csum, EXT4_FEATURE_COMPAT_DIR_INDEX, EXT4_FEATURE_INCOMPAT_FILETYPE,
		 EXT4_HASH_HALF_MD4, false);
}

/*
 * Check records every ck_assert* it passes (a write to its pipe): on the
 * million checks of a big directory that costs most of the run, so the
 * walks below only call into Check when something fails.
 */
#define REQ(cond, ...)	do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)
#define REQ_OP(a, op, b) \
	REQ((a) op (b), "%s:%d: '%s %s %s' failed: %llu vs %llu", __func__, __LINE__, \
	    #a, #op, #b, (unsigned long long)(a), (unsigned long long)(b))
#define REQ_T(c)	REQ(c, "%s:%d: '%s' failed", __func__, __LINE__, #c)

/* ---- entry sets ------------------------------------------------------------ */

struct entset {
	struct ek_dirent_new *e;
	size_t n, cap;
	char *arena;		/* names, 256 bytes each */
};

static void set_init(struct entset *s, size_t cap)
{
	s->e = calloc(cap ? cap : 1, sizeof(*s->e));
	s->arena = calloc(cap ? cap : 1, 256);
	s->n = 0;
	s->cap = cap;
	REQ_T(s->e && s->arena);
}

static void set_free(struct entset *s)
{
	free(s->e);
	free(s->arena);
}

static void set_add(struct entset *s, const char *name, size_t len)
{
	size_t i = s->n++;
	char *p = s->arena + 256 * i;

	REQ_T(i < s->cap && len >= 1 && len <= 255);
	memcpy(p, name, len);
	s->e[i].name = p;
	s->e[i].name_len = (uint8_t)len;
	s->e[i].file_type = 1 + i % 7;
	s->e[i].ino = 12 + i % 20;	/* within the unit fs's 32 inodes */
}

/* @n distinct names of varying length (at least @minlen, at most 255) */
static void set_gen(struct entset *s, size_t n, unsigned minlen, unsigned spread)
{
	char buf[256];

	set_init(s, n);
	for (size_t i = 0; i < n; i++) {
		int k = snprintf(buf, sizeof(buf), "f%zu.", i);
		size_t len = minlen + (i * 37) % (spread ? spread : 1);

		if (len < (size_t)k)
			len = k;
		if (len > 255)
			len = 255;
		for (size_t j = k; j < len; j++)
			buf[j] = 'a' + (i + j) % 26;
		set_add(s, buf, len);
	}
}

static uint32_t name_hash(const char *name, size_t len)
{
	uint32_t h, minor;
	int err = ek_dx_hash(ek_dx_hash_version(U.fs, U.fs->sb.def_hash_version),
			     name, len, U.fs->sb.hash_seed, &h, &minor);

	REQ_OP(err, ==, 0);
	return h;
}

/* ---- reading the result back ------------------------------------------------ */

struct built {
	uint8_t *b;
	uint32_t nblocks;
	bool indexed;
	struct ek_inode di;	/* what the directory inode would say */
	/* what the checks found */
	unsigned levels;
	uint32_t nleaves, conts;
};

/* the slack build() asks for, in percent of a leaf (0: packed full) */
static unsigned build_slack;

static uint32_t build_slack_bytes(void)
{
	return (BS - (U.fs->has_csum ? 12 : 0)) * build_slack / 100;
}

static int build(struct built *o, struct entset *s)
{
	int err;

	memset(o, 0, sizeof(*o));
	err = ek_dir_build(U.fs, DIR_INO, GEN, 0, PARENT, build_slack, false, s->e, s->n, &o->b, &o->nblocks, &o->indexed);
	o->di.ino = DIR_INO;
	o->di.generation = GEN;
	o->di.mode = 040755;
	o->di.size = (uint64_t)o->nblocks * BS;
	o->di.flags = o->indexed ? EXT4_INDEX_FL : 0;
	return err;
}

static uint32_t rl_needed(uint32_t len)
{
	return (8 + len + 3) & ~3u;
}

static uint8_t *blk(const struct built *o, uint32_t l)
{
	REQ_OP(l, <, o->nblocks);
	return o->b + (size_t)l * BS;
}

/* one entry as a leaf walk sees it */
struct seen {
	uint32_t off, ino, rl;
	uint8_t len, ft;
	const char *name;
};

/*
 * Walk leaf @l: tail and checksum, then the rec_len chain (each entry
 * checked by ek_dirent_check, packed, the last one reaching the end).
 * Entries into @out (room for BS / 12); returns their number.
 */
static unsigned walk_leaf(const struct built *o, uint32_t l, struct seen *out)
{
	const uint8_t *b = blk(o, l);
	uint32_t size = BS, off = 0, rl;
	unsigned n = 0;

	if (U.fs->has_csum) {
		const uint8_t *t = b + BS - 12;

		REQ_OP(get_le32(t), ==, 0);
		REQ_OP(get_le16(t + 4), ==, 12);
		REQ_OP(t[6], ==, 0);
		REQ_OP(t[7], ==, EXT4_FT_DIR_CSUM);
		REQ_OP(get_le32(t + 8), ==, ek_dir_leaf_csum(U.fs, &o->di, b));
		size -= 12;
	}
	while (off < size) {
		REQ(ek_dirent_check(U.fs, DIR_INO, l, b, off, size, false, &rl) == 0,
			      "leaf %u: %s", l, ek_error_msg(-EK_CORRUPT));
		out[n] = (struct seen){ .off = off, .ino = get_le32(b + off), .rl = rl,
					.len = b[off + 6], .ft = b[off + 7],
					.name = (const char *)b + off + 8 };
		REQ_OP(out[n].ino, !=, 0);
		if (off + rl < size)
			REQ_OP(rl, ==, rl_needed(out[n].len));
		n++;
		off += rl;
	}
	REQ_OP(off, ==, size);
	return n;
}

static void check_dot(const struct seen *d, const char *name, uint32_t ino)
{
	bool ft = U.fs->sb.incompat & EXT4_FEATURE_INCOMPAT_FILETYPE;

	REQ_OP(d->len, ==, strlen(name));
	REQ_T(!memcmp(d->name, name, d->len));
	REQ_OP(d->ino, ==, ino);
	REQ_OP(d->ft, ==, ft ? EXT4_FT_DIR : 0);
}

static void check_entry(const struct seen *d, const struct ek_dirent_new *e)
{
	bool ft = U.fs->sb.incompat & EXT4_FEATURE_INCOMPAT_FILETYPE;

	REQ_OP(d->len, ==, e->name_len);
	REQ_T(!memcmp(d->name, e->name, e->name_len));
	REQ_OP(d->ino, ==, e->ino);
	REQ_OP(d->ft, ==, ft ? e->file_type : 0);
}

/* linear: '.', '..', then every entry in the caller's order */
static void verify_linear(struct built *o, const struct entset *s)
{
	struct seen *v = calloc(BS / 12 + 1, sizeof(*v));
	size_t k = 0;

	REQ_T(!o->indexed);
	for (uint32_t l = 0; l < o->nblocks; l++) {
		unsigned n = walk_leaf(o, l, v), i = 0;

		if (l == 0) {
			REQ_OP(n, >=, 2);
			check_dot(&v[0], ".", DIR_INO);
			check_dot(&v[1], "..", PARENT);
			REQ_OP(v[0].rl, ==, 12);
			i = 2;
		}
		REQ_T(l == 0 || n > 0);
		for (; i < n; i++) {
			REQ_OP(k, <, s->n);
			check_entry(&v[i], &s->e[k++]);
		}
		/* filled: the next block's first entry did not fit here */
		if (l + 1 < o->nblocks) {
			uint32_t left = BS - (U.fs->has_csum ? 12 : 0) - v[n - 1].off -
					rl_needed(v[n - 1].len);

			REQ_OP(left, <, rl_needed(s->e[k].name_len));
		}
	}
	REQ_OP(k, ==, s->n);
	free(v);
}

static int cmp_ent(const void *pa, const void *pb)
{
	const struct ek_dirent_new *a = *(struct ek_dirent_new * const *)pa;
	const struct ek_dirent_new *b = *(struct ek_dirent_new * const *)pb;

	if (a->name_len != b->name_len)
		return (int)a->name_len - (int)b->name_len;
	return memcmp(a->name, b->name, a->name_len);
}

/* per leaf, for the checks across leaf boundaries */
struct leafinfo {
	uint32_t dxhash;	/* the index entry's hash (continuation bit included) */
	uint32_t first, second, last;	/* entry hashes */
	unsigned n;
	uint32_t first_rl, left;	/* first entry's rec_len; bytes after the packed entries */
	uint32_t last_rl;		/* the last entry's packed rec_len */
};

struct walk {
	struct built *o;
	const struct entset *s;
	struct ek_dirent_new **sorted;
	uint8_t *found, *visited;
	struct leafinfo *leaves;
	struct seen *v;
	uint32_t next_leaf;
	uint32_t prev_hash;
};

static void visit(struct walk *w, uint32_t l, unsigned depth, uint32_t lo, uint64_t hi)
{
	REQ_OP(l, <, w->o->nblocks);
	REQ_OP(l, !=, 0);
	REQ(!w->visited[l], "block %u reached twice", l);
	w->visited[l] = 1;

	if (depth < w->o->levels) {
		struct ek_dx_node n;

		REQ(ek_dx_node_parse(U.fs, &w->o->di, l, blk(w->o, l), &n) == 0,
			      "node %u: %s", l, ek_error_msg(-EK_CORRUPT));
		REQ_OP(n.limit, ==, n.expect_limit);
		if (n.count > 1) {
			REQ_OP(ek_dx_entry_hash(&n, 1), >=, lo);
			REQ_OP(ek_dx_entry_hash(&n, n.count - 1), <, hi);
		}
		for (unsigned i = 0; i < n.count; i++)
			visit(w, ek_dx_entry_block(&n, i), depth + 1,
			      i ? ek_dx_entry_hash(&n, i) : lo,
			      i + 1 < n.count ? ek_dx_entry_hash(&n, i + 1) : hi);
		return;
	}

	/* a leaf: blocks 1..L in hash order */
	REQ_OP(l, ==, w->next_leaf + 1);
	struct leafinfo *li = &w->leaves[w->next_leaf++];
	unsigned n = walk_leaf(w->o, l, w->v);

	li->dxhash = lo;
	li->n = n;
	REQ_OP(n, >, 0);
	for (unsigned i = 0; i < n; i++) {
		struct ek_dirent_new key = { .name = w->v[i].name, .name_len = w->v[i].len };
		struct ek_dirent_new *kp = &key, **hit;
		uint32_t h = name_hash(w->v[i].name, w->v[i].len);

		hit = bsearch(&kp, w->sorted, w->s->n, sizeof(*w->sorted), cmp_ent);
		REQ(hit, "leaf %u: unknown name '%.*s'", l, w->v[i].len, w->v[i].name);
		REQ(!w->found[*hit - w->s->e], "'%.*s' twice", w->v[i].len, w->v[i].name);
		w->found[*hit - w->s->e] = 1;
		check_entry(&w->v[i], *hit);
		/* in the leaf's range, and in order */
		REQ_OP(h, >=, lo & ~1u);
		REQ_OP(h, <, hi);
		REQ_OP(h, >=, w->prev_hash);
		w->prev_hash = h;
		if (i == 0)
			li->first = h;
		if (i == 1)
			li->second = h;
		li->last = h;
	}
	li->first_rl = rl_needed(w->v[0].len);
	li->last_rl = rl_needed(w->v[n - 1].len);
	li->left = BS - (U.fs->has_csum ? 12 : 0) - w->v[n - 1].off - rl_needed(w->v[n - 1].len);
	if (n == 1)
		li->second = li->first + 1;	/* no second entry */
}

/*
 * Find @e through the index as the kernel does: dx_probe() down to a leaf,
 * then ext4_htree_next_block() while the next index hash continues @e's.
 */
static void lookup(const struct built *o, const struct ek_dirent_new *e)
{
	struct ek_dx_node f[MAX_LEVELS];
	unsigned at[MAX_LEVELS], levels, d;
	uint32_t h = name_hash(e->name, e->name_len);

	REQ_OP(ek_dx_root_parse(U.fs, &o->di, 0, o->b, &f[0]), ==, 0);
	levels = f[0].indirect_levels;
	at[0] = ek_dx_search(&f[0], h);
	for (d = 1; d <= levels; d++) {
		REQ_OP(ek_dx_node_parse(U.fs, &o->di, 0,
					blk(o, ek_dx_entry_block(&f[d - 1], at[d - 1])), &f[d]), ==, 0);
		at[d] = ek_dx_search(&f[d], h);
	}
	for (uint32_t steps = 0;; steps++) {
		const uint8_t *b = blk(o, ek_dx_entry_block(&f[levels], at[levels]));
		uint32_t size = BS - (U.fs->has_csum ? 12 : 0);
		int lvl;

		REQ_OP(steps, <, o->nblocks);
		for (uint32_t off = 0, rl; off < size; off += rl) {
			rl = ek_rec_len_from_disk(get_le16(b + off + 4), BS);
			REQ_OP(rl, >=, 12);
			if (b[off + 6] == e->name_len && !memcmp(b + off + 8, e->name, e->name_len)) {
				REQ_OP(get_le32(b + off), ==, e->ino);
				return;
			}
		}
		for (lvl = levels; lvl >= 0 && at[lvl] + 1 >= f[lvl].count; lvl--)
			;
		REQ(lvl >= 0 && (ek_dx_entry_hash(&f[lvl], at[lvl] + 1) & ~1u) == h,
			      "'%.*s' (hash 0x%x) not found through the index", e->name_len, e->name, h);
		at[lvl]++;
		for (lvl++; lvl <= (int)levels; lvl++) {
			REQ_OP(ek_dx_node_parse(U.fs, &o->di, 0,
						blk(o, ek_dx_entry_block(&f[lvl - 1], at[lvl - 1])),
						&f[lvl]), ==, 0);
			at[lvl] = 0;
		}
	}
}

static void verify_htree(struct built *o, const struct entset *s)
{
	struct walk w = { .o = o, .s = s };
	struct ek_dx_node root;
	struct seen dots[2];
	const uint8_t *b = o->b;

	REQ_T(o->indexed);
	REQ_OP(o->nblocks, >=, 2);
	/* the root: '.' and a '..' spanning the block, then the index */
	REQ_OP(get_le16(b + 4), ==, 12);
	REQ_OP(ek_rec_len_from_disk(get_le16(b + 16), BS), ==, BS - 12);
	dots[0] = (struct seen){ .ino = get_le32(b), .len = b[6], .ft = b[7], .name = (const char *)b + 8 };
	dots[1] = (struct seen){ .ino = get_le32(b + 12), .len = b[18], .ft = b[19],
				 .name = (const char *)b + 20 };
	check_dot(&dots[0], ".", DIR_INO);
	check_dot(&dots[1], "..", PARENT);
	REQ(ek_dx_root_parse(U.fs, &o->di, 0, b, &root) == 0, "root: %s",
		      ek_error_msg(-EK_CORRUPT));
	REQ_OP(root.hash_version, ==, U.fs->sb.def_hash_version);
	REQ_OP(root.info_length, ==, 8);
	REQ_OP(root.unused_flags, ==, 0);
	REQ_OP(root.indirect_levels, <=, ek_dx_max_levels(U.fs));
	o->levels = root.indirect_levels;

	w.sorted = calloc(s->n + 1, sizeof(*w.sorted));
	w.found = calloc(s->n + 1, 1);
	w.visited = calloc(o->nblocks, 1);
	w.leaves = calloc(o->nblocks, sizeof(*w.leaves));
	w.v = calloc(BS / 12 + 1, sizeof(*w.v));
	for (size_t i = 0; i < s->n; i++)
		w.sorted[i] = &s->e[i];
	qsort(w.sorted, s->n, sizeof(*w.sorted), cmp_ent);
	for (unsigned i = 0; i < root.count; i++)
		visit(&w, ek_dx_entry_block(&root, i), 0, i ? ek_dx_entry_hash(&root, i) : 0,
		      i + 1 < root.count ? ek_dx_entry_hash(&root, i + 1) : 1ull << 32);
	for (uint32_t l = 1; l < o->nblocks; l++)
		REQ(w.visited[l], "block %u not in the index", l);
	for (size_t i = 0; i < s->n; i++)
		REQ(w.found[i], "'%.*s' missing", s->e[i].name_len, s->e[i].name);
	o->nleaves = w.next_leaf;

	/* across each leaf boundary */
	for (uint32_t l = 1; l < o->nleaves; l++) {
		const struct leafinfo *p = &w.leaves[l - 1], *c = &w.leaves[l];

		if (c->first == p->last) {
			/* a run split: only when it fills the leaf before, and flagged */
			REQ(c->dxhash == (c->first | 1), "leaf %u: split run without the continuation bit", l + 1);
			REQ(p->first == p->last, "leaf %u: a run split though it fits one leaf", l + 1);
			o->conts++;
		} else {
			REQ_OP(c->dxhash, ==, c->first);
			/* full (less than the slack left), unless the next leaf
			 * starts a run kept whole */
			if (p->left >= c->first_rl && p->left >= build_slack_bytes())
				REQ(c->second == c->first,
					      "leaf %u left %u bytes free for no reason", l, p->left);
		}
		/* the slack was there before a leaf's last entry went in */
		REQ(p->left + p->last_rl >= build_slack_bytes(),
		    "leaf %u: its last entry went in with %u bytes left, under the slack %u", l,
		    p->left + p->last_rl, build_slack_bytes());
	}
	for (size_t i = 0; i < s->n; i++)
		lookup(o, &s->e[i]);
	free(w.sorted);
	free(w.found);
	free(w.visited);
	free(w.leaves);
	free(w.v);
}

static void verify(struct built *o, const struct entset *s)
{
	if (o->indexed)
		verify_htree(o, s);
	else
		verify_linear(o, s);
}

/* ---- tests -------------------------------------------------------------------- */

static const struct { uint32_t blksz; bool csum; } geo[] = {
	{ 1024, false }, { 1024, true }, { 4096, false }, { 4096, true },
	{ 65536, false }, { 65536, true },
};

/* whatever fits one block stays one linear block, with or without dir_index */
START_TEST(test_one_block)
{
	size_t sizes[] = { 0, 1, 5 };

	fs_std(geo[_i].blksz, geo[_i].csum);
	for (unsigned k = 0; k < 3; k++) {
		struct entset s;
		struct built o;

		set_gen(&s, sizes[k], 1, 30);
		ck_assert_int_eq(build(&o, &s), 0);
		ck_assert(!o.indexed);
		ck_assert_uint_eq(o.nblocks, 1);
		verify(&o, &s);
		/* '..' ends the block when alone, else takes 12 bytes */
		ck_assert_uint_eq(ek_rec_len_from_disk(get_le16(o.b + 16), BS),
				  sizes[k] ? 12 : BS - 12 - (geo[_i].csum ? 12 : 0));
		free(o.b);
		set_free(&s);
	}
	unit_fs_done(&U);
}
END_TEST

/* the largest set that fits block 0, and one entry more */
START_TEST(test_threshold)
{
	uint32_t space;
	struct entset s;
	struct built o;
	size_t n;

	fs_std(geo[_i].blksz, geo[_i].csum);
	space = BS - 24 - (geo[_i].csum ? 12 : 0);
	n = space / 12;			/* 12-byte entries: names of 1..4 bytes */
	set_init(&s, n + 1);
	for (size_t i = 0; i <= n; i++) {
		char name[24];

		snprintf(name, sizeof(name), "%04zx", i);
		set_add(&s, name, 4);
	}
	s.n = n;
	ck_assert_int_eq(build(&o, &s), 0);
	ck_assert(!o.indexed);
	ck_assert_uint_eq(o.nblocks, 1);
	verify(&o, &s);
	free(o.b);
	s.n = n + 1;			/* block 0 overflows; one leaf holds them all */
	ck_assert_int_eq(build(&o, &s), 0);
	ck_assert(o.indexed);
	ck_assert_uint_eq(o.nblocks, 2);
	verify(&o, &s);
	ck_assert_uint_eq(o.nleaves, 1);
	free(o.b);
	set_free(&s);
	unit_fs_done(&U);
}
END_TEST

/* without dir_index: linear blocks in the caller's order; without filetype: type 0 */
START_TEST(test_linear_fallback)
{
	struct entset s;
	struct built o;

	fs_setup(geo[_i].blksz, geo[_i].csum, 0,
		 _i % 2 ? EXT4_FEATURE_INCOMPAT_FILETYPE : 0, EXT4_HASH_HALF_MD4, false);
	set_gen(&s, 3000, 1, 255);
	ck_assert_int_eq(build(&o, &s), 0);
	ck_assert(!o.indexed);
	ck_assert_uint_gt(o.nblocks, 1);
	verify(&o, &s);
	free(o.b);
	set_free(&s);
	unit_fs_done(&U);
}
END_TEST

static const struct {
	uint32_t blksz;
	bool csum;
	uint8_t hash;
	bool unsigned_hash;
	size_t n;
	unsigned minlen, spread;
	unsigned levels;
} htree_cases[] = {
	{ 1024, false, EXT4_HASH_HALF_MD4, false, 3000, 1, 40, 0 },
	{ 1024, true, EXT4_HASH_TEA, true, 3000, 1, 40, 0 },
	{ 1024, true, EXT4_HASH_LEGACY, false, 3000, 1, 40, 0 },
	{ 1024, true, EXT4_HASH_HALF_MD4, false, 20000, 1, 40, 1 },
	{ 1024, false, EXT4_HASH_TEA, false, 20000, 1, 255, 1 },
	{ 4096, true, EXT4_HASH_HALF_MD4, true, 20000, 1, 40, 0 },
	{ 4096, false, EXT4_HASH_LEGACY, true, 60000, 100, 156, 1 },
	{ 65536, true, EXT4_HASH_HALF_MD4, false, 20000, 1, 255, 0 },
	{ 65536, false, EXT4_HASH_TEA, false, 2000, 200, 56, 0 },
};

START_TEST(test_htree)
{
	struct entset s;
	struct built o;

	fs_setup(htree_cases[_i].blksz, htree_cases[_i].csum, EXT4_FEATURE_COMPAT_DIR_INDEX,
		 EXT4_FEATURE_INCOMPAT_FILETYPE, htree_cases[_i].hash, htree_cases[_i].unsigned_hash);
	set_gen(&s, htree_cases[_i].n, htree_cases[_i].minlen, htree_cases[_i].spread);
	ck_assert_int_eq(build(&o, &s), 0);
	verify(&o, &s);
	ck_assert_uint_eq(o.levels, htree_cases[_i].levels);
	free(o.b);
	set_free(&s);
	unit_fs_done(&U);
}
END_TEST

/* e2fsck -D's slack: every leaf closed once under 20% is left, so more
 * leaves than packed full; the index and every name as verify() wants */
START_TEST(test_slack)
{
	struct entset s;
	struct built full, o;

	fs_setup(htree_cases[_i].blksz, htree_cases[_i].csum, EXT4_FEATURE_COMPAT_DIR_INDEX,
		 EXT4_FEATURE_INCOMPAT_FILETYPE, htree_cases[_i].hash, htree_cases[_i].unsigned_hash);
	set_gen(&s, htree_cases[_i].n, htree_cases[_i].minlen, htree_cases[_i].spread);
	ck_assert_int_eq(build(&full, &s), 0);
	verify(&full, &s);
	build_slack = EK_HTREE_SLACK_PERCENT;
	ck_assert_int_eq(build(&o, &s), 0);
	verify(&o, &s);
	build_slack = 0;
	ck_assert_uint_gt(o.nleaves, full.nleaves);
	free(full.b);
	free(o.b);
	set_free(&s);
	unit_fs_done(&U);
}
END_TEST

/*
 * Seven 255-byte names with one legacy hash (0xeb774776; found by search):
 * three fit a 1 KiB leaf.  249 'c' then the suffix.
 */
static const char *const coll[] = { "Ro0Pea", "cUD8ha", "Qx4zla", "4WLPma", "OpZqna", "58u2oa", "qQKzva" };
#define COLL_HASH 0xeb774776u

static void add_coll(struct entset *s, unsigned k)
{
	char name[255];

	memset(name, 'c', 249);
	memcpy(name + 249, coll[k], 6);
	set_add(s, name, 255);
}

/* 255-byte fillers hashing below (@below) or above COLL_HASH */
static void add_fillers(struct entset *s, unsigned count, bool below)
{
	char name[255];

	memset(name, 'f', sizeof(name));
	for (unsigned i = 0; count; i++) {
		uint32_t h;

		snprintf(name, sizeof(name), "%c%u", below ? 'b' : 'a', i);
		name[strlen(name)] = 'f';
		h = name_hash(name, 255);
		if (h != COLL_HASH && (h < COLL_HASH) == below) {
			set_add(s, name, 255);
			count--;
		}
	}
}

static const struct {
	unsigned before, colliding, after;	/* fillers below, the run, fillers above */
	uint32_t conts;				/* continuation entries expected */
	unsigned run_leaf;			/* the leaf (1..) where the run starts */
} coll_cases[] = {
	{ 0, 7, 0, 2, 1 },	/* 3 + 3 + 1: two continuations */
	{ 1, 4, 0, 1, 2 },	/* the filler alone, then 3 + 1 */
	{ 2, 2, 2, 0, 2 },	/* f f | c c f | f: the pair kept whole */
	{ 2, 3, 0, 0, 2 },	/* f f | c c c */
	{ 0, 2, 5, 0, 1 },	/* c c f | f f f | f */
	{ 4, 7, 3, 2, 3 },
};

START_TEST(test_collision)
{
	unsigned c = _i / 2;
	struct entset s;
	struct built o;
	uint32_t h, minor;

	fs_setup(1024, _i % 2, EXT4_FEATURE_COMPAT_DIR_INDEX, EXT4_FEATURE_INCOMPAT_FILETYPE,
		 EXT4_HASH_LEGACY, false);
	set_init(&s, 32);
	for (unsigned k = 0; k < 7; k++) {
		add_coll(&s, k);
		ck_assert_int_eq(ek_dx_hash(EXT4_HASH_LEGACY, s.e[k].name, 255, NULL, &h, &minor), 0);
		ck_assert_uint_eq(h, COLL_HASH);
	}
	s.n = 0;
	/* the run last in the input, so that build order is not the caller's */
	add_fillers(&s, coll_cases[c].after, false);
	add_fillers(&s, coll_cases[c].before, true);
	for (unsigned k = 0; k < coll_cases[c].colliding; k++)
		add_coll(&s, k);
	ck_assert_int_eq(build(&o, &s), 0);
	verify(&o, &s);
	ck_assert_uint_eq(o.conts, coll_cases[c].conts);
	/* the run's first name opens its leaf */
	{
		const uint8_t *b = blk(&o, coll_cases[c].run_leaf);
		uint32_t fh;

		fh = name_hash((const char *)b + 8, b[6]);
		ck_assert_uint_eq(fh, COLL_HASH);
	}
	free(o.b);
	set_free(&s);
	unit_fs_done(&U);
}
END_TEST

static int cmp_hash_idx(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return *a < *b ? -1 : *a > *b;
}

/* keep the first @n entries of @s whose major hashes differ from all others kept */
static void distinct_hashes(struct entset *s, size_t n)
{
	uint64_t *k = calloc(s->n, sizeof(*k));
	uint8_t *drop = calloc(s->n, 1);
	size_t j = 0;

	for (size_t i = 0; i < s->n; i++)
		k[i] = (uint64_t)name_hash(s->e[i].name, s->e[i].name_len) << 32 | i;
	qsort(k, s->n, sizeof(*k), cmp_hash_idx);
	for (size_t i = 1; i < s->n; i++)
		if (k[i] >> 32 == k[i - 1] >> 32)
			drop[(uint32_t)k[i]] = 1;
	for (size_t i = 0; i < s->n && j < n; i++)
		if (!drop[i])
			s->e[j++] = s->e[i];
	ck_assert_uint_eq(j, n);
	s->n = n;
	free(k);
	free(drop);
}

/*
 * Three index levels: more leaves than root × node entries (124 × 127 at
 * 1 KiB, 123 × 126 with metadata_csum); 16200 leaves need two nodes
 * under the root.  With largedir they fit; without, the error names the
 * directory.
 */
START_TEST(test_three_levels)
{
	bool csum = _i;
	uint32_t two_levels = csum ? 123 * 126 : 124 * 127;	/* leaves */
	struct ek_dx_node root;
	struct entset s;
	struct built o;

	fs_setup(1024, csum, EXT4_FEATURE_COMPAT_DIR_INDEX,
		 EXT4_FEATURE_INCOMPAT_FILETYPE | EXT4_FEATURE_INCOMPAT_LARGEDIR,
		 EXT4_HASH_HALF_MD4, false);
	set_gen(&s, 48700, 255, 0);
	distinct_hashes(&s, 48600);	/* 3 per leaf, never a run to keep whole */
	ck_assert_int_eq(build(&o, &s), 0);
	verify(&o, &s);
	ck_assert_uint_eq(o.levels, 2);
	ck_assert_uint_eq(o.nleaves, 16200);
	ck_assert_int_eq(ek_dx_root_parse(U.fs, &o.di, 0, o.b, &root), 0);
	ck_assert_uint_eq(root.count, 2);
	free(o.b);
	unit_fs_done(&U);

	fs_setup(1024, csum, EXT4_FEATURE_COMPAT_DIR_INDEX, EXT4_FEATURE_INCOMPAT_FILETYPE,
		 EXT4_HASH_HALF_MD4, false);
	ck_assert_int_eq(build(&o, &s), -ENOSPC);
	ck_assert_ptr_null(o.b);
	ck_assert_uint_eq(o.nblocks, 0);
	ck_assert_msg(strstr(ek_error_msg(-ENOSPC), "directory inode 11"), "%s",
		      ek_error_msg(-ENOSPC));
	/* two levels hold exactly that many leaves, and not one more */
	s.n = two_levels * 3;
	ck_assert_int_eq(build(&o, &s), 0);
	verify(&o, &s);
	ck_assert_uint_eq(o.levels, 1);
	ck_assert_uint_eq(o.nleaves, two_levels);
	free(o.b);
	s.n++;
	ck_assert_int_eq(build(&o, &s), -ENOSPC);
	set_free(&s);
	unit_fs_done(&U);
}
END_TEST

START_TEST(test_bad_input)
{
	struct entset s;
	struct built o;

	fs_std(1024, false);
	set_init(&s, 3);
	set_add(&s, "a", 1);
	set_add(&s, "..", 2);
	ck_assert_int_eq(build(&o, &s), -EINVAL);
	ck_assert_ptr_null(o.b);
	s.e[1].name = ".";
	s.e[1].name_len = 1;
	ck_assert_int_eq(build(&o, &s), -EINVAL);
	s.e[1].name_len = 0;
	ck_assert_int_eq(build(&o, &s), -EINVAL);
	set_free(&s);
	unit_fs_done(&U);

	/* siphash (casefolded + encrypted) can't be a new directory's default */
	fs_setup(1024, false, EXT4_FEATURE_COMPAT_DIR_INDEX, EXT4_FEATURE_INCOMPAT_FILETYPE,
		 EXT4_HASH_SIPHASH, false);
	set_gen(&s, 200, 10, 10);
	ck_assert_int_eq(build(&o, &s), -EK_UNSUPP);
	ck_assert_ptr_null(o.b);
	s.n = 3;			/* one linear block needs no hash */
	ck_assert_int_eq(build(&o, &s), 0);
	verify(&o, &s);
	free(o.b);
	set_free(&s);
	unit_fs_done(&U);
}
END_TEST

static Suite *dirbuild_suite(void)
{
	Suite *s = suite_create("dirbuild");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_one_block, 0, sizeof(geo) / sizeof(geo[0]));
	tcase_add_loop_test(tc, test_threshold, 0, sizeof(geo) / sizeof(geo[0]));
	tcase_add_loop_test(tc, test_linear_fallback, 0, sizeof(geo) / sizeof(geo[0]));
	tcase_add_loop_test(tc, test_htree, 0, sizeof(htree_cases) / sizeof(htree_cases[0]));
	tcase_add_loop_test(tc, test_slack, 0, sizeof(htree_cases) / sizeof(htree_cases[0]));
	tcase_add_loop_test(tc, test_collision, 0, 2 * sizeof(coll_cases) / sizeof(coll_cases[0]));
	tcase_add_loop_test(tc, test_three_levels, 0, 2);
	tcase_add_test(tc, test_bad_input);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(dirbuild_suite)
