// SPDX-License-Identifier: MIT
/*
 * check_dir.c - directories: linear, htree and inline iteration, lookup,
 * readlink and path resolution, on blocks built in memory; a table of
 * malformed cases reaches every ek_corrupt()/ek_badcrc() site of dir.c.
 */
#include "unit.h"

#define GEN	0x5eed1234u	/* i_generation of every test inode (csum seed) */
#define DATA	100		/* first physical block used for directory data */

static struct unit_fs U;
static uint32_t BS;

static void fs_setup(uint32_t blksz, bool csum, uint32_t incompat)
{
	unit_fs_init(&U, blksz, 256,
		     EXT4_FEATURE_COMPAT_DIR_INDEX | EXT4_FEATURE_COMPAT_EXT_ATTR,
		     EXT4_FEATURE_INCOMPAT_FILETYPE | incompat,
		     csum ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0);
	BS = blksz;
	if (blksz == 65536) {		/* a whole inode table block */
		U.sb.s_inodes_per_group = cpu_to_le32(256);
		U.sb.s_inodes_count = cpu_to_le32(256);
	}
	ck_assert_msg(unit_fs_open(&U, 0) == 0, "open: %s", ek_error_msg(-EK_CORRUPT));
}

/* ---- inodes -------------------------------------------------------------- */

struct rawino {
	uint8_t b[256];
};

static void ino_init(struct rawino *r, uint16_t mode, uint64_t size, uint32_t flags)
{
	memset(r, 0, sizeof(*r));
	put_le16(r->b + 0x00, mode);
	put_le32(r->b + 0x04, (uint32_t)size);
	put_le32(r->b + 0x6C, (uint32_t)(size >> 32));
	put_le16(r->b + 0x1A, 1);
	put_le32(r->b + 0x20, flags);
	put_le32(r->b + 0x64, GEN);
	put_le16(r->b + 0x80, 32);
}

static void ino_blocks(struct rawino *r, const uint32_t *blks, unsigned n)
{
	unsigned used = 0;

	for (unsigned i = 0; i < n && i < 12; i++) {
		put_le32(r->b + 0x28 + 4 * i, blks[i]);
		used += blks[i] != 0;
	}
	put_le32(r->b + 0x1C, used * (BS / 512));
}

static void ino_write(ek_ino_t ino, struct rawino *r)
{
	if (U.fs->has_csum) {
		uint32_t c = ek_inode_csum(U.fs, ino, r->b);

		put_le16(r->b + offsetof(struct ext4_inode, l_i_checksum_lo), c & 0xFFFF);
		put_le16(r->b + offsetof(struct ext4_inode, i_checksum_hi), c >> 16);
	}
	ck_assert_int_eq(pwrite(U.fd, r->b, 256, (off_t)UNIT_IT * BS + (ino - 1) * 256), 256);
	ek_inode_cache_drop(U.fs);	/* written behind the library */
}

/* directory inode with @n blocks at DATA + first .. (0 = hole) */
static void put_dir(ek_ino_t ino, uint32_t flags, unsigned n, const uint32_t *blks)
{
	struct rawino r;

	ino_init(&r, 040755, (uint64_t)n * BS, flags);
	ino_blocks(&r, blks, n);
	ino_write(ino, &r);
}

static void put_file(ek_ino_t ino)
{
	struct rawino r;

	ino_init(&r, 0100644, 0, 0);
	ino_write(ino, &r);
}

/* fast symlink, or slow with the target in block @blk */
static void put_symlink(ek_ino_t ino, const char *target, uint32_t blk)
{
	struct rawino r;
	size_t len = strlen(target);

	ino_init(&r, 0120777, len, 0);
	if (!blk) {
		memcpy(r.b + 0x28, target, len);
	} else {
		uint8_t *b = calloc(1, BS);

		memcpy(b, target, len);
		unit_write(&U, blk, 0, b, BS);
		free(b);
		ino_blocks(&r, &blk, 1);
	}
	ino_write(ino, &r);
}

static struct ek_inode read_ino(ek_ino_t ino)
{
	struct ek_inode ei;

	ck_assert_int_eq(ek_inode_read(U.fs, ino, &ei), 0);
	return ei;
}

/* ---- blocks -------------------------------------------------------------- */

struct blk {
	uint8_t *b;
	uint32_t off, last;
};

/* ext4_rec_len_to_disk() */
static void put_rec_len(uint8_t *de, uint32_t len)
{
	if (BS >= 65536)
		len = len == 65536 ? 65535 : (len & 65532) | ((len >> 16) & 3);
	put_le16(de + 4, (uint16_t)len);
}

static void blk_init(struct blk *k)
{
	k->b = calloc(1, 65536);
	k->off = k->last = 0;
}

static void de_add_len(struct blk *k, uint32_t ino, const char *name, uint8_t nlen, uint8_t ft)
{
	uint8_t *de = k->b + k->off;
	uint32_t rl = (8 + nlen + 3) & ~3u;

	put_le32(de, ino);
	put_rec_len(de, rl);
	de[6] = nlen;
	de[7] = ft;
	memcpy(de + 8, name, nlen);
	k->last = k->off;
	k->off += rl;
}

static void de_add(struct blk *k, uint32_t ino, const char *name, uint8_t ft)
{
	de_add_len(k, ino, name, (uint8_t)strlen(name), ft);
}

static struct ek_inode fake_dir(ek_ino_t ino)
{
	struct ek_inode d = { .ino = ino, .generation = GEN };

	return d;
}

/* stretch the last entry to the end, add the csum tail under metadata_csum */
static void leaf_finish(struct blk *k, ek_ino_t dir)
{
	uint32_t end = U.fs->has_csum ? BS - 12 : BS;

	put_rec_len(k->b + k->last, end - k->last);
	if (U.fs->has_csum) {
		struct ek_inode d = fake_dir(dir);
		uint8_t *t = k->b + BS - 12;

		memset(t, 0, 12);
		put_rec_len(t, 12);
		t[7] = EXT4_FT_DIR_CSUM;
		put_le32(t + 8, ek_dir_leaf_csum(U.fs, &d, k->b));
	}
}

static uint16_t dx_limit(uint32_t off)
{
	return (BS - off) / 8 - (U.fs->has_csum ? 1 : 0);
}

static void dx_fill(uint8_t *b, uint32_t off, const uint32_t *hashes, const uint32_t *blocks,
		    unsigned count, ek_ino_t dir)
{
	uint16_t limit = dx_limit(off);

	put_le16(b + off, limit);
	put_le16(b + off + 2, count);
	put_le32(b + off + 4, blocks[0]);
	for (unsigned i = 1; i < count; i++) {
		put_le32(b + off + 8 * i, hashes[i]);
		put_le32(b + off + 8 * i + 4, blocks[i]);
	}
	if (U.fs->has_csum) {
		struct ek_inode d = fake_dir(dir);

		put_le32(b + off + limit * 8, 0);
		put_le32(b + off + limit * 8 + 4, ek_dx_csum(U.fs, &d, b, off, count, limit));
	}
}

static void dx_recsum(uint8_t *b, uint32_t off, ek_ino_t dir)
{
	struct ek_inode d = fake_dir(dir);
	uint16_t limit = get_le16(b + off), count = get_le16(b + off + 2);

	put_le32(b + off + limit * 8 + 4, ek_dx_csum(U.fs, &d, b, off, count, limit));
}

