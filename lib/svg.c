// SPDX-License-Identifier: MIT
/*
 * svg.c - a streaming SVG/HTML markup writer for the pictures the tools
 * draw (replay timeline, debugfs map, replay report).
 *
 * The one thing it must get right is escaping: text and attribute values
 * may hold file names and other bytes from a hostile image.  All of them
 * pass through ek_xml_escape():
 *
 *   &  <  >  "  '          &amp; &lt; &gt; &quot; &#39;
 *   tab, newline, return   kept (numeric references in attributes, where
 *                          a parser would normalise them to spaces)
 *   other C0 controls      U+FFFD (XML 1.0 has no way to write them)
 *   invalid UTF-8          U+FFFD per byte (ek_utf8_seq, as out.c's JSON)
 *   U+FFFE, U+FFFF         U+FFFD (not XML characters)
 *
 * Element and attribute names are the program's literals.  Numbers are
 * written with "%.2f" trimmed, never with an exponent or "nan": SVG
 * parsers reject both.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define REPLACEMENT "\xEF\xBF\xBD"

static void escape(FILE *f, const void *v, size_t len, bool attr)
{
	const uint8_t *p = v, *end = p + len;

	while (p < end) {
		uint8_t c = *p;
		uint32_t cp;
		size_t n;

		if (c < 0x80) {
			switch (c) {
			case '&': fputs("&amp;", f); break;
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '"': fputs("&quot;", f); break;
			case '\'': fputs("&#39;", f); break;
			case '\t': case '\n': case '\r':
				if (attr)
					fprintf(f, "&#%u;", c);
				else
					fputc(c, f);
				break;
			default:
				if (c < 0x20)
					fputs(REPLACEMENT, f);
				else
					fputc(c, f);
			}
			p++;
			continue;
		}
		n = ek_utf8_seq(p, end, &cp);
		if (n && cp != 0xFFFE && cp != 0xFFFF) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		fputs(REPLACEMENT, f);
		p += n ? n : 1;
	}
}

void ek_xml_escape(FILE *f, const void *v, size_t len)
{
	escape(f, v, len, true);
}

void ek_svg_init(struct ek_svg *s, FILE *f, bool html)
{
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->html = html;
}

/* end the start tag of the innermost element: content follows */
static void close_start(struct ek_svg *s)
{
	if (s->open)
		fputc('>', s->f);
	s->open = false;
}

void ek_svg_begin(struct ek_svg *s, const char *name)
{
	if (s->depth >= EK_SVG_DEPTH || s->lost) {
		s->overflow = true;
		s->lost++;
		return;
	}
	close_start(s);
	fprintf(s->f, "<%s", name);
	s->stack[s->depth] = name;
	s->depth++;
	s->open = true;
}

/* "%.2f" without trailing zeros; non-finite numbers as 0 */
static void fmt_num(char *buf, size_t len, double v)
{
	char *p;

	if (!isfinite(v) || fabs(v) > 1e15)
		v = 0;
	snprintf(buf, len, "%.2f", v);
	p = buf + strlen(buf) - 1;
	while (*p == '0')
		*p-- = 0;
	if (*p == '.')
		*p = 0;
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
}

void ek_svg_doc_begin(struct ek_svg *s, double w, double h)
{
	char a[48], b[48];

	if (!s->html)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", s->f);
	fmt_num(a, sizeof(a), w);
	fmt_num(b, sizeof(b), h);
	ek_svg_begin(s, "svg");
	ek_svg_attr(s, "xmlns", "http://www.w3.org/2000/svg");
	ek_svg_attr(s, "width", "%s", a);
	ek_svg_attr(s, "height", "%s", b);
	ek_svg_attr(s, "viewBox", "0 0 %s %s", a, b);
	/* one font by name: "sans-serif" alone is DejaVu Sans to rsvg but
	 * Liberation Sans to a browser with fonts-liberation, and labels
	 * placed for one width would overrun in the other */
	ek_svg_attr(s, "font-family", "DejaVu Sans, sans-serif");
	ek_svg_attr(s, "font-size", "11");
}

static void attr_begin(struct ek_svg *s, const char *name)
{
	fprintf(s->f, " %s=\"", name);
}

void ek_svg_attr_bytes(struct ek_svg *s, const char *name, const void *v, size_t len)
{
	if (!s->open || s->lost)
		return;		/* a program bug: an attribute after content */
	attr_begin(s, name);
	escape(s->f, v, len, true);
	fputc('"', s->f);
}

