// SPDX-License-Identifier: MIT
/*
 * unicode.c - casefolded names (the casefold feature, s_encoding utf8-12.1).
 *
 * A casefolded directory (EXT4_CASEFOLD_FL) compares and hashes names after
 * the kernel's "nfdicf" normalisation (fs/unicode/, utf8_casefold() and
 * utf8_strncasecmp(); e2fsprogs lib/ext2fs/nls_utf8.c does the same):
 *
 *   1. each code point is replaced by its mapping (lib/unicode_data.h):
 *      the full case folding (CaseFolding.txt C+F) or else the canonical
 *      decomposition, applied until nothing changes; Default_Ignorable
 *      code points map to nothing; Hangul syllables decompose
 *      algorithmically into L V (T) jamo.  Code points unassigned in 12.1
 *      map to themselves with combining class 0.
 *   2. combining marks are put in canonical order: between two starters
 *      (class 0, or a replaced code point whose mapping is empty, which the
 *      kernel treats as a starter too) the marks come out by ascending
 *      class, keeping their order within a class.
 *
 * The output is produced one byte at a time by a cursor, exactly as the
 * kernel's utf8byte() does, including its handling of odd input:
 *   - a NUL byte ends the name (a name "a\0b" folds to "a");
 *   - a name starting with a byte 0x80..0xbf does not fold; one later
 *     where a character should start is passed through unchanged (taken
 *     as the rest of a character), though a strict validation refuses it;
 *   - any other sequence that is not shortest-form UTF-8 of U+0000..U+10FFFF
 *     outside the surrogates, or that the name's length cuts short, makes
 *     the fold fail (-EINVAL).
 * What a failed fold means is the caller's policy (ek_name_*() below, as the
 * kernel's generic_ci_match() and ext4fs_dirhash()): in strict mode
 * (EXT4_ENC_STRICT_MODE_FL) such a name matches nothing; otherwise it is
 * compared and hashed as its raw bytes.
 */
#include <string.h>
#include "extkit.h"
#include "unicode_data.h"

/* Hangul syllables (Unicode 3.12 "Conjoining Jamo Behavior") */
#define SBASE	0xAC00u
#define LBASE	0x1100u
#define VBASE	0x1161u
#define TBASE	0x11A7u
#define LCOUNT	19u
#define VCOUNT	21u
#define TCOUNT	28u
#define NCOUNT	(VCOUNT * TCOUNT)
#define SCOUNT	(LCOUNT * NCOUNT)

#define CLASS_REPLACED	(-1)	/* a code point with a mapping (or Hangul) */
#define CLASS_NONE	256	/* no class found yet in this run */

/*
 * Decode one character at @s with @len bytes left (0: unbounded, the
 * input is a NUL-terminated mapping).  Returns its byte length and sets
 * *cp, or 0 if it is not a character the tables know.
 */
static unsigned utf8_decode(const uint8_t *s, size_t len, uint32_t *cp)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned n;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c < 0xC0)
		return 0;
	n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 5;
	if (n == 5 || (len && len < n))
		return 0;
	c &= 0x7Fu >> n;
	for (unsigned i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3F);
	}
	if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return n;
}

static unsigned utf8_encode(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xC0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xE0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3F));
		o[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3F));
	o[2] = (char)(0x80 | (c >> 6 & 0x3F));
	o[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

/* the entry of a table of sorted ranges, each @size bytes and starting
 * with a struct ek_uc_range, that holds @c; NULL when none does */
static const void *range_find(const void *tab, size_t n, size_t size, uint32_t c)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *e = (const char *)tab + mid * size;
		struct ek_uc_range r;

		memcpy(&r, e, sizeof(r));
		if (c < r.first)
			hi = mid;
		else if (c > r.last)
			lo = mid + 1;
		else
			return e;
	}
	return NULL;
}

