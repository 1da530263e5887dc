// SPDX-License-Identifier: MIT
/*
 * profile.c - the profile format of mke2fs.conf (and e2fsck.conf): a tree
 * of sections, subsections and relations, read as e2fsprogs' profile
 * library reads it, so a file mke2fs takes is taken here the same way.
 *
 *   # comment          ; comment too (first non-blank character of a line)
 *   [section]          top level; a repeated name continues that section;
 *                      "]*" marks it final
 *       tag = value    a relation: value up to the first blank, or "quoted"
 *                      with \n \t \b and \<char> escapes; a comment may follow
 *       tag = {        a subsection (the "{" may stand alone on the next line)
 *           tag = value
 *       }              "}*" marks the subsection final
 *       "quoted tag" = value   tag* = value   (the * marks the relation final)
 *
 * Lines before the first one that starts with "[" in column 0 are ignored.
 * A section header inside a subsection, a "}" without a "{", a relation
 * without "=" or with more than one word on either side is a syntax error,
 * reported with its line.  A name may appear more than once: a lookup
 * takes the first subsection and, in it, the first relation of that name
 * (profile_get_value()).  Final markers only matter when several files are
 * read in turn, which extkit never does: they are kept, and change nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "extkit.h"

#define PROFILE_MAX_BYTES (1u << 20)	/* a config file, not a database */
#define PROFILE_MAX_DEPTH 32		/* subsections in subsections */

struct ek_pnode {
	char *name;
	char *value;			/* NULL: a (sub)section */
	bool final;
	struct ek_pnode *parent, *child, *last, *next;
};

struct ek_profile {
	struct ek_pnode root;
};

static void node_free(struct ek_pnode *n)
{
	/* iterative: depth is bounded, but the free need not rely on it */
	while (n) {
		struct ek_pnode *next;

		if (n->child) {
			struct ek_pnode *c = n->child;

			n->child = c->next;
			c->next = NULL;
			c->parent = n;
			n = c;
			continue;
		}
		next = n->parent;
		free(n->name);
		free(n->value);
		free(n);
		n = next;
	}
}

void ek_profile_free(struct ek_profile *p)
{
	if (!p)
		return;
	for (struct ek_pnode *c = p->root.child, *next; c; c = next) {
		next = c->next;
		c->next = NULL;
		c->parent = NULL;
		node_free(c);
	}
	free(p);
}

static struct ek_pnode *node_add(struct ek_pnode *sec, const char *name, const char *value)
{
	struct ek_pnode *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->name = strdup(name);
	n->value = value ? strdup(value) : NULL;
	if (!n->name || (value && !n->value)) {
		free(n->name);
		free(n->value);
		free(n);
		return NULL;
	}
	n->parent = sec;
	if (sec->last)
		sec->last->next = n;
	else
		sec->child = n;
	sec->last = n;
	return n;
}

static struct ek_pnode *find(const struct ek_pnode *sec, const char *name, bool section)
{
	for (struct ek_pnode *c = sec ? sec->child : NULL; c; c = c->next)
		if (!strcmp(c->name, name) && (section ? !c->value : c->value != NULL))
			return c;
	return NULL;
}

/* ---- the parser ---------------------------------------------------------------- */

struct pstate {
	struct ek_profile *p;
	struct ek_pnode *cur;		/* the section relations go to, NULL before the first */
	int depth;			/* of subsections */
	bool want_obrace;		/* "tag =" ended the last line: "{" must follow */
	bool started;			/* a line starting with "[" was seen */
	const char *name;
	unsigned line;
};

static bool is_blank(char c)
{
	return isspace((unsigned char)c);
}

static bool end_or_comment(char c)
{
	return c == '\0' || c == '#' || c == ';';
}

static char *skip_blanks(char *s)
{
	while (*s && is_blank(*s))
		s++;
	return s;
}

/* a word: up to a blank, a comment character or the end */
static char *skip_word(char *s)
{
	while (!end_or_comment(*s) && !is_blank(*s))
		s++;
	return s;
}

/* "quoted" in place, @s after the opening quote: up to the closing one, escapes resolved */
static void unquote(char *s)
{
	char *to = s;

	for (; *s && *s != '"'; s++, to++) {
		if (*s == '\\' && s[1]) {
			s++;
			*to = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'b' ? '\b' : *s;
		} else {
			*to = *s;
		}
	}
	*to = '\0';
}

static int syntax(const struct pstate *st, const char *why)
{
	return ek_err(-EINVAL, "%s line %u: %s", st->name, st->line, why);
}

