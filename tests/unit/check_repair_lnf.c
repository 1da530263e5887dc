// SPDX-License-Identifier: MIT
/*
 * check_repair_lnf.c - the lost+found repairs' codecs: an empty directory
 * block (ek_dir_block_empty) and an entry added to a leaf
 * (ek_dir_leaf_insert) on blocks in memory, read back with dir.c's own
 * checker; then ek_fix_dir_new, ek_fix_dir_link and ek_fix_dir_expand on a
 * small filesystem, written and read back through ek_dir_iterate (every
 * entry once, checksums right), extents and block maps, with and without
 * metadata_csum; the refusals (no room, a damaged entry, bad names, an
 * extent root with no free slot); a quota entry's usage set in place.
 */
#include "unit.h"

#define DIR_INO	12
#define INO_OF(k) (13 + (k) % 19)	/* the inode of the k-th entry added: within the 32 */

static struct unit_fs U;

struct geo {
	uint32_t blksz;
	bool csum;
	bool extents;
};
static const struct geo geo[] = {
	{ 1024, false, false }, { 1024, true, true }, { 4096, true, true }, { 4096, false, true },
};

static void fs_setup(const struct geo *g)
{
	unit_fs_init(&U, g->blksz, 256, EXT4_FEATURE_COMPAT_EXT_ATTR,
		     EXT4_FEATURE_INCOMPAT_FILETYPE | (g->extents ? EXT4_FEATURE_INCOMPAT_EXTENTS : 0),
		     g->csum ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0);
	ck_assert_msg(unit_fs_open(&U, EK_OPEN_RW) == 0, "open: %s", ek_last_error()->msg);
}

/* the entries of leaf @b (checked), the unused ones too, into @ino/@name; their count */
struct seen {
	unsigned n, unused;
	uint32_t last_slack;	/* bytes past what the entries need, the largest */
	char names[1024][16];
	ek_ino_t ino[1024];
};

static int seen_fn(void *arg, uint8_t *buf, uint32_t prev, uint32_t off, uint32_t rec_len)
{
	struct seen *s = arg;
	struct ek_dirent de = ek_dirent_decode(buf, off, rec_len);
	uint32_t need = de.ino ? ek_dirent_need(de.name_len) : 0;

	(void)prev;
	if (rec_len - need > s->last_slack)
		s->last_slack = rec_len - need;
	if (!de.ino) {
		s->unused++;
		return 0;
	}
	ck_assert_uint_lt(s->n, 1024);
	ck_assert_uint_lt(de.name_len, 16);
	memcpy(s->names[s->n], de.name, de.name_len);
	s->names[s->n][de.name_len] = 0;
	s->ino[s->n++] = de.ino;
	return 0;
}

static void leaf_read(uint8_t *b, struct seen *s)
{
	uint32_t end = U.fs->has_csum ? U.blksz - 12 : U.blksz;

	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(ek_dirent_walk(U.fs, DIR_INO, 50, b, 0, end, false, seen_fn, s), 0);
}

/* an empty block takes "#N" entries until no slack has room for one more */
START_TEST(test_empty_fill)
{
	const struct geo *g = &geo[_i];
	struct ek_inode di = { .ino = DIR_INO, .generation = 7 };
	uint8_t *b;
	struct seen *s = calloc(1, sizeof(*s));
	unsigned n = 0;
	int err = 0;

	fs_setup(g);
	b = calloc(1, U.blksz);
	ek_dir_block_empty(U.fs, DIR_INO, 7, b);
	leaf_read(b, s);
	ck_assert_uint_eq(s->n, 0);
	ck_assert_uint_eq(s->unused, 1);
	ck_assert(ek_dir_block_csum_ok(U.fs, &di, 1, b));
	while (!err) {
		char name[16];

		snprintf(name, sizeof(name), "#%u", 100 + n);
		err = ek_dir_leaf_insert(U.fs, DIR_INO, 50, b, name, (uint8_t)strlen(name),
					 INO_OF(n), EXT4_FT_REG_FILE);
		n += !err;
	}
	ck_assert_int_eq(err, -ENOSPC);
	ek_dir_block_reseal(U.fs, &di, 1, b);
	ck_assert(ek_dir_block_csum_ok(U.fs, &di, 1, b));
	leaf_read(b, s);
	ck_assert_uint_eq(s->n, n);
	ck_assert_uint_eq(s->unused, 0);
	/* as many as fit: 12 bytes each ("#NNN" needs 12), nothing of 12 left */
	ck_assert_uint_eq(n, (U.fs->has_csum ? U.blksz - 12 : U.blksz) / 12);
	ck_assert_uint_lt(s->last_slack, 12);
	for (unsigned i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "#%u", 100 + i);
		ck_assert_str_eq(s->names[i], name);
		ck_assert_uint_eq(s->ino[i], INO_OF(i));
	}
	free(b);
	free(s);
	unit_fs_done(&U);
}
END_TEST

