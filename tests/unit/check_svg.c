// SPDX-License-Identifier: MIT
/*
 * check_svg.c - the SVG/HTML markup writer (svg.c): structure, numbers,
 * and above all the escaping of text and attributes that come from a
 * hostile image (quotes, angle brackets, ampersands, controls, invalid
 * UTF-8, U+FFFE).
 */
#include "unit.h"

static char buf[8192];

static FILE *open_buf(void)
{
	FILE *f;

	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf), "w");
	ck_assert_ptr_nonnull(f);
	return f;
}

START_TEST(test_structure)
{
	FILE *f = open_buf();
	struct ek_svg s;

	ek_svg_init(&s, f, false);
	ek_svg_doc_begin(&s, 100, 20.5);
	ek_svg_begin(&s, "rect");
	ek_svg_attr_num(&s, "x", 1.25);
	ek_svg_attr_num(&s, "y", 3.0);
	ek_svg_attr_num(&s, "w", 0.004);
	ek_svg_attr_num(&s, "h", 0.0 / 0.0);
	ek_svg_attr_u64(&s, "data-blocks", 18446744073709551615ull);
	ek_svg_end(&s);
	ek_svg_begin(&s, "g");
	ek_svg_title(&s, "tid %u", 7);
	ek_svg_end(&s);
	ck_assert_int_eq(ek_svg_finish(&s), 0);
	fclose(f);
	ck_assert_str_eq(buf,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"20.5\" "
		"viewBox=\"0 0 100 20.5\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"11\">"
		"<rect x=\"1.25\" y=\"3\" w=\"0\" h=\"0\" data-blocks=\"18446744073709551615\"/>\n"
		"<g><title>tid 7</title></g>\n"
		"</svg>\n");
}
END_TEST

/* bytes a file name in an image may hold, and what each becomes */
static const struct {
	const char *in;
	size_t len;
	const char *attr, *text;
} esc[] = {
	{ "plain", 5, "plain", "plain" },
	{ "a\"b'c", 5, "a&quot;b&#39;c", "a&quot;b&#39;c" },
	{ "<script>&", 9, "&lt;script&gt;&amp;", "&lt;script&gt;&amp;" },
	{ "\"/><a href=x>", 13, "&quot;/&gt;&lt;a href=x&gt;", "&quot;/&gt;&lt;a href=x&gt;" },
	{ "]]>", 3, "]]&gt;", "]]&gt;" },
	{ "t\tn\nr\r", 6, "t&#9;n&#10;r&#13;", "t\tn\nr\r" },
	{ "nul\0x", 5, "nul\xEF\xBF\xBDx", "nul\xEF\xBF\xBDx" },
	{ "\x01\x1f", 2, "\xEF\xBF\xBD\xEF\xBF\xBD", "\xEF\xBF\xBD\xEF\xBF\xBD" },
	{ "caf\xC3\xA9", 5, "caf\xC3\xA9", "caf\xC3\xA9" },
	{ "bad\xFF\xC3", 5, "bad\xEF\xBF\xBD\xEF\xBF\xBD", "bad\xEF\xBF\xBD\xEF\xBF\xBD" },
	{ "\xC0\xAF", 2, "\xEF\xBF\xBD\xEF\xBF\xBD", "\xEF\xBF\xBD\xEF\xBF\xBD" },	/* overlong '/' */
	{ "\xED\xA0\x80", 3, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD",
	  "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" },	/* a surrogate */
	{ "\xEF\xBF\xBE", 3, "\xEF\xBF\xBD", "\xEF\xBF\xBD" },	/* U+FFFE */
	{ "\xF0\x9F\x98\x80", 4, "\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80" },
};

START_TEST(test_escape)
{
	FILE *f = open_buf();
	struct ek_svg s;
	char want[512];

	ek_svg_init(&s, f, false);
	ek_svg_begin(&s, "text");
	ek_svg_attr_bytes(&s, "data-name", esc[_i].in, esc[_i].len);
	ek_svg_text_bytes(&s, esc[_i].in, esc[_i].len);
	ck_assert_int_eq(ek_svg_finish(&s), 0);
	fclose(f);
	snprintf(want, sizeof(want), "<text data-name=\"%s\">%s</text>\n", esc[_i].attr,
		 esc[_i].text);
	ck_assert_str_eq(buf, want);
}
END_TEST

START_TEST(test_printf_escaped)
{
	FILE *f = open_buf();
	struct ek_svg s;
	char longname[600];

	memset(longname, '<', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ek_svg_init(&s, f, false);
	ek_svg_begin(&s, "a");
	ek_svg_attr(&s, "n", "%s&%d", "\"x\"", 1);
	ek_svg_text(&s, "%s", "<b>");
	ek_svg_end(&s);
	ek_svg_begin(&s, "b");
	ek_svg_text(&s, "%s", longname);	/* past the small buffer */
	ek_svg_end(&s);
	ck_assert_int_eq(ek_svg_finish(&s), 0);
	fclose(f);
	ck_assert(!strncmp(buf, "<a n=\"&quot;x&quot;&amp;1\">&lt;b&gt;</a>\n<b>&lt;&lt;", 50));
	ck_assert_uint_eq(strlen(buf), strlen("<a n=\"&quot;x&quot;&amp;1\">&lt;b&gt;</a>\n<b>") +
			  4 * 599 + strlen("</b>\n"));
}
END_TEST

/* HTML: empty elements are closed with an end tag; no XML declaration */
START_TEST(test_html)
{
	FILE *f = open_buf();
	struct ek_svg s;

	ek_svg_init(&s, f, true);
	ek_svg_begin(&s, "div");
	ek_svg_begin(&s, "td");
	ek_svg_end(&s);
	ek_svg_begin(&s, "meta");
	ek_svg_attr(&s, "charset", "utf-8");
	ek_svg_end(&s);
	ek_svg_raw(&s, "<hr>", 4);
	ck_assert_int_eq(ek_svg_finish(&s), 0);
	fclose(f);
	ck_assert_str_eq(buf, "<div><td></td>\n<meta charset=\"utf-8\"/>\n<hr></div>\n");
}
END_TEST

/* nesting past the stack is dropped and reported, never overflows */
START_TEST(test_depth)
{
	FILE *f = open_buf();
	struct ek_svg s;

	ek_svg_init(&s, f, false);
	for (int i = 0; i < EK_SVG_DEPTH + 5; i++)
		ek_svg_begin(&s, "g");
	ck_assert_int_eq(ek_svg_finish(&s), -EINVAL);
	fclose(f);
	ck_assert_uint_eq(s.depth, 0);
}
END_TEST

static Suite *svg_suite(void)
{
	Suite *s = suite_create("svg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_structure);
	tcase_add_loop_test(tc, test_escape, 0, sizeof(esc) / sizeof(esc[0]));
	tcase_add_test(tc, test_printf_escaped);
	tcase_add_test(tc, test_html);
	tcase_add_test(tc, test_depth);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(svg_suite)
