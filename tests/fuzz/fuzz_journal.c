// SPDX-License-Identifier: MIT
/*
 * fuzz_journal.c - journal superblock, location, log scan, replay plan,
 * fast commits, orphans and apply, through the recovery driver as
 * `extkit-replay apply` uses it: open the input as an image, plan the
 * recovery read-only (strict checksums, then ignoring them), then plan
 * read-write and apply into the memfd.
 */
#include <stdio.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfd(data, size, path);

	if (fd < 0)
		return 0;
	for (unsigned pass = 0; pass < 3; pass++) {
		struct ek_recover_opts o = {
			.image = path, .now = 0,
			.flags = pass ? EK_OPEN_IGNORE_CSUM : 0,
			/* the last pass writes: the memfd is ours */
		};
		struct ek_recover_apply_opts a = { .now = 0 };
		struct ek_recover_result res;
		struct ek_recovery *r;
		uint64_t sum = 0;

		if (pass == 2)
			o.flags |= EK_OPEN_RW;
		if (ek_recover_plan(&o, &r))
			continue;
		for (size_t i = 0; i < r->log.ntxns; i++) {
			for (uint32_t k = 0; k < r->log.txns[i].ntags; k++)
				sum += r->log.txns[i].tags[k].home;
			for (uint32_t k = 0; k < r->log.txns[i].nrevokes; k++)
				sum += r->log.txns[i].revokes[k];
		}
		for (size_t i = 0; i < r->norphans; i++)
			sum += r->orphans[i].blocks_freed;
		if (pass == 2)
			ek_recover_apply(r, &a, &res);
		ek_recover_free(r);
		(void)sum;
	}
	close(fd);
	return 0;
}
