// SPDX-License-Identifier: MIT
/*
 * prompt.c - the interactive prompt: line editing and history through
 * libedit's readline interface, history kept across sessions in a file,
 * Tab completion of command names (from the command table) and of paths
 * inside the open image (through lib's directory reader).
 *
 * History file: $EXTKIT_DEBUGFS_HISTORY when set (empty: no history file),
 * else ~/.extkit_debugfs_history; at most HISTORY_MAX lines are kept.
 * Only a terminal on stdin gets here; piped input goes through run_file().
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <editline/readline.h>
#include "debugfs.h"

#define HISTORY_MAX	1000
#define COMPLETE_MAX	10000	/* candidates gathered from one directory */

static struct dbg *cur;		/* the session completion looks into */

/* candidates of the current completion, handed out by next_candidate() */
static struct {
	char **v;
	size_t n, cap, next;
} cand;

static void cand_clear(void)
{
	for (size_t i = 0; i < cand.n; i++)
		free(cand.v[i]);
	free(cand.v);
	memset(&cand, 0, sizeof(cand));
}

static void cand_add(const char *a, size_t alen, const char *b, size_t blen, const char *c)
{
	size_t clen = strlen(c);
	char *s;

	if (cand.n >= COMPLETE_MAX)
		return;
	if (ek_grow(&cand.v, &cand.cap, cand.n + 1, sizeof(*cand.v)))
		return;
	s = malloc(alen + blen + clen + 1);
	if (!s)
		return;
	memcpy(s, a, alen);
	memcpy(s + alen, b, blen);
	memcpy(s + alen + blen, c, clen + 1);
	cand.v[cand.n++] = s;
}

static char *next_candidate(const char *text, int state)
{
	(void)text;
	if (!state)
		cand.next = 0;
	if (cand.next >= cand.n)
		return NULL;
	return strdup(cand.v[cand.next++]);
}

static void complete_commands(const char *text)
{
	size_t n, len = strlen(text);
	const struct dbg_cmd *t = dbg_cmd_table(&n);

	for (size_t i = 0; i < n; i++) {
		if (!strncmp(t[i].name, text, len))
			cand_add(t[i].name, strlen(t[i].name), "", 0, "");
		if (t[i].alias && !strncmp(t[i].alias, text, len))
			cand_add(t[i].alias, strlen(t[i].alias), "", 0, "");
	}
}

struct path_ctx {
	const char *dir, *base;
	size_t dirlen, baselen;
};

static int path_entry(void *arg, const struct ek_dirent *de)
{
	struct path_ctx *p = arg;

	if (de->name_len < p->baselen || memcmp(de->name, p->base, p->baselen))
		return 0;
	if (!p->baselen && de->name[0] == '.' &&
	    (de->name_len == 1 || (de->name_len == 2 && de->name[1] == '.')))
		return 0;	/* "." and ".." only when asked for */
	if (memchr(de->name, 0, de->name_len))
		return 0;
	cand_add(p->dir, p->dirlen, de->name, de->name_len,
		 de->file_type == EXT4_FT_DIR ? "/" : "");
	return 0;
}

/* names in the image that start with @text, relative to the current directory */
static void complete_paths(const char *text)
{
	struct ek_inode ei = { 0 };
	const char *slash = strrchr(text, '/');
	struct path_ctx p = { .dir = text, .base = text };
	ek_ino_t ino = cur->cwd;
	int err = 0;

	if (!cur->fs)
		return;
	if (slash) {
		char *dir;

		p.dirlen = slash - text + 1;
		p.base = slash + 1;
		dir = strndup(text, p.dirlen);
		if (!dir)
			return;
		err = ek_namei(cur->fs, cur->root, cur->cwd, dir, true, &ino);
		free(dir);
	}
	p.baselen = strlen(p.base);
	if (!err)
		err = ek_inode_read(cur->fs, ino, &ei);
	if ((!err || err == -EK_BADCRC) && ek_is_dir(ei.mode))
		ek_dir_iterate(cur->fs, &ei, 0, path_entry, &p);
	ek_inode_release(&ei);
	ek_error_clear();
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **complete(const char *text, int start, int end)
{
	const char *line = rl_line_buffer;
	size_t w = strspn(line, " \t"), wlen = strcspn(line + w, " \t");
	char **m;

	(void)end;
	cand_clear();
	rl_attempted_completion_over = 1;
	rl_completion_append_character = ' ';
	if ((size_t)start <= w) {
		complete_commands(text);
	} else if (wlen == 4 && !strncmp(line + w, "open", 4)) {
		/* open takes an image on the host: libedit's file names */
		rl_attempted_completion_over = 0;
		return NULL;
	} else if ((wlen == 4 && !strncmp(line + w, "help", 4)) ||
		   (wlen == 1 && line[w] == '?')) {
		complete_commands(text);
	} else {
		complete_paths(text);
	}
	if (!cand.n)
		return NULL;
	qsort(cand.v, cand.n, sizeof(*cand.v), cmp_str);
	/* a directory is completed with its '/', ready for the next name */
	if (cand.n == 1 && cand.v[0][strlen(cand.v[0]) - 1] == '/')
		rl_completion_append_character = 0;
	m = rl_completion_matches(text, next_candidate);
	return m;
}

/* the history file's path (caller frees), or NULL for none */
static char *history_path(void)
{
	const char *env = getenv("EXTKIT_DEBUGFS_HISTORY"), *home;
	char *p;

	if (env)
		return *env ? strdup(env) : NULL;
	home = getenv("HOME");
	if (!home || !*home)
		return NULL;
	if (asprintf(&p, "%s/.extkit_debugfs_history", home) < 0)
		return NULL;
	return p;
}

static void history_save(struct dbg *d, const char *path)
{
	int fd;

	/* the file holds what was typed: private to its owner */
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	if (write_history(path) != 0) {
		dbg_warn(d, "warning: cannot write history to '%s'", path);
		return;
	}
	history_truncate_file(path, HISTORY_MAX);
}

int dbg_interactive(struct dbg *d)
{
	char *hist = history_path(), *line, *last = NULL;
	int failed = 0;

	cur = d;
	rl_readline_name = "extkit-debugfs";
	rl_attempted_completion_function = complete;
	using_history();
	stifle_history(HISTORY_MAX);
	if (hist)
		read_history(hist);	/* a missing file is a first session */
	if (ek_out_json(d->out))
		ek_out_arr_begin(d->out, NULL);
	while (!dbg_quit_requested()) {
		const char *p;

		line = readline("extkit-debugfs: ");
		if (!line) {
			putchar('\n');
			break;
		}
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		/* like a shell: no empty lines, no repeats of the line before */
		if (*p && (!last || strcmp(last, line))) {
			add_history(line);
			free(last);
			last = strdup(line);
		}
		failed |= dbg_run_request(d, line, ek_out_json(d->out));
		free(line);
	}
	if (ek_out_json(d->out))
		ek_out_arr_end(d->out);
	if (hist)
		history_save(d, hist);
	free(hist);
	free(last);
	cand_clear();
	cur = NULL;
	return failed;
}
