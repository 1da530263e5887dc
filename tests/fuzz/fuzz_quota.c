// SPDX-License-Identifier: MIT
/*
 * fuzz_quota.c - quota files: decode the input as a user, group and
 * project quota file; what decodes is written again by the encoder and
 * must decode to the same entries (entries without usage or limits are
 * the encoder's to leave out).  Salvaged, what a damaged file still
 * reaches has ascending ids, so fsck's rewrite can encode it.
 */
#include <stdlib.h>
#include "fuzz.h"

static bool empty(const struct ek_dquot *d)
{
	return !d->curspace && !d->curinodes && !d->bsoftlimit && !d->isoftlimit &&
	       !d->bhardlimit && !d->ihardlimit;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++) {
		struct ek_quota q, again;
		uint8_t *out;
		size_t len, kept = 0;

		if (!ek_quota_salvage(data, size, t, 3, &q)) {
			if (ek_quota_encode(t, q.dq, q.count, &out, &len))
				abort();
			free(out);
		}
		ek_quota_release(&q);
		if (ek_quota_decode(data, size, t, 3, &q)) {
			ek_quota_release(&q);
			continue;
		}
		if (ek_quota_encode(t, q.dq, q.count, &out, &len))
			abort();	/* a decoded file's ids ascend */
		if (ek_quota_decode(out, len, t, 3, &again))
			abort();
		for (size_t i = 0; i < q.count; i++) {
			if (empty(&q.dq[i]))
				continue;
			if (kept >= again.count || again.dq[kept].id != q.dq[i].id ||
			    again.dq[kept].curspace != q.dq[i].curspace ||
			    again.dq[kept].curinodes != q.dq[i].curinodes)
				abort();
			kept++;
		}
		if (kept != again.count)
			abort();
		free(out);
		ek_quota_release(&again);
		ek_quota_release(&q);
	}
	return 0;
}
