// SPDX-License-Identifier: MIT
/*
 * cmd_inode.c - inode and block commands: stat, id, bd, blocks, bmap, ex,
 * testb, testi, ffb, ffi, imap, ea_list.
 */
#include <stdlib.h>
#include <string.h>
#include "debugfs.h"

static int inode_arg(struct dbg *d, const char *cmd, const char *arg, struct ek_inode *ei)
{
	ek_ino_t ino;
	int err = dbg_parse_ino(d, arg, &ino);

	if (!err)
		err = dbg_read_inode(d, ino, ei);
	if (err) {
		ek_inode_release(ei);
		return dbg_fail(d, cmd, err);
	}
	return 0;
}

/* ---- stat ---------------------------------------------------------------- */

struct runs {
	struct ek_out *o;
	bool indirect;
	unsigned n;
	uint64_t total;		/* blocks incl. tree blocks */
	bool json;
};

static const char *tree_label(unsigned level)
{
	return level == 1 ? "IND" : level == 2 ? "DIND" : level == 3 ? "TIND" : "ETB";
}

static int stat_run(void *arg, const struct ek_mapping *m)
{
	struct runs *r = arg;
	const char *sep = r->n++ ? ", " : "";

	if (m->kind == EK_MAP_INDEX)
		return r->n--, 0;
	if (m->kind == EK_MAP_TREE) {
		r->total++;
		if (r->indirect)
			ek_out_text(r->o, "%s(%s):%llu", sep, tree_label(m->level),
				    (unsigned long long)m->pblk);
		else
			ek_out_text(r->o, "%s(ETB%u):%llu", sep, m->level,
				    (unsigned long long)m->pblk);
		ek_out_obj_begin(r->o, NULL);
		ek_out_str(r->o, "kind", "tree");
		ek_out_u64(r->o, "level", m->level);
		ek_out_u64(r->o, "physical", m->pblk);
		ek_out_obj_end(r->o);
		return 0;
	}
	r->total += m->len;
	if (m->len == 1)
		ek_out_text(r->o, "%s(%llu%s):%llu", sep, (unsigned long long)m->lblk,
			    m->unwritten ? "[u]" : "", (unsigned long long)m->pblk);
	else
		ek_out_text(r->o, "%s(%llu-%llu%s):%llu-%llu", sep, (unsigned long long)m->lblk,
			    (unsigned long long)(m->lblk + m->len - 1), m->unwritten ? "[u]" : "",
			    (unsigned long long)m->pblk, (unsigned long long)(m->pblk + m->len - 1));
	ek_out_obj_begin(r->o, NULL);
	ek_out_str(r->o, "kind", "data");
	ek_out_u64(r->o, "logical", m->lblk);
	ek_out_u64(r->o, "physical", m->pblk);
	ek_out_u64(r->o, "length", m->len);
	ek_out_bool(r->o, "unwritten", m->unwritten);
	ek_out_obj_end(r->o);
	return 0;
}

static void time_line(struct ek_out *o, const char *label, const char *key,
		      const struct ek_time *t, bool extra)
{
	char buf[100];

	if (!t->present) {
		ek_out_null(o, key);	/* crtime of a small inode */
		return;
	}
	ek_out_text(o, "%s: %s\n", label, ek_fmt_inode_time(t, extra, buf, sizeof(buf)));
	ek_out_time(o, key, t->sec, t->nsec);
}

struct xattr_print {
	struct ek_out *o;
	const char *header;	/* printed before the first xattr, then NULL */
};

/*
 * A POSIX ACL value as getfacl's short form ("user::rw-,user:1000:r--,...")
 * into @text, and as JSON entries under "acl".  The on-disk form goes
 * through lib's ek_acl_to_xattr(), whose 8-byte entries are __le16 tag,
 * __le16 perm, __le32 id.  Returns false when the value is malformed.
 */