/* after '.' and '..' of a built directory: '..' keeps 12 bytes, the new entry the rest */
START_TEST(test_split)
{
	const struct geo *g = &geo[_i];
	uint8_t *out, type;
	uint32_t nb, end;
	bool indexed;
	struct seen *s = calloc(1, sizeof(*s));

	fs_setup(g);
	ck_assert_int_eq(ek_dir_build(U.fs, DIR_INO, 0, 0, 2, 0, false, NULL, 0, &out, &nb, &indexed), 0);
	ck_assert_uint_eq(nb, 1);
	ck_assert_int_eq(ek_dir_leaf_insert(U.fs, DIR_INO, 50, out, "lost+found", 10, 13,
					    EXT4_FT_DIR), 0);
	end = U.fs->has_csum ? U.blksz - 12 : U.blksz;
	ck_assert_uint_eq(ek_rec_len_from_disk(get_le16(out + 12 + 4), U.blksz), 12);
	ck_assert_uint_eq(get_le32(out + 24), 13);
	ck_assert_uint_eq(ek_rec_len_from_disk(get_le16(out + 24 + 4), U.blksz), end - 24);
	type = out[24 + 7];
	ck_assert_uint_eq(type, EXT4_FT_DIR);
	ck_assert_int_eq(memcmp(out + 32, "lost+found", 10), 0);
	leaf_read(out, s);
	ck_assert_uint_eq(s->n, 3);
	/* the first entry whose slack is exactly enough takes it */
	memset(out, 0, U.blksz);
	ek_dirent_put(U.fs, out, 0, 13, 24, "a", 1, EXT4_FT_REG_FILE);
	ek_dirent_put(U.fs, out, 24, 14, end - 24, "b", 1, EXT4_FT_REG_FILE);
	ck_assert_int_eq(ek_dir_leaf_insert(U.fs, DIR_INO, 50, out, "#1", 2, 15, 1), 0);
	ck_assert_uint_eq(ek_rec_len_from_disk(get_le16(out + 4), U.blksz), 12);
	ck_assert_uint_eq(get_le32(out + 12), 15);
	ck_assert_uint_eq(ek_rec_len_from_disk(get_le16(out + 12 + 4), U.blksz), 12);
	ck_assert_uint_eq(get_le32(out + 24), 14);
	free(out);
	free(s);
	unit_fs_done(&U);
}
END_TEST

static const struct unit_bad bad[] = {
	{ "rec_len 0 on the way", -EK_CORRUPT, "rec_len 0 below the minimum" },
	{ "no name", -EINVAL, "needs a name" },
	{ "'.'", -EINVAL, "needs a name" },
	{ "'..'", -EINVAL, "needs a name" },
};

START_TEST(test_bad)
{
	uint8_t b[1024];
	int err;

	fs_setup(&geo[0]);
	ek_dir_block_empty(U.fs, DIR_INO, 0, b);
	switch (_i) {
	case 0:
		put_le32(b, 5);
		put_le16(b + 4, 0);
		err = ek_dir_leaf_insert(U.fs, DIR_INO, 50, b, "x", 1, 20, 1);
		break;
	case 1:
		err = ek_dir_leaf_insert(U.fs, DIR_INO, 50, b, "", 0, 20, 1);
		break;
	case 2:
		err = ek_dir_leaf_insert(U.fs, DIR_INO, 50, b, ".", 1, 20, 1);
		break;
	default:
		err = ek_dir_leaf_insert(U.fs, DIR_INO, 50, b, "..", 2, 20, 1);
		break;
	}
	unit_assert_bad(&bad[_i], err, NULL);
	unit_fs_done(&U);
}
END_TEST

/* ---- through a write set ------------------------------------------------------- */

struct names {
	unsigned n, dots;
	unsigned char seen[512];
};