static void dx_root(uint8_t *b, ek_ino_t dir, ek_ino_t parent, uint8_t hv, uint8_t levels,
		    const uint32_t *hashes, const uint32_t *blocks, unsigned count)
{
	memset(b, 0, BS);
	put_le32(b, dir);
	put_rec_len(b, 12);
	b[6] = 1;
	b[7] = EXT4_FT_DIR;
	b[8] = '.';
	put_le32(b + 12, parent);
	put_rec_len(b + 12, BS - 12);
	b[12 + 6] = 2;
	b[12 + 7] = EXT4_FT_DIR;
	b[12 + 8] = b[12 + 9] = '.';
	b[0x18 + 4] = hv;
	b[0x18 + 5] = 8;
	b[0x18 + 6] = levels;
	dx_fill(b, 0x20, hashes, blocks, count, dir);
}

static void dx_node(uint8_t *b, ek_ino_t dir, const uint32_t *hashes, const uint32_t *blocks,
		    unsigned count)
{
	memset(b, 0, BS);
	put_rec_len(b, BS);
	dx_fill(b, 8, hashes, blocks, count, dir);
}

static void wr(uint32_t pblk, const void *b)
{
	unit_write(&U, pblk, 0, b, BS);
}

/* ---- collecting entries ----------------------------------------------------- */

struct names {
	char s[8192];
	unsigned n;
};

static int collect(void *arg, const struct ek_dirent *de)
{
	struct names *nm = arg;
	size_t l = strlen(nm->s);

	snprintf(nm->s + l, sizeof(nm->s) - l, "%s%.*s:%u", nm->n ? "," : "", de->name_len,
		 de->name, de->ino);
	nm->n++;
	return 0;
}

static int stop_at_3(void *arg, const struct ek_dirent *de)
{
	(void)de;
	return ++*(int *)arg == 3 ? 42 : 0;
}

static int iter(ek_ino_t ino, unsigned flags, struct names *nm)
{
	struct ek_inode d;
	int err;

	memset(nm, 0, sizeof(*nm));
	ck_assert_int_eq(ek_inode_read(U.fs, ino, &d), 0);
	err = ek_dir_iterate(U.fs, &d, flags, collect, nm);
	ek_inode_release(&d);
	return err;
}

static int lookup(ek_ino_t dir, const char *name, ek_ino_t *out)
{
	struct ek_inode d;
	int err;

	*out = 0;
	ck_assert_int_eq(ek_inode_read(U.fs, dir, &d), 0);
	err = ek_dir_lookup(U.fs, &d, name, strlen(name), out);
	ek_inode_release(&d);
	return err;
}

/* no "htree index unusable" warning (the unit fs has other ones) */
#define ck_assert_no_fallback() \
	ck_assert_msg(!warned("htree index unusable"), "fallback: %s", U.fs->warnings[U.fs->nwarnings - 1])

static bool warned(const char *what)
{
	for (unsigned i = 0; i < U.fs->nwarnings; i++)
		if (strstr(U.fs->warnings[i], what))
			return true;
	return false;
}

/* ---- linear directories --------------------------------------------------------- */

/* dir 11: block 0 ".", "..", "alpha", "beta", "gamma"; block 1 (deleted) "old", "delta", "eps" */
static void build_linear(struct blk *k0, struct blk *k1)
{
	uint32_t blks[2] = { DATA, DATA + 1 };

	blk_init(k0);
	blk_init(k1);
	de_add(k0, 11, ".", EXT4_FT_DIR);
	de_add(k0, 2, "..", EXT4_FT_DIR);
	de_add(k0, 12, "alpha", EXT4_FT_REG_FILE);
	de_add(k0, 13, "beta", EXT4_FT_REG_FILE);
	de_add(k0, 14, "gamma", EXT4_FT_REG_FILE);
	leaf_finish(k0, 11);
	de_add(k1, 0, "old", EXT4_FT_REG_FILE);
	de_add(k1, 15, "delta", EXT4_FT_REG_FILE);
	de_add(k1, 16, "eps", EXT4_FT_SYMLINK);
	leaf_finish(k1, 11);
	wr(DATA, k0->b);
	wr(DATA + 1, k1->b);
	put_dir(11, 0, 2, blks);
}

static void blk_free(struct blk *k)
{
	free(k->b);
}

static const struct { uint32_t bs; bool csum; } geo[] = {
	{ 1024, false }, { 1024, true }, { 4096, false }, { 4096, true },
};

START_TEST(test_linear)
{
	struct blk k0, k1;
	struct names nm;
	ek_ino_t ino;
	int count = 0;
	struct ek_inode d;

	fs_setup(geo[_i].bs, geo[_i].csum, 0);
	build_linear(&k0, &k1);
	ck_assert_int_eq(iter(11, 0, &nm), 0);
	ck_assert_str_eq(nm.s, ".:11,..:2,alpha:12,beta:13,gamma:14,delta:15,eps:16");
	ck_assert_int_eq(iter(11, EK_DIR_INCLUDE_EMPTY, &nm), 0);
	ck_assert_str_eq(nm.s, ".:11,..:2,alpha:12,beta:13,gamma:14,old:0,delta:15,eps:16");

	ck_assert_int_eq(lookup(11, "eps", &ino), 0);
	ck_assert_uint_eq(ino, 16);
	ck_assert_int_eq(lookup(11, "..", &ino), 0);
	ck_assert_uint_eq(ino, 2);
	ck_assert_int_eq(lookup(11, "old", &ino), -ENOENT);
	ck_assert_int_eq(lookup(11, "alph", &ino), -ENOENT);
	ck_assert_int_eq(lookup(11, "", &ino), -ENOENT);

	/* one block alone; past the end and a hole are -ENOENT */
	d = read_ino(11);
	memset(&nm, 0, sizeof(nm));
	ck_assert_int_eq(ek_dir_iterate_block(U.fs, &d, 1, 0, collect, &nm), 0);
	ck_assert_str_eq(nm.s, "delta:15,eps:16");
	memset(&nm, 0, sizeof(nm));
	ck_assert_int_eq(ek_dir_iterate_block(U.fs, &d, 0, 0, collect, &nm), 0);
	ck_assert_str_eq(nm.s, ".:11,..:2,alpha:12,beta:13,gamma:14");
	ck_assert_int_eq(ek_dir_iterate_block(U.fs, &d, 2, 0, collect, &nm), -ENOENT);
	ek_inode_release(&d);

	/* the visitor's stop value comes back as is */
	d = read_ino(11);
	ck_assert_int_eq(ek_dir_iterate(U.fs, &d, 0, stop_at_3, &count), 42);
	ek_inode_release(&d);
	/* not a directory */
	put_file(20);
	d = read_ino(20);
	ck_assert_int_eq(ek_dir_iterate(U.fs, &d, 0, collect, &nm), -ENOTDIR);
	ck_assert_int_eq(ek_dir_iterate_block(U.fs, &d, 0, 0, collect, &nm), -ENOTDIR);
	ck_assert_int_eq(ek_dir_lookup(U.fs, &d, "x", 1, &ino), -ENOTDIR);
	ek_inode_release(&d);
	blk_free(&k0);
	blk_free(&k1);
	unit_fs_done(&U);
}
END_TEST