static bool acl_text(struct ek_out *o, const struct ek_xattr *xa, char *text, size_t len)
{
	uint8_t *x;
	size_t xlen, n = 0;

	text[0] = 0;
	if (ek_acl_to_xattr(xa->value, xa->value_len, &x, &xlen)) {
		ek_error_clear();
		return false;
	}
	ek_out_arr_begin(o, "acl");
	for (size_t off = 4; off + 8 <= xlen; off += 8) {
		unsigned tag = get_le16(x + off), perm = get_le16(x + off + 2);
		uint32_t id = get_le32(x + off + 4);
		const char *name = tag == 0x01 || tag == 0x02 ? "user" :
				   tag == 0x04 || tag == 0x08 ? "group" :
				   tag == 0x10 ? "mask" : tag == 0x20 ? "other" : "unknown";
		bool has_id = tag == 0x02 || tag == 0x08;
		char perms[4] = { perm & 4 ? 'r' : '-', perm & 2 ? 'w' : '-', perm & 1 ? 'x' : '-', 0 };
		char idbuf[16] = "";

		if (has_id)
			snprintf(idbuf, sizeof(idbuf), "%u", id);
		if (n < len)
			n += snprintf(text + n, len - n, "%s%s:%s:%s", n ? "," : "", name, idbuf, perms);
		ek_out_obj_begin(o, NULL);
		ek_out_str(o, "tag", name);
		if (has_id)
			ek_out_u64(o, "id", id);
		else
			ek_out_null(o, "id");
		ek_out_str(o, "perm", perms);
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	free(x);
	return true;
}

static int print_xattr(void *arg, const struct ek_xattr *xa)
{
	struct xattr_print *xp = arg;
	struct ek_out *o = xp->o;
	uint32_t shown = xa->value_len;
	bool printable = true;

	if (shown && xa->value[shown - 1] == 0)
		shown--;	/* a trailing NUL is shown as a string end */
	for (uint32_t i = 0; i < shown; i++)
		if (xa->value[i] < 0x20 || xa->value[i] > 0x7E)
			printable = false;
	if (xp->header)
		ek_out_text(o, "%s", xp->header);
	xp->header = NULL;
	ek_out_text(o, "  %s%.*s (%u)", xa->prefix, (int)xa->name_len, xa->name, xa->value_len);
	ek_out_obj_begin(o, NULL);
	if (xa->index == EXT4_XATTR_INDEX_POSIX_ACL_ACCESS ||
	    xa->index == EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT) {
		char text[1024];

		if (acl_text(o, xa, text, sizeof(text))) {
			ek_out_text(o, " = \"%s\"\n", text);
			ek_out_str(o, "acl_text", text);
			goto json;
		}
	}
	if (shown && printable && shown <= 80) {
		/* escape the quote and backslash so the value reads back unambiguously */
		ek_out_text(o, " = \"");
		for (uint32_t i = 0; i < shown; i++)
			ek_out_text(o, "%s%c", xa->value[i] == '"' || xa->value[i] == '\\' ? "\\" : "",
				    xa->value[i]);
		ek_out_text(o, "\"");
	} else if (xa->value_len && xa->value_len <= 40) {
		/* a short binary value in hex bytes, as debugfs shows it */
		ek_out_text(o, " =");
		for (uint32_t i = 0; i < xa->value_len; i++)
			ek_out_text(o, " %02x", xa->value[i]);
	}
	ek_out_text(o, "\n");
json:
	{
		char full[300];

		snprintf(full, sizeof(full), "%s%.*s", xa->prefix, (int)xa->name_len, xa->name);
		ek_out_name(o, "name", full, strlen(full));
	}
	ek_out_u64(o, "index", xa->index);
	ek_out_u64(o, "size", xa->value_len);
	ek_out_hex(o, "value_hex", xa->value, xa->value_len);
	if (xa->value_inum)
		ek_out_u64(o, "value_inode", xa->value_inum);
	else
		ek_out_null(o, "value_inode");	/* the value is inline */
	ek_out_str(o, "where", xa->in_block ? "block" : "inode");
	ek_out_obj_end(o);
	return 0;
}

int do_stat(struct dbg *d, int argc, char **argv)
{
	struct ek_out *o = d->out;
	struct ek_inode ei = { 0 };
	struct runs r = { .o = o };
	bool extra;
	int err;

	(void)argc;
	if (inode_arg(d, "stat", argv[1], &ei))
		return 1;
	extra = ei.extra_isize >= 4;

	ek_out_text(o, "Inode: %u   Type: %-10s Mode:  %04o   Flags: 0x%x\n", ei.ino,
		    dbg_mode_type(ei.mode), ei.mode & 07777, ei.flags);
	ek_out_text(o, "Generation: %u    Version: 0x%08x:%08x\n", ei.generation,
		    (uint32_t)(ei.version >> 32), (uint32_t)ei.version);
	ek_out_text(o, "User: %5u   Group: %5u   Project: %5u   Size: %llu\n", ei.uid, ei.gid,
		    ei.projid, (unsigned long long)ei.size);
	ek_out_text(o, "File ACL: %llu\n", (unsigned long long)ei.file_acl);
	ek_out_text(o, "Links: %u   Blockcount: %llu\n", ei.links_count,
		    (unsigned long long)ei.blocks);
	if (ei.dtime) {
		char buf[64];

		/* as debugfs: the raw word and the date it reads as */
		ek_out_text(o, "dtime: 0x%08x -- %s\n", ei.dtime,
			    ek_fmt_time(ei.dtime, buf, sizeof(buf)));
	}

	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "inode", ei.ino);
	ek_out_str(o, "type", dbg_mode_type(ei.mode));
	ek_out_u64(o, "mode", ei.mode);
	ek_out_u64(o, "flags", ei.flags);
	ek_out_u64(o, "generation", ei.generation);
	ek_out_u64(o, "version", ei.version);
	ek_out_u64(o, "uid", ei.uid);
	ek_out_u64(o, "gid", ei.gid);
	ek_out_u64(o, "project", ei.projid);
	ek_out_u64(o, "size", ei.size);
	if (ei.file_acl)
		ek_out_u64(o, "file_acl", ei.file_acl);
	else
		ek_out_null(o, "file_acl");	/* no xattr block */
	ek_out_u64(o, "links", ei.links_count);
	ek_out_u64(o, "blockcount", ei.blocks);
	/* deletion time, or the next orphan's number on the orphan list */
	if (ei.dtime)
		ek_out_time(o, "dtime", ei.dtime, 0);
	else
		ek_out_null(o, "dtime");
	ek_out_u64(o, "dtime_raw", ei.dtime);
	time_line(o, " ctime", "ctime", &ei.ctime, extra);
	time_line(o, " atime", "atime", &ei.atime, extra);
	time_line(o, " mtime", "mtime", &ei.mtime, extra);
	time_line(o, "crtime", "crtime", &ei.crtime, extra);
	if (ei.extra_isize)
		ek_out_text(o, "Size of extra inode fields: %u\n", ei.extra_isize);
	ek_out_u64(o, "extra_isize", ei.extra_isize);
	if (d->fs->has_csum) {
		ek_out_text(o, "Inode checksum: 0x%08x%s\n", ei.checksum, ei.csum_bad ? " (bad)" : "");
		ek_out_u64(o, "checksum", ei.checksum);
		ek_out_bool(o, "checksum_ok", !ei.csum_bad);
	} else {
		ek_out_null(o, "checksum");	/* no metadata_csum */
		ek_out_null(o, "checksum_ok");
	}

	ek_out_arr_begin(o, "xattrs");
	err = ek_xattr_iterate(d->fs, &ei, print_xattr,
			       &(struct xattr_print){ o, "Extended attributes:\n" });
	ek_out_arr_end(o);
	if (err)
		dbg_warn(d, "stat: %s", ek_error_msg(err));

	if (ek_is_chr(ei.mode) || ek_is_blk(ei.mode)) {
		uint32_t major, minor;

		ek_inode_rdev(&ei, &major, &minor);
		ek_out_text(o, "Device major/minor number: %02u:%02u (hex %02x:%02x)\n",
			    major, minor, major, minor);
		ek_out_u64(o, "major", major);
		ek_out_u64(o, "minor", minor);
	} else if (ek_inode_is_fast_symlink(d->fs, &ei)) {
		ek_out_text(o, "Fast link dest: \"%.*s\"\n", (int)ei.size,
			    (const char *)ek_inode_i_block(&ei));
		ek_out_name(o, "fast_link", (const char *)ek_inode_i_block(&ei), ei.size);
	} else if (ek_inode_has_inline(&ei)) {
		ek_out_text(o, "Size of inline data: %llu\n", (unsigned long long)ei.size);
		ek_out_bool(o, "inline_data", true);
	} else {
		r.indirect = !(ei.flags & EXT4_EXTENTS_FL);
		ek_out_text(o, "%s:\n", r.indirect ? "BLOCKS" : "EXTENTS");
		ek_out_arr_begin(o, "blocks");
		err = ek_map_walk(d->fs, &ei, stat_run, &r);
		ek_out_arr_end(o);
		if (r.n)
			ek_out_text(o, "\n");
		if (r.indirect && r.total)
			ek_out_text(o, "TOTAL: %llu\n", (unsigned long long)r.total);
		ek_out_text(o, "\n");
		if (err) {
			ek_out_obj_end(o);
			ek_inode_release(&ei);
			return dbg_fail(d, "stat", err);
		}
	}
	ek_out_obj_end(o);
	ek_inode_release(&ei);
	return 0;
}