static int parse_line(struct pstate *st, char *line)
{
	char *cp, *tag, *value, *eq, *star;
	size_t len = strlen(line);
	bool sub = false;
	struct ek_pnode *n;

	st->line++;
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (st->want_obrace) {
		if (*skip_blanks(line) != '{')
			return syntax(st, "a subsection's \"{\" is missing");
		st->want_obrace = false;
		return 0;	/* the rest of that line is not read */
	}
	if (!st->started) {
		if (line[0] != '[')
			return 0;	/* before the first section: a free comment */
		st->started = true;
	}
	cp = skip_blanks(line);
	if (end_or_comment(*cp))
		return 0;
	if (*cp == '[') {
		char *close;

		if (st->depth)
			return syntax(st, "a section header inside a subsection");
		cp = skip_blanks(cp + 1);
		close = strchr(cp, ']');
		if (!close)
			return syntax(st, "a section header without \"]\"");
		if (*cp == '"') {
			unquote(++cp);
		} else {
			char *e = close;

			while (e > cp && is_blank(e[-1]))
				e--;
			*e = '\0';
			if (!*cp)
				return syntax(st, "a section header without a name");
		}
		n = find(&st->p->root, cp, true);
		if (!n && !(n = node_add(&st->p->root, cp, NULL)))
			return -ENOMEM;
		st->cur = n;
		cp = close + 1;
		if (*cp == '*') {
			n->final = true;
			cp++;
		}
		if (!end_or_comment(*skip_blanks(cp)))
			return syntax(st, "text after a section header");
		return 0;
	}
	if (*cp == '}') {
		if (!st->depth)
			return syntax(st, "a \"}\" without its \"{\"");
		if (cp[1] == '*')
			st->cur->final = true;
		st->cur = st->cur->parent;
		st->depth--;
		return 0;
	}
	/* a relation or a subsection: tag = value */
	tag = cp;
	eq = strchr(cp, '=');
	if (!eq || eq == tag)
		return syntax(st, "a relation without \"tag =\"");
	*eq = '\0';
	if (*tag == '"') {
		unquote(++tag);
	} else {
		char *p = skip_word(tag);

		if (*p)
			*p++ = '\0';	/* the word's end, whatever ended it */
		if (*skip_blanks(p))
			return syntax(st, "more than one word before \"=\"");
	}
	value = skip_blanks(eq + 1);
	if (*value == '"') {
		unquote(++value);
	} else if (end_or_comment(*value)) {
		sub = true;
		st->want_obrace = true;
	} else if (*value == '{') {
		if (!end_or_comment(*skip_blanks(value + 1)))
			return syntax(st, "text after a subsection's \"{\"");
		sub = true;
	} else {
		char *e = skip_word(value);

		if (!end_or_comment(*skip_blanks(e)))
			return syntax(st, "more than one word after \"=\" (quote the value)");
		*e = '\0';
	}
	if (!st->cur)
		return syntax(st, "a relation outside any section");
	star = strchr(tag, '*');
	if (star)
		*star = '\0';
	if (sub) {
		if (st->depth >= PROFILE_MAX_DEPTH)
			return syntax(st, "subsections nested too deep");
		if (!(n = node_add(st->cur, tag, NULL)))
			return -ENOMEM;
		n->final = star != NULL;
		st->cur = n;
		st->depth++;
		return 0;
	}
	if (!(n = node_add(st->cur, tag, value)))
		return -ENOMEM;
	n->final = star != NULL;
	return 0;
}

