// SPDX-License-Identifier: MIT
/*
 * cmd_dir.c - directory commands: ls, cd, pwd, dx_hash.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "debugfs.h"

struct ls_ctx {
	struct dbg *d;
	bool longfmt, deleted, parse, raw;
	unsigned col;
	int err;
};

/* name for text output: raw, or with non-printable bytes as \xNN */
static void text_name(struct ek_out *o, const char *s, size_t len, bool raw)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (raw || (c >= 0x20 && c != 0x7F))
			ek_out_text(o, "%c", c);
		else
			ek_out_text(o, "\\x%02x", c);
	}
}

static int ls_entry(void *arg, const struct ek_dirent *de)
{
	struct ls_ctx *l = arg;
	struct ek_out *o = l->d->out;
	struct ek_inode ei = { 0 };
	bool gone = de->deleted || !de->ino;	/* shown in <> */
	bool have = false;

	if (gone && !l->deleted)
		return 0;
	if ((l->longfmt || l->parse || ek_out_json(o)) && de->ino) {
		int err = ek_inode_read(l->d->fs, de->ino, &ei);

		have = !err || err == -EK_BADCRC || (err == -EK_CORRUPT && ei.raw);
	}
	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "inode", de->ino);
	ek_out_name(o, "name", de->name, de->name_len);
	ek_out_u64(o, "file_type", de->file_type);
	ek_out_u64(o, "rec_len", de->rec_len);
	ek_out_bool(o, "deleted", gone);
	if (have) {
		ek_out_u64(o, "mode", ei.mode);
		ek_out_u64(o, "uid", ei.uid);
		ek_out_u64(o, "gid", ei.gid);
		ek_out_u64(o, "size", ei.size);
		ek_out_time(o, "mtime", ei.mtime.sec, ei.mtime.nsec);
		ek_out_u64(o, "links", ei.links_count);
	} else {
		/* no inode to read (an empty or deleted slot, or unreadable) */
		static const char *keys[] = { "mode", "uid", "gid", "size", "mtime", "links" };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			ek_out_null(o, keys[i]);
	}
	ek_out_obj_end(o);

	if (l->parse) {
		ek_out_text(o, "/%u/%06o/%u/%u/", de->ino, have ? ei.mode : 0,
			    have ? ei.uid : 0, have ? ei.gid : 0);
		text_name(o, de->name, de->name_len, true);
		if (have && !ek_is_dir(ei.mode))
			ek_out_text(o, "/%llu/\n", (unsigned long long)ei.size);
		else
			ek_out_text(o, "//\n");
	} else if (l->longfmt) {
		char tbuf[32] = "";
		time_t t = have ? (time_t)ei.mtime.sec : 0;
		struct tm tm;

		if (have && localtime_r(&t, &tm))
			strftime(tbuf, sizeof(tbuf), "%d-%b-%Y %H:%M", &tm);
		ek_out_text(o, "%c%6u%c %6o (%u)  %5u  %5u   %5llu %s ",
			    gone ? '<' : ' ', de->ino, gone ? '>' : ' ',
			    have ? ei.mode : 0, de->file_type, have ? ei.uid : 0,
			    have ? ei.gid : 0, have ? (unsigned long long)ei.size : 0ull, tbuf);
		text_name(o, de->name, de->name_len, l->raw);
		ek_out_text(o, "\n");
	} else {
		char head[48];
		int n = snprintf(head, sizeof(head), "%s%u%s (%u) ", gone ? "<" : " ", de->ino,
				 gone ? ">" : "", de->rec_len);

		if (l->col + n + de->name_len + 3 > 80 && l->col) {
			ek_out_text(o, "\n");
			l->col = 0;
		}
		ek_out_text(o, "%s", head);
		text_name(o, de->name, de->name_len, l->raw);
		ek_out_text(o, "   ");
		l->col += n + de->name_len + 3;
	}
	ek_inode_release(&ei);
	return 0;
}

