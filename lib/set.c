// SPDX-License-Identifier: MIT
/*
 * set.c - a set of nonzero 64-bit numbers (block or inode numbers seen by
 * a walk), open addressing with linear probing, grown at half load.
 * Memory is proportional to what was added, never to an on-disk count.
 */
#include <stdlib.h>
#include "extkit.h"

int ek_set_add(struct ek_set *s, uint64_t v)
{
	size_t i;

	if (!v)
		return -EINVAL;
	if (s->used * 2 >= s->cap) {
		struct ek_set n = { .cap = s->cap ? s->cap * 2 : 64 };

		n.slot = ek_calloc(n.cap, sizeof(*n.slot));
		if (!n.slot)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->slot[i])
				ek_set_add(&n, s->slot[i]);
		free(s->slot);
		*s = n;
	}
	for (i = (v * 0x9E3779B97F4A7C15ull) & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == v)
			return 1;
	s->slot[i] = v;
	s->used++;
	return 0;
}

void ek_set_release(struct ek_set *s)
{
	free(s->slot);
	s->slot = NULL;
	s->cap = s->used = 0;
}

/* ---- sorted arrays --------------------------------------------------------- */

int ek_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int ek_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

size_t ek_lower_u64(const uint64_t *v, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t ek_lower_u32(const uint32_t *v, size_t n, uint32_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