int ek_profile_parse(const char *text, size_t len, const char *name, struct ek_profile **out)
{
	struct pstate st = { .name = name ? name : "profile" };
	char *buf;
	int err = 0;

	*out = NULL;
	if (len > PROFILE_MAX_BYTES)
		return ek_err(-EINVAL, "%s: %zu bytes, more than a profile may hold (%u)", st.name,
			      len, PROFILE_MAX_BYTES);
	st.p = calloc(1, sizeof(*st.p));
	buf = malloc(len + 1);
	if (!st.p || !buf) {
		free(st.p);
		free(buf);
		return -ENOMEM;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	/* line by line; a NUL byte ends its line's text, as in a C string */
	for (size_t off = 0; off < len && !err;) {
		char *line = buf + off, *nl = memchr(line, '\n', len - off);
		size_t l = nl ? (size_t)(nl - line) : len - off;

		line[l] = '\0';
		off += l + 1;
		err = parse_line(&st, line);
	}
	free(buf);
	if (err) {
		ek_profile_free(st.p);
		return err;
	}
	*out = st.p;
	return 0;
}

int ek_profile_load(const char *path, struct ek_profile **out)
{
	struct stat stt;
	char *text;
	ssize_t n;
	size_t got = 0;
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return ek_err(-err, "cannot open '%s': %s", path, strerror(err));
	}
	if (fstat(fd, &stt)) {
		err = errno;
		close(fd);
		return ek_err(-err, "cannot stat '%s': %s", path, strerror(err));
	}
	if (S_ISDIR(stt.st_mode)) {
		close(fd);
		return ek_err(-EISDIR, "'%s' is a directory: give one file", path);
	}
	/* a file, or /dev/null and pipes: read to the end, at most the limit */
	text = malloc(PROFILE_MAX_BYTES + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	while (got <= PROFILE_MAX_BYTES &&
	       (n = read(fd, text + got, PROFILE_MAX_BYTES + 1 - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = ek_err(-EIO, "cannot read '%s': %s", path, strerror(errno));
			close(fd);
			free(text);
			return err;
		}
		got += (size_t)n;
	}
	close(fd);
	err = ek_profile_parse(text, got, path, out);	/* over the limit: refused there */
	free(text);
	return err;
}

/* ---- lookups -------------------------------------------------------------------- */

static const struct ek_pnode *section_of(const struct ek_profile *p, const char *sec,
					 const char *sub)
{
	const struct ek_pnode *s = p ? find(&p->root, sec, true) : NULL;

	return s && sub ? find(s, sub, true) : s;
}

bool ek_profile_has_subsection(const struct ek_profile *p, const char *sec, const char *sub)
{
	const struct ek_pnode *s = section_of(p, sec, sub);

	/* as mke2fs's profile_has_subsection(): it counts when it holds a relation */
	for (const struct ek_pnode *c = s ? s->child : NULL; c; c = c->next)
		if (c->value)
			return true;
	return false;
}

const char *ek_profile_get(const struct ek_profile *p, const char *sec, const char *sub,
			   const char *tag)
{
	const struct ek_pnode *r = find(section_of(p, sec, sub), tag, false);

	return r ? r->value : NULL;
}

static int bad_value(const char *sec, const char *sub, const char *tag, const char *v,
		     const char *what)
{
	return ek_err(-EINVAL, "[%s]%s%s %s = \"%s\": not %s", sec, sub ? " " : "", sub ? sub : "",
		      tag, v, what);
}

int ek_profile_get_int(const struct ek_profile *p, const char *sec, const char *sub,
		       const char *tag, int *out)
{
	const char *v = ek_profile_get(p, sec, sub, tag);
	char *end;
	long l;

	if (!v)
		return 1;
	errno = 0;
	l = strtol(v, &end, 0);
	if (!*v || errno || *end || l < INT_MIN || l > INT_MAX)
		return bad_value(sec, sub, tag, v, "an integer");
	*out = (int)l;
	return 0;
}

int ek_profile_get_uint(const struct ek_profile *p, const char *sec, const char *sub,
			const char *tag, unsigned *out)
{
	const char *v = ek_profile_get(p, sec, sub, tag);
	char *end;
	unsigned long l;

	if (!v)
		return 1;
	errno = 0;
	l = strtoul(v, &end, 0);
	if (!*v || errno || *end || l > UINT_MAX)
		return bad_value(sec, sub, tag, v, "an unsigned integer");
	*out = (unsigned)l;
	return 0;
}

int ek_profile_get_double(const struct ek_profile *p, const char *sec, const char *sub,
			  const char *tag, double *out)
{
	const char *v = ek_profile_get(p, sec, sub, tag);
	char *end;
	double d;

	if (!v)
		return 1;
	errno = 0;
	d = strtod(v, &end);
	if (!*v || errno || *end)
		return bad_value(sec, sub, tag, v, "a number");
	*out = d;
	return 0;
}

int ek_profile_get_bool(const struct ek_profile *p, const char *sec, const char *sub,
			const char *tag, bool *out)
{
	static const char *const yes[] = { "y", "yes", "true", "t", "1", "on" };
	static const char *const no[] = { "n", "no", "false", "nil", "0", "off" };
	const char *v = ek_profile_get(p, sec, sub, tag);

	if (!v)
		return 1;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*out = false;
			return 0;
		}
	}
	return bad_value(sec, sub, tag, v, "a boolean (true/false, yes/no, on/off, 1/0)");
}

bool ek_profile_is_final(const struct ek_profile *p, const char *sec, const char *sub)
{
	const struct ek_pnode *s = section_of(p, sec, sub);

	return s && s->final;
}
