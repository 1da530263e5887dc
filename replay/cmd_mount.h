// SPDX-License-Identifier: MIT
/* cmd_mount.h - extkit-replay mount: the replayed image as a read-only FUSE filesystem */
#ifndef EK_REPLAY_CMD_MOUNT_H
#define EK_REPLAY_CMD_MOUNT_H

#include <stdbool.h>
#include "extkit.h"

struct rp_mount_opts {
	const char *prog;
	const char *image;
	const char *dir;		/* the mount point */
	const char *journal_dev;	/* external journal device, or NULL */
	uint64_t offset;		/* the filesystem's byte offset in @image */
	unsigned flags;			/* EK_OPEN_IGNORE_CSUM */
	bool have_upto;
	ek_tid_t upto;			/* with have_upto: the last transaction replayed */
	bool foreground;		/* stay attached to the terminal (-f) */
};

/*
 * Plan the recovery of @o->image read-only (journal up to --upto, fast
 * commits, orphans) and serve the image as the plan leaves it at @o->dir
 * until it is unmounted.  Returns the exit status: 0 after a clean
 * unmount, 1 when the image cannot be planned or mounted (message on
 * stderr), or when this build has no libfuse3.
 */
int rp_mount(const struct rp_mount_opts *o);

#endif
