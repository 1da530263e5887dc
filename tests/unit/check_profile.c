// SPDX-License-Identifier: MIT
/* check_profile.c - the mke2fs.conf profile format (profile.c) */
#include "unit.h"

static struct ek_profile *parse(const char *text)
{
	struct ek_profile *p = NULL;
	int err = ek_profile_parse(text, strlen(text), "t.conf", &p);

	ck_assert_msg(!err, "%s", ek_error_msg(err));
	return p;
}

/* the installed Debian file's shape, with the corners of the syntax */
static const char good[] =
	"# free text before the first section is ignored: = { [ \"\n"
	"  [not a section: it does not start in column 0\n"
	"[defaults]\n"
	"\tbase_features = sparse_super,large_file,filetype # a comment after a value\n"
	"\tblocksize = 4096 ; another\n"
	"\tinode_ratio=16384\n"
	"\tblocksize = 1024\n"			/* a second one: the first wins */
	"\tempty = \"\"\n"
	"\tquoted = \"a b\\tc\\\\d\\\"e\" ignored after the quote\n"
	"\t\"quoted tag\" = x\n"
	"\tfinal_tag* = 5\n"
	"\r\n"
	"; a comment line\n"
	"[fs_types]\n"
	"\text4 = {\n"
	"\t\tfeatures = has_journal,extent\n"
	"\t\tinode_size = 256\n"
	"\t}\n"
	"\tsmall =\n"
	"\t{ text after a lone brace is not read\n"
	"\t\tblocksize = 1024\n"
	"\t\tnested = {\n"
	"\t\t\tdeep = yes\n"
	"\t\t}\n"
	"\t}*\n"
	"\tempty = {\n"
	"\t}\n"
	"\text4 = {\n"
	"\t\tinode_size = 128\n"		/* a second ext4: lookups take the first */
	"\t}\n"
	"[ defaults ]*\n"			/* the same section again */
	"\treserved_ratio = 2.5\n"
	"[options]\n"
	"\tproceed_delay = 0x10\n"
	"\tneg = -1\n"
	"\tbig = 4294967296\n"
	"\tb1 = On\n"
	"\tb2 = nil\n"
	"\tb3 = maybe\n";

START_TEST(test_profile_good)
{
	struct ek_profile *p = parse(good);
	int i = 7;
	unsigned u = 7;
	double d = 0;
	bool b = false;

	ck_assert_str_eq(ek_profile_get(p, "defaults", NULL, "base_features"),
			 "sparse_super,large_file,filetype");
	ck_assert_str_eq(ek_profile_get(p, "defaults", NULL, "blocksize"), "4096");
	ck_assert_str_eq(ek_profile_get(p, "defaults", NULL, "inode_ratio"), "16384");
	ck_assert_str_eq(ek_profile_get(p, "defaults", NULL, "empty"), "");
	ck_assert_str_eq(ek_profile_get(p, "defaults", NULL, "quoted"), "a b\tc\\d\"e");
	ck_assert_str_eq(ek_profile_get(p, "defaults", NULL, "quoted tag"), "x");
	ck_assert_str_eq(ek_profile_get(p, "defaults", NULL, "final_tag"), "5");
	ck_assert_str_eq(ek_profile_get(p, "defaults", NULL, "reserved_ratio"), "2.5");
	ck_assert(ek_profile_is_final(p, "defaults", NULL));
	ck_assert(!ek_profile_is_final(p, "fs_types", NULL));
	ck_assert(ek_profile_is_final(p, "fs_types", "small"));
	ck_assert_ptr_null(ek_profile_get(p, "defaults", NULL, "missing"));
	ck_assert_ptr_null(ek_profile_get(p, "nosuch", NULL, "blocksize"));
	ck_assert_ptr_null(ek_profile_get(p, "not a section: it does not start in column 0",
					  NULL, "x"));
	ck_assert_str_eq(ek_profile_get(p, "fs_types", "ext4", "features"), "has_journal,extent");
	ck_assert_str_eq(ek_profile_get(p, "fs_types", "ext4", "inode_size"), "256");
	ck_assert_str_eq(ek_profile_get(p, "fs_types", "small", "blocksize"), "1024");
	ck_assert_ptr_null(ek_profile_get(p, "fs_types", "small", "deep"));
	ck_assert(ek_profile_has_subsection(p, "fs_types", "ext4"));
	ck_assert(ek_profile_has_subsection(p, "fs_types", "small"));
	ck_assert(!ek_profile_has_subsection(p, "fs_types", "empty"));	/* no relation in it */
	ck_assert(!ek_profile_has_subsection(p, "fs_types", "huge"));
	/* a section is not a relation, nor a relation a section */
	ck_assert_ptr_null(ek_profile_get(p, "fs_types", NULL, "ext4"));
	ck_assert(!ek_profile_has_subsection(p, "defaults", "blocksize"));

	ck_assert_int_eq(ek_profile_get_int(p, "defaults", NULL, "blocksize", &i), 0);
	ck_assert_int_eq(i, 4096);
	ck_assert_int_eq(ek_profile_get_int(p, "defaults", NULL, "missing", &i), 1);
	ck_assert_int_eq(i, 4096);
	ck_assert_int_eq(ek_profile_get_int(p, "options", NULL, "proceed_delay", &i), 0);
	ck_assert_int_eq(i, 16);
	ck_assert_int_eq(ek_profile_get_int(p, "options", NULL, "neg", &i), 0);
	ck_assert_int_eq(i, -1);
	ck_assert_int_eq(ek_profile_get_int(p, "options", NULL, "big", &i), -EINVAL);
	ck_assert_int_eq(ek_profile_get_int(p, "defaults", NULL, "empty", &i), -EINVAL);
	ck_assert_int_eq(ek_profile_get_int(p, "defaults", NULL, "base_features", &i), -EINVAL);
	ck_assert_msg(strstr(ek_last_error()->msg, "base_features"), "%s", ek_last_error()->msg);
	ck_assert_int_eq(ek_profile_get_uint(p, "options", NULL, "big", &u), -EINVAL);
	ck_assert_int_eq(ek_profile_get_uint(p, "options", NULL, "proceed_delay", &u), 0);
	ck_assert_uint_eq(u, 16);
	ck_assert_int_eq(ek_profile_get_double(p, "defaults", NULL, "reserved_ratio", &d), 0);
	ck_assert(d == 2.5);
	ck_assert_int_eq(ek_profile_get_double(p, "defaults", NULL, "quoted", &d), -EINVAL);
	ck_assert_int_eq(ek_profile_get_bool(p, "options", NULL, "b1", &b), 0);
	ck_assert(b);
	ck_assert_int_eq(ek_profile_get_bool(p, "options", NULL, "b2", &b), 0);
	ck_assert(!b);
	ck_assert_int_eq(ek_profile_get_bool(p, "options", NULL, "b3", &b), -EINVAL);
	ck_assert_int_eq(ek_profile_get_bool(p, "options", NULL, "b4", &b), 1);
	ek_profile_free(p);
}
END_TEST

