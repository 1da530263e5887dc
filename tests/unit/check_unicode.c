// SPDX-License-Identifier: MIT
/*
 * check_unicode.c - the utf8-12.1 casefold of casefolded directories
 * (lib/unicode.c): hand-picked names and what the kernel's utf8_casefold()
 * makes of them (NFD, full case folding, ignorables dropped, marks in
 * canonical order), invalid UTF-8, the comparison, strict-mode validity,
 * the strict/non-strict policy of ek_name_eq() and the folded dx hash
 * (values from e2fsprogs 1.47.0 debugfs `dx_hash -c -e utf8 -h half_md4`).
 * tests/img/602-casefold compares every code point with libext2fs.
 */
#include "unit.h"

struct fold_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	const char *out;	/* NULL: does not fold (-EINVAL) */
	bool valid;		/* strict mode accepts it */
};

static const struct fold_case folds[] = {
	{ "README", 0, "readme", true },
	{ "lost+found", 0, "lost+found", true },
	/* sharp s and capital sharp s fold to "ss" (CaseFolding F) */
	{ "Stra\xc3\x9f" "e", 0, "strasse", true },
	{ "\xe1\xba\x9e", 0, "ss", true },
	/* Greek: capital and final sigma fold to small sigma */
	{ "\xce\xa3\xce\x91\xce\xa3", 0, "\xcf\x83\xce\xb1\xcf\x83", true },
	{ "\xcf\x82", 0, "\xcf\x83", true },
	/* Kelvin sign, Ohm sign, Angstrom sign */
	{ "\xe2\x84\xaa", 0, "k", true },
	{ "\xe2\x84\xa6", 0, "\xcf\x89", true },
	{ "\xe2\x84\xab", 0, "a\xcc\x8a", true },
	/* precomposed and decomposed e-acute fold alike */
	{ "\xc3\xa9", 0, "e\xcc\x81", true },
	{ "\xc3\x89", 0, "e\xcc\x81", true },
	{ "e\xcc\x81", 0, "e\xcc\x81", true },
	/* Hangul syllables: L V and L V T jamo */
	{ "\xea\xb0\x80", 0, "\xe1\x84\x80\xe1\x85\xa1", true },
	{ "\xea\xb0\x81", 0, "\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8", true },
	{ "\xed\x9e\xa3", 0, "\xe1\x84\x92\xe1\x85\xb5\xe1\x87\x82", true },
	/* marks reordered by class: acute (230) after grave below (220) */
	{ "a\xcc\x81\xcc\x96", 0, "a\xcc\x96\xcc\x81", true },
	{ "a\xcc\x96\xcc\x81", 0, "a\xcc\x96\xcc\x81", true },
	/* a starter between them stops the reordering */
	{ "a\xcc\x81" "b\xcc\x96", 0, "a\xcc\x81" "b\xcc\x96", true },
	/* ...and an ignorable (its mapping is empty) too */
	{ "a\xcc\x81\xe2\x80\x8b\xcc\x96", 0, "a\xcc\x81\xcc\x96", true },
	/* iota subscript: decomposed, folded, the marks ordered */
	{ "\xe1\xbe\x82", 0, "\xce\xb1\xcc\x93\xcc\x80\xce\xb9", true },
	{ "\xce\x90", 0, "\xce\xb9\xcc\x88\xcc\x81", true },
	/* dotted capital I: i + combining dot above (not Turkic) */
	{ "\xc4\xb0", 0, "i\xcc\x87", true },
	{ "\xef\xac\x83", 0, "ffi", true },
	/* default ignorables vanish: zero width space, soft hyphen, VS16 */
	{ "a\xe2\x80\x8b" "b", 0, "ab", true },
	{ "a\xc2\xad" "b\xef\xb8\x8f", 0, "ab", true },
	/* unassigned in 12.1 (U+0378; U+180F came in 14.0): unchanged */
	{ "\xcd\xb8", 0, "\xcd\xb8", true },
	{ "\xe1\xa0\x8f", 0, "\xe1\xa0\x8f", true },
	{ "\xf4\x8f\xbf\xbf", 0, "\xf4\x8f\xbf\xbf", true },
	/* a NUL ends the name */
	{ "a\0b", 3, "a", true },
	/* invalid UTF-8 does not fold */
	{ "\xc0\xaf", 0, NULL, false },			/* overlong '/' */
	{ "\xe0\x80\xaf", 0, NULL, false },
	{ "\xed\xa0\x80", 0, NULL, false },		/* a surrogate */
	{ "\xf4\x90\x80\x80", 0, NULL, false },		/* past U+10FFFF */
	{ "\xff", 0, NULL, false },
	{ "abc\xe2\x82", 0, NULL, false },		/* cut short */
	{ "caf\xe9", 0, NULL, false },			/* Latin-1 */
	{ "\x80" "abc", 0, NULL, false },		/* starts with a continuation */
	/* a stray continuation byte later is passed through (utf8byte()) */
	{ "A\xb5" "B", 0, "a\xb5" "b", false },
};

