/* SPDX-License-Identifier: MIT */
/* diff.h - extkit-replay diff (cmd_diff.c) */
#ifndef REPLAY_DIFF_H
#define REPLAY_DIFF_H

#include "extkit.h"

/*
 * `diff IMAGE TID1 [TID2]`: @argv[0] TID1, @argv[1] TID2 (optional); the
 * filesystem @fs and journal @j of @image, scanned into @log; @opts how
 * @image was opened (flags, offset), for the two replayed views.  Prints
 * through @o; returns the exit status (0, 1, 2 usage).
 */
int rp_diff(const char *prog, struct ek_out *o, const char *image, const struct ek_open_opts *opts,
	    struct ek_journal *j, const struct ek_jlog *log, int argc, char **argv);

#endif
