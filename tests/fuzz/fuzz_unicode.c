// SPDX-License-Identifier: MIT
/*
 * fuzz_unicode.c - the casefold of names (lib/unicode.c) on any bytes: the
 * input split at its first NUL-free half into two names of up to 255
 * bytes.  Besides staying in bounds, what must hold: a name strict mode
 * accepts folds; a name compares equal to itself exactly when it folds;
 * the comparison of two names agrees with comparing their folds (one that
 * does not fold equals nothing by the comparison); a name
 * e2fsck's fix renamed is one strict mode accepts; the folded hash of a
 * name that does not fold is that of its bytes.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

static void check_one(const char *s, size_t len)
{
	char buf[EK_CASEFOLD_MAX], fixed[256];
	int n = ek_utf8_casefold(s, len, buf, sizeof(buf));
	uint32_t h1, m1, h2, m2;

	if (n == -ENAMETOOLONG)
		abort();	/* 255 bytes never fold past PATH_MAX */
	if (!ek_utf8_validate(s, len) && n < 0)
		abort();
	if ((ek_utf8_casecmp(s, len, s, len) == 0) != (n >= 0))
		abort();
	memcpy(fixed, s, len);
	ek_dirent_name_fix_encoding((uint8_t *)fixed, (uint8_t)len);
	if (ek_utf8_validate(fixed, len))
		abort();
	ek_dx_hash_name(EXT4_HASH_HALF_MD4, true, s, len, NULL, &h1, &m1);
	if (n < 0)
		ek_dx_hash(EXT4_HASH_HALF_MD4, s, len, NULL, &h2, &m2);
	else
		ek_dx_hash(EXT4_HASH_HALF_MD4, buf, (size_t)n, NULL, &h2, &m2);
	if (h1 != h2 || m1 != m2)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t half = size / 2, la = half > 255 ? 255 : half, lb = size - half > 255 ? 255 : size - half;
	const char *a = (const char *)data, *b = (const char *)data + half;
	char fa[EK_CASEFOLD_MAX], fb[EK_CASEFOLD_MAX];
	int na, nb, r;

	check_one(a, la);
	check_one(b, lb);
	na = ek_utf8_casefold(a, la, fa, sizeof(fa));
	nb = ek_utf8_casefold(b, lb, fb, sizeof(fb));
	r = ek_utf8_casecmp(a, la, b, lb);
	/* as the kernel's utf8_strncasecmp(): they may differ before the
	 * invalid byte is met (1), never be equal */
	if (na < 0 || nb < 0) {
		if (r != -EINVAL && r != 1)
			abort();
	} else if ((r == 0) != (na == nb && !memcmp(fa, fb, (size_t)na))) {
		abort();
	}
	return 0;
}