/* what is not a profile: each refused with its line and why */
static const struct {
	const char *text, *msg;
} bad[] = {
	{ "[a]\n\tx = {\n\t[b]\n", "line 3: a section header inside a subsection" },
	{ "[a\n", "line 1: a section header without \"]\"" },
	{ "[ ]\n", "line 1: a section header without a name" },
	{ "[a] b\n", "line 1: text after a section header" },
	{ "[a]\n}\n", "line 2: a \"}\" without its \"{\"" },
	{ "[a]\nx\n", "line 2: a relation without \"tag =\"" },
	{ "[a]\n= x\n", "line 2: a relation without \"tag =\"" },
	{ "[a]\nx y = z\n", "line 2: more than one word before \"=\"" },
	{ "[a]\nx = y z\n", "line 2: more than one word after \"=\"" },
	{ "[a]\nx = { y\n", "line 2: text after a subsection's \"{\"" },
	{ "[a]\nx =\n\ny = 1\n", "line 3: a subsection's \"{\" is missing" },
	{ "[a]\nx =\n", NULL },		/* at the end of the file: as e2fsprogs, accepted */
	{ "[a]\nx = {\n", NULL },	/* an unclosed subsection: accepted too */
};

START_TEST(test_profile_bad)
{
	struct ek_profile *p = (void *)1;
	int err = ek_profile_parse(bad[_i].text, strlen(bad[_i].text), "t.conf", &p);

	if (!bad[_i].msg) {
		ck_assert_int_eq(err, 0);
		ek_profile_free(p);
		return;
	}
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(ek_last_error()->msg, bad[_i].msg), "case %d: %s", _i,
		      ek_last_error()->msg);
	ck_assert_msg(strstr(ek_last_error()->msg, "t.conf"), "%s", ek_last_error()->msg);
}
END_TEST

START_TEST(test_profile_limits)
{
	struct ek_profile *p;
	size_t n = 40 * 8 + 8, len = 0;
	char *s = malloc(n + 16);

	/* 32 levels of subsections are fine, the 33rd is refused */
	len += (size_t)sprintf(s, "[a]\n");
	for (int i = 0; i < 33; i++)
		len += (size_t)sprintf(s + len, "x = {\n");
	ck_assert_int_eq(ek_profile_parse(s, len, "deep", &p), -EINVAL);
	ck_assert_msg(strstr(ek_last_error()->msg, "line 34: subsections nested too deep"), "%s",
		      ek_last_error()->msg);
	ck_assert_int_eq(ek_profile_parse(s, len - 6, "deep", &p), 0);
	ek_profile_free(p);
	free(s);
	/* a NUL byte ends its line's text; the next line still counts */
	{
		static const char nul[] = "[a]\nx = 1\0junk\ny = 2\n";

		ck_assert_int_eq(ek_profile_parse(nul, sizeof(nul) - 1, "nul", &p), 0);
	}
	ck_assert_str_eq(ek_profile_get(p, "a", NULL, "x"), "1");
	ck_assert_str_eq(ek_profile_get(p, "a", NULL, "y"), "2");
	ek_profile_free(p);
	ck_assert_int_eq(ek_profile_parse("", 0, "empty", &p), 0);
	ck_assert(!ek_profile_has_subsection(p, "fs_types", "ext4"));
	ek_profile_free(p);
	ck_assert_int_eq(ek_profile_load("/nonexistent/mke2fs.conf", &p), -ENOENT);
	ck_assert_int_eq(ek_profile_load("/", &p), -EISDIR);
	/* /dev/null: empty, as mke2fs takes it (its hard-coded fallbacks then) */
	ck_assert_int_eq(ek_profile_load("/dev/null", &p), 0);
	ck_assert_ptr_null(ek_profile_get(p, "defaults", NULL, "blocksize"));
	ek_profile_free(p);
}
END_TEST

static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_test(tc, test_profile_good);
	tcase_add_loop_test(tc, test_profile_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_profile_limits);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(profile_suite)
