// SPDX-License-Identifier: MIT
/*
 * err.c - error recording and bounded allocation.
 *
 * The place where damage is found records a message (naming the block or
 * inode) in a per-thread slot and returns the negative code; callers pass
 * the code up unchanged and main() prints ek_error_msg(code).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

static _Thread_local struct ek_error last_error;

const struct ek_error *ek_last_error(void)
{
	return &last_error;
}

void ek_error_clear(void)
{
	memset(&last_error, 0, sizeof(last_error));
}

int ek__error(int code, const char *file, int line, enum ek_where kind,
	      uint64_t where, const char *fmt, ...)
{
	struct ek_error *e = &last_error;
	size_t n = 0;
	va_list ap;

	e->code = code;
	e->kind = kind;
	e->where = where;
	e->file = file;
	e->line = line;
	switch (kind) {
	case EK_AT_BLOCK:
		n = snprintf(e->msg, sizeof(e->msg), "block %llu: ", (unsigned long long)where);
		break;
	case EK_AT_INODE:
		n = snprintf(e->msg, sizeof(e->msg), "inode %llu: ", (unsigned long long)where);
		break;
	case EK_AT_GROUP:
		n = snprintf(e->msg, sizeof(e->msg), "group %llu: ", (unsigned long long)where);
		break;
	case EK_AT_OFFSET:
		n = snprintf(e->msg, sizeof(e->msg), "offset %llu: ", (unsigned long long)where);
		break;
	case EK_AT_NONE:
		break;
	}
	va_start(ap, fmt);
	vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
	va_end(ap);
	return code;
}

static const char *code_text(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EK_CORRUPT:
		return "filesystem structure is corrupt";
	case -EK_BADCRC:
		return "checksum mismatch";
	case -EK_UNSUPP:
		return "unsupported feature";
	default:
		return strerror(err < 0 ? -err : err);
	}
}

int ek_err_wrap(int code, int err, const char *prefix)
{
	char msg[sizeof(last_error.msg)];

	/* copied first: the new message is written where the old one is */
	snprintf(msg, sizeof(msg), "%s", ek_error_msg(err));
	return ek_err(code, "%s%s", prefix, msg);
}

const char *ek_error_msg(int err)
{
	if (err && last_error.code == err && last_error.msg[0])
		return last_error.msg;
	return code_text(err);
}

#define EK_ALLOC_MAX (1ull << 30)

void *ek_calloc(size_t n, size_t sz)
{
	if (sz && n > EK_ALLOC_MAX / sz)
		return NULL;
	return calloc(n ? n : 1, sz ? sz : 1);
}

int ek_grow(void *arrayp, size_t *cap, size_t need, size_t sz)
{
	size_t c = *cap ? *cap : 16;
	void *v;

	if (need <= *cap)
		return 0;
	if (!sz || need > EK_ALLOC_MAX / sz)
		return -ENOMEM;
	while (c < need)
		c = c > EK_ALLOC_MAX / 2 ? EK_ALLOC_MAX : c * 2;
	if (c > EK_ALLOC_MAX / sz)
		c = EK_ALLOC_MAX / sz;
	memcpy(&v, arrayp, sizeof(v));	/* T ** seen as void **, without aliasing it */
	v = realloc(v, c * sz);
	if (!v)
		return -ENOMEM;
	memcpy(arrayp, &v, sizeof(v));
	*cap = c;
	return 0;
}

void *ek_malloc(size_t sz)
{
	if (sz > EK_ALLOC_MAX)
		return NULL;
	return malloc(sz ? sz : 1);
}
