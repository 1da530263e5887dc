// SPDX-License-Identifier: MIT
/*
 * out.c - the one output emitter for text and JSON.
 *
 * JSON: value calls build one document (indented), or with JSONL one
 * compact record per top-level object.  Containers nest up to OUT_DEPTH.
 * Text: only ek_out_text() writes; value calls are ignored, so a command
 * describes its data once for JSON and formats its text beside it.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "extkit.h"

#define OUT_DEPTH 32

struct ek_out {
	FILE *f;
	enum ek_out_mode mode;
	int depth;
	bool first[OUT_DEPTH];		/* no element yet at this depth */
	bool is_arr[OUT_DEPTH];
	const char *pending_key;	/* ek_out_key(): key for the next value */
	unsigned long top_values;	/* values begun at depth 0 */
};

struct ek_out *ek_out_new(FILE *f, enum ek_out_mode mode)
{
	struct ek_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->f = f;
	o->mode = mode;
	o->first[0] = true;
	return o;
}

bool ek_out_json(const struct ek_out *o)
{
	return o->mode != EK_OUT_TEXT;
}

static void newline_indent(struct ek_out *o)
{
	if (o->mode != EK_OUT_JSON)
		return;
	fputc('\n', o->f);
	for (int i = 0; i < o->depth; i++)
		fputs("  ", o->f);
}

size_t ek_utf8_seq(const uint8_t *p, const uint8_t *end, uint32_t *cp_out)
{
	size_t n = 0, k;
	uint32_t cp = 0;
	uint8_t c;

	if (p >= end)
		return 0;
	c = *p;
	if (c < 0x80)
		n = 0, cp = c;
	else if ((c & 0xE0) == 0xC0)
		n = 1, cp = c & 0x1F;
	else if ((c & 0xF0) == 0xE0)
		n = 2, cp = c & 0x0F;
	else if ((c & 0xF8) == 0xF0)
		n = 3, cp = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) <= n)
		return 0;
	for (k = 1; k <= n && (p[k] & 0xC0) == 0x80; k++)
		cp = cp << 6 | (p[k] & 0x3F);
	/* reject truncated and overlong forms, surrogates and > U+10FFFF */
	if (k <= n || (n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
	    (n == 3 && cp < 0x10000) || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	if (cp_out)
		*cp_out = cp;
	return n + 1;
}

static void put_string(struct ek_out *o, const char *s, size_t len, bool *lossy)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + len;

	fputc('"', o->f);
	while (p < end) {
		uint8_t c = *p;
		size_t n;

		if (c < 0x80) {
			if (c == '"' || c == '\\')
				fprintf(o->f, "\\%c", c);
			else if (c == '\n')
				fputs("\\n", o->f);
			else if (c == '\t')
				fputs("\\t", o->f);
			else if (c < 0x20 || c == 0x7F)
				fprintf(o->f, "\\u%04x", c);
			else
				fputc(c, o->f);
			p++;
			continue;
		}
		if ((n = ek_utf8_seq(p, end, NULL))) {
			fwrite(p, 1, n, o->f);
			p += n;
			continue;
		}
		fputs("\xEF\xBF\xBD", o->f);	/* U+FFFD */
		if (lossy)
			*lossy = true;
		p++;
	}
	fputc('"', o->f);
}

static bool begin_value(struct ek_out *o, const char *key)
{
	if (o->mode == EK_OUT_TEXT)
		return false;
	if (!key) {
		key = o->pending_key;
	}
	o->pending_key = NULL;
	if (o->depth == 0)
		o->top_values++;
	if (!o->first[o->depth])
		fputc(',', o->f);
	o->first[o->depth] = false;
	if (o->depth > 0)
		newline_indent(o);
	if (key && o->depth > 0 && !o->is_arr[o->depth]) {
		put_string(o, key, strlen(key), NULL);
		fputs(o->mode == EK_OUT_JSON ? ": " : ":", o->f);
	}
	return true;
}

static void open_container(struct ek_out *o, const char *key, bool arr)
{
	if (!begin_value(o, key))
		return;
	fputc(arr ? '[' : '{', o->f);
	if (o->depth + 1 < OUT_DEPTH) {
		o->depth++;
		o->first[o->depth] = true;
		o->is_arr[o->depth] = arr;
	}
}

static void close_container(struct ek_out *o, bool arr)
{
	bool empty;

	if (o->mode == EK_OUT_TEXT || o->depth == 0)
		return;
	empty = o->first[o->depth];
	o->depth--;
	if (!empty)
		newline_indent(o);
	fputc(arr ? ']' : '}', o->f);
	if (o->depth == 0) {
		fputc('\n', o->f);
		o->first[0] = true;	/* JSONL: the next record starts fresh */
	}
}

void ek_out_key(struct ek_out *o, const char *key)
{
	o->pending_key = key;
}

