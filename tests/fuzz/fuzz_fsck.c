// SPDX-License-Identifier: MIT
/*
 * fuzz_fsck.c - the whole check on arbitrary image bytes: the recovery
 * plan read-only, then extkit-fsck -n's passes over the image as recovery
 * would leave it, and over the image as it is; then the repair (-y, no
 * journal: written in place into the memfd) and the check once more.
 * Findings are counted, never printed (their paths too); a hostile image may only give
 * findings or an error.
 */
#include <stdio.h>
#include <string.h>
#include "fuzz.h"

static int count(void *arg, const struct ek_finding *f)
{
	(*(uint64_t *)arg) += f->id;
	return 0;
}

/* each finding's path (fsck_path.c) read whole, as the tool copies it */
static void path_of(void *arg, uint64_t seq, const char *path)
{
	(*(uint64_t *)arg) += seq + strlen(path);
}

static void check(const char *path, ek_block_overlay overlay, void *arg)
{
	struct ek_fsck_summary sum;
	struct ek_fs *fs;
	uint64_t n = 0;

	if (ek_fs_open(path, &(struct ek_open_opts){ .flags = EK_OPEN_IGNORE_CSUM,
						    .overlay = overlay, .overlay_arg = arg }, &fs))
		return;
	ek_fsck_desc_check(fs);
	ek_fsck_check(fs, &(struct ek_fsck_opts){ .report = count, .path = path_of, .arg = &n },
		      &sum);
	ek_fs_close(fs);
}

static int fix_all(void *arg, const struct ek_finding *f)
{
	(*(uint64_t *)arg) += f->id;
	return f->fixable ? EK_FSCK_FIX : EK_FSCK_LEAVE;
}

static void repair(const char *path)
{
	struct ek_fsck_summary sum;
	struct ek_fs *fs;
	uint64_t n = 0;

	if (ek_fs_open(path, &(struct ek_open_opts){ .flags = EK_OPEN_IGNORE_CSUM | EK_OPEN_RW },
		       &fs))
		return;
	if (!ek_fsck_desc_check(fs))
		ek_fsck_check(fs, &(struct ek_fsck_opts){ .report = fix_all, .arg = &n,
							  .path = path_of, .repair = true,
							  .now = 1700000000 }, &sum);
	ek_fs_close(fs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ek_recovery *rec = NULL;
	char path[64];
	int fd = fuzz_memfd(data, size, path);

	if (fd < 0)
		return 0;
	if (ek_recover_plan(&(struct ek_recover_opts){ .image = path }, &rec) == 0 && !rec->refused)
		check(path, ek_recover_overlay, rec);
	ek_recover_free(rec);
	check(path, NULL, NULL);
	repair(path);
	check(path, NULL, NULL);
	close(fd);
	return 0;
}