/* ---- hex dumps ----------------------------------------------------------- */

void dbg_hexdump(struct ek_out *o, const char *indent, const uint8_t *buf, size_t len,
		 uint64_t base)
{
	bool star = false;

	for (size_t off = 0; off < len; off += 16) {
		size_t n = len - off < 16 ? len - off : 16;

		if (off && off + 16 <= len && !memcmp(buf + off, buf + off - 16, 16)) {
			if (!star)
				ek_out_text(o, "%s*\n", indent);
			star = true;
			continue;
		}
		star = false;
		ek_out_text(o, "%s%04llx ", indent, (unsigned long long)(base + off));
		for (size_t i = 0; i < 16; i++) {
			if (i < n)
				ek_out_text(o, "%s%02x", i % 2 ? "" : " ", buf[off + i]);
			else
				ek_out_text(o, "%s  ", i % 2 ? "" : " ");
		}
		ek_out_text(o, "  ");
		for (size_t i = 0; i < n; i++)
			ek_out_text(o, "%c", buf[off + i] >= 0x20 && buf[off + i] < 0x7F ? buf[off + i] : '.');
		ek_out_text(o, "\n");
	}
	ek_out_text(o, "\n");
}

int do_id(struct dbg *d, int argc, char **argv)
{
	struct ek_inode ei = { 0 };

	(void)argc;
	if (inode_arg(d, "id", argv[1], &ei))
		return 1;
	dbg_hexdump(d->out, "", ei.raw, ei.raw_size, 0);
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "inode", ei.ino);
	ek_out_hex(d->out, "raw_hex", ei.raw, ei.raw_size);
	ek_out_obj_end(d->out);
	ek_inode_release(&ei);
	return 0;
}