START_TEST(test_fold)
{
	const struct fold_case *c = &folds[_i];
	size_t len = c->len ? c->len : strlen(c->in);
	char buf[EK_CASEFOLD_MAX];
	int n = ek_utf8_casefold(c->in, len, buf, sizeof(buf));

	if (!c->out) {
		ck_assert_int_eq(n, -EINVAL);
	} else {
		ck_assert_int_eq(n, (int)strlen(c->out));
		ck_assert_mem_eq(buf, c->out, (size_t)n);
		/* a fold folds to itself (but where an ignorable held marks
		 * apart: see test_cmp), so the name compares equal to it */
		if (c->valid && !memmem(c->in, len, "\xe2\x80\x8b\xcc", 4)) {
			char again[EK_CASEFOLD_MAX];

			ck_assert_int_eq(ek_utf8_casefold(buf, (size_t)n, again, sizeof(again)), n);
			ck_assert_mem_eq(again, buf, (size_t)n);
			ck_assert_int_eq(ek_utf8_casecmp(c->in, len, c->out, strlen(c->out)), 0);
		}
	}
	ck_assert_int_eq(ek_utf8_validate(c->in, len), c->valid ? 0 : -EINVAL);
}
END_TEST

START_TEST(test_cmp)
{
	ck_assert_int_eq(ek_utf8_casecmp("README", 6, "readme", 6), 0);
	ck_assert_int_eq(ek_utf8_casecmp("Stra\xc3\x9f" "e", 7, "STRASSE", 7), 0);
	ck_assert_int_eq(ek_utf8_casecmp("\xc3\xa9t\xc3\xa9", 6, "E\xcc\x81TE\xcc\x81", 7), 0);
	ck_assert_int_eq(ek_utf8_casecmp("readme", 6, "readmf", 6), 1);
	ck_assert_int_eq(ek_utf8_casecmp("readme", 6, "readm", 5), 1);
	/* fullwidth letters are a compatibility mapping: not folded together */
	ck_assert_int_eq(ek_utf8_casecmp("\xef\xbc\xa1", 3, "a", 1), 1);
	ck_assert_int_eq(ek_utf8_casecmp("\xc0\xaf", 2, "\xc0\xaf", 2), -EINVAL);
	ck_assert_int_eq(ek_utf8_casecmp("a", 1, "\xff", 1), -EINVAL);
	ck_assert_int_eq(ek_utf8_casecmp("", 0, "", 0), 0);
	/* the kernel's quirk: an ignorable keeps the marks around it in their
	 * order, so a name folds differently from its fold without it */
	ck_assert_int_eq(ek_utf8_casecmp("a\xcc\x81\xe2\x80\x8b\xcc\x96", 8,
					 "a\xcc\x81\xcc\x96", 5), 1);
	/* too small a buffer */
	char b[4];

	ck_assert_int_eq(ek_utf8_casefold("\xe1\xbe\x82", 3, b, sizeof(b)), -ENAMETOOLONG);
	ck_assert_int_eq(ek_utf8_casefold("abc", 3, b, 3), -ENAMETOOLONG);
	ck_assert_int_eq(ek_utf8_casefold("abc", 3, b, 4), 3);
}
END_TEST

/* a filesystem with casefold and s_encoding utf8, @flags its encoding flags */
static void cf_fs(struct unit_fs *u, uint16_t flags)
{
	unit_fs_init(u, 1024, 256, 0, EXT4_FEATURE_INCOMPAT_CASEFOLD, 0);
	u->sb.s_encoding = cpu_to_le16(EXT4_ENC_UTF8_12_1);
	u->sb.s_encoding_flags = cpu_to_le16(flags);
	ck_assert_int_eq(unit_fs_open(u, 0), 0);
}

