// SPDX-License-Identifier: MIT
/*
 * check_repair_dir.c - fsck's directory repairs that are pure functions of
 * a block: ek_dir_block_salvage() (e2fsck's salvage rules: an entry cut to
 * the end of its block, an 8-byte hole closed, a bad entry merged into the
 * one before, an inode out of range made unused, the rest of a block given
 * up), each case then walked by dir.c's checker, which must find the block
 * sound, the names kept as listed and a second salvage with nothing to do;
 * with and without metadata_csum (the tail stays out of the region); and
 * ek_dirent_name_fix().
 */
#include "unit.h"

#define DIR_INO	11

static struct unit_fs U;

/* entries for a block: name, inode, rec_len (0: the rest of the region) */
struct ent {
	const char *name;
	uint32_t ino;
	uint32_t rec_len;
};

/* a block holding @e, then the leaf tail when @csum */
static void put_block(uint8_t *b, const struct ent *e, bool csum)
{
	uint32_t end = 1024 - (csum ? 12 : 0), off = 0;

	memset(b, 0, 1024);
	for (; e->name; e++) {
		uint32_t rl = e->rec_len ? e->rec_len : end - off;

		ek_dirent_put(U.fs, b, off, e->ino, rl, e->name, (uint8_t)strlen(e->name), 1);
		off += rl;
	}
	if (csum)
		ek_dir_leaf_tail(U.fs, DIR_INO, 0, b);
}

struct seen {
	char names[512];
};

static int note_name(void *arg, uint8_t *buf, uint32_t prev, uint32_t off, uint32_t rlen)
{
	struct seen *s = arg;
	const uint8_t *de = buf + off;

	(void)prev;
	(void)rlen;
	if (get_le32(de)) {
		strncat(s->names, (const char *)de + 8, de[6]);
		strcat(s->names, " ");
	}
	return 0;
}

struct salvage_case {
	const char *what;
	struct ent e[8];
	uint32_t poke_off;	/* then 2 bytes at poke_off = poke (0: none) */
	uint16_t poke;
	int steps;		/* entries mended */
	uint32_t first_bad;
	const char *kept;	/* the names left, each followed by a space */
};

static const struct salvage_case cases[] = {
	{ "sound block", { { ".", DIR_INO, 12 }, { "..", 2, 12 }, { "a", 12, 0 } },
	  0, 0, 0, 0, ". .. a " },
	{ "last entry runs past the end: cut", { { ".", DIR_INO, 12 }, { "..", 2, 12 }, { "file", 12, 0 } },
	  24 + 4, 2000, 1, 24, ". .. file " },
	{ "rec_len 13 mid-block: the rest given to the entry before",
	  { { ".", DIR_INO, 12 }, { "..", 2, 12 }, { "a", 12, 12 }, { "b", 13, 0 } },
	  24 + 4, 13, 1, 24, ". .. " },
	{ "a name longer than its rec_len: merged into the entry before, the next kept",
	  { { ".", DIR_INO, 12 }, { "..", 2, 12 }, { "a", 12, 12 }, { "xyzw", 13, 12 }, { "b", 14, 0 } },
	  36 + 6, 0x0114, 1, 36, ". .. a b " },
	{ "inode out of range: unused, the rest kept",
	  { { ".", DIR_INO, 12 }, { "..", 2, 12 }, { "bad", 12, 12 }, { "b", 14, 0 } },
	  24, 0xffff, 1, 24, ". .. b " },
	{ "an 8-byte hole: closed", { { ".", DIR_INO, 12 }, { "..", 2, 12 }, { "a", 12, 8 }, { "b", 14, 0 } },
	  0, 0, -1, 24, ". .. b " },
	{ "first entry's rec_len 0: one empty entry", { { ".", DIR_INO, 12 }, { "..", 2, 0 } },
	  4, 0, 1, 0, "" },
	{ "leaves 8 bytes: taken by the entry", { { ".", DIR_INO, 12 }, { "..", 2, 12 }, { "a", 12, 0 } },
	  24 + 4, 0, 1, 24, ". .. a " },
};

static void fs_open(bool csum)
{
	unit_fs_init(&U, 1024, 256, EXT4_FEATURE_COMPAT_EXT_ATTR, EXT4_FEATURE_INCOMPAT_FILETYPE,
		     csum ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0);
	ck_assert_msg(unit_fs_open(&U, 0) == 0, "open: %s", ek_error_msg(-EK_CORRUPT));
}

START_TEST(test_salvage)
{
	const struct salvage_case *k = &cases[_i / 2];
	bool csum = _i & 1;
	uint32_t end = 1024 - (csum ? 12 : 0), first = 99999;
	struct ek_inode dir = { .ino = DIR_INO, .mode = 040755, .size = 1024 };
	uint8_t b[1024];
	struct seen s = { "" };
	int n;

	fs_open(csum);
	put_block(b, k->e, csum);
	if (k->poke_off)
		put_le16(b + k->poke_off, k->poke);
	if (!strcmp(k->what, "inode out of range: unused, the rest kept"))
		put_le32(b + 24, 0xffffffffu);
	if (!strcmp(k->what, "leaves 8 bytes: taken by the entry"))
		put_le16(b + 28, (uint16_t)(end - 24 - 8));
	n = ek_dir_block_salvage(U.fs, &dir, 0, b, &first);
	if (k->steps >= 0)
		ck_assert_msg(n == k->steps, "%s: %d entries mended, expected %d", k->what, n, k->steps);
	else
		ck_assert_msg(n > 0, "%s: nothing mended", k->what);
	if (n)
		ck_assert_msg(first == k->first_bad, "%s: first bad at %u, expected %u", k->what, first,
			      k->first_bad);
	/* sound now: the checker walks the region to its end, a second salvage mends nothing */
	ck_assert_msg(ek_dirent_walk(U.fs, DIR_INO, 1, b, 0, end, false, note_name, &s) == 0,
		      "%s: walk after salvage: %s", k->what, ek_error_msg(-EK_CORRUPT));
	ck_assert_msg(!strcmp(s.names, k->kept), "%s: kept [%s], expected [%s]", k->what,
			      s.names, k->kept);
	ck_assert_int_eq(ek_dir_block_salvage(U.fs, &dir, 0, b, &first), 0);
	if (csum) {	/* the tail is left where it was */
		ck_assert_int_eq(get_le16(b + 1024 - 8), 12);
		ck_assert_int_eq(b[1024 - 5], EXT4_FT_DIR_CSUM);
	}
	unit_fs_done(&U);
}
END_TEST

START_TEST(test_name_fix)
{
	uint8_t name[] = { 'a', '/', 'b', 0, 'c' };

	ek_dirent_name_fix(name, sizeof(name));
	ck_assert(!memcmp(name, "a.b.c", 5));
}
END_TEST

static Suite *repair_dir_suite(void)
{
	Suite *s = suite_create("repair_dir");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_salvage, 0, 2 * (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_name_fix);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(repair_dir_suite)