int do_bd(struct dbg *d, int argc, char **argv)
{
	uint64_t blk;
	uint8_t *buf;
	int err;

	if (argc == 3 && !strcmp(argv[1], "-x"))
		argv++, argc--;
	if (argc != 2 || dbg_parse_u64(argv[1], &blk))
		return dbg_usage("bd");
	if (blk >= d->fs->sb.blocks_count) {
		dbg_errorf(d, "bd: block %llu is outside the filesystem (%llu blocks)",
			(unsigned long long)blk, (unsigned long long)d->fs->sb.blocks_count);
		return 1;
	}
	buf = malloc(d->fs->blksz);
	if (!buf)
		return dbg_fail(d, "bd", -ENOMEM);
	err = ek_fs_read_blocks(d->fs, blk, 1, buf);
	if (!err) {
		dbg_hexdump(d->out, "", buf, d->fs->blksz, 0);
		ek_out_obj_begin(d->out, NULL);
		ek_out_u64(d->out, "block", blk);
		ek_out_hex(d->out, "raw_hex", buf, d->fs->blksz);
		ek_out_obj_end(d->out);
	}
	free(buf);
	return err ? dbg_fail(d, "bd", err) : 0;
}

/* ---- blocks, bmap, ex -------------------------------------------------- */

static int list_block(void *arg, const struct ek_mapping *m)
{
	struct ek_out *o = arg;

	if (m->kind == EK_MAP_INDEX)
		return 0;
	for (uint64_t i = 0; i < m->len; i++) {
		ek_out_text(o, "%llu ", (unsigned long long)(m->pblk + i));
		ek_out_u64(o, NULL, m->pblk + i);
	}
	return 0;
}