START_TEST(test_name_eq)
{
	struct unit_fs u;

	cf_fs(&u, 0);
	ck_assert(ek_dir_folds(u.fs, EXT4_CASEFOLD_FL));
	ck_assert(!ek_dir_folds(u.fs, 0));
	ck_assert(!ek_dir_folds(u.fs, EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL));
	ck_assert(ek_name_eq(u.fs, true, "README", 6, "readme", 6));
	ck_assert(!ek_name_eq(u.fs, false, "README", 6, "readme", 6));
	/* non-strict: names that do not fold match by their bytes */
	ck_assert(ek_name_eq(u.fs, true, "caf\xe9", 4, "caf\xe9", 4));
	ck_assert(!ek_name_eq(u.fs, true, "caf\xe9", 4, "CAF\xe9", 4));
	unit_fs_done(&u);

	cf_fs(&u, EXT4_ENC_STRICT_MODE_FL);
	ck_assert(ek_name_eq(u.fs, true, "README", 6, "readme", 6));
	/* strict: they match nothing */
	ck_assert(!ek_name_eq(u.fs, true, "caf\xe9", 4, "caf\xe9", 4));
	unit_fs_done(&u);

	/* the flag alone, without the feature, folds nothing */
	unit_fs_init(&u, 1024, 256, 0, 0, 0);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	ck_assert(!ek_dir_folds(u.fs, EXT4_CASEFOLD_FL));
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_hash)
{
	uint32_t h, m, h2, m2;

	/* debugfs 1.47.0: dx_hash -c -e utf8 -h half_md4 Straße / Hello */
	ck_assert_int_eq(ek_dx_hash_name(EXT4_HASH_HALF_MD4, true, "Stra\xc3\x9f" "e", 7, NULL,
					 &h, &m), 0);
	ck_assert_uint_eq(h, 0x7e099ecc);
	ck_assert_uint_eq(m, 0x63e35612);
	ck_assert_int_eq(ek_dx_hash_name(EXT4_HASH_HALF_MD4, true, "Hello", 5, NULL, &h, &m), 0);
	ck_assert_uint_eq(h, 0x1746da32);
	ck_assert_uint_eq(m, 0x420013b5);
	/* the same as the plain hash of the folded name */
	ck_assert_int_eq(ek_dx_hash(EXT4_HASH_HALF_MD4, "hello", 5, NULL, &h2, &m2), 0);
	ck_assert_uint_eq(h, h2);
	ck_assert_uint_eq(m, m2);
	/* not folding: the name's own bytes */
	ck_assert_int_eq(ek_dx_hash_name(EXT4_HASH_HALF_MD4, false, "Hello", 5, NULL, &h, &m), 0);
	ck_assert_uint_ne(h, h2);
	/* a name that does not fold hashes as its bytes (the kernel's ext4fs_dirhash) */
	ck_assert_int_eq(ek_dx_hash_name(EXT4_HASH_TEA, true, "caf\xe9", 4, NULL, &h, &m), 0);
	ck_assert_int_eq(ek_dx_hash(EXT4_HASH_TEA, "caf\xe9", 4, NULL, &h2, &m2), 0);
	ck_assert_uint_eq(h, h2);
	ck_assert_uint_eq(m, m2);
}
END_TEST

START_TEST(test_fix_encoding)
{
	/* as e2fsck's fix: from the first invalid byte to a NUL or the end */
	static const struct { const char *in, *out; size_t at; } c[] = {
		{ "caf\xe9x", "caf..", 3 },
		{ "ok", "ok", 2 },
		{ "\xc3\xa9\xc0\xafz", "\xc3\xa9...", 2 },
		{ "a\xff\0b", "a.\0b", 1 },
		{ "\x80", ".", 0 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t len = strlen(c[i].in) + (i == 3 ? 2 : 0);
		uint8_t b[16];

		memcpy(b, c[i].in, len);
		ck_assert_uint_eq(ek_utf8_invalid_at(c[i].in, len), c[i].at);
		ek_dirent_name_fix_encoding(b, (uint8_t)len);
		ck_assert_mem_eq(b, c[i].out, len);
		ck_assert_int_eq(ek_utf8_validate((const char *)b, len), 0);
	}
}
END_TEST

static Suite *unicode_suite(void)
{
	Suite *s = suite_create("unicode");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_fold, 0, sizeof(folds) / sizeof(folds[0]));
	tcase_add_test(tc, test_cmp);
	tcase_add_test(tc, test_name_eq);
	tcase_add_test(tc, test_hash);
	tcase_add_test(tc, test_fix_encoding);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(unicode_suite)