static int ccc_of(uint32_t c)
{
	const struct ek_uc_ccc *e = range_find(ek_uc_ccc, sizeof(ek_uc_ccc) / sizeof(ek_uc_ccc[0]),
					       sizeof(ek_uc_ccc[0]), c);

	return e ? e->ccc : 0;
}

static bool is_ignorable(uint32_t c)
{
	return range_find(ek_uc_ignorable, sizeof(ek_uc_ignorable) / sizeof(ek_uc_ignorable[0]),
			  sizeof(ek_uc_ignorable[0]), c) != NULL;
}

static const char *mapping_of(uint32_t c)
{
	size_t lo = 0, hi = sizeof(ek_uc_map) / sizeof(ek_uc_map[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c < ek_uc_map[mid].cp)
			hi = mid;
		else if (c > ek_uc_map[mid].cp)
			lo = mid + 1;
		else
			return ek_uc_map[mid].to;
	}
	return NULL;
}

/*
 * The cursor: where it reads (the name, or a mapping while @ret is set,
 * to return to the name after it), the class it is emitting in the
 * current run of marks and the smallest class above it seen so far, and
 * where that run started so it can be read again for the next class.
 * Mappings are static strings or @hangul, so a saved position inside one
 * stays valid (a run never starts inside a Hangul mapping: jamo are
 * starters).
 */
struct cursor {
	const uint8_t *s, *ret;
	size_t len;			/* bytes of the name left (not of a mapping) */
	int cls, next;
	const uint8_t *run_s, *run_ret;
	size_t run_len;
	char hangul[10];		/* 3 jamo of 3 bytes, NUL */
};

/* -EINVAL if the name starts with a continuation byte (utf8ncursor()) */
static int cursor_init(struct cursor *c, const char *s, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->s = (const uint8_t *)s;
	c->len = len;
	c->cls = 0;
	c->next = 0;
	if (len && (!s || (c->s[0] & 0xC0) == 0x80))
		return -EINVAL;
	return 0;
}

/*
 * What the character at c->s is: its class (0..254), or CLASS_REPLACED
 * with *map set to its mapping, or -2 if it is not a character.
 */
static int char_class(struct cursor *c, const char **map)
{
	uint32_t cp;

	if (!utf8_decode(c->s, c->ret ? 0 : c->len, &cp))
		return -2;
	if (cp - SBASE < SCOUNT) {
		uint32_t si = cp - SBASE, t = TBASE + si % TCOUNT;
		unsigned n = utf8_encode(LBASE + si / NCOUNT, c->hangul);

		n += utf8_encode(VBASE + si % NCOUNT / TCOUNT, c->hangul + n);
		if (t != TBASE)
			n += utf8_encode(t, c->hangul + n);
		c->hangul[n] = '\0';
		*map = c->hangul;
		return CLASS_REPLACED;
	}
	if (is_ignorable(cp)) {
		*map = "";
		return CLASS_REPLACED;
	}
	if ((*map = mapping_of(cp)))
		return CLASS_REPLACED;
	return ccc_of(cp);
}

/* length of the character at @p for stepping over it (utf8clen()) */
static unsigned step_len(const uint8_t *p)
{
	return 1u + (*p >= 0xC0) + (*p >= 0xE0) + (*p >= 0xF0);
}

static void advance(struct cursor *c)
{
	unsigned n = step_len(c->s);

	if (!c->ret)
		c->len = c->len > n ? c->len - n : 0;
	c->s += n;
}

