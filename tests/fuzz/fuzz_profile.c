// SPDX-License-Identifier: MIT
/*
 * fuzz_profile.c - mke2fs.conf text: parse it, then ask it what
 * extkit-mkfs asks (every relation of [defaults] and of a few
 * [fs_types] subsections, with each typed lookup).
 */
#include <stdbool.h>
#include <stdint.h>
#include "extkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const subs[] = { NULL, "ext4", "small", "floppy", "huge" };
	static const char *const tags[] = { "base_features", "features", "blocksize",
					    "inode_ratio", "reserved_ratio", "lazy_itable_init",
					    "options", "errors", "" };
	struct ek_profile *p;

	if (ek_profile_parse((const char *)data, size, "fuzz", &p))
		return 0;
	for (size_t s = 0; s < sizeof(subs) / sizeof(subs[0]); s++)
		for (size_t t = 0; t < sizeof(tags) / sizeof(tags[0]); t++) {
			const char *sec = subs[s] ? "fs_types" : "defaults";
			int i;
			unsigned u;
			double d;
			bool b;

			(void)ek_profile_get(p, sec, subs[s], tags[t]);
			(void)ek_profile_get_int(p, sec, subs[s], tags[t], &i);
			(void)ek_profile_get_uint(p, sec, subs[s], tags[t], &u);
			(void)ek_profile_get_double(p, sec, subs[s], tags[t], &d);
			(void)ek_profile_get_bool(p, sec, subs[s], tags[t], &b);
			(void)ek_profile_has_subsection(p, sec, subs[s] ? subs[s] : tags[t]);
			(void)ek_profile_is_final(p, sec, subs[s]);
		}
	ek_profile_free(p);
	return 0;
}