/* holes in a linear directory are skipped (kernel: "allow directory holes") */
START_TEST(test_linear_hole)
{
	struct blk k0, k1;
	struct names nm;
	uint32_t blks[4] = { DATA, 0, DATA + 1, 0 };
	ek_ino_t ino;

	fs_setup(1024, false, 0);
	build_linear(&k0, &k1);
	put_dir(11, 0, 4, blks);
	ck_assert_int_eq(iter(11, 0, &nm), 0);
	ck_assert_str_eq(nm.s, ".:11,..:2,alpha:12,beta:13,gamma:14,delta:15,eps:16");
	ck_assert_int_eq(lookup(11, "delta", &ino), 0);
	{
		struct ek_inode d = read_ino(11);

		ck_assert_int_eq(ek_dir_iterate_block(U.fs, &d, 1, 0, collect, &nm), -ENOENT);
		memset(&nm, 0, sizeof(nm));
		ck_assert_int_eq(ek_dir_iterate_block(U.fs, &d, 2, 0, collect, &nm), 0);
		ck_assert_str_eq(nm.s, "delta:15,eps:16");
		ek_inode_release(&d);
	}
	/* blocks mapped past i_size are not part of the directory */
	{
		struct rawino r;

		ino_init(&r, 040755, BS, 0);
		blks[1] = DATA + 1;
		ino_blocks(&r, blks, 2);
		ino_write(11, &r);
	}
	ck_assert_int_eq(iter(11, 0, &nm), 0);
	ck_assert_str_eq(nm.s, ".:11,..:2,alpha:12,beta:13,gamma:14");
	blk_free(&k0);
	blk_free(&k1);
	unit_fs_done(&U);
}
END_TEST

/* 64 KiB blocks: rec_len 65536 is stored as 65535 or 0 */
START_TEST(test_64k)
{
	struct blk k;
	struct names nm;
	uint32_t blks[3] = { UNIT_FREE, UNIT_FREE + 1, UNIT_FREE + 2 };

	ck_assert_uint_eq(ek_rec_len_from_disk(0, 65536), 65536);
	ck_assert_uint_eq(ek_rec_len_from_disk(65535, 65536), 65536);
	ck_assert_uint_eq(ek_rec_len_from_disk(12, 65536), 12);
	ck_assert_uint_eq(ek_rec_len_from_disk(65532 | 1, 65536), 65532 + 65536);
	ck_assert_uint_eq(ek_rec_len_from_disk(0, 4096), 0);
	ck_assert_uint_eq(ek_rec_len_from_disk(65535, 4096), 65535);

	fs_setup(65536, false, 0);
	blk_init(&k);
	de_add(&k, 11, ".", EXT4_FT_DIR);
	de_add(&k, 2, "..", EXT4_FT_DIR);
	de_add(&k, 12, "big", EXT4_FT_REG_FILE);
	leaf_finish(&k, 11);
	wr(blks[0], k.b);
	memset(k.b, 0, BS);
	k.off = 0;
	de_add(&k, 13, "x", EXT4_FT_REG_FILE);
	put_le16(k.b + 4, 65535);
	wr(blks[1], k.b);
	put_le32(k.b, 14);
	k.b[8] = 'y';
	put_le16(k.b + 4, 0);
	wr(blks[2], k.b);
	put_dir(11, 0, 3, blks);
	ck_assert_int_eq(iter(11, 0, &nm), 0);
	ck_assert_str_eq(nm.s, ".:11,..:2,big:12,x:13,y:14");
	blk_free(&k);
	unit_fs_done(&U);
}
END_TEST

/* ---- htree ------------------------------------------------------------------------ */

#define NNAMES 60

struct hname {
	char name[16];
	uint32_t hash;
	ek_ino_t ino;
};

static int by_hash(const void *a, const void *b)
{
	const struct hname *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static struct hname hn[NNAMES];

/*
 * dir 11, htree with 3 leaves (lblk 1..3) of 20 names each in hash order;
 * @levels 1 puts an interior node at lblk 4 between root and leaves.
 */
static void build_htree(unsigned levels)
{
	uint32_t hashes[3], leaves[3] = { 1, 2, 3 }, blks[5];
	uint8_t *b = calloc(1, BS);
	int v = ek_dx_hash_version(U.fs, EXT4_HASH_HALF_MD4);

	for (int i = 0; i < NNAMES; i++) {
		snprintf(hn[i].name, sizeof(hn[i].name), "file%03d", i);
		ck_assert_int_eq(ek_dx_hash(v, hn[i].name, strlen(hn[i].name), U.fs->sb.hash_seed,
					    &hn[i].hash, NULL), 0);
		hn[i].ino = 12 + i % 20;
	}
	qsort(hn, NNAMES, sizeof(hn[0]), by_hash);
	for (int l = 0; l < 3; l++) {
		struct blk k;

		blk_init(&k);
		for (int i = 0; i < 20; i++)
			de_add(&k, hn[l * 20 + i].ino, hn[l * 20 + i].name, EXT4_FT_REG_FILE);
		leaf_finish(&k, 11);
		wr(DATA + 1 + l, k.b);
		blk_free(&k);
		hashes[l] = hn[l * 20].hash;
		ck_assert_uint_gt(hashes[l], l ? hn[l * 20 - 1].hash : 0);
	}
	if (levels) {
		uint32_t node = 4;

		dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 1, hashes, &node, 1);
		wr(DATA, b);
		dx_node(b, 11, hashes, leaves, 3);
		wr(DATA + 4, b);
	} else {
		dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 0, hashes, leaves, 3);
		wr(DATA, b);
	}
	for (int i = 0; i < 5; i++)
		blks[i] = DATA + i;
	put_dir(11, EXT4_INDEX_FL, levels ? 5 : 4, blks);
	free(b);
}

START_TEST(test_htree)
{
	struct names nm;
	ek_ino_t ino;
	unsigned levels = _i & 1;

	fs_setup(1024, _i & 2, 0);
	build_htree(levels);
	ck_assert_int_eq(iter(11, 0, &nm), 0);
	ck_assert_uint_eq(nm.n, NNAMES + 2);
	ck_assert_ptr_nonnull(strstr(nm.s, ".:11,..:2,"));
	for (int i = 0; i < NNAMES; i++) {
		ck_assert_int_eq(lookup(11, hn[i].name, &ino), 0);
		ck_assert_uint_eq(ino, hn[i].ino);
	}
	ck_assert_int_eq(lookup(11, "file060", &ino), -ENOENT);
	/* '.' and '..' live in the root block, found without the index */
	ck_assert_int_eq(lookup(11, "..", &ino), 0);
	ck_assert_uint_eq(ino, 2);
	ck_assert_int_eq(lookup(11, ".", &ino), 0);
	ck_assert_uint_eq(ino, 11);
	ck_assert_no_fallback();

	/* the index is used: a name moved to the wrong leaf is not found */
	{
		struct blk k;

		blk_init(&k);
		for (int i = 0; i < 20; i++)
			de_add(&k, hn[i].ino, hn[i == 0 ? 59 : i].name, EXT4_FT_REG_FILE);
		leaf_finish(&k, 11);
		wr(DATA + 1, k.b);
		blk_free(&k);
	}
	ck_assert_int_eq(lookup(11, hn[59].name, &ino), 0);	/* its own leaf still has it */
	ck_assert_int_eq(lookup(11, hn[0].name, &ino), -ENOENT);
	ck_assert_no_fallback();
	unit_fs_done(&U);
}
END_TEST