static int names_fn(void *arg, const struct ek_dirent *de)
{
	struct names *s = arg;
	unsigned k;

	if ((de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && !memcmp(de->name, "..", 2))) {
		ck_assert_uint_eq(de->ino, de->name_len == 1 ? DIR_INO : 2);
		s->dots++;
		return 0;
	}
	ck_assert_uint_eq(de->name[0], '#');
	k = (unsigned)strtoul(de->name + 1, NULL, 10);
	ck_assert_uint_lt(k, 512);
	ck_assert_uint_eq(de->ino, INO_OF(k));
	ck_assert_uint_eq(s->seen[k], 0);
	s->seen[k] = 1;
	s->n++;
	return 0;
}

/* a new directory filled to its first -ENOSPC, grown by a block, one more entry */
START_TEST(test_new_link_expand)
{
	const struct geo *g = &geo[_i];
	struct ek_wset *ws;
	struct ek_inode ei;
	struct names nm = { 0 };
	unsigned n = 0;
	int err = 0;

	fs_setup(g);
	ck_assert_int_eq(ek_wset_init(U.fs, &ws), 0);
	ck_assert_int_eq(ek_fix_dir_new(ws, DIR_INO, 2, 0700, UNIT_FREE, 1700000000), 0);
	while (!err && n < 500) {
		char name[8];

		snprintf(name, sizeof(name), "#%u", n);
		err = ek_fix_dir_link(ws, DIR_INO, name, (uint8_t)strlen(name), INO_OF(n),
				      EXT4_FT_FIFO);
		n += !err;
	}
	ck_assert_int_eq(err, -ENOSPC);
	ck_assert_int_eq(ek_fix_dir_expand(ws, DIR_INO, UNIT_FREE + 1), 0);
	{
		char name[8];

		snprintf(name, sizeof(name), "#%u", n);
		ck_assert_int_eq(ek_fix_dir_link(ws, DIR_INO, name, (uint8_t)strlen(name),
						 INO_OF(n), EXT4_FT_FIFO), 0);
		n++;
	}
	ck_assert_int_eq(ek_wset_write(ws), 0);
	ek_wset_free(ws);
	ck_assert_int_eq(ek_inode_read(U.fs, DIR_INO, &ei), 0);
	ck_assert_uint_eq(ei.mode, 040700);
	ck_assert_uint_eq(ei.links_count, 2);
	ck_assert_uint_eq(ei.size, 2 * U.blksz);
	ck_assert_uint_eq(ei.blocks, 2 * U.blksz / 512);
	ck_assert_uint_eq(!!(ei.flags & EXT4_EXTENTS_FL), g->extents);
	ck_assert_int_eq(ek_dir_iterate(U.fs, &ei, 0, names_fn, &nm), 0);
	ck_assert_uint_eq(nm.dots, 2);
	ck_assert_uint_eq(nm.n, n);
	{
		ek_blk_t p0, p1;

		ck_assert_int_eq(ek_map_bmap(U.fs, &ei, 0, &p0, NULL), 0);
		ck_assert_int_eq(ek_map_bmap(U.fs, &ei, 1, &p1, NULL), 0);
		ck_assert_uint_eq(p0, UNIT_FREE);
		ck_assert_uint_eq(p1, UNIT_FREE + 1);
	}
	ek_inode_release(&ei);
	unit_fs_done(&U);
}
END_TEST

/* an extent root with 4 extents and no contiguous block: not grown; a block
 * map past its direct blocks: not grown */
