// SPDX-License-Identifier: MIT
/*
 * main.c - extkit-debugfs: options, the command table and the dispatcher
 * shared by -R, -f and the interactive prompt.  Read-only.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "debugfs.h"

static int do_help(struct dbg *d, int argc, char **argv);
static int do_quit(struct dbg *d, int argc, char **argv);
static int do_open(struct dbg *d, int argc, char **argv);
static int do_close(struct dbg *d, int argc, char **argv);

static const struct dbg_cmd dbg_cmds[] = {	/* keep sorted */
	{ "bd", "block_dump", do_bd, 1, 2, NEED_FS | JSON_OK, "[-x] <block>", "dump a block in hex" },
	{ "blocks", NULL, do_blocks, 1, 1, NEED_FS | JSON_OK, "<file>", "list the data blocks of a file" },
	{ "bmap", NULL, do_bmap, 2, 2, NEED_FS | JSON_OK, "<file> <logical block>", "map a logical block to its physical block" },
	{ "cat", NULL, do_cat, 1, 1, NEED_FS, "<file>", "write a file's content to stdout" },
	{ "cd", "chdir", do_cd, 1, 1, NEED_FS, "<dir>", "change the current directory" },
	{ "close", "close_filesys", do_close, 0, 0, 0, "", "close the filesystem" },
	{ "dump", "dump_inode", do_dump, 2, 3, NEED_FS | JSON_OK, "[-p] <file> <native file>", "copy a file out of the image" },
	{ "dx_hash", "hash", do_dx_hash, 1, 9, JSON_OK, "[-h alg] [-s seed] [-u] [-c] [-e encoding] <name>", "compute a directory hash" },
	{ "ea_list", NULL, do_ea_list, 1, 1, NEED_FS | JSON_OK, "<file>", "list extended attributes" },
	{ "ex", "dump_extents", do_ex, 1, 3, NEED_FS | JSON_OK, "[-n] [-l] <file>", "show the extent tree" },
	{ "features", "feature", do_features, 0, 0, NEED_FS | JSON_OK, "", "list filesystem features" },
	{ "ffb", "find_free_block", do_ffb, 0, 2, NEED_FS | JSON_OK, "[count [goal]]", "find free blocks" },
	{ "ffi", "find_free_inode", do_ffi, 0, 2, NEED_FS | JSON_OK, "[dir [mode]]", "find a free inode" },
	{ "frag", "filefrag", do_frag, 0, 4, NEED_FS | JSON_OK, "[-d] [-v] [-r] [file]", "fragmentation of files" },
	{ "freefrag", "e2freefrag", do_freefrag, 0, 2, NEED_FS | JSON_OK, "[-c chunk_kb]", "free space fragmentation" },
	{ "get_quota", "gq", do_get_quota, 2, 2, NEED_FS | JSON_OK, "<user|group|project> <id>", "show one id's quota entry" },
	{ "help", "?", do_help, 0, 1, JSON_OK, "[command]", "list commands" },
	{ "htree", "htree_dump", do_htree, 1, 1, NEED_FS | JSON_OK, "<dir>", "dump a hash-indexed directory" },
	{ "icheck", NULL, do_icheck, 1, -1, NEED_FS | JSON_OK, "<block> ...", "find the inodes owning blocks" },
	{ "id", "inode_dump", do_id, 1, 1, NEED_FS | JSON_OK, "<file>", "dump an inode in hex" },
	{ "imap", NULL, do_imap, 1, 1, NEED_FS | JSON_OK, "<file>", "where an inode lives on disk" },
	{ "list_quota", "lq", do_list_quota, 1, 1, NEED_FS | JSON_OK, "<user|group|project>", "list a quota file's entries" },
	{ "logdump", NULL, do_logdump, 0, -1, NEED_FS | JSON_OK, "[-acOS] [-b block] [-i inode] [-f journal_dev]", "dump the journal" },
	{ "ls", "list_directory", do_ls, 0, 5, NEED_FS | JSON_OK, "[-l] [-d] [-p] [-r] [dir]", "list a directory" },
	{ "map", NULL, do_map, 0, 4, NEED_FS | JSON_OK, "[--svg file] [--file path]", "allocation map by owner kind (SVG picture)" },
	{ "ncheck", NULL, do_ncheck, 1, -1, NEED_FS | JSON_OK, "[-c] <inode> ...", "find the paths of inodes" },
	{ "open", "open_filesys", do_open, 1, 7, 0, "[-c] [-n] [-s sb -b bs] <image>", "open a filesystem" },
	{ "pwd", NULL, do_pwd, 0, 0, NEED_FS | JSON_OK, "", "print the current directory" },
	{ "quit", "q", do_quit, 0, 0, 0, "", "leave" },
	{ "rdump", NULL, do_rdump, 2, -1, NEED_FS | JSON_OK, "[-p] <dir>... <native dir>", "copy a tree out of the image" },
	{ "stat", "show_inode_info", do_stat, 1, 1, NEED_FS | JSON_OK, "<file>", "show an inode" },
	{ "stats", "show_super_stats", do_stats, 0, 1, NEED_FS | JSON_OK, "[-h]", "superblock and group summary" },
	{ "testb", NULL, do_testb, 1, 2, NEED_FS | JSON_OK, "<block> [count]", "test block bitmap bits" },
	{ "testi", NULL, do_testi, 1, 1, NEED_FS | JSON_OK, "<file>", "test an inode bitmap bit" },
};