/*
 * Entry hashes are ordered without the continuation bit (e2fsck's rule):
 * 0x80000001 (a run of 0x80000000 continued) then 0x80000000 passes,
 * 0x80000002 then 0x80000000 does not.
 */
START_TEST(test_dx_order_continuation)
{
	uint8_t *b = calloc(1, 1024);
	uint32_t h[3] = { 0, 0x80000001, 0x80000000 }, leaves[3] = { 1, 2, 2 };
	uint32_t blks[3] = { DATA, DATA + 1, DATA + 2 };
	struct ek_dx_node n;
	struct ek_inode d;

	fs_setup(1024, false, 0);
	put_dir(11, EXT4_INDEX_FL, 3, blks);
	d = read_ino(11);
	dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 0, h, leaves, 3);
	ck_assert_int_eq(ek_dx_root_parse(U.fs, &d, DATA, b, &n), 0);
	ck_assert_int_eq(n.fault, EK_DX_OK);
	h[1] = 0x80000002;
	dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 0, h, leaves, 3);
	ck_assert_int_eq(ek_dx_root_parse(U.fs, &d, DATA, b, &n), -EK_CORRUPT);
	ck_assert_int_eq(n.fault, EK_DX_ORDER);
	ek_inode_release(&d);
	free(b);
	unit_fs_done(&U);
}
END_TEST

/* large_dir: indirect_levels 2 accepted */
START_TEST(test_htree_largedir)
{
	uint8_t *b = calloc(1, 4096);
	uint32_t h[1] = { 0 }, blk[1] = { 1 };
	struct ek_dx_node n;
	struct ek_inode d;
	uint32_t blks[2] = { DATA, DATA + 1 };

	fs_setup(1024, false, EXT4_FEATURE_INCOMPAT_LARGEDIR);
	ck_assert_uint_eq(ek_dx_max_levels(U.fs), 2);
	put_dir(11, EXT4_INDEX_FL, 2, blks);
	d = read_ino(11);
	dx_root(b, 11, 2, EXT4_HASH_TEA, 2, h, blk, 1);
	ck_assert_int_eq(ek_dx_root_parse(U.fs, &d, DATA, b, &n), 0);
	ck_assert_uint_eq(n.indirect_levels, 2);
	ck_assert_uint_eq(n.count, 1);
	ck_assert_uint_eq(n.limit, (1024 - 32) / 8);
	ck_assert_uint_eq(ek_dx_entry_block(&n, 0), 1);
	b[0x18 + 6] = 3;
	ck_assert_int_eq(ek_dx_root_parse(U.fs, &d, DATA, b, &n), -EK_CORRUPT);
	ek_inode_release(&d);
	free(b);
	unit_fs_done(&U);
}
END_TEST

/*
 * Hash collisions across leaves: X (hash H) lives in leaf 2 whose index
 * hash is H|1, so the lookup starts in leaf 1 and continues (the kernel's
 * ext4_htree_next_block); without the continuation it stops.
 */
START_TEST(test_htree_collision)
{
	uint8_t *b;
	uint32_t hx, hy = 0, hashes[2], leaves[2] = { 1, 2 }, blks[3] = { DATA, DATA + 1, DATA + 2 };
	char yname[16];
	struct blk k;
	ek_ino_t ino;

	fs_setup(1024, _i, 0);
	b = calloc(1, BS);
	ck_assert_int_eq(ek_dx_hash(EXT4_HASH_HALF_MD4, "xname", 5, U.fs->sb.hash_seed, &hx, NULL), 0);
	/* a name for leaf 1: hash below xname's */
	for (int i = 0; i < 1000; i++) {
		snprintf(yname, sizeof(yname), "y%d", i);
		ek_dx_hash(EXT4_HASH_HALF_MD4, yname, strlen(yname), U.fs->sb.hash_seed, &hy, NULL);
		if (hy < hx)
			break;
	}
	ck_assert_uint_lt(hy, hx);
	blk_init(&k);
	de_add(&k, 12, yname, EXT4_FT_REG_FILE);
	leaf_finish(&k, 11);
	wr(DATA + 1, k.b);
	memset(k.b, 0, BS);
	k.off = 0;
	de_add(&k, 13, "xname", EXT4_FT_REG_FILE);
	leaf_finish(&k, 11);
	wr(DATA + 2, k.b);
	blk_free(&k);
	put_dir(11, EXT4_INDEX_FL, 3, blks);

	hashes[1] = hx | 1;
	dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 0, hashes, leaves, 2);
	wr(DATA, b);
	ck_assert_int_eq(lookup(11, "xname", &ino), 0);
	ck_assert_uint_eq(ino, 13);
	ck_assert_int_eq(lookup(11, yname, &ino), 0);
	ck_assert_uint_eq(ino, 12);

	hashes[1] = hx + 2;		/* no continuation: leaf 2 holds larger hashes */
	dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 0, hashes, leaves, 2);
	wr(DATA, b);
	ck_assert_int_eq(lookup(11, "xname", &ino), -ENOENT);

	hashes[1] = hx;			/* exact: straight to leaf 2 */
	dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 0, hashes, leaves, 2);
	wr(DATA, b);
	ck_assert_int_eq(lookup(11, "xname", &ino), 0);
	ck_assert_no_fallback();

	/*
	 * Two levels: root -> node A (leaf 1) and node B (leaf 2) where the
	 * root's entry for B has H|1; the next leaf comes from the next node.
	 */
	{
		uint32_t nodes[2] = { 3, 4 }, la[1] = { 1 }, lb[1] = { 2 };
		uint32_t blks5[5] = { DATA, DATA + 1, DATA + 2, DATA + 3, DATA + 4 };

		dx_node(b, 11, hashes, la, 1);
		wr(DATA + 3, b);
		dx_node(b, 11, hashes, lb, 1);
		wr(DATA + 4, b);
		hashes[1] = hx | 1;
		dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 1, hashes, nodes, 2);
		wr(DATA, b);
		put_dir(11, EXT4_INDEX_FL, 5, blks5);
		ck_assert_int_eq(lookup(11, "xname", &ino), 0);
		ck_assert_uint_eq(ino, 13);
		ck_assert_int_eq(lookup(11, yname, &ino), 0);
		ck_assert_no_fallback();
		put_dir(11, EXT4_INDEX_FL, 3, blks);
		hashes[1] = hx;
		dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 0, hashes, leaves, 2);
	}

	/* a corrupt index falls back to a linear scan, with a warning */
	b[0x18 + 5] = 9;
	if (U.fs->has_csum)
		dx_recsum(b, 0x20, 11);
	wr(DATA, b);
	ck_assert_int_eq(lookup(11, "xname", &ino), 0);
	ck_assert_uint_eq(ino, 13);
	ck_assert(warned("info_length 9"));
	free(b);
	unit_fs_done(&U);
}
END_TEST