unsigned long ek_out_top_values(const struct ek_out *o)
{
	return o->top_values;
}

bool ek_out_key_pending(const struct ek_out *o)
{
	return o->pending_key != NULL;
}

void ek_out_obj_begin(struct ek_out *o, const char *key) { open_container(o, key, false); }
void ek_out_obj_end(struct ek_out *o) { close_container(o, false); }
void ek_out_arr_begin(struct ek_out *o, const char *key) { open_container(o, key, true); }
void ek_out_arr_end(struct ek_out *o) { close_container(o, true); }

void ek_out_u64(struct ek_out *o, const char *key, uint64_t v)
{
	if (begin_value(o, key))
		fprintf(o->f, "%llu", (unsigned long long)v);
}

void ek_out_s64(struct ek_out *o, const char *key, int64_t v)
{
	if (begin_value(o, key))
		fprintf(o->f, "%lld", (long long)v);
}

void ek_out_bool(struct ek_out *o, const char *key, bool v)
{
	if (begin_value(o, key))
		fputs(v ? "true" : "false", o->f);
}

void ek_out_null(struct ek_out *o, const char *key)
{
	if (begin_value(o, key))
		fputs("null", o->f);
}

void ek_out_double(struct ek_out *o, const char *key, double v)
{
	if (begin_value(o, key))
		fprintf(o->f, "%.6g", v);
}

void ek_out_str(struct ek_out *o, const char *key, const char *s)
{
	if (!s) {
		ek_out_null(o, key);
		return;
	}
	if (begin_value(o, key))
		put_string(o, s, strlen(s), NULL);
}

static void put_hex(struct ek_out *o, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	fputc('"', o->f);
	for (size_t i = 0; i < len; i++)
		fprintf(o->f, "%02x", p[i]);
	fputc('"', o->f);
}

void ek_out_name(struct ek_out *o, const char *key, const char *s, size_t len)
{
	bool lossy = false;

	if (!begin_value(o, key))
		return;
	put_string(o, s, len, &lossy);
	if (lossy && key && !o->is_arr[o->depth]) {
		char k[128];

		snprintf(k, sizeof(k), "%s_hex", key);
		if (begin_value(o, k))
			put_hex(o, s, len);
	}
}

void ek_out_hex(struct ek_out *o, const char *key, const void *buf, size_t len)
{
	if (begin_value(o, key))
		put_hex(o, buf, len);
}

void ek_out_time(struct ek_out *o, const char *key, int64_t sec, uint32_t nsec)
{
	char iso[40];

	if (o->mode == EK_OUT_TEXT)
		return;
	ek_out_obj_begin(o, key);
	ek_out_s64(o, "sec", sec);
	ek_out_u64(o, "nsec", nsec);
	ek_out_str(o, "iso", ek_fmt_iso(sec, iso, sizeof(iso)));
	ek_out_obj_end(o);
}

void ek_out_text(struct ek_out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->mode != EK_OUT_TEXT)
		return;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

void ek_out_record_end(struct ek_out *o)
{
	if (o->mode == EK_OUT_JSONL && o->depth == 0)
		fflush(o->f);
}

void ek_out_free(struct ek_out *o)
{
	if (!o)
		return;
	while (o->mode != EK_OUT_TEXT && o->depth > 0)
		close_container(o, o->is_arr[o->depth]);
	fflush(o->f);
	free(o);
}

const char *ek_fmt_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm))
		snprintf(buf, len, "%lld", (long long)t);
	return buf;
}

const char *ek_fmt_inode_time(const struct ek_time *t, bool extra, char *buf, size_t len)
{
	char date[64];

	ek_fmt_time(t->sec, date, sizeof(date));
	if (extra)
		snprintf(buf, len, "0x%08x:%08x -- %s", (uint32_t)t->sec,
			 (uint32_t)(t->nsec << 2 | ((t->sec >> 32) & 3)), date);
	else
		snprintf(buf, len, "0x%08x -- %s", (uint32_t)t->sec, date);
	return buf;
}

const char *ek_fmt_iso(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%lld", (long long)t);
	return buf;
}

const char *ek_fmt_uuid(const uint8_t u[16], char *buf, size_t len)
{
	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
	return buf;
}

void ek_out_bar(FILE *f, const char *label, unsigned *last, uint64_t done, uint64_t total)
{
	unsigned pct = total ? (unsigned)((done < total ? done : total) * 100 / total) : 100;
	char bar[41];

	if (pct == *last)
		return;
	*last = pct;
	memset(bar, '=', pct * 40 / 100);
	memset(bar + pct * 40 / 100, ' ', 40 - pct * 40 / 100);
	bar[40] = 0;
	fprintf(f, "\r%s: |%s| %3u%%%s", label, bar, pct, pct == 100 ? "\n" : "");
	fflush(f);
}