int do_ls(struct dbg *d, int argc, char **argv)
{
	struct ls_ctx l = { .d = d };
	struct ek_inode dir = { 0 };
	ek_ino_t ino = d->cwd;
	int c, err;

	while ((c = getopt(argc, argv, "cdlpr")) != -1) {
		switch (c) {
		case 'c':	/* debugfs: checksums; we always verify */
			break;
		case 'd':
			l.deleted = true;
			break;
		case 'l':
			l.longfmt = true;
			break;
		case 'p':
			l.parse = true;
			break;
		case 'r':
			l.raw = true;
			break;
		default:
			return dbg_usage("ls");
		}
	}
	if (argc - optind > 1)
		return dbg_usage("ls");
	if (optind < argc && (err = dbg_parse_ino(d, argv[optind], &ino)))
		return dbg_fail(d, "ls", err);
	err = dbg_read_inode(d, ino, &dir);
	if (err) {
		ek_inode_release(&dir);
		return dbg_fail(d, "ls", err);
	}
	if (!ek_is_dir(dir.mode)) {
		ek_inode_release(&dir);
		dbg_errorf(d, "ls: '%s' is not a directory", optind < argc ? argv[optind] : ".");
		return 1;
	}
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "inode", ino);
	ek_out_arr_begin(d->out, "entries");
	err = ek_dir_iterate(d->fs, &dir,
			     l.deleted ? EK_DIR_INCLUDE_EMPTY | EK_DIR_INCLUDE_DELETED : 0, ls_entry, &l);
	ek_out_arr_end(d->out);
	ek_out_bool(d->out, "complete", err == 0);
	ek_out_obj_end(d->out);
	if (l.col)
		ek_out_text(d->out, "\n");
	ek_inode_release(&dir);
	if (err == -EK_BADCRC) {
		dbg_warn(d, "ls: warning: %s", ek_error_msg(err));
		err = 0;
	}
	return err ? dbg_fail(d, "ls", err) : 0;
}

int do_cd(struct dbg *d, int argc, char **argv)
{
	struct ek_inode ei = { 0 };
	ek_ino_t ino;
	int err;

	(void)argc;
	err = ek_namei(d->fs, d->root, d->cwd, argv[1], true, &ino);
	if (!err && (err = dbg_read_inode(d, ino, &ei)) == 0 && !ek_is_dir(ei.mode))
		err = ek_err(-ENOTDIR, "'%s' is not a directory", argv[1]);
	ek_inode_release(&ei);
	if (err)
		return dbg_fail(d, "cd", err);
	d->cwd = ino;
	return 0;
}

struct find_name {
	ek_ino_t child;
	char name[EXT4_NAME_LEN + 1];
	bool found;
};