void ek_svg_attr(struct ek_svg *s, const char *name, const char *fmt, ...)
{
	char small[256], *buf = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (!buf)
			return;
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	ek_svg_attr_bytes(s, name, buf, (size_t)n);
	if (buf != small)
		free(buf);
}

void ek_svg_attr_u64(struct ek_svg *s, const char *name, uint64_t v)
{
	ek_svg_attr(s, name, "%llu", (unsigned long long)v);
}

void ek_svg_attr_num(struct ek_svg *s, const char *name, double v)
{
	char buf[48];

	fmt_num(buf, sizeof(buf), v);
	ek_svg_attr_bytes(s, name, buf, strlen(buf));
}

void ek_svg_text_bytes(struct ek_svg *s, const void *v, size_t len)
{
	if (s->lost)
		return;
	close_start(s);
	escape(s->f, v, len, false);
}

/* the text of @fmt, escaped, into the open element */
static void vtext(struct ek_svg *s, const char *fmt, va_list ap)
{
	char small[256], *buf = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= 0 && (size_t)n >= sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (buf)
			vsnprintf(buf, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	if (n >= 0 && buf)
		ek_svg_text_bytes(s, buf, (size_t)n);
	if (buf != small)
		free(buf);
}

void ek_svg_text(struct ek_svg *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtext(s, fmt, ap);
	va_end(ap);
}

void ek_svg_raw(struct ek_svg *s, const char *markup, size_t len)
{
	if (s->lost)
		return;
	close_start(s);
	fwrite(markup, 1, len, s->f);
}

/* HTML's void elements: never an end tag, "<meta/>" in both HTML and XML */
static bool html_void(const char *name)
{
	static const char *const v[] = { "area", "base", "br", "col", "embed", "hr", "img",
					 "input", "link", "meta", "source", "track", "wbr" };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(name, v[i]))
			return true;
	return false;
}

void ek_svg_end(struct ek_svg *s)
{
	const char *name;

	if (s->lost) {
		s->lost--;
		return;
	}
	if (!s->depth)
		return;
	name = s->stack[--s->depth];
	if (s->open && (!s->html || html_void(name))) {
		fputs("/>", s->f);
	} else {
		close_start(s);
		fprintf(s->f, "</%s>", name);
	}
	s->open = false;
	/* a line per top-level part keeps the file readable and diffable */
	if (s->depth <= 2 && strcmp(name, "title"))
		fputc('\n', s->f);
}

void ek_svg_title(struct ek_svg *s, const char *fmt, ...)
{
	va_list ap;

	ek_svg_begin(s, "title");
	va_start(ap, fmt);
	vtext(s, fmt, ap);
	va_end(ap);
	ek_svg_end(s);
}

int ek_svg_finish(struct ek_svg *s)
{
	s->lost = 0;
	while (s->depth)
		ek_svg_end(s);
	if (fflush(s->f) || ferror(s->f))
		return -EIO;
	return s->overflow ? -EINVAL : 0;
}

/* ---- shapes the pictures share ------------------------------------------- */

void ek_svg_rect(struct ek_svg *s, double x, double y, double w, double h, const char *fill)
{
	ek_svg_begin(s, "rect");
	ek_svg_attr_num(s, "x", x);
	ek_svg_attr_num(s, "y", y);
	ek_svg_attr_num(s, "width", w);
	ek_svg_attr_num(s, "height", h);
	ek_svg_attr(s, "fill", "%s", fill);
}

void ek_svg_label(struct ek_svg *s, double x, double y, const char *anchor, const char *str)
{
	ek_svg_begin(s, "text");
	ek_svg_attr_num(s, "x", x);
	ek_svg_attr_num(s, "y", y);
	if (anchor)
		ek_svg_attr(s, "text-anchor", "%s", anchor);
	ek_svg_text_bytes(s, str, strlen(str));
	ek_svg_end(s);
}

/* about the width of a character of the pictures' 11-unit DejaVu Sans */
#define CHAR_W 6.2

void ek_svg_swatch(struct ek_svg *s, double *x, double *y, double left, double right,
		   const char *fill, const char *stroke, const char *label)
{
	double w = 30 + CHAR_W * strlen(label);

	if (*x + w > right && *x > left) {
		*x = left;
		*y += 16;
	}
	ek_svg_rect(s, *x, *y - 9, 10, 10, fill);
	if (stroke) {
		ek_svg_attr(s, "stroke", "%s", stroke);
		ek_svg_attr(s, "stroke-width", "0.5");
	}
	ek_svg_end(s);
	ek_svg_label(s, *x + 14, *y, NULL, label);
	*x += w;
}
