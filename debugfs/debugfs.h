/* SPDX-License-Identifier: MIT */
/*
 * debugfs.h - extkit-debugfs: shared state and the command table.
 */
#ifndef EK_DEBUGFS_H
#define EK_DEBUGFS_H

#include <unistd.h>
#include "extkit.h"

struct dbg {
	struct ek_fs *fs;
	struct ek_out *out;
	ek_ino_t root, cwd;
	const char *prog;
	bool verbose;		/* -v: source location of errors */
	char last_error[320];	/* message of the last failed request, for JSON */
};

typedef int (*dbg_fn)(struct dbg *d, int argc, char **argv);

#define NEED_FS		0x1
#define JSON_OK		0x2

struct dbg_cmd {
	const char *name;
	const char *alias;
	dbg_fn fn;
	int min_args, max_args;		/* after the command name; -1: no limit */
	unsigned flags;
	const char *usage;
	const char *help;
};

/* the command table (sorted by name) and its length */
const struct dbg_cmd *dbg_cmd_table(size_t *n);
/* run one request line (JSON: wrapped with the request when @wrap_json); 0 ok, 1 failed */
int dbg_run_request(struct dbg *d, const char *req, bool wrap_json);
/* 'quit' was run */
bool dbg_quit_requested(void);
/* the prompt on a terminal: line editing, history, Tab completion (prompt.c) */
int dbg_interactive(struct dbg *d);

/* print "cmd: message" for @err to stderr; returns 1 (command failed) */
int dbg_fail(struct dbg *d, const char *cmd, int err);
int dbg_usage(const char *cmd);
/* print a one-line error for the current request and remember it for JSON */
void dbg_errorf(struct dbg *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dbg_warn(struct dbg *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "<12>" or a path (relative to cwd) -> inode number */
int dbg_parse_ino(struct dbg *d, const char *arg, ek_ino_t *out);
int dbg_parse_u64(const char *arg, uint64_t *out);
/* read inode, warn (not fail) on a checksum mismatch */
int dbg_read_inode(struct dbg *d, ek_ino_t ino, struct ek_inode *ei);
/* print fs warnings collected since the last call */
void dbg_flush_warnings(struct dbg *d);
const char *dbg_mode_type(uint16_t mode);
/* hex and ASCII, 16 bytes a line after @indent, repeated lines as "*", offsets from @base */
void dbg_hexdump(struct ek_out *o, const char *indent, const uint8_t *buf, size_t len,
		 uint64_t base);
/* the journal superblock as dumpe2fs -h shows it; JSON: ek_journal_emit()'s keys
 * into the open object (@device: an external journal's path) */
void dbg_journal_super(struct ek_out *o, const struct ek_journal *j, const char *device);


/* commands */
int do_stats(struct dbg *d, int argc, char **argv);
int do_features(struct dbg *d, int argc, char **argv);
int do_stat(struct dbg *d, int argc, char **argv);
int do_id(struct dbg *d, int argc, char **argv);
int do_bd(struct dbg *d, int argc, char **argv);
int do_blocks(struct dbg *d, int argc, char **argv);
int do_bmap(struct dbg *d, int argc, char **argv);
int do_ex(struct dbg *d, int argc, char **argv);
int do_testb(struct dbg *d, int argc, char **argv);
int do_testi(struct dbg *d, int argc, char **argv);
int do_ffb(struct dbg *d, int argc, char **argv);
int do_ffi(struct dbg *d, int argc, char **argv);
int do_imap(struct dbg *d, int argc, char **argv);
int do_icheck(struct dbg *d, int argc, char **argv);
int do_ncheck(struct dbg *d, int argc, char **argv);
int do_ls(struct dbg *d, int argc, char **argv);
int do_cd(struct dbg *d, int argc, char **argv);
int do_pwd(struct dbg *d, int argc, char **argv);
int do_htree(struct dbg *d, int argc, char **argv);
int do_dx_hash(struct dbg *d, int argc, char **argv);
int do_cat(struct dbg *d, int argc, char **argv);
int do_dump(struct dbg *d, int argc, char **argv);
int do_rdump(struct dbg *d, int argc, char **argv);
int do_frag(struct dbg *d, int argc, char **argv);
int do_freefrag(struct dbg *d, int argc, char **argv);
int do_map(struct dbg *d, int argc, char **argv);
/* e2freefrag's label of histogram bucket @i (cmd_frag.c), for map too */
void dbg_free_range_label(uint32_t blksz, int i, char *buf, size_t len);
int do_ea_list(struct dbg *d, int argc, char **argv);
int do_logdump(struct dbg *d, int argc, char **argv);
int do_list_quota(struct dbg *d, int argc, char **argv);
int do_get_quota(struct dbg *d, int argc, char **argv);

#endif