int do_blocks(struct dbg *d, int argc, char **argv)
{
	struct ek_inode ei = { 0 };
	int err;

	(void)argc;
	if (inode_arg(d, "blocks", argv[1], &ei))
		return 1;
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "inode", ei.ino);
	ek_out_arr_begin(d->out, "blocks");
	err = ek_map_walk(d->fs, &ei, list_block, d->out);
	ek_out_arr_end(d->out);
	ek_out_obj_end(d->out);
	ek_out_text(d->out, "\n");
	ek_inode_release(&ei);
	return err ? dbg_fail(d, "blocks", err) : 0;
}

int do_bmap(struct dbg *d, int argc, char **argv)
{
	struct ek_inode ei = { 0 };
	uint64_t lblk;
	ek_blk_t pblk;
	bool unwritten;
	int err;

	(void)argc;
	if (dbg_parse_u64(argv[2], &lblk))
		return dbg_usage("bmap");
	if (inode_arg(d, "bmap", argv[1], &ei))
		return 1;
	if (ek_inode_has_inline(&ei)) {
		dbg_errorf(d, "bmap: inode %u keeps its data inline: it has no blocks", ei.ino);
		ek_inode_release(&ei);
		return 1;
	}
	err = ek_map_bmap(d->fs, &ei, lblk, &pblk, &unwritten);
	if (!err) {
		ek_out_text(d->out, "%llu%s\n", (unsigned long long)pblk,
			    unwritten ? " (uninit)" : "");
		ek_out_obj_begin(d->out, NULL);
		ek_out_u64(d->out, "inode", ei.ino);
		ek_out_u64(d->out, "logical", lblk);
		if (pblk)
			ek_out_u64(d->out, "physical", pblk);
		else
			ek_out_null(d->out, "physical");	/* a hole */
		ek_out_bool(d->out, "hole", pblk == 0);
		ek_out_bool(d->out, "unwritten", unwritten);
		ek_out_obj_end(d->out);
	}
	ek_inode_release(&ei);
	return err ? dbg_fail(d, "bmap", err) : 0;
}

struct ex_ctx {
	struct ek_out *o;
	unsigned depth;		/* root depth */
	bool skip_leaf, skip_node;
	uint64_t idx_lblk;
};

static int ex_entry(void *arg, const struct ek_mapping *m)
{
	struct ex_ctx *x = arg;
	unsigned lvl;

	if (m->kind == EK_MAP_TREE)
		return 0;
	lvl = x->depth - m->level;
	if (m->kind == EK_MAP_INDEX) {
		if (x->skip_node)
			return 0;
		ek_out_text(x->o, "%2u/%2u %10llu %14s %9llu %6s\n", lvl, x->depth,
			    (unsigned long long)m->lblk, "-", (unsigned long long)m->pblk, "");
	} else {
		if (x->skip_leaf)
			return 0;
		ek_out_text(x->o, "%2u/%2u %10llu - %-10llu %9llu - %-9llu %6llu %s\n", lvl, x->depth,
			    (unsigned long long)m->lblk, (unsigned long long)(m->lblk + m->len - 1),
			    (unsigned long long)m->pblk, (unsigned long long)(m->pblk + m->len - 1),
			    (unsigned long long)m->len, m->unwritten ? "Uninit" : "");
	}
	ek_out_obj_begin(x->o, NULL);
	ek_out_u64(x->o, "level", lvl);
	ek_out_str(x->o, "kind", m->kind == EK_MAP_INDEX ? "index" : "leaf");
	ek_out_u64(x->o, "logical", m->lblk);
	ek_out_u64(x->o, "physical", m->pblk);
	if (m->kind == EK_MAP_DATA) {
		ek_out_u64(x->o, "length", m->len);
		ek_out_bool(x->o, "unwritten", m->unwritten);
	}
	ek_out_obj_end(x->o);
	return 0;
}