#define NCMDS (sizeof(dbg_cmds) / sizeof(dbg_cmds[0]))

static bool quit_requested;

const struct dbg_cmd *dbg_cmd_table(size_t *n)
{
	*n = NCMDS;
	return dbg_cmds;
}

bool dbg_quit_requested(void)
{
	return quit_requested;
}
static struct ek_open_opts open_opts;

void dbg_warn(struct dbg *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", d->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int dbg_fail(struct dbg *d, const char *cmd, int err)
{
	const struct ek_error *e = ek_last_error();

	dbg_errorf(d, "%s: %s", cmd, ek_error_msg(err));
	if (d->verbose && e->code == err && e->file)
		fprintf(stderr, "%s: (detected at %s:%d)\n", cmd, e->file, e->line);
	return 1;
}

void dbg_errorf(struct dbg *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->last_error, sizeof(d->last_error), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", d->last_error);
}

int dbg_usage(const char *cmd)
{
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(dbg_cmds[i].name, cmd))
			fprintf(stderr, "usage: %s %s\n", cmd, dbg_cmds[i].usage);
	return 1;
}

void dbg_flush_warnings(struct dbg *d)
{
	if (!d->fs)
		return;
	for (unsigned i = 0; i < d->fs->nwarnings; i++) {
		fprintf(stderr, "%s: warning: %s\n", d->prog, d->fs->warnings[i]);
		free(d->fs->warnings[i]);
	}
	if (d->fs->warnings_dropped)
		fprintf(stderr, "%s: warning: %u more warnings not shown\n", d->prog,
			d->fs->warnings_dropped);
	d->fs->nwarnings = 0;
	d->fs->warnings_dropped = 0;
}

int dbg_parse_u64(const char *arg, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!arg || !*arg || *arg == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int dbg_parse_ino(struct dbg *d, const char *arg, ek_ino_t *out)
{
	size_t n = strlen(arg);

	if (n > 2 && arg[0] == '<' && arg[n - 1] == '>') {
		char num[32];
		uint64_t v;

		if (n - 2 >= sizeof(num))
			return ek_err(-EINVAL, "bad inode number '%s'", arg);
		memcpy(num, arg + 1, n - 2);
		num[n - 2] = 0;
		if (dbg_parse_u64(num, &v) || v < 1 || v > d->fs->sb.inodes_count)
			return ek_err(-EINVAL, "bad inode number '%s'", arg);
		*out = v;
		return 0;
	}
	int err = ek_namei(d->fs, d->root, d->cwd, arg, false, out);

	if (err == -ENOENT)
		return ek_err(-ENOENT, "'%s' not found", arg);
	return err;
}

int dbg_read_inode(struct dbg *d, ek_ino_t ino, struct ek_inode *ei)
{
	int err = ek_inode_read(d->fs, ino, ei);

	if (err == -EK_BADCRC || (err == -EK_CORRUPT && ei->raw)) {
		dbg_warn(d, "warning: %s", ek_error_msg(err));
		err = 0;
	}
	return err;
}

const char *dbg_mode_type(uint16_t m)
{
	if (ek_is_dir(m))
		return "directory";
	if (ek_is_reg(m))
		return "regular";
	if (ek_is_lnk(m))
		return "symlink";
	if (ek_is_chr(m))
		return "character special";
	if (ek_is_blk(m))
		return "block special";
	if (ek_is_fifo(m))
		return "FIFO";
	if (ek_is_sock(m))
		return "socket";
	return "bad type";
}

static const struct dbg_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(dbg_cmds[i].name, name) ||
		    (dbg_cmds[i].alias && !strcmp(dbg_cmds[i].alias, name)))
			return &dbg_cmds[i];
	return NULL;
}

