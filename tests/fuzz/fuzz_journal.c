// SPDX-License-Identifier: MIT
/*
 * fuzz_journal.c - journal superblock, location, log scan, replay plan and
 * apply: open the input as an image, locate its journal (inode map or the
 * superblock's backup), scan the log, plan, compute the fast-commit replay
 * over the replayed view, then replay into the memfd and release the
 * orphans, as `extkit-replay apply` does.
 */
#include <stdio.h>
#include "fuzz.h"

/* the fast commits over the replayed view, then the replay with them */
static void apply_with_fast_commits(const char *path, struct ek_journal *j, struct ek_jlog *log,
				    struct ek_jplan *plan)
{
	struct ek_jplan_view view = { j, plan };
	struct ek_wset *ws = NULL;
	struct ek_fs *rfs = NULL;
	struct ek_fclog fc;

	if (ek_fc_scan(j, log->end_tid, &fc) == 0) {
		if (fc.state == EK_FC_VALID && !fc.status &&
		    ek_fs_open(path, &(struct ek_open_opts){ .flags = EK_OPEN_IGNORE_CSUM,
				.overlay = ek_jplan_overlay, .overlay_arg = &view }, &rfs) == 0 &&
		    ek_wset_init(rfs, &ws) == 0 &&
		    (ek_fc_replay(rfs, ws, &fc) || ek_wset_seal(ws))) {
			ek_wset_free(ws);
			ws = NULL;
		}
		ek_fclog_release(&fc);
	}
	ek_journal_apply(j, log, plan, ws, 0);
	ek_wset_free(ws);
	ek_fs_close(rfs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ek_fs *fs;
	char path[64];
	int fd = fuzz_memfd(data, size, path);

	if (fd < 0)
		return 0;
	if (ek_fs_open(path, &(struct ek_open_opts){ .flags = EK_OPEN_RW }, &fs) == 0) {
		for (unsigned flags = 0; flags <= EK_OPEN_IGNORE_CSUM; flags += EK_OPEN_IGNORE_CSUM) {
			struct ek_journal *j;
			struct ek_jlog log;
			uint64_t sum = 0;

			if (ek_journal_open(fs, flags, &j))
				continue;
			if (ek_journal_scan(j, &log) == 0) {
				struct ek_jplan plan;

				for (size_t i = 0; i < log.ntxns; i++) {
					for (uint32_t k = 0; k < log.txns[i].ntags; k++)
						sum += log.txns[i].tags[k].home;
					for (uint32_t k = 0; k < log.txns[i].nrevokes; k++)
						sum += log.txns[i].revokes[k];
				}
				if (ek_journal_plan(j, &log, log.end_tid - 1, &plan) == 0) {
					/* the second pass writes: the memfd is ours */
					if (flags && !log.status && j->sb.start)
						apply_with_fast_commits(path, j, &log, &plan);
					ek_jplan_release(&plan);
				}
				ek_jlog_release(&log);
			}
			ek_journal_close(j);
			(void)sum;
		}
		ek_fs_close(fs);
		/* after the replay, the orphans, on the filesystem re-read */
		if (ek_fs_open(path, &(struct ek_open_opts){ .flags = EK_OPEN_RW }, &fs) == 0) {
			struct ek_wset *ws;
			uint64_t n;

			if (ek_wset_init(fs, &ws) == 0) {
				if (ek_orphans_release(fs, ws, 0, NULL, NULL, &n) == 0 && ek_wset_seal(ws) == 0)
					ek_wset_write(ws);
				ek_wset_free(ws);
			}
			ek_fs_close(fs);
		}
	}
	close(fd);
	return 0;
}