static int find_name_cb(void *arg, const struct ek_dirent *de)
{
	struct find_name *f = arg;

	if (de->ino != f->child || (de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	memcpy(f->name, de->name, de->name_len);
	f->name[de->name_len] = 0;
	f->found = true;
	return 1;
}

/* path of directory @ino by following '..' (bounded); into buf */
static int dir_path(struct dbg *d, ek_ino_t ino, char *buf, size_t len)
{
	char tmp[4096];

	buf[0] = 0;
	for (int depth = 0; ino != d->root; depth++) {
		struct ek_inode dir = { 0 }, parent = { 0 };
		struct find_name f = { .child = ino };
		ek_ino_t up;
		int err;

		if (depth > 256)
			return ek_err(-ELOOP, "directory tree too deep or looping at inode %u", ino);
		err = dbg_read_inode(d, ino, &dir);
		if (!err)
			err = ek_dir_lookup(d->fs, &dir, "..", 2, &up);
		ek_inode_release(&dir);
		if (err)
			return err;
		err = dbg_read_inode(d, up, &parent);
		if (!err) {
			err = ek_dir_iterate(d->fs, &parent, 0, find_name_cb, &f);
			if (err == 1 || err == -EK_BADCRC)
				err = 0;
		}
		ek_inode_release(&parent);
		if (err)
			return err;
		snprintf(tmp, sizeof(tmp), "/%s%s", f.found ? f.name : "???", buf);
		snprintf(buf, len, "%s", tmp);
		ino = up;
	}
	if (!buf[0])
		snprintf(buf, len, "/");
	return 0;
}

int do_pwd(struct dbg *d, int argc, char **argv)
{
	char path[4096];
	int err;

	(void)argc, (void)argv;
	err = dir_path(d, d->cwd, path, sizeof(path));
	if (err)
		return dbg_fail(d, "pwd", err);
	ek_out_text(d->out, "[pwd]   INODE: %6u  PATH: %s\n[root]  INODE: %6u  PATH: /\n",
		    d->cwd, path, d->root);
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "inode", d->cwd);
	ek_out_str(d->out, "path", path);
	ek_out_obj_end(d->out);
	return 0;
}

static int parse_hash_alg(const char *s)
{
	static const char *names[] = { "legacy", "half_md4", "tea", "legacy_unsigned",
				       "half_md4_unsigned", "tea_unsigned", "siphash" };
	char *end;
	long v;

	for (int i = 0; i < 7; i++)
		if (!strcmp(s, names[i]))
			return i;
	v = strtol(s, &end, 0);
	return *end || v < 0 || v > 6 ? -1 : (int)v;
}

static int parse_uuid(const char *s, uint8_t out[16])
{
	int n = 0;

	for (const char *p = s; *p && n < 32; p++) {
		int v;

		if (*p == '-')
			continue;
		if (*p >= '0' && *p <= '9')
			v = *p - '0';
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			v = (*p | 0x20) - 'a' + 10;
		else
			return -1;
		if (n % 2 == 0)
			out[n / 2] = v << 4;
		else
			out[n / 2] |= v;
		n++;
	}
	return n == 32 ? 0 : -1;
}

int do_dx_hash(struct dbg *d, int argc, char **argv)
{
	uint32_t seed[4] = { 0 }, hash, minor;
	int alg = EXT4_HASH_LEGACY, c, err;
	bool unsign = false, fold = false;
	uint16_t enc;

	while ((c = getopt(argc, argv, "ce:h:s:u")) != -1) {
		switch (c) {
		case 'c':
			fold = true;
			break;
		case 'e':	/* utf8 is the only encoding: it must name it */
			if (ek_encoding_lookup(optarg, &enc)) {
				dbg_errorf(d, "dx_hash: unknown encoding '%s'", optarg);
				return 1;
			}
			break;
		case 'h':
			alg = parse_hash_alg(optarg);
			if (alg < 0) {
				dbg_errorf(d, "dx_hash: unknown hash algorithm '%s'", optarg);
				return 1;
			}
			break;
		case 's': {
			uint8_t u[16];

			if (parse_uuid(optarg, u)) {
				dbg_errorf(d, "dx_hash: bad seed '%s'", optarg);
				return 1;
			}
			for (int i = 0; i < 4; i++)
				seed[i] = get_le32(u + 4 * i);
			break;
		}
		case 'u':
			unsign = true;
			break;
		default:
			return dbg_usage("dx_hash");
		}
	}
	if (optind != argc - 1)
		return dbg_usage("dx_hash");
	if (unsign && alg <= EXT4_HASH_TEA)
		alg += 3;
	/* -c: the name casefolded first (utf8-12.1), as in a casefolded directory */
	err = ek_dx_hash_name(alg, fold, argv[optind], strlen(argv[optind]), seed, &hash, &minor);
	if (err)
		return dbg_fail(d, "dx_hash", err);
	ek_out_text(d->out, "Hash of %s is 0x%0x (minor 0x%0x)\n", argv[optind], hash, minor);
	ek_out_obj_begin(d->out, NULL);
	ek_out_str(d->out, "name", argv[optind]);
	ek_out_u64(d->out, "hash_version", alg);
	ek_out_bool(d->out, "casefold", fold);
	ek_out_u64(d->out, "hash", hash);
	ek_out_u64(d->out, "minor_hash", minor);
	ek_out_obj_end(d->out);
	return 0;
}