/* ---- inline directories ----------------------------------------------------------- */

/*
 * Inline dir 11: i_block = parent 2, "a" (12), "bb" (13); system.data
 * in the inode body holds @vlen bytes of entries ("ccc" 14, "dddd" 15).
 */
static void put_inline_dir(ek_ino_t ino, ek_ino_t parent, uint32_t vlen, bool with_ea)
{
	struct rawino r;
	struct blk k;
	uint8_t *ea = r.b + 128 + 32;
	uint32_t voff = 256 - vlen;

	ino_init(&r, 040755, 60 + vlen, EXT4_INLINE_DATA_FL);
	put_le32(r.b + 0x28, parent);
	blk_init(&k);
	de_add(&k, 12, "a", EXT4_FT_REG_FILE);
	de_add(&k, 13, "bb", EXT4_FT_REG_FILE);
	put_rec_len(k.b + k.last, 56 - k.last);
	memcpy(r.b + 0x2C, k.b, 56);
	if (with_ea) {
		memset(k.b, 0, 64);
		k.off = 0;
		de_add(&k, 14, "ccc", EXT4_FT_REG_FILE);
		de_add(&k, 15, "dddd", EXT4_FT_DIR);
		if (vlen >= k.off)
			put_rec_len(k.b + k.last, vlen - k.last);
		put_le32(ea, EXT4_XATTR_MAGIC);
		ea[4] = 4;				/* e_name_len */
		ea[5] = EXT4_XATTR_INDEX_SYSTEM;
		put_le16(ea + 6, (uint16_t)(voff - (128 + 32 + 4)));
		put_le32(ea + 12, vlen);
		memcpy(ea + 20, "data", 4);
		memcpy(r.b + voff, k.b, vlen);
	}
	blk_free(&k);
	ino_write(ino, &r);
}

START_TEST(test_inline)
{
	struct names nm;
	ek_ino_t ino;

	fs_setup(1024, _i, EXT4_FEATURE_INCOMPAT_INLINE_DATA);
	put_inline_dir(11, 2, 24, true);
	ck_assert_int_eq(iter(11, 0, &nm), 0);
	ck_assert_str_eq(nm.s, ".:11,..:2,a:12,bb:13,ccc:14,dddd:15");
	{
		/* an inline directory's whole area is its block 0 */
		struct ek_inode d = read_ino(11);

		memset(&nm, 0, sizeof(nm));
		ck_assert_int_eq(ek_dir_iterate_block(U.fs, &d, 0, 0, collect, &nm), 0);
		ck_assert_str_eq(nm.s, ".:11,..:2,a:12,bb:13,ccc:14,dddd:15");
		ck_assert_int_eq(ek_dir_iterate_block(U.fs, &d, 1, 0, collect, &nm), -ENOENT);
		ek_inode_release(&d);
	}
	ck_assert_int_eq(lookup(11, "dddd", &ino), 0);
	ck_assert_uint_eq(ino, 15);
	ck_assert_int_eq(lookup(11, "..", &ino), 0);
	ck_assert_uint_eq(ino, 2);
	ck_assert_int_eq(lookup(11, ".", &ino), 0);
	ck_assert_uint_eq(ino, 11);
	ck_assert_int_eq(lookup(11, "e", &ino), -ENOENT);
	/* no system.data at all: the i_block part only */
	put_inline_dir(11, 2, 0, false);
	ck_assert_int_eq(iter(11, 0, &nm), 0);
	ck_assert_str_eq(nm.s, ".:11,..:2,a:12,bb:13");
	unit_fs_done(&U);
}
END_TEST

/* ---- symlinks and paths ------------------------------------------------------------ */

/*
 * root 2: a (12, dir), file (13), abs -> /a/b (14), rel -> a (15),
 * loop1 -> loop2 (16), loop2 -> loop1 (17), slow -> ./a//b (18, in a block),
 * dangling -> nothing (19), s -> . (20), up -> .. (21)
 * a 12: b (22), back -> ../file (23)
 */
static void build_tree(void)
{
	struct blk k;
	uint32_t rb = DATA, ab = DATA + 1;

	blk_init(&k);
	de_add(&k, 2, ".", EXT4_FT_DIR);
	de_add(&k, 2, "..", EXT4_FT_DIR);
	de_add(&k, 12, "a", EXT4_FT_DIR);
	de_add(&k, 13, "file", EXT4_FT_REG_FILE);
	de_add(&k, 14, "abs", EXT4_FT_SYMLINK);
	de_add(&k, 15, "rel", EXT4_FT_SYMLINK);
	de_add(&k, 16, "loop1", EXT4_FT_SYMLINK);
	de_add(&k, 17, "loop2", EXT4_FT_SYMLINK);
	de_add(&k, 18, "slow", EXT4_FT_SYMLINK);
	de_add(&k, 19, "dangling", EXT4_FT_SYMLINK);
	de_add(&k, 20, "s", EXT4_FT_SYMLINK);
	de_add(&k, 21, "up", EXT4_FT_SYMLINK);
	leaf_finish(&k, 2);
	wr(rb, k.b);
	put_dir(2, 0, 1, &rb);
	memset(k.b, 0, BS);
	k.off = 0;
	de_add(&k, 12, ".", EXT4_FT_DIR);
	de_add(&k, 2, "..", EXT4_FT_DIR);
	de_add(&k, 22, "b", EXT4_FT_REG_FILE);
	de_add(&k, 23, "back", EXT4_FT_SYMLINK);
	leaf_finish(&k, 12);
	wr(ab, k.b);
	put_dir(12, 0, 1, &ab);
	blk_free(&k);
	put_file(13);
	put_file(22);
	put_symlink(14, "/a/b", 0);
	put_symlink(15, "a", 0);
	put_symlink(16, "loop2", 0);
	put_symlink(17, "loop1", 0);
	put_symlink(18, "./a//b", DATA + 2);
	put_symlink(19, "nothing", 0);
	put_symlink(20, ".", 0);
	put_symlink(21, "..", 0);
	put_symlink(23, "../file", 0);
}

static const struct {
	ek_ino_t cwd;
	const char *path;
	bool follow;
	int err;
	ek_ino_t ino;
} paths[] = {
	{ 2, "/", true, 0, 2 },
	{ 2, "", true, -ENOENT, 0 },
	{ 2, "/a", true, 0, 12 },
	{ 2, "a/b", true, 0, 22 },
	{ 2, "//a///b", true, 0, 22 },
	{ 2, "/a/./b", true, 0, 22 },
	{ 2, "/a/../a/b", true, 0, 22 },
	{ 2, "/..", true, 0, 2 },
	{ 2, "/../../a", true, 0, 12 },
	{ 2, "/a/..", true, 0, 2 },
	{ 2, "/a/", false, 0, 12 },
	{ 2, "/a/.", false, 0, 12 },
	{ 2, ".", false, 0, 2 },
	{ 12, "b", true, 0, 22 },
	{ 12, "../file", true, 0, 13 },
	{ 12, "back", true, 0, 13 },
	{ 12, "back", false, 0, 23 },
	{ 2, "/file/x", true, -ENOTDIR, 0 },
	{ 2, "/file/", true, -ENOTDIR, 0 },
	{ 2, "/file/.", true, -ENOTDIR, 0 },
	{ 2, "/nope", true, -ENOENT, 0 },
	{ 2, "/a/nope/b", true, -ENOENT, 0 },
	{ 2, "/abs", true, 0, 22 },
	{ 2, "/abs", false, 0, 14 },
	{ 2, "/rel/b", false, 0, 22 },
	{ 2, "/rel", false, 0, 15 },
	{ 2, "/rel/", false, 0, 12 },
	{ 2, "/loop1", true, -ELOOP, 0 },
	{ 2, "/loop1", false, 0, 16 },
	{ 2, "/loop1/x", false, -ELOOP, 0 },
	{ 2, "/slow", true, 0, 22 },
	{ 2, "/dangling", true, -ENOENT, 0 },
	{ 2, "/dangling", false, 0, 19 },
	{ 2, "/s/s/a/b", true, 0, 22 },
	{ 2, "/a/b/../../up/up/file", true, -ENOTDIR, 0 },
	{ 2, "/up/up/file", true, 0, 13 },
	{ 12, "/a/back/", true, -ENOTDIR, 0 },
};

