// SPDX-License-Identifier: MIT
/*
 * check_populate.c - copying a directory tree into a new filesystem
 * (populate.c): a small tree in a temporary directory goes into an 8 MiB
 * image in a memfd, which is then read back through the library; and a
 * table of trees it refuses.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include "unit.h"

#define MiB (1024ull * 1024)

static char src[64];

static void put_file(const char *name, size_t len, off_t at)
{
	char path[256], *buf = malloc(len ? len : 1);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", src, name);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)('a' + i % 26);
	if (len)
		ck_assert_int_eq(pwrite(fd, buf, len, at), (ssize_t)len);
	close(fd);
	free(buf);
}

static void sub(const char *name, char *out, size_t n)
{
	snprintf(out, n, "%s/%s", src, name);
}

static void rm_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", src);
	ck_assert_int_eq(system(cmd), 0);
}

/* "a" 3000 bytes, "a2" its hard link, "h" a hole then 100 bytes at 20 KiB,
 * "d" with 120 names (more than a 1 KiB block: an htree), "s" a symlink */
static void tree(void)
{
	char p[256], q[256];

	strcpy(src, "/tmp/ek-populate.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(src));
	put_file("a", 3000, 0);
	put_file("h", 100, 20480);
	sub("a", p, sizeof(p));
	sub("a2", q, sizeof(q));
	ck_assert_int_eq(link(p, q), 0);
	sub("d", p, sizeof(p));
	ck_assert_int_eq(mkdir(p, 0755), 0);
	for (int i = 0; i < 120; i++) {
		char n[64];

		snprintf(n, sizeof(n), "d/entry-with-a-longish-name-%03d", i);
		put_file(n, 0, 0);
	}
	sub("s", p, sizeof(p));
	ck_assert_int_eq(symlink("a", p), 0);
}

struct img {
	int fd;
	char path[64];
	struct ek_newfs *nf;
	struct ek_io *io;
};

static int make(struct img *m, uint64_t size, const char *dir, const struct ek_populate_opts *po,
		struct ek_populate_stats *st)
{
	struct ek_newfs_opts o = { .geo = { .size = size, .type = EK_FS_EXT4, .blocksize = 1024 },
				   .now = 1700000000, .defer_root = true, .lazy_itable_init = true };
	int err;

	m->fd = memfd_create("populate", 0);
	ck_assert_int_ge(m->fd, 0);
	ck_assert_int_eq(ftruncate(m->fd, (off_t)size), 0);
	snprintf(m->path, sizeof(m->path), "/proc/self/fd/%d", m->fd);
	memset(o.uuid, 0x11, 16);
	memset(o.hash_seed, 0x22, 16);
	ck_assert_int_eq(ek_newfs_create(NULL, &o, &m->nf), 0);
	ck_assert_int_eq(ek_io_open(m->path, EK_IO_RW, 0, &m->io), 0);
	ek_newfs_set_target(m->nf, m->io, true);
	ck_assert_int_eq(ek_newfs_begin(m->nf), 0);
	ek_error_clear();
	err = ek_populate(m->nf, dir, po, st);
	if (!err)
		err = ek_newfs_finish(m->nf);
	return err;
}

static void done(struct img *m)
{
	ek_newfs_free(m->nf);
	ek_io_close(m->io);
	close(m->fd);
}

static ek_ino_t lookup(struct ek_fs *fs, ek_ino_t dir, const char *name)
{
	struct ek_inode d;
	ek_ino_t ino = 0;

	ck_assert_int_eq(ek_inode_read(fs, dir, &d), 0);
	ck_assert_msg(ek_dir_lookup(fs, &d, name, strlen(name), &ino) == 0, "lookup '%s': %s", name,
		      ek_last_error()->msg);
	ek_inode_release(&d);
	return ino;
}

/* _i 0: the defaults (a linear directory of several blocks, as mke2fs -d); 1: -E htree_dirs */
START_TEST(test_tree)
{
	struct ek_populate_opts po = { .htree_dirs = _i == 1 };
	struct ek_populate_stats st = { 0 };
	struct ek_open_opts oo = { 0 };
	struct ek_fs *fs;
	struct ek_inode ei;
	struct img m;
	ek_ino_t a, d, h;
	char target[8];

	tree();
	ck_assert_msg(make(&m, 8 * MiB, src, &po, &st) == 0, "populate: %s", ek_last_error()->msg);
	ck_assert_uint_eq(st.files, 122);	/* a, h, 120 in d; a2 is a hard link */
	ck_assert_uint_eq(st.hardlinks, 1);
	ck_assert_uint_eq(st.dirs, 1);
	ck_assert_uint_eq(st.symlinks, 1);
	ck_assert_int_eq(ek_fs_open(m.path, &oo, &fs), 0);
	a = lookup(fs, EXT4_ROOT_INO, "a");
	ck_assert_uint_eq(lookup(fs, EXT4_ROOT_INO, "a2"), a);
	ck_assert_int_eq(ek_inode_read(fs, a, &ei), 0);
	ck_assert_uint_eq(ei.size, 3000);
	ck_assert_uint_eq(ei.links_count, 2);
	ck_assert_uint_eq(ei.blocks, 3 * 2);
	ek_inode_release(&ei);
	/* the hole stays a hole: one block mapped */
	h = lookup(fs, EXT4_ROOT_INO, "h");
	ck_assert_int_eq(ek_inode_read(fs, h, &ei), 0);
	ck_assert_uint_eq(ei.size, 20480 + 100);
	ck_assert_uint_eq(ei.blocks, 2);
	ek_inode_release(&ei);
	d = lookup(fs, EXT4_ROOT_INO, "d");
	ck_assert_int_eq(ek_inode_read(fs, d, &ei), 0);
	if (_i == 1) {
		ck_assert(ei.flags & EXT4_INDEX_FL);
	} else {
		ck_assert(!(ei.flags & EXT4_INDEX_FL));
		ck_assert_uint_ge(ei.size, 3 * 1024);	/* 120 names of 32 bytes and more */
	}
	ek_inode_release(&ei);
	ck_assert_uint_ne(lookup(fs, d, "entry-with-a-longish-name-077"), 0);
	ck_assert_int_eq(ek_inode_read(fs, lookup(fs, EXT4_ROOT_INO, "s"), &ei), 0);
	ck_assert_int_eq(ek_readlink(fs, &ei, target, sizeof(target)), 0);
	ck_assert_str_eq(target, "a");
	ek_inode_release(&ei);
	ek_fs_close(fs);
	done(&m);
	rm_tree();
}
END_TEST

/* ---- trees it refuses or leaves in part ------------------------------------------- */

static const struct unit_bad bad[] = {
	{ "source missing", -ENOENT, "cannot stat" },
	{ "source not a directory", -ENOTDIR, "is not a directory" },
	{ "more data than the filesystem holds", -ENOSPC, "the filesystem is full" },
	{ "symlink target longer than a block", -ENAMETOOLONG, "more than a 1024-byte block holds" },
	{ "lost+found in the tree", 0, "own lost+found" },
};

static void warn_cb(void *arg, const char *msg)
{
	snprintf(arg, 256, "%s", msg);
}

START_TEST(test_bad)
{
	char warned[256] = "", dir[256], p[256], target[2100];
	struct ek_populate_opts po = { .warn = warn_cb, .warn_arg = warned };
	struct ek_populate_stats st = { 0 };
	struct img m;
	int err;

	tree();
	strcpy(dir, src);
	switch (_i) {
	case 0: strcat(dir, "/nothing-here"); break;
	case 1: strcat(dir, "/a"); break;
	case 2: put_file("big", 9 * MiB, 0); break;
	case 3:
		memset(target, 'x', 2000);
		target[2000] = 0;
		sub("long", p, sizeof(p));
		ck_assert_int_eq(symlink(target, p), 0);
		break;
	case 4:
		sub("lost+found", p, sizeof(p));
		ck_assert_int_eq(mkdir(p, 0755), 0);
		break;
	}
	err = make(&m, 8 * MiB, dir, &po, &st);
	unit_assert_bad(&bad[_i], err, warned);
	done(&m);
	rm_tree();
}
END_TEST

static Suite *populate_suite(void)
{
	Suite *s = suite_create("populate");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_tree, 0, 2);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(populate_suite)