int do_ex(struct dbg *d, int argc, char **argv)
{
	struct ex_ctx x = { .o = d->out };
	struct ek_inode ei = { 0 };
	int c, err;

	while ((c = getopt(argc, argv, "nl")) != -1) {
		if (c == 'n')
			x.skip_leaf = true;
		else if (c == 'l')
			x.skip_node = true;
		else
			return dbg_usage("ex");
	}
	if (optind != argc - 1)
		return dbg_usage("ex");
	if (inode_arg(d, "ex", argv[optind], &ei))
		return 1;
	if (!(ei.flags & EXT4_EXTENTS_FL) || ek_inode_has_inline(&ei)) {
		dbg_errorf(d, "ex: inode %u does not use extents", ei.ino);
		ek_inode_release(&ei);
		return 1;
	}
	x.depth = get_le16((const uint8_t *)ek_inode_i_block(&ei) + 6);
	ek_out_text(d->out, "Level %24s %21s Length Flags\n", "Logical", "Physical");
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "inode", ei.ino);
	ek_out_u64(d->out, "depth", x.depth);
	ek_out_arr_begin(d->out, "entries");
	err = ek_map_walk(d->fs, &ei, ex_entry, &x);
	ek_out_arr_end(d->out);
	ek_out_obj_end(d->out);
	ek_inode_release(&ei);
	return err ? dbg_fail(d, "ex", err) : 0;
}

/* ---- bitmaps ------------------------------------------------------------- */

int do_testb(struct dbg *d, int argc, char **argv)
{
	uint64_t blk, count = 1;
	int ret = 0;

	if (dbg_parse_u64(argv[1], &blk) || (argc == 3 && (dbg_parse_u64(argv[2], &count) || !count)))
		return dbg_usage("testb");
	ek_out_arr_begin(d->out, NULL);
	for (uint64_t b = blk; b < blk + count; b++) {
		int r = ek_test_block(d->fs, b);

		if (r < 0) {
			ret = dbg_fail(d, "testb", r == -EINVAL ?
				       ek_err(-EINVAL, "block %llu is outside the filesystem",
					      (unsigned long long)b) : r);
			break;
		}
		ek_out_text(d->out, "Block %llu %s\n", (unsigned long long)b,
			    r ? "marked in use" : "not in use");
		ek_out_obj_begin(d->out, NULL);
		ek_out_u64(d->out, "block", b);
		ek_out_bool(d->out, "in_use", r);
		ek_out_obj_end(d->out);
	}
	ek_out_arr_end(d->out);
	return ret;
}

int do_testi(struct dbg *d, int argc, char **argv)
{
	ek_ino_t ino;
	int r;

	(void)argc;
	r = dbg_parse_ino(d, argv[1], &ino);
	if (r)
		return dbg_fail(d, "testi", r);
	r = ek_test_inode(d->fs, ino);
	if (r < 0)
		return dbg_fail(d, "testi", r);
	ek_out_text(d->out, "Inode %u is %s\n", ino, r ? "marked in use" : "not in use");
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "inode", ino);
	ek_out_bool(d->out, "in_use", r);
	ek_out_obj_end(d->out);
	return 0;
}