START_TEST(test_namei)
{
	ek_ino_t ino = 0;
	int err;

	fs_setup(1024, false, 0);
	build_tree();
	err = ek_namei(U.fs, 2, paths[_i].cwd, paths[_i].path, paths[_i].follow, &ino);
	ck_assert_msg(err == paths[_i].err, "'%s': %d, want %d", paths[_i].path, err, paths[_i].err);
	if (!err)
		ck_assert_msg(ino == paths[_i].ino, "'%s': ino %u, want %u", paths[_i].path,
			      ino, paths[_i].ino);
	unit_fs_done(&U);
}
END_TEST

/* exactly 40 symlinks are fine, 41 are -ELOOP; names over 255 bytes */
START_TEST(test_namei_limits)
{
	char p[400], longname[300];
	ek_ino_t ino;

	fs_setup(1024, false, 0);
	build_tree();
	strcpy(p, "/");
	for (int i = 0; i < 40; i++)
		strcat(p, "s/");
	strcat(p, "file");
	ck_assert_int_eq(ek_namei(U.fs, 2, 2, p, true, &ino), 0);
	ck_assert_uint_eq(ino, 13);
	strcpy(p, "/s/");
	for (int i = 0; i < 40; i++)
		strcat(p, "s/");
	strcat(p, "file");
	ck_assert_int_eq(ek_namei(U.fs, 2, 2, p, true, &ino), -ELOOP);
	memset(longname, 'n', 256);
	longname[256] = 0;
	ck_assert_int_eq(ek_namei(U.fs, 2, 2, longname, true, &ino), -ENAMETOOLONG);
	ck_assert_int_eq(ek_namei(U.fs, 2, 2, NULL, true, &ino), -EINVAL);
	/* a chroot-like root: '..' stays inside */
	ck_assert_int_eq(ek_namei(U.fs, 12, 12, "../../b", true, &ino), 0);
	ck_assert_uint_eq(ino, 22);
	ck_assert_int_eq(ek_namei(U.fs, 12, 12, "/back", true, &ino), -ENOENT);
	unit_fs_done(&U);
}
END_TEST