/* the next byte of the folded name: 0..255, 0 at the end, or -1 if invalid */
static int cursor_byte(struct cursor *c)
{
	for (;;) {
		const char *map;
		int cls;

		if (c->ret && *c->s == '\0') {		/* end of a mapping */
			c->s = c->ret;
			c->ret = NULL;
		}
		if (!c->ret && (c->len == 0 || *c->s == '\0')) {
			if (c->cls == 0)
				return 0;
			cls = 0;			/* the end is a starter */
			goto other_class;
		}
		if ((*c->s & 0xC0) == 0x80) {		/* rest of a character */
			if (!c->ret)
				c->len--;
			return *c->s++;
		}
		cls = char_class(c, &map);
		if (cls == -2)
			return -1;
		if (cls == CLASS_REPLACED) {
			unsigned n = step_len(c->s);

			if (c->ret)			/* mappings are final */
				return -1;
			c->len = c->len > n ? c->len - n : 0;
			c->ret = c->s + n;
			c->s = (const uint8_t *)map;
			if (*c->s == '\0') {		/* nothing: a starter */
				if (c->cls == 0)
					continue;
				cls = 0;
				goto other_class;
			}
			cls = char_class(c, &map);
			if (cls < 0)			/* mappings are final */
				return -1;
		}
		if (cls != 0 && c->cls < cls && cls < c->next)
			c->next = cls;
		if (cls == c->cls) {
			if (!c->ret)
				c->len--;
			return *c->s++;
		}
other_class:
		if (c->next == 0) {
			/* a mark out of order: scan the run for the lowest class */
			c->cls = -1;
			c->next = cls;
			c->run_s = c->s;
			c->run_ret = c->ret;
			c->run_len = c->len;
			advance(c);
		} else if (cls != 0) {
			advance(c);			/* not this pass's class */
		} else if (c->next != CLASS_NONE) {
			/* end of the run: read it again for the next class */
			c->cls = c->next;
			c->next = CLASS_NONE;
			c->s = c->run_s;
			c->ret = c->run_ret;
			c->len = c->run_len;
		} else {
			c->cls = 0;			/* run done: go on from here */
			c->next = 0;
			c->run_s = c->run_ret = NULL;
			c->run_len = 0;
		}
	}
}

int ek_utf8_casefold(const char *s, size_t len, char *out, size_t size)
{
	struct cursor c;

	if (cursor_init(&c, s, len))
		return -EINVAL;
	for (size_t n = 0; n < size; n++) {
		int b = cursor_byte(&c);

		if (b < 0)
			return -EINVAL;
		out[n] = (char)b;
		if (b == 0)
			return (int)n;
	}
	return -ENAMETOOLONG;
}

int ek_utf8_casecmp(const char *a, size_t alen, const char *b, size_t blen)
{
	struct cursor ca, cb;
	int x, y;

	if (cursor_init(&ca, a, alen) || cursor_init(&cb, b, blen))
		return -EINVAL;
	do {
		x = cursor_byte(&ca);
		y = cursor_byte(&cb);
		if (x < 0 || y < 0)
			return -EINVAL;
		if (x != y)
			return 1;
	} while (x);
	return 0;
}

size_t ek_utf8_invalid_at(const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t at = 0;
	uint32_t cp;

	/* as the kernel's utf8_validate(): whole characters up to a NUL */
	while (at < len && p[at]) {
		unsigned n = utf8_decode(p + at, len - at, &cp);

		if (!n)
			return at;
		at += n;
	}
	return len;
}

int ek_utf8_validate(const char *s, size_t len)
{
	return ek_utf8_invalid_at(s, len) == len ? 0 : -EINVAL;
}

bool ek_dir_folds(const struct ek_fs *fs, uint32_t dir_flags)
{
	return (dir_flags & EXT4_CASEFOLD_FL) && !(dir_flags & EXT4_ENCRYPT_FL) &&
	       ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CASEFOLD) &&
	       fs->sb.encoding == EXT4_ENC_UTF8_12_1;
}

bool ek_name_eq(const struct ek_fs *fs, bool fold, const char *a, size_t alen,
		const char *b, size_t blen)
{
	if (fold) {
		int r = ek_utf8_casecmp(a, alen, b, blen);

		if (r >= 0)
			return r == 0;
		if (fs->sb.encoding_flags & EXT4_ENC_STRICT_MODE_FL)
			return false;
	}
	return alen == blen && !memcmp(a, b, alen);
}