int do_ffb(struct dbg *d, int argc, char **argv)
{
	struct ek_fs *fs = d->fs;
	uint64_t count = 1, goal = fs->sb.first_data_block, found = 0;

	if ((argc >= 2 && (dbg_parse_u64(argv[1], &count) || !count)) ||
	    (argc >= 3 && dbg_parse_u64(argv[2], &goal)))
		return dbg_usage("ffb");
	if (goal < fs->sb.first_data_block || goal >= fs->sb.blocks_count)
		goal = fs->sb.first_data_block;
	ek_out_text(d->out, "Free blocks found: ");
	ek_out_obj_begin(d->out, NULL);
	ek_out_arr_begin(d->out, "free_blocks");
	/* search from goal to the end, then wrap to the start */
	for (uint64_t i = 0; i < fs->sb.blocks_count - fs->sb.first_data_block && found < count; i++) {
		uint64_t b = goal + i;
		int r;

		if (b >= fs->sb.blocks_count)
			b -= fs->sb.blocks_count - fs->sb.first_data_block;
		r = ek_test_block(fs, b);
		if (r < 0) {
			ek_out_arr_end(d->out);
			ek_out_obj_end(d->out);
			ek_out_text(d->out, "\n");
			return dbg_fail(d, "ffb", r);
		}
		if (!r) {
			ek_out_text(d->out, "%llu ", (unsigned long long)b);
			ek_out_u64(d->out, NULL, b);
			found++;
		}
	}
	ek_out_arr_end(d->out);
	ek_out_obj_end(d->out);
	ek_out_text(d->out, "\n");
	if (found < count) {
		dbg_errorf(d, "ffb: only %llu free blocks found", (unsigned long long)found);
		return 1;
	}
	return 0;
}

int do_ffi(struct dbg *d, int argc, char **argv)
{
	struct ek_fs *fs = d->fs;
	ek_ino_t start = fs->sb.first_ino, dir = EXT4_ROOT_INO;

	if (argc >= 2) {
		int err = dbg_parse_ino(d, argv[1], &dir);

		if (err)
			return dbg_fail(d, "ffi", err);
		/* start in the directory's group, like ext2fs_new_inode */
		start = ek_group_of_ino(fs, dir) * fs->sb.inodes_per_group + 1;
		if (start < fs->sb.first_ino)
			start = fs->sb.first_ino;
	}
	for (uint64_t i = 0; i < fs->sb.inodes_count; i++) {
		ek_ino_t ino = start + i;
		int r;

		if (ino > fs->sb.inodes_count)
			ino -= fs->sb.inodes_count - fs->sb.first_ino + 1;
		if (ino < fs->sb.first_ino)
			continue;
		r = ek_test_inode(fs, ino);
		if (r < 0)
			return dbg_fail(d, "ffi", r);
		if (!r) {
			ek_out_text(d->out, "Free inode found: %u\n", ino);
			ek_out_obj_begin(d->out, NULL);
			ek_out_u64(d->out, "free_inode", ino);
			ek_out_obj_end(d->out);
			return 0;
		}
	}
	dbg_errorf(d, "ffi: no free inode");
	return 1;
}

int do_imap(struct dbg *d, int argc, char **argv)
{
	ek_ino_t ino;
	ek_blk_t blk;
	uint32_t off;
	int err;

	(void)argc;
	err = dbg_parse_ino(d, argv[1], &ino);
	if (!err)
		err = ek_inode_loc(d->fs, ino, &blk, &off);
	if (err)
		return dbg_fail(d, "imap", err);
	ek_out_text(d->out, "Inode %u is part of block group %u\n\tlocated at block %llu, offset 0x%04x\n",
		    ino, ek_group_of_ino(d->fs, ino), (unsigned long long)blk, off);
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "inode", ino);
	ek_out_u64(d->out, "group", ek_group_of_ino(d->fs, ino));
	ek_out_u64(d->out, "block", blk);
	ek_out_u64(d->out, "offset", off);
	ek_out_obj_end(d->out);
	return 0;
}

int do_ea_list(struct dbg *d, int argc, char **argv)
{
	struct ek_inode ei = { 0 };
	int err;

	(void)argc;
	if (inode_arg(d, "ea_list", argv[1], &ei))
		return 1;
	ek_out_text(d->out, "Extended attributes:\n");	/* always, as debugfs */
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "inode", ei.ino);
	ek_out_arr_begin(d->out, "xattrs");
	err = ek_xattr_iterate(d->fs, &ei, print_xattr, &(struct xattr_print){ d->out, NULL });
	ek_out_arr_end(d->out);
	ek_out_obj_end(d->out);
	ek_inode_release(&ei);
	return err ? dbg_fail(d, "ea_list", err) : 0;
}