START_TEST(test_readlink)
{
	char buf[64];
	struct ek_inode ei;

	fs_setup(1024, false, 0);
	build_tree();
	ei = read_ino(14);
	ck_assert_int_eq(ek_readlink(U.fs, &ei, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/a/b");
	ck_assert_int_eq(ek_readlink(U.fs, &ei, buf, 5), 0);
	ck_assert_int_eq(ek_readlink(U.fs, &ei, buf, 4), -ENAMETOOLONG);
	ek_inode_release(&ei);
	ei = read_ino(18);
	ck_assert_int_eq(ek_readlink(U.fs, &ei, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "./a//b");
	ek_inode_release(&ei);
	ei = read_ino(13);
	ck_assert_int_eq(ek_readlink(U.fs, &ei, buf, sizeof(buf)), -EINVAL);
	ek_inode_release(&ei);
	unit_fs_done(&U);
}
END_TEST

/* inline_data symlink: 60 bytes in i_block, the rest in system.data */
START_TEST(test_readlink_inline)
{
	char target[81], buf[128];
	struct rawino r;
	struct ek_inode ei;
	uint8_t *ea = r.b + 160;

	fs_setup(1024, false, EXT4_FEATURE_INCOMPAT_INLINE_DATA);
	for (int i = 0; i < 80; i++)
		target[i] = 'a' + i % 26;
	target[80] = 0;
	ino_init(&r, 0120777, 80, EXT4_INLINE_DATA_FL);
	memcpy(r.b + 0x28, target, 60);
	put_le32(ea, EXT4_XATTR_MAGIC);
	ea[4] = 4;
	ea[5] = EXT4_XATTR_INDEX_SYSTEM;
	put_le16(ea + 6, 256 - 20 - 164);
	put_le32(ea + 12, 20);
	memcpy(ea + 20, "data", 4);
	memcpy(r.b + 256 - 20, target + 60, 20);
	ino_write(24, &r);
	ei = read_ino(24);
	ck_assert_int_eq(ek_readlink(U.fs, &ei, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, target);
	ek_inode_release(&ei);
	unit_fs_done(&U);
}
END_TEST

/* ---- malformed cases ------------------------------------------------------------------ */

enum op { OP_ITER, OP_LOOKUP, OP_ROOT, OP_NODE, OP_CHECK, OP_READLINK };

static const struct bad_case {
	const char *what;	/* substring of the recorded message or warning */
	enum op op;
	bool csum;
	int err;		/* expected result */
} bad_cases[] = {
	/* 0 .. 7: one entry checker rule each (dir 11 block 0, "beta" at 40) */
	{ "below the minimum", OP_ITER, false, -EK_CORRUPT },
	{ "not a multiple of 4", OP_ITER, false, -EK_CORRUPT },
	{ "does not fit in rec_len", OP_ITER, false, -EK_CORRUPT },
	{ "runs past the end", OP_ITER, false, -EK_CORRUPT },
	{ "too few for an entry", OP_ITER, false, -EK_CORRUPT },
	{ "out of range (max 32)", OP_ITER, false, -EK_CORRUPT },
	{ "has an empty name", OP_ITER, false, -EK_CORRUPT },
	{ "no room for an entry", OP_CHECK, false, -EK_CORRUPT },
	/* 8 .. 9: leaf checksums */
	{ "leaf checksum", OP_ITER, true, -EK_BADCRC },
	{ "has no checksum tail", OP_ITER, true, -EK_BADCRC },
	/* 10 .. 12: index blocks met by a linear reader */
	{ "dx block checksum", OP_ITER, true, -EK_BADCRC },
	{ "leave no room for the checksum", OP_ITER, true, -EK_CORRUPT },
	{ "htree directory has a hole", OP_ITER, false, -EK_CORRUPT },
	/* 13 .. 26: htree root and node checks */
	{ "dx root '.' entry malformed", OP_ROOT, false, -EK_CORRUPT },
	{ "dx root '..' entry malformed", OP_ROOT, false, -EK_CORRUPT },
	{ "reserved_zero", OP_ROOT, false, -EK_CORRUPT },
	{ "info_length 7", OP_ROOT, false, -EK_CORRUPT },
	{ "hash version 7 unknown", OP_ROOT, false, -EK_CORRUPT },
	{ "hash version 6 outside", OP_ROOT, false, -EK_CORRUPT },
	{ "unimplemented hash flags", OP_ROOT, false, -EK_CORRUPT },
	{ "indirect_levels 2 > 1", OP_ROOT, false, -EK_CORRUPT },
	{ "dx root limit", OP_ROOT, false, -EK_CORRUPT },
	{ "dx root count 0", OP_ROOT, false, -EK_CORRUPT },
	{ "points to block 99", OP_ROOT, false, -EK_CORRUPT },
	{ "below previous", OP_ROOT, false, -EK_CORRUPT },
	{ "dx root checksum", OP_ROOT, true, -EK_BADCRC },
	{ "dx node fake entry", OP_NODE, false, -EK_CORRUPT },
	/* 27 .. 30: lookups whose index is unusable warn and scan linearly */
	{ "beyond i_size", OP_LOOKUP, false, -ENOENT },
	{ "is not allocated", OP_LOOKUP, false, -EK_CORRUPT },
	{ "is an index node", OP_LOOKUP, false, -ENOENT },
	{ "visits more leaves", OP_LOOKUP, false, -ENOENT },
	/* 31 .. 34: symlinks */
	{ "symlink size 0", OP_READLINK, false, -EK_CORRUPT },
	{ "has only 60 stored", OP_READLINK, false, -EK_CORRUPT },
	{ "symlink has no data block", OP_READLINK, false, -EK_CORRUPT },
	{ "NUL byte at 2", OP_READLINK, false, -EK_CORRUPT },
	/* 35 .. 36: inline directories */
	{ "parent inode 4294967280 out of range", OP_ITER, false, -EK_CORRUPT },
	{ "inline directory offset 60: no room", OP_ITER, false, -EK_CORRUPT },
};

/* names of small_htree(): NAME1 (inode 12) in leaf 1, NAME2 (13) in leaf 2 */
static const char *name1, *name2;
static char small_expect[64];

/* a correct htree dir 11: root, leaf 1 and leaf 2 split at NAME2's hash */
static void small_htree(uint8_t *root)
{
	uint32_t ha, hb, hashes[2], leaves[2] = { 1, 2 };
	uint32_t blks[3] = { DATA, DATA + 1, DATA + 2 };
	struct blk k;

	ek_dx_hash(EXT4_HASH_HALF_MD4, "one", 3, U.fs->sb.hash_seed, &ha, NULL);
	ek_dx_hash(EXT4_HASH_HALF_MD4, "two", 3, U.fs->sb.hash_seed, &hb, NULL);
	name1 = ha < hb ? "one" : "two";
	name2 = ha < hb ? "two" : "one";
	hashes[1] = ha < hb ? hb : ha;
	snprintf(small_expect, sizeof(small_expect), ".:11,..:2,%s:12,%s:13", name1, name2);
	blk_init(&k);
	de_add(&k, 12, name1, EXT4_FT_REG_FILE);
	leaf_finish(&k, 11);
	wr(DATA + 1, k.b);
	memset(k.b, 0, BS);
	k.off = 0;
	de_add(&k, 13, name2, EXT4_FT_REG_FILE);
	leaf_finish(&k, 11);
	wr(DATA + 2, k.b);
	blk_free(&k);
	dx_root(root, 11, 2, EXT4_HASH_HALF_MD4, 0, hashes, leaves, 2);
	wr(DATA, root);
	put_dir(11, EXT4_INDEX_FL, 3, blks);
}

START_TEST(test_bad)
{
	struct bad_case cc = bad_cases[_i], *c = &cc;
	struct blk k0, k1;
	struct names nm;
	struct ek_inode d;
	struct ek_dx_node n;
	uint8_t *b;
	ek_ino_t ino;
	char buf[128];
	int err = 0;
	bool via_warning = false;

	fs_setup(1024, c->csum, EXT4_FEATURE_INCOMPAT_INLINE_DATA);
	b = calloc(1, BS);
	build_linear(&k0, &k1);
	ek_error_clear();

	switch (_i) {
	case 0 ... 6: {
		uint8_t *de = k0.b + (_i == 4 ? 52 : 40);

		switch (_i) {
		case 0: put_rec_len(de, 8); break;
		case 1: put_rec_len(de, 14); break;
		case 2: de[6] = 200; break;
		case 3: put_rec_len(de, 2000); break;
		case 4: put_rec_len(de, (BS - 52) - 8); break;
		case 5: put_le32(de, 1000); break;
		case 6: de[6] = 0; break;
		}
		wr(DATA, k0.b);
		err = iter(11, 0, &nm);
		/* entries before the bad one and the next block still come */
		ck_assert_ptr_nonnull(strstr(nm.s, "alpha:12"));
		ck_assert_ptr_nonnull(strstr(nm.s, "delta:15,eps:16"));
		ck_assert_ptr_null(strstr(nm.s, "gamma"));
		break;
	}
	case 7: {
		uint32_t rl;

		err = ek_dirent_check(U.fs, 11, DATA, k0.b, 0, 8, false, &rl);
		break;
	}
	case 8:
		k1.b[12 + 8] ^= 1;		/* "delta" -> "eelta" */
		wr(DATA + 1, k1.b);
		err = iter(11, 0, &nm);
		ck_assert_ptr_nonnull(strstr(nm.s, "eelta:15,eps:16"));
		ck_assert_int_eq(lookup(11, "eelta", &ino), 0);
		ck_assert_int_eq(lookup(11, "delta", &ino), -ENOENT);
		break;
	case 9:
		put_rec_len(k1.b + k1.last, BS - k1.last);
		memset(k1.b + BS - 12, 0, 12);
		wr(DATA + 1, k1.b);
		err = iter(11, 0, &nm);
		ck_assert_ptr_nonnull(strstr(nm.s, "delta:15,eps:16"));
		break;
	case 10:
	case 11:
		small_htree(b);
		if (_i == 10)
			b[0x28] ^= 4;		/* entry 1 hash, not rechecksummed */
		else
			put_le16(b + 0x20, 5);
		wr(DATA, b);
		err = iter(11, 0, &nm);
		ck_assert_str_eq(nm.s, small_expect);
		if (_i == 10) {		/* the index is unusable for lookups, the scan works */
			ck_assert_int_eq(lookup(11, name2, &ino), 0);
			ck_assert_uint_eq(ino, 13);
			ck_assert(warned("dx root checksum"));
		}
		break;
	case 12: {
		uint32_t blks[3] = { DATA, 0, DATA + 2 };

		small_htree(b);
		put_dir(11, EXT4_INDEX_FL, 3, blks);
		err = iter(11, 0, &nm);
		snprintf(buf, sizeof(buf), ".:11,..:2,%s:13", name2);
		ck_assert_str_eq(nm.s, buf);
		break;
	}
	case 13 ... 25: {
		small_htree(b);
		switch (_i) {
		case 13: b[8] = 'x'; break;
		case 14: put_rec_len(b + 12, 24); break;
		case 15: put_le32(b + 0x18, 1); break;
		case 16: b[0x18 + 5] = 7; break;
		case 17: b[0x18 + 4] = 7; break;
		case 18: b[0x18 + 4] = EXT4_HASH_SIPHASH; break;
		case 19: b[0x18 + 7] = 1; break;
		case 20: b[0x18 + 6] = 2; break;
		case 21: put_le16(b + 0x20, 100); break;
		case 22: put_le16(b + 0x22, 0); break;
		case 23: put_le32(b + 0x20 + 12, 99); break;
		case 24: {
			uint32_t hashes[3] = { 0, 0x80000000, 0x70000000 }, leaves[3] = { 1, 2, 2 };

			dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 0, hashes, leaves, 3);
			break;
		}
		case 25: b[0x20 + 8] ^= 2; break;
		}
		d = read_ino(11);
		err = ek_dx_root_parse(U.fs, &d, DATA, b, &n);
		ek_inode_release(&d);
		/* the rule, for fsck's finding IDs */
		{
			static const enum ek_dx_fault want[] = {
				EK_DX_ROOT, EK_DX_ROOT, EK_DX_ROOT, EK_DX_ROOT,
				EK_DX_HASH_VERSION, EK_DX_HASH_VERSION, EK_DX_ROOT_FLAGS,
				EK_DX_LEVELS, EK_DX_LIMIT, EK_DX_COUNT, EK_DX_BLOCK, EK_DX_ORDER,
				EK_DX_CSUM,
			};

			ck_assert_int_eq(n.fault, want[_i - 13]);
		}
		if (_i == 23 || _i == 24)
			ck_assert_uint_eq(n.bad_entry, _i == 23 ? 1 : 2);
		if (_i == 25) {
			ck_assert_ptr_nonnull(n.entries);
			ck_assert(n.has_tail);
			ck_assert_uint_ne(n.csum, n.expect_csum);
		}
		break;
	}
	case 26:
		small_htree(b);
		d = read_ino(11);
		err = ek_dx_node_parse(U.fs, &d, DATA + 1, k0.b, &n);
		ek_inode_release(&d);
		ck_assert_int_eq(n.fault, EK_DX_NOT_NODE);
		break;
	case 27: {
		struct rawino r;

		ino_init(&r, 040755, 0, EXT4_INDEX_FL);
		ino_write(11, &r);
		err = lookup(11, "one", &ino);
		via_warning = true;
		break;
	}
	case 28: {
		uint32_t blks[3] = { DATA, DATA + 1, 0 };

		small_htree(b);
		put_dir(11, EXT4_INDEX_FL, 3, blks);
		err = lookup(11, name2, &ino);
		via_warning = true;
		break;
	}
	case 29: {
		uint32_t leaf[1] = { 1 };

		small_htree(b);
		dx_node(b, 11, leaf, leaf, 1);
		wr(DATA + 1, b);
		err = lookup(11, name1, &ino);
		via_warning = true;
		break;
	}
	case 30: {
		uint32_t h, hashes[5], leaves[5] = { 1, 1, 1, 1, 1 };

		small_htree(b);
		ck_assert_int_eq(ek_dx_hash(EXT4_HASH_HALF_MD4, "zz", 2, U.fs->sb.hash_seed, &h, NULL), 0);
		for (int i = 1; i < 5; i++)
			hashes[i] = h | 1;
		dx_root(b, 11, 2, EXT4_HASH_HALF_MD4, 0, hashes, leaves, 5);
		wr(DATA, b);
		err = lookup(11, "zz", &ino);
		via_warning = true;
		break;
	}
	case 31 ... 34: {
		struct rawino r;
		struct ek_inode ei;

		switch (_i) {
		case 31:
			ino_init(&r, 0120777, 0, 0);
			break;
		case 32:
			ino_init(&r, 0120777, 80, EXT4_INLINE_DATA_FL);
			memset(r.b + 0x28, 'x', 60);
			break;
		case 33:
			ino_init(&r, 0120777, 100, 0);
			put_le32(r.b + 0x1C, 2);
			break;
		case 34:
			ino_init(&r, 0120777, 4, 0);
			memcpy(r.b + 0x28, "ab\0d", 4);
			break;
		}
		ino_write(24, &r);
		ei = read_ino(24);
		err = ek_readlink(U.fs, &ei, buf, sizeof(buf));
		ek_inode_release(&ei);
		break;
	}
	case 35:
		put_inline_dir(11, 0xfffffff0u, 24, true);	/* 0 is an unused '..' */
		err = iter(11, 0, &nm);
		ck_assert_str_eq(nm.s, ".:11,a:12,bb:13,ccc:14,dddd:15");
		break;
	case 36:
		put_inline_dir(11, 2, 8, true);
		err = iter(11, 0, &nm);
		ck_assert_str_eq(nm.s, ".:11,..:2,a:12,bb:13");
		break;
	}
	ck_assert_msg(err == c->err, "case %d '%s': got %d (%s), want %d", _i, c->what, err,
		      ek_error_msg(err), c->err);
	if (via_warning)
		ck_assert_msg(warned(c->what), "case %d: no warning '%s' (%u warnings%s%s)", _i,
			      c->what, U.fs->nwarnings, U.fs->nwarnings ? ": " : "",
			      U.fs->nwarnings ? U.fs->warnings[0] : "");
	else
		ck_assert_msg(strstr(ek_error_msg(err), c->what), "case %d: message '%s' lacks '%s'",
			      _i, ek_error_msg(err), c->what);
	free(b);
	blk_free(&k0);
	blk_free(&k1);
	unit_fs_done(&U);
}
END_TEST

/* the first damage is what the walk reports, not the last */
START_TEST(test_first_error)
{
	struct blk k0, k1;
	struct names nm;

	fs_setup(1024, false, 0);
	build_linear(&k0, &k1);
	put_rec_len(k0.b + 40, 14);
	wr(DATA, k0.b);
	put_le32(k1.b + 12, 999);
	wr(DATA + 1, k1.b);
	ck_assert_int_eq(iter(11, 0, &nm), -EK_CORRUPT);
	ck_assert_msg(strstr(ek_error_msg(-EK_CORRUPT), "not a multiple of 4"), "%s", ek_error_msg(-EK_CORRUPT));
	ck_assert_uint_eq(ek_last_error()->where, DATA);
	blk_free(&k0);
	blk_free(&k1);
	unit_fs_done(&U);
}
END_TEST

static Suite *dir_suite(void)
{
	Suite *s = suite_create("dir");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_linear, 0, sizeof(geo) / sizeof(geo[0]));
	tcase_add_test(tc, test_linear_hole);
	tcase_add_test(tc, test_64k);
	tcase_add_loop_test(tc, test_htree, 0, 4);
	tcase_add_test(tc, test_htree_largedir);
	tcase_add_loop_test(tc, test_htree_collision, 0, 2);
	tcase_add_test(tc, test_dx_order_continuation);
	tcase_add_loop_test(tc, test_inline, 0, 2);
	tcase_add_loop_test(tc, test_namei, 0, sizeof(paths) / sizeof(paths[0]));
	tcase_add_test(tc, test_namei_limits);
	tcase_add_test(tc, test_readlink);
	tcase_add_test(tc, test_readlink_inline);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_test(tc, test_first_error);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(dir_suite)