static int do_help(struct dbg *d, int argc, char **argv)
{
	const struct dbg_cmd *c;

	if (argc == 2) {
		c = find_cmd(argv[1]);
		if (!c) {
			fprintf(stderr, "help: unknown command '%s'\n", argv[1]);
			return 1;
		}
		ek_out_text(d->out, "%s %s\n  %s\n", c->name, c->usage, c->help);
		ek_out_obj_begin(d->out, NULL);
		ek_out_str(d->out, "name", c->name);
		ek_out_str(d->out, "usage", c->usage);
		ek_out_str(d->out, "help", c->help);
		ek_out_obj_end(d->out);
		return 0;
	}
	ek_out_text(d->out, "Available commands:\n");
	ek_out_arr_begin(d->out, NULL);
	for (size_t i = 0; i < NCMDS; i++) {
		c = &dbg_cmds[i];
		ek_out_text(d->out, "  %-10s %-36s %s\n", c->name, c->usage, c->help);
		ek_out_obj_begin(d->out, NULL);
		ek_out_str(d->out, "name", c->name);
		ek_out_str(d->out, "usage", c->usage);
		ek_out_str(d->out, "help", c->help);
		ek_out_obj_end(d->out);
	}
	ek_out_arr_end(d->out);
	return 0;
}

static int do_quit(struct dbg *d, int argc, char **argv)
{
	(void)d, (void)argc, (void)argv;
	quit_requested = true;
	return 0;
}

static int open_fs(struct dbg *d, const char *path, const struct ek_open_opts *o)
{
	int err = ek_fs_open(path, o, &d->fs);

	if (err) {
		const char *msg = ek_error_msg(err);
		const char *at = strstr(msg, path);
		size_t plen = strlen(path);
		char hint[200] = "";

		d->fs = NULL;
		/* what helps: -n for a checksum, --offset for a whole disk */
		if (err == -EK_BADCRC && !(o->flags & EK_OPEN_IGNORE_CSUM)) {
			snprintf(hint, sizeof(hint), " (-n opens it anyway)");
		} else if (err != -ENOENT && err != -EACCES && err != -EISDIR) {
			ek_partitions_hint(path, o->offset, "--offset", hint, sizeof(hint));
		}
		/* the message names the file already (quoted, as io.c does) */
		if (at && at > msg && at[-1] == '\'' && at[plen] == '\'')
			fprintf(stderr, "%s: %s%s\n", d->prog, msg, hint);
		else
			fprintf(stderr, "%s: cannot open '%s': %s%s\n", d->prog, path, msg, hint);
		return 1;
	}
	d->root = d->cwd = EXT4_ROOT_INO;
	dbg_flush_warnings(d);
	return 0;
}

static int do_close(struct dbg *d, int argc, char **argv)
{
	(void)argc, (void)argv;
	if (!d->fs) {
		fprintf(stderr, "close: no filesystem is open\n");
		return 1;
	}
	ek_fs_close(d->fs);
	d->fs = NULL;
	return 0;
}