START_TEST(test_expand_refused)
{
	const struct geo *g = &geo[_i ? 1 : 0];
	struct ek_wset *ws;
	uint8_t *raw;

	fs_setup(g);
	ck_assert_int_eq(ek_wset_init(U.fs, &ws), 0);
	ck_assert_int_eq(ek_fix_dir_new(ws, DIR_INO, 2, 0700, UNIT_FREE, 0), 0);
	if (g->extents) {
		for (unsigned k = 1; k < 4; k++)
			ck_assert_int_eq(ek_fix_dir_expand(ws, DIR_INO, UNIT_FREE + 2 * k), 0);
		ck_assert_int_eq(ek_fix_dir_expand(ws, DIR_INO, UNIT_FREE + 20), -EK_UNSUPP);
		ck_assert_ptr_nonnull(strstr(ek_last_error()->msg, "extent root is full"));
		/* contiguous with the last extent: still fine */
		ck_assert_int_eq(ek_fix_dir_expand(ws, DIR_INO, UNIT_FREE + 7), 0);
	} else {
		for (unsigned k = 1; k < 12; k++)
			ck_assert_int_eq(ek_fix_dir_expand(ws, DIR_INO, UNIT_FREE + k), 0);
		ck_assert_int_eq(ek_fix_dir_expand(ws, DIR_INO, UNIT_FREE + 12), -EK_UNSUPP);
	}
	/* not a directory */
	ck_assert_int_eq(ek_wset_inode(ws, DIR_INO, &raw), 0);
	put_le16(raw, 0100644);
	ck_assert_int_eq(ek_fix_dir_link(ws, DIR_INO, "x", 1, 20, 1), -EK_CORRUPT);
	ek_wset_free(ws);
	unit_fs_done(&U);
}
END_TEST


/* ---- quota usage in place --------------------------------------------------------- */

/* a file of three ids, each found down its tree path and given new usage */
START_TEST(test_quota_usage)
{
	struct ek_dquot dq[3] = {
		{ .id = 0, .curinodes = 2, .curspace = 13312 },
		{ .id = 5, .curinodes = 1, .curspace = 1024, .bhardlimit = 100 },
		{ .id = 70000, .curinodes = 9, .curspace = 9216 },
	};
	struct ek_quota q;
	uint8_t *f;
	size_t len, off;

	ck_assert_int_eq(ek_quota_encode(EK_QUOTA_USR, dq, 3, &f, &len), 0);
	ck_assert_int_eq(ek_quota_entry_offset(f, len, 0, &off), 0);
	ek_quota_entry_set_usage(f + off, 3, 14336);
	ck_assert_int_eq(ek_quota_entry_offset(f, len, 70000, &off), 0);
	ek_quota_entry_set_usage(f + off, 0, 0);
	ck_assert_int_eq(ek_quota_entry_offset(f, len, 5, &off), 0);
	ck_assert_int_eq(ek_quota_entry_offset(f, len, 6, &off), -ENOENT);
	ck_assert_int_eq(ek_quota_entry_offset(f, len, 70001, &off), -ENOENT);
	ck_assert_int_eq(ek_quota_decode(f, len, EK_QUOTA_USR, 3, &q), 0);
	ck_assert_uint_eq(q.count, 3);
	ck_assert_uint_eq(q.dq[0].curinodes, 3);
	ck_assert_uint_eq(q.dq[0].curspace, 14336);
	ck_assert_uint_eq(q.dq[1].curinodes, 1);
	ck_assert_uint_eq(q.dq[1].bhardlimit, 100);
	ck_assert_uint_eq(q.dq[2].id, 70000);
	ck_assert_uint_eq(q.dq[2].curinodes, 0);
	ck_assert_uint_eq(q.dq[2].curspace, 0);
	ek_quota_release(&q);
	/* id 0 with nothing left: still an entry, not a free slot */
	ck_assert_int_eq(ek_quota_entry_offset(f, len, 0, &off), 0);
	ek_quota_entry_set_usage(f + off, 0, 0);
	ck_assert_int_eq(ek_quota_decode(f, len, EK_QUOTA_USR, 3, &q), 0);
	ck_assert_uint_eq(q.count, 3);
	ck_assert_uint_eq(q.dq[0].id, 0);
	ck_assert_uint_eq(q.dq[0].itime, 0);
	ek_quota_release(&q);
	/* a tree pointer outside the file */
	put_le32(f + 1024, (uint32_t)(len / 1024 + 5));
	ck_assert_int_eq(ek_quota_entry_offset(f, len, 0, &off), -EK_CORRUPT);
	free(f);
}
END_TEST

static Suite *repair_lnf_suite(void)
{
	Suite *s = suite_create("repair_lnf");
	TCase *tc = tcase_create("core");
	int ng = sizeof(geo) / sizeof(geo[0]);

	tcase_add_loop_test(tc, test_empty_fill, 0, ng);
	tcase_add_loop_test(tc, test_split, 0, ng);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_loop_test(tc, test_new_link_expand, 0, ng);
	tcase_add_loop_test(tc, test_expand_refused, 0, 2);
	tcase_add_test(tc, test_quota_usage);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(repair_lnf_suite)
