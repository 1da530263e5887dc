// SPDX-License-Identifier: MIT
/*
 * cmd_quota.c - list_quota and get_quota: a quota file's entries through
 * lib/quota.c, in e2fsprogs debugfs' columns (space in bytes, then the
 * space soft and hard limits, inodes, inode soft and hard limits).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "debugfs.h"

/* "user", "group", "project" or 0-2, as debugfs takes them */
static int parse_type(struct dbg *d, const char *cmd, const char *arg, unsigned *out)
{
	char *end;
	unsigned long n;

	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++)
		if (!strcasecmp(arg, ek_quota_type_name(t))) {
			*out = t;
			return 0;
		}
	n = strtoul(arg, &end, 0);
	if (*arg && !*end && n < EK_QUOTA_TYPES) {
		*out = (unsigned)n;
		return 0;
	}
	dbg_errorf(d, "%s: invalid quota type '%s' (user, group or project)", cmd, arg);
	return 1;
}

/* the quota file of @type, decoded and checked */
static int load(struct dbg *d, const char *cmd, const char *arg, struct ek_quota *q)
{
	unsigned t;
	ek_ino_t ino;
	int err;

	memset(q, 0, sizeof(*q));
	if (!ek_has_ro_compat(d->fs, EXT4_FEATURE_RO_COMPAT_QUOTA)) {
		dbg_errorf(d, "%s: the quota feature is not enabled", cmd);
		return 1;
	}
	if (parse_type(d, cmd, arg, &t))
		return 1;
	ino = ek_quota_inum(d->fs, t);
	if (!ino) {
		dbg_errorf(d, "%s: the superblock names no %s quota inode", cmd,
			   ek_quota_type_name(t));
		return 1;
	}
	err = ek_quota_read(d->fs, ino, t, q);
	return err ? dbg_fail(d, cmd, err) : 0;
}

static void header(struct dbg *d, const struct ek_quota *q)
{
	char id[16];

	snprintf(id, sizeof(id), "%s id", ek_quota_type_name(q->type));
	ek_out_text(d->out, "%10s   %8s %8s %8s    %8s %8s %8s\n", id, "space", "quota", "limit",
		    "inodes", "quota", "limit");
	ek_out_str(d->out, "type", ek_quota_type_name(q->type));
}

static void row(struct dbg *d, const struct ek_dquot *dq)
{
	ek_out_text(d->out, "%10u   %8llu %8llu %8llu    %8llu %8llu %8llu\n", dq->id,
		    (unsigned long long)dq->curspace, (unsigned long long)dq->bsoftlimit,
		    (unsigned long long)dq->bhardlimit, (unsigned long long)dq->curinodes,
		    (unsigned long long)dq->isoftlimit, (unsigned long long)dq->ihardlimit);
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "id", dq->id);
	ek_out_u64(d->out, "space", dq->curspace);
	ek_out_u64(d->out, "space_soft_limit", dq->bsoftlimit);
	ek_out_u64(d->out, "space_hard_limit", dq->bhardlimit);
	ek_out_u64(d->out, "inodes", dq->curinodes);
	ek_out_u64(d->out, "inode_soft_limit", dq->isoftlimit);
	ek_out_u64(d->out, "inode_hard_limit", dq->ihardlimit);
	ek_out_u64(d->out, "space_grace_end", dq->btime);
	ek_out_u64(d->out, "inode_grace_end", dq->itime);
	ek_out_obj_end(d->out);
}

int do_list_quota(struct dbg *d, int argc, char **argv)
{
	struct ek_quota q;

	(void)argc;
	if (load(d, "list_quota", argv[1], &q))
		return 1;
	ek_out_obj_begin(d->out, NULL);
	header(d, &q);
	ek_out_arr_begin(d->out, "entries");
	for (size_t i = 0; i < q.count; i++)
		row(d, &q.dq[i]);
	ek_out_arr_end(d->out);
	ek_out_obj_end(d->out);
	ek_quota_release(&q);
	return 0;
}

int do_get_quota(struct dbg *d, int argc, char **argv)
{
	struct ek_quota q;
	struct ek_dquot none = { 0 };
	const struct ek_dquot *dq;
	uint64_t id;

	(void)argc;
	if (dbg_parse_u64(argv[2], &id) || id > UINT32_MAX) {
		dbg_errorf(d, "get_quota: bad id '%s'", argv[2]);
		return 1;
	}
	if (load(d, "get_quota", argv[1], &q))
		return 1;
	/* an id without an entry uses nothing: zeros, as debugfs prints */
	dq = ek_quota_find(&q, (uint32_t)id);
	if (!dq) {
		none.id = (uint32_t)id;
		dq = &none;
	}
	ek_out_obj_begin(d->out, NULL);
	header(d, &q);
	ek_out_key(d->out, "entry");
	row(d, dq);
	ek_out_obj_end(d->out);
	ek_quota_release(&q);
	return 0;
}