static int parse_open_opts(int argc, char **argv, struct ek_open_opts *o, const char *who)
{
	uint64_t v;
	int c;

	while ((c = getopt(argc, argv, "cns:b:")) != -1) {
		switch (c) {
		case 'c':
			o->flags |= EK_OPEN_NO_BITMAPS;
			break;
		case 'n':
			o->flags |= EK_OPEN_IGNORE_CSUM;
			break;
		case 's':
			if (dbg_parse_u64(optarg, &v) || !v)
				return fprintf(stderr, "%s: bad superblock number '%s'\n", who, optarg), -1;
			o->superblock = v;
			break;
		case 'b':
			if (dbg_parse_u64(optarg, &v) || v < 1024 || v > 65536 || (v & (v - 1)))
				return fprintf(stderr, "%s: bad block size '%s'\n", who, optarg), -1;
			o->blocksize = v;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

static int do_open(struct dbg *d, int argc, char **argv)
{
	struct ek_open_opts o = { .offset = open_opts.offset };

	if (d->fs) {
		fprintf(stderr, "open: a filesystem is already open; close it first\n");
		return 1;
	}
	optind = 0;
	if (parse_open_opts(argc, argv, &o, "open") || optind != argc - 1)
		return dbg_usage("open");
	return open_fs(d, argv[optind], &o);
}

/* split @line into words; double quotes group, backslash escapes */
static int split_line(char *line, char **argv, int max)
{
	int argc = 0;
	char *r = line, *w = line;

	while (*r) {
		bool quoted = false;

		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r || *r == '#')
			break;
		if (argc == max)
			return -1;
		argv[argc++] = w;
		while (*r && (quoted || (*r != ' ' && *r != '\t' && *r != '\n' && *r != '\r'))) {
			if (*r == '"') {
				quoted = !quoted;
				r++;
			} else if (*r == '\\' && r[1]) {
				*w++ = r[1];
				r += 2;
			} else {
				*w++ = *r++;
			}
		}
		if (*r)
			r++;
		*w++ = 0;
	}
	return argc;
}

/* run one request line; returns 0 ok, 1 failed */
int dbg_run_request(struct dbg *d, const char *req, bool wrap_json)
{
	/* a word needs at least one character and a separator */
	int max = strlen(req) / 2 + 2;
	char *line = strdup(req), **argv = calloc(max, sizeof(*argv));
	const struct dbg_cmd *c;
	unsigned long before;
	int argc, ret = 1;

	if (!line || !argv) {
		free(line);
		free(argv);
		return 1;
	}
	argc = split_line(line, argv, max);
	if (argc == 0) {
		free(line);
		free(argv);
		return 0;
	}
	if (argc < 0) {
		fprintf(stderr, "%s: too many arguments\n", d->prog);
		goto out;
	}
	c = find_cmd(argv[0]);
	if (!c) {
		fprintf(stderr, "%s: unknown command '%s' (try 'help')\n", d->prog, argv[0]);
		goto out;
	}
	if (argc - 1 < c->min_args || (c->max_args >= 0 && argc - 1 > c->max_args)) {
		dbg_usage(c->name);
		goto out;
	}
	if ((c->flags & NEED_FS) && !d->fs) {
		fprintf(stderr, "%s: no filesystem is open\n", c->name);
		goto out;
	}
	if (ek_out_json(d->out) && !(c->flags & JSON_OK) && c->fn != do_quit) {
		fprintf(stderr, "%s: no JSON output for this command\n", c->name);
		goto out;
	}
	if (wrap_json) {
		ek_out_obj_begin(d->out, NULL);
		ek_out_str(d->out, "request", req);
		ek_out_key(d->out, "result");
	}
	optind = 0;
	ek_error_clear();
	d->last_error[0] = 0;
	before = ek_out_top_values(d->out);
	ret = c->fn(d, argc, argv) ? 1 : 0;
	dbg_flush_warnings(d);
	if (wrap_json) {
		if (ek_out_key_pending(d->out))
			ek_out_null(d->out, NULL);
		ek_out_bool(d->out, "ok", ret == 0);
		if (ret)
			ek_out_str(d->out, "error", d->last_error[0] ? d->last_error : "failed (see stderr)");
		ek_out_obj_end(d->out);
	} else if (ret && ek_out_json(d->out) && ek_out_top_values(d->out) == before) {
		/* -R --json: a failed request is still one JSON document */
		ek_out_obj_begin(d->out, NULL);
		ek_out_str(d->out, "request", req);
		ek_out_bool(d->out, "ok", false);
		ek_out_str(d->out, "error", d->last_error[0] ? d->last_error : "failed (see stderr)");
		ek_out_obj_end(d->out);
	}
out:
	fflush(stdout);
	free(line);
	free(argv);
	return ret;
}

static int run_file(struct dbg *d, FILE *f, bool echo)
{
	char *line = NULL;
	size_t cap = 0;
	int failed = 0;

	if (ek_out_json(d->out))
		ek_out_arr_begin(d->out, NULL);
	while (!quit_requested) {
		ssize_t n;

		n = getline(&line, &cap, f);
		if (n < 0)
			break;
		if (n && line[n - 1] == '\n')
			line[n - 1] = 0;
		if (echo && !ek_out_json(d->out)) {
			printf("%s: %s\n", d->prog, line);
			fflush(stdout);	/* keep the echo before this request's stderr */
		}
		failed |= dbg_run_request(d, line, ek_out_json(d->out));
	}
	if (ek_out_json(d->out))
		ek_out_arr_end(d->out);
	free(line);
	return failed;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [-c] [-n] [-s superblock -b blocksize] [-R request | -f cmdfile]\n"
		"       [--json] [--offset BYTES] [-v] [-V] [image]\n"
		"Inspect an ext2/ext3/ext4 image (read-only).\n"
		"  -R request   run one request and exit\n"
		"  -f cmdfile   run requests from a file ('-' for stdin)\n"
		"  -c           catastrophic mode: do not read bitmaps\n"
		"  -n           open despite a bad superblock or journal superblock checksum\n"
		"  -s N -b SIZE use the backup superblock at block N of SIZE bytes\n"
		"  --offset N   the filesystem starts N bytes into the image (a partition)\n"
		"  --json       print JSON (one document) instead of text\n"
		"  -v           show where in the code an error was detected\n"
		"  -V           print the version and exit\n"
		"Without -R or -f, requests are read from stdin; on a terminal at a prompt\n"
		"with line editing, Tab completion and a history kept in\n"
		"$EXTKIT_DEBUGFS_HISTORY (default ~/.extkit_debugfs_history; empty: none).\n"
		"Options may follow the image name.\n"
		"Exit status: 0 all requests succeeded, 1 one failed, 2 usage error.\n", prog);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'H' },
		{ "version", no_argument, NULL, 'V' },
		{ "offset", required_argument, NULL, 'O' },
		{ 0 }
	};
	struct dbg d = { .prog = "extkit-debugfs" };
	const char *request = NULL, *cmdfile = NULL;
	bool json = false;
	uint64_t v;
	int c, ret;

	for (;;) {
		c = getopt_long(argc, argv, "R:f:cns:b:vV", longopts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'R':
			request = optarg;
			break;
		case 'f':
			cmdfile = optarg;
			break;
		case 'c':
			open_opts.flags |= EK_OPEN_NO_BITMAPS;
			break;
		case 'n':
			open_opts.flags |= EK_OPEN_IGNORE_CSUM;
			break;
		case 's':
			if (dbg_parse_u64(optarg, &v) || !v) {
				fprintf(stderr, "%s: bad superblock number '%s'\n", d.prog, optarg);
				return 2;
			}
			open_opts.superblock = v;
			break;
		case 'b':
			if (dbg_parse_u64(optarg, &v) || v < 1024 || v > 65536 || (v & (v - 1))) {
				fprintf(stderr, "%s: bad block size '%s'\n", d.prog, optarg);
				return 2;
			}
			open_opts.blocksize = v;
			break;
		case 'O':
			if (dbg_parse_u64(optarg, &v)) {
				fprintf(stderr, "%s: bad offset '%s'\n", d.prog, optarg);
				return 2;
			}
			open_opts.offset = v;
			break;
		case 'v':
			d.verbose = true;
			break;
		case 'J':
			json = true;
			break;
		case 'V':
			printf("extkit-debugfs %s\n", EK_VERSION);
			return 0;
		case 'H':
			usage(stdout, d.prog);
			return 0;
		default:
			usage(stderr, d.prog);
			return 2;
		}
	}
	if (request && cmdfile) {
		fprintf(stderr, "%s: -R and -f are mutually exclusive\n", d.prog);
		return 2;
	}
	if (argc - optind > 1) {
		usage(stderr, d.prog);
		return 2;
	}
	if (open_opts.superblock && !open_opts.blocksize) {
		fprintf(stderr, "%s: -s needs -b blocksize\n", d.prog);
		return 2;
	}
	d.out = ek_out_new(stdout, json ? EK_OUT_JSON : EK_OUT_TEXT);
	if (!d.out)
		return 1;
	if (optind < argc && open_fs(&d, argv[optind], &open_opts)) {
		ek_out_free(d.out);
		return 1;
	}

	if (request) {
		ret = dbg_run_request(&d, request, false);
	} else if (cmdfile) {
		FILE *f = strcmp(cmdfile, "-") ? fopen(cmdfile, "r") : stdin;

		if (!f) {
			fprintf(stderr, "%s: cannot open '%s': %s\n", d.prog, cmdfile, strerror(errno));
			ret = 1;
		} else {
			ret = run_file(&d, f, true);
			if (f != stdin)
				fclose(f);
		}
	} else {
		if (isatty(0))
			ret = dbg_interactive(&d);
		else
			ret = run_file(&d, stdin, false);
	}
	ek_out_free(d.out);
	ek_fs_close(d.fs);
	return ret ? 1 : 0;
}
