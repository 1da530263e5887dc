// SPDX-License-Identifier: MIT
/* check_out.c - the text/JSON emitter: structure, escaping, invalid UTF-8 */
#include "unit.h"

/* run @fn against an emitter in @mode and return what it printed (static) */
static const char *emit(enum ek_out_mode mode, void (*fn)(struct ek_out *o))
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct ek_out *o;

	ck_assert_ptr_nonnull(f);
	o = ek_out_new(f, mode);
	fn(o);
	ek_out_free(o);
	fclose(f);
	return buf;
}

static void doc(struct ek_out *o)
{
	ek_out_text(o, "text %d\n", 1);
	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "n", 18446744073709551615ull);
	ek_out_s64(o, "neg", -5);
	ek_out_bool(o, "yes", true);
	ek_out_null(o, "none");
	ek_out_str(o, "s", "a\"b\\c\n\t\x01");
	ek_out_arr_begin(o, "list");
	ek_out_u64(o, NULL, 1);
	ek_out_obj_begin(o, NULL);
	ek_out_obj_end(o);
	ek_out_arr_end(o);
	ek_out_hex(o, "raw", "\x00\xff", 2);
	ek_out_obj_end(o);
}

START_TEST(test_json)
{
	const char *s = emit(EK_OUT_JSON, doc);

	ck_assert_str_eq(s, "{\n  \"n\": 18446744073709551615,\n  \"neg\": -5,\n  \"yes\": true,\n"
			 "  \"none\": null,\n  \"s\": \"a\\\"b\\\\c\\n\\t\\u0001\",\n"
			 "  \"list\": [\n    1,\n    {}\n  ],\n  \"raw\": \"00ff\"\n}\n");
}
END_TEST

START_TEST(test_text)
{
	ck_assert_str_eq(emit(EK_OUT_TEXT, doc), "text 1\n");
}
END_TEST

static void records(struct ek_out *o)
{
	for (int i = 0; i < 2; i++) {
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "i", i);
		ek_out_obj_end(o);
		ek_out_record_end(o);
	}
}

START_TEST(test_jsonl)
{
	ck_assert_str_eq(emit(EK_OUT_JSONL, records), "{\"i\":0}\n{\"i\":1}\n");
}
END_TEST

static void names(struct ek_out *o)
{
	ek_out_obj_begin(o, NULL);
	ek_out_name(o, "ok", "caf\xc3\xa9", 5);		/* valid 2-byte UTF-8 */
	ek_out_name(o, "bad", "a\xff" "b", 3);		/* invalid byte */
	ek_out_name(o, "long", "\xc0\xaf", 2);		/* overlong '/' */
	ek_out_name(o, "cut", "x\xe2\x82", 3);		/* truncated sequence */
	ek_out_name(o, "sur", "\xed\xa0\x80", 3);	/* surrogate */
	ek_out_key(o, "k");
	ek_out_u64(o, NULL, 7);				/* the pending key is used */
	ek_out_obj_end(o);
}

START_TEST(test_names)
{
	ck_assert_str_eq(emit(EK_OUT_JSONL, names),
			 "{\"ok\":\"caf\xc3\xa9\",\"bad\":\"a\xef\xbf\xbd" "b\",\"bad_hex\":\"61ff62\","
			 "\"long\":\"\xef\xbf\xbd\xef\xbf\xbd\",\"long_hex\":\"c0af\","
			 "\"cut\":\"x\xef\xbf\xbd\xef\xbf\xbd\",\"cut_hex\":\"78e282\","
			 "\"sur\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\",\"sur_hex\":\"eda080\",\"k\":7}\n");
}
END_TEST

static void unclosed(struct ek_out *o)
{
	ek_out_obj_begin(o, NULL);
	ek_out_arr_begin(o, "a");
	ek_out_u64(o, NULL, 1);
	/* ek_out_free() closes what is open */
}

START_TEST(test_unclosed)
{
	ck_assert_str_eq(emit(EK_OUT_JSONL, unclosed), "{\"a\":[1]}\n");
	struct ek_out *o = ek_out_new(stdout, EK_OUT_TEXT);

	ck_assert(!ek_out_json(o));
	ek_out_free(o);
}
END_TEST

START_TEST(test_time)
{
	char buf[64];

	ck_assert_str_eq(ek_fmt_iso(1700000000, buf, sizeof(buf)), "2023-11-14T22:13:20Z");
	ck_assert_str_eq(ek_fmt_iso(0, buf, sizeof(buf)), "1970-01-01T00:00:00Z");
}
END_TEST

static Suite *out_suite(void)
{
	Suite *s = suite_create("out");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_jsonl);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_unclosed);
	tcase_add_test(tc, test_time);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(out_suite)
