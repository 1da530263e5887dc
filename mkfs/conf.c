// SPDX-License-Identifier: MIT
/*
 * conf.c - mke2fs.conf, read as mke2fs 1.47 reads it.
 *
 * The file: $MKE2FS_CONFIG, else /etc/mke2fs.conf; when that does not
 * exist, the defaults mke2fs has built in (the same as the file Debian's
 * e2fsprogs 1.47.0 installs).  An empty file is taken as it is: mke2fs's
 * hard-coded fallbacks then apply (ext2 features, 4 KiB blocks, 128-byte
 * inodes, no [fs_types] ext4).
 *
 * The type list: the filesystem type (-t, else mkfs.TYPE as the program
 * name, else [devices] TARGET fs_type, else [defaults] fs_type, else ext4,
 * extkit's own default), then the usage types of -T (or [devices] TARGET
 * usage_types), comma-separated, else the size type: floppy below 3 MiB,
 * small below 512 MiB, default below 4 TiB, big below 16 TiB, else huge.
 * Usage types without a subsection in [fs_types] are left out with a
 * warning ("default" silently).
 *
 * A relation is looked up in [defaults] first, then in each listed
 * type's subsection in turn, the last one found winning (strings:
 * the last listed type that has it, else [defaults]).  Features:
 * base_features, then each type's "features" in list order, then -O or,
 * without -O, default_features; "^name" clears, "none" clears all.  Then
 * each type's "options" and -E, as -E options.  The command line wins
 * over every relation.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "mkfs.h"

/* mke2fs's built-in profile, as Debian's e2fsprogs 1.47.0 ships /etc/mke2fs.conf */
static const char builtin_conf[] =
	"[defaults]\n"
	"\tbase_features = sparse_super,large_file,filetype,resize_inode,dir_index,ext_attr\n"
	"\tdefault_mntopts = acl,user_xattr\n"
	"\tenable_periodic_fsck = 0\n"
	"\tblocksize = 4096\n"
	"\tinode_size = 256\n"
	"\tinode_ratio = 16384\n"
	"\n"
	"[fs_types]\n"
	"\text3 = {\n"
	"\t\tfeatures = has_journal\n"
	"\t}\n"
	"\text4 = {\n"
	"\t\tfeatures = has_journal,extent,huge_file,flex_bg,metadata_csum,64bit,dir_nlink,"
	"extra_isize\n"
	"\t}\n"
	"\tsmall = {\n"
	"\t\tblocksize = 1024\n"
	"\t\tinode_ratio = 4096\n"
	"\t}\n"
	"\tfloppy = {\n"
	"\t\tblocksize = 1024\n"
	"\t\tinode_ratio = 8192\n"
	"\t}\n"
	"\tbig = {\n"
	"\t\tinode_ratio = 32768\n"
	"\t}\n"
	"\thuge = {\n"
	"\t\tinode_ratio = 65536\n"
	"\t}\n"
	"\tnews = {\n"
	"\t\tinode_ratio = 4096\n"
	"\t}\n"
	"\tlargefile = {\n"
	"\t\tinode_ratio = 1048576\n"
	"\t\tblocksize = -1\n"
	"\t}\n"
	"\tlargefile4 = {\n"
	"\t\tinode_ratio = 4194304\n"
	"\t\tblocksize = -1\n"
	"\t}\n"
	"\thurd = {\n"
	"\t     blocksize = 4096\n"
	"\t     inode_size = 128\n"
	"\t     warn_y2038_dates = 0\n"
	"\t}\n";

#define MAX_TYPES 16

struct conf {
	struct mk *m;
	struct ek_profile *p;
	const char *types[MAX_TYPES + 1];
	char *usage_copy;
	int err;			/* a bad value was met (its message printed) */
};

static int conf_fail(struct conf *c, int err)
{
	c->err = 1;
	return mk_fail(c->m, "%s: %s", c->m->conf_path, ek_error_msg(err));
}

/* string: the last listed type that has it, else [defaults], else @def */
static const char *get_str(struct conf *c, const char *tag, const char *def)
{
	const char *v;
	int n = 0;

	while (c->types[n])
		n++;
	while (n--)
		if ((v = ek_profile_get(c->p, "fs_types", c->types[n], tag)))
			return v;
	v = ek_profile_get(c->p, "defaults", NULL, tag);
	return v ? v : def;
}

/* numbers and booleans: [defaults], then each type in turn overrides */
static int get_int(struct conf *c, const char *tag, int def)
{
	int v = def, err = ek_profile_get_int(c->p, "defaults", NULL, tag, &v);

	for (int i = 0; err >= 0 && c->types[i]; i++)
		err = ek_profile_get_int(c->p, "fs_types", c->types[i], tag, &v);
	if (err < 0)
		conf_fail(c, err);
	return v;
}

static unsigned get_uint(struct conf *c, const char *tag, unsigned def)
{
	unsigned v = def;
	int err = ek_profile_get_uint(c->p, "defaults", NULL, tag, &v);

	for (int i = 0; err >= 0 && c->types[i]; i++)
		err = ek_profile_get_uint(c->p, "fs_types", c->types[i], tag, &v);
	if (err < 0)
		conf_fail(c, err);
	return v;
}

static double get_double(struct conf *c, const char *tag, double def)
{
	double v = def;
	int err = ek_profile_get_double(c->p, "defaults", NULL, tag, &v);

	for (int i = 0; err >= 0 && c->types[i]; i++)
		err = ek_profile_get_double(c->p, "fs_types", c->types[i], tag, &v);
	if (err < 0)
		conf_fail(c, err);
	return v;
}

static bool get_bool(struct conf *c, const char *tag, bool def)
{
	bool v = def;
	int err = ek_profile_get_bool(c->p, "defaults", NULL, tag, &v);

	for (int i = 0; err >= 0 && c->types[i]; i++)
		err = ek_profile_get_bool(c->p, "fs_types", c->types[i], tag, &v);
	if (err < 0)
		conf_fail(c, err);
	return v;
}

/*
 * Edit the feature words @f by @list ("a,^b,-c,+d", "none" or "clear"
 * for no features at all), as mke2fs's -O; @what names the list's origin.
 */
static int edit_features(struct conf *c, const char *list, uint32_t f[3], const char *what)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	if (!copy)
		return mk_fail(c->m, "out of memory");
	for (char *t = strtok_r(copy, ", \t", &save); t && !rc; t = strtok_r(NULL, ", \t", &save)) {
		bool off = *t == '^' || *t == '-';
		const char *name = (*t == '^' || *t == '-' || *t == '+') ? t + 1 : t;
		uint32_t mask;
		int word;

		if (!strcasecmp(name, "none") || !strcasecmp(name, "clear")) {
			f[0] = f[1] = f[2] = 0;
			continue;
		}
		if (ek_feature_lookup(name, &word, &mask)) {
			rc = mk_fail(c->m, "%s: unknown feature '%s'", what, name);
			break;
		}
		if (off)
			f[word] &= ~mask;
		else
			f[word] |= mask;
	}
	free(copy);
	return rc;
}

/* default_mntopts: "acl,^user_xattr,journal_data" over @opts */
static int edit_mntopts(struct conf *c, const char *list, uint32_t *opts)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	if (!copy)
		return mk_fail(c->m, "out of memory");
	for (char *t = strtok_r(copy, ", \t", &save); t && !rc; t = strtok_r(NULL, ", \t", &save)) {
		bool off = *t == '^';
		uint32_t mask;

		if (ek_mntopt_lookup(off ? t + 1 : t, &mask)) {
			rc = mk_fail(c->m, "%s: default_mntopts: unknown mount option '%s'",
				     c->m->conf_path, off ? t + 1 : t);
			break;
		}
		if (mask & EK_DEFM_JMODE)
			*opts &= ~EK_DEFM_JMODE;	/* one journal mode */
		if (off)
			*opts &= ~mask;
		else
			*opts |= mask;
	}
	free(copy);
	return rc;
}

static int load(struct conf *c)
{
	struct mk *m = c->m;
	const char *path = getenv("MKE2FS_CONFIG");
	int err;

	if (!path)
		path = "/etc/mke2fs.conf";
	err = ek_profile_load(path, &c->p);
	if (err == -ENOENT) {
		/* as mke2fs: a file that does not exist leaves the built-in defaults */
		m->conf_path = strdup("mke2fs.conf (built in)");
		err = ek_profile_parse(builtin_conf, sizeof(builtin_conf) - 1, m->conf_path, &c->p);
	} else {
		m->conf_path = strdup(path);
	}
	if (!m->conf_path)
		return mk_fail(m, "out of memory");
	if (err)
		return mk_fail(m, "%s", ek_error_msg(err));
	return 0;
}

/*
 * [defaults] creator_os (mke2fs 1.47.0 reads it there only, before the
 * type list): the OS recorded, the Hurd's type and features with hurd;
 * -o wins over it
 */
static int creator_os(struct conf *c)
{
	struct mk *m = c->m;
	const char *v = ek_profile_get(c->p, "defaults", NULL, "creator_os");

	if (m->os_given || !v)
		return 0;
	if (mk_parse_os(v, &m->o.creator_os))
		return mk_fail(m, "%s: creator_os = %s: unknown creator OS (Linux, Hurd or GNU, "
			       "Masix, FreeBSD, Lites, or a number)", m->conf_path, v);
	return 0;
}

static int push_type(struct conf *c, const char *t)
{
	int n = 0;

	while (c->types[n])
		n++;
	if (n == MAX_TYPES)
		return mk_fail(c->m, "-T: more than %d usage types", MAX_TYPES - 1);
	c->types[n] = t;
	return 0;
}

/* the type list, as mke2fs's parse_fs_type() builds it */
static int type_list(struct conf *c, uint64_t size)
{
	struct mk *m = c->m;
	const char *t = m->type_arg, *usage = m->usage_arg, *base;
	uint64_t bs = m->o.geo.blocksize ? m->o.geo.blocksize : 1024;
	uint64_t blocks = size / bs, meg = (1u << 20) / bs;
	const char *size_type = blocks < 3 * meg ? "floppy" : blocks < 512 * meg ? "small" :
				blocks < (4ull << 20) * meg ? "default" :
				blocks < (16ull << 20) * meg ? "big" : "huge";

	if (!t && m->argv0) {
		base = strrchr(m->argv0, '/');
		base = base ? base + 1 : m->argv0;
		if (!strncmp(base, "mkfs.", 5) && base[5])
			t = base + 5;
	}
	if (!t && m->o.creator_os == 1)
		t = "ext2";	/* as mke2fs: the Hurd's type is ext2 */
	if (!t)
		t = ek_profile_get(c->p, "devices", m->target, "fs_type");
	if (!t && (t = ek_profile_get(c->p, "defaults", NULL, "fs_type")) &&
	    !strcmp(t, "ext2") && m->journal_flag)
		t = "ext3";	/* as mke2fs: the conf's ext2 with -j or -J is ext3 */
	if (!t)
		t = "ext4";	/* extkit's default where mke2fs's is ext2 */
	if (!ek_profile_has_subsection(c->p, "fs_types", t) && strcmp(t, "ext2")) {
		if (!m->force)
			return mk_fail(m, "%s does not define the %s filesystem type: give another -t, "
				       "or -F to make it with [defaults] only", m->conf_path, t);
		mk_warn(m, "%s does not define the %s filesystem type: made with [defaults] only",
			m->conf_path, t);
	}
	if (!(m->type_name = strdup(t)))
		return mk_fail(m, "out of memory");
	c->types[0] = m->type_name;
	if (!usage)
		usage = ek_profile_get(c->p, "devices", m->target, "usage_types");
	if (!(c->usage_copy = strdup(usage ? usage : size_type)))
		return mk_fail(m, "out of memory");
	for (char *u = c->usage_copy, *comma; u; u = comma) {
		if ((comma = strchr(u, ',')))
			*comma++ = '\0';
		if (!*u)
			continue;
		if (ek_profile_has_subsection(c->p, "fs_types", u)) {
			if (push_type(c, u))
				return 1;
		} else if (strcmp(u, "default")) {
			mk_warn(m, "the usage type %s is not defined in %s: left out", u, m->conf_path);
		}
	}
	/* mke2fs -o hurd: the hurd type last, defined or not */
	if (m->o.creator_os == 1 && push_type(c, "hurd"))
		return 1;
	if (m->verbose) {
		fprintf(stderr, "%s: types for %s:", m->prog, m->conf_path);
		for (int i = 0; c->types[i]; i++)
			fprintf(stderr, " %s", c->types[i]);
		fputc('\n', stderr);
	}
	return 0;
}

/* the features mke2fs turns off for the Hurd, and refuses when -O asks for them */
#define HURD_INCOMPAT (EXT4_FEATURE_INCOMPAT_FILETYPE | EXT4_FEATURE_INCOMPAT_EA_INODE | \
		       EXT4_FEATURE_INCOMPAT_CASEFOLD)
#define HURD_RO_COMPAT (EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)

static int features(struct conf *c)
{
	struct mk *m = c->m;
	struct ek_geometry_opts *g = &m->o.geo;
	uint32_t f[3] = { 0 };
	const char *v;
	char what[96];

	v = get_str(c, "base_features", "sparse_super,large_file,filetype,resize_inode,dir_index");
	snprintf(what, sizeof(what), "%s: base_features", m->conf_path);
	if (edit_features(c, v, f, what))
		return 1;
	for (int i = 0; c->types[i]; i++) {
		v = ek_profile_get(c->p, "fs_types", c->types[i], "features");
		snprintf(what, sizeof(what), "%s: [fs_types] %s features", m->conf_path, c->types[i]);
		if (v && *v && edit_features(c, v, f, what))
			return 1;
	}
	if (m->o.creator_os == 1) {
		/* what the Hurd does not read: off before -O, which may not ask for it */
		f[EK_FEAT_INCOMPAT] &= ~(uint32_t)HURD_INCOMPAT;
		f[EK_FEAT_RO_COMPAT] &= ~(uint32_t)HURD_RO_COMPAT;
	}
	if (m->features_arg) {
		if (edit_features(c, m->features_arg, f, "-O"))
			return 1;
	} else {
		snprintf(what, sizeof(what), "%s: default_features", m->conf_path);
		if (edit_features(c, get_str(c, "default_features", ""), f, what))
			return 1;
	}
	if (m->o.rev0) {
		/* revision 0 has no feature words: none from -O, none from the conf */
		if (m->features_arg)
			return mk_fail(m, "-r 0: revision 0 filesystems have no features (-O %s)",
				       m->features_arg);
		if (m->journal_flag)
			return mk_fail(m, "-r 0: revision 0 filesystems have no journal");
		f[0] = f[1] = f[2] = 0;
	}
	/* -s: mke2fs's old switch for sparse_super, over the features so far */
	if (m->sparse_arg > 0) {
		if (m->o.rev0)
			return mk_fail(m, "-s 1: revision 0 filesystems have no sparse_super");
		f[EK_FEAT_RO_COMPAT] |= EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER;
	} else if (m->sparse_arg == 0) {
		f[EK_FEAT_RO_COMPAT] &= ~(uint32_t)EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER;
	}
	if (m->journal_flag)
		f[EK_FEAT_COMPAT] |= EXT4_FEATURE_COMPAT_HAS_JOURNAL;
	if (m->o.creator_os == 1 && ((f[EK_FEAT_INCOMPAT] & HURD_INCOMPAT) ||
				     (f[EK_FEAT_RO_COMPAT] & HURD_RO_COMPAT))) {
		uint32_t bad = f[EK_FEAT_INCOMPAT] & HURD_INCOMPAT;
		int type = bad ? EK_FEAT_INCOMPAT : EK_FEAT_RO_COMPAT;

		bad = bad ? bad & -bad : (f[EK_FEAT_RO_COMPAT] & HURD_RO_COMPAT) &
					 -(f[EK_FEAT_RO_COMPAT] & HURD_RO_COMPAT);
		return mk_fail(m, "-o hurd: the Hurd does not support the %s feature",
			       ek_feature_name(type, bad));
	}
	if (f[EK_FEAT_INCOMPAT] & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV) {
		/* an external journal device: that feature, and metadata_csum if asked */
		f[EK_FEAT_COMPAT] = 0;
		f[EK_FEAT_INCOMPAT] = EXT4_FEATURE_INCOMPAT_JOURNAL_DEV;
		f[EK_FEAT_RO_COMPAT] &= EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	}
	/* mke2fs drops uninit_bg when metadata_csum is on: it does the same and more */
	if (f[EK_FEAT_RO_COMPAT] & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		f[EK_FEAT_RO_COMPAT] &= ~EXT4_FEATURE_RO_COMPAT_GDT_CSUM;
	g->features_given = true;
	g->compat = f[EK_FEAT_COMPAT];
	g->incompat = f[EK_FEAT_INCOMPAT];
	g->ro_compat = f[EK_FEAT_RO_COMPAT];
	return c->err;
}

/*
 * s_def_hash_version as mke2fs 1.47.0 reads hash_alg: legacy, half_md4,
 * tea, or HASHALG_n; any other name (siphash and the _unsigned ones
 * among them: its e2p does not know them) gives half_md4, with a warning
 * here.  HASHALG_n above tea is refused: the kernel refuses to mount
 * siphash or an unknown default, and does not read a directory it indexed
 * with an _unsigned one (it stores the default in the directory)
 */
static int hash_alg(struct conf *c)
{
	static const char *const names[] = { "legacy", "half_md4", "tea" };
	const char *v = get_str(c, "hash_alg", "half_md4");
	long n = -1;

	for (int i = 0; i < 3; i++)
		if (!strcasecmp(v, names[i]))
			n = i;
	if (n < 0 && !strncasecmp(v, "HASHALG_", 8) && v[8]) {
		char *end;

		n = strtol(v + 8, &end, 10);
		if (*end || n < 0 || n > 255)
			n = -1;
	}
	c->m->o.hash_given = true;
	if (n < 0) {
		mk_warn(c->m, "%s: hash_alg = %s: not a hash mke2fs 1.47.0 knows: half_md4, as "
			"it writes", c->m->conf_path, v);
		n = EXT4_HASH_HALF_MD4;
	}
	if (n > EXT4_HASH_TEA)
		return mk_fail(c->m, "%s: hash_alg = %s: the kernel does not take hash %ld as the "
			       "default (it reads legacy, half_md4 or tea there)", c->m->conf_path,
			       v, n);
	c->m->o.def_hash_version = (uint8_t)n;
	return 0;
}

/*
 * casefold's encoding: with the feature, mke2fs.conf's encoding (utf8) and
 * encoding_flags; then -E encoding= (which turns casefold on) and
 * -E encoding_flags=, which needs an encoding from one or the other
 */
static int encoding(struct conf *c)
{
	struct mk *m = c->m;
	struct ek_geometry_opts *g = &m->o.geo;
	uint16_t enc = 0, flags = 0;
	const char *v;

	if (g->incompat & EXT4_FEATURE_INCOMPAT_CASEFOLD) {
		v = get_str(c, "encoding", "utf8");
		if (ek_encoding_lookup(v, &enc))
			return mk_fail(m, "%s: encoding = %s: unknown (utf8 or utf8-12.1)",
				       m->conf_path, v);
		v = get_str(c, "encoding_flags", NULL);
		if (v && ek_encoding_flags_parse(enc, v, &flags))
			return mk_fail(m, "%s: encoding_flags = %s: strict or nostrict",
				       m->conf_path, v);
	}
	if (m->encoding_given) {
		enc = m->encoding;
		g->incompat |= EXT4_FEATURE_INCOMPAT_CASEFOLD;
	}
	/* as mke2fs: any -E list starts the flags again from the encoding's default */
	if (m->extended_arg)
		flags = 0;
	if (m->encoding_flags_buf[0]) {
		if (!enc)
			return mk_fail(m, "-E encoding_flags=%s: needs an encoding (-E encoding=utf8 "
				       "or -O casefold)", m->encoding_flags_buf);
		if (ek_encoding_flags_parse(enc, m->encoding_flags_buf, &flags))
			return mk_fail(m, "-E encoding_flags=%s: strict or nostrict",
				       m->encoding_flags_buf);
	}
	m->o.encoding = enc;
	m->o.encoding_flags = flags;
	return 0;
}

/*
 * RAID stride and stripe width from the device's I/O topology, in blocks,
 * as mke2fs sets them (only above one block); -E stride= and
 * stripe_width= come later and win.  An alignment offset is reported
 * (with -q too, as mke2fs does).
 */
static void device_topology(struct mk *m, uint32_t bs)
{
	uint64_t min_io = m->min_io, opt_io = m->opt_io;

	if (!m->have_topology)
		return;
	if (!min_io && m->psector > bs)
		min_io = m->psector;
	if (!opt_io)
		opt_io = min_io ? min_io : m->psector > bs ? m->psector : 0;
	if (min_io > bs)
		m->o.raid_stride = (uint32_t)(min_io / bs);
	if (opt_io > bs)
		m->o.raid_stripe_width = (uint32_t)(opt_io / bs);
	if (m->align_offset)	/* with -q too, as mke2fs prints it */
		mk_warn(m, "'%s' is misaligned by %" PRIu64 " bytes against its physical sectors: "
			"expect poor performance, or repartition", m->target, m->align_offset);
}

int mk_conf_resolve(struct mk *m, uint64_t size)
{
	struct conf c = { .m = m };
	struct ek_geometry_opts *g = &m->o.geo;
	const char *v;
	int rc = 1;

	if (load(&c) || creator_os(&c) || type_list(&c, size) || features(&c))
		goto out;
	g->type = !strcmp(m->type_name, "ext2") ? EK_FS_EXT2 : !strcmp(m->type_name, "ext3") ?
		  EK_FS_EXT3 : EK_FS_EXT4;	/* the name printed; features are resolved */

	if (!g->blocksize) {
		int bs = get_int(&c, "blocksize", 4096);

		if (bs == -1)
			bs = (int)sysconf(_SC_PAGESIZE);	/* as the profile's -1 means */
		if (bs < 1024 || bs > 65536 || (bs & (bs - 1))) {
			mk_fail(m, "%s: blocksize = %d: a power of two from 1024 to 65536",
				m->conf_path, bs);
			goto out;
		}
		/* never below the device's logical sector */
		if (m->lsector && (uint32_t)bs < m->lsector)
			bs = (int)m->lsector;
		g->blocksize = (uint32_t)bs;
	} else if (g->blocksize < m->lsector) {
		mk_fail(m, "-b %u: smaller than the logical sector size of '%s' (%u bytes)",
			g->blocksize, m->target, m->lsector);
		goto out;
	} else if (g->blocksize < m->psector && m->psector <= (uint32_t)sysconf(_SC_PAGESIZE)) {
		mk_warn(m, "-b %u is less than the physical sector size of '%s' (%u bytes)",
			g->blocksize, m->target, m->psector);
	}
	device_topology(m, g->blocksize);
	/* more blocks than 32 bits count: 64bit if the conf allows (resize_inode goes) */
	if (size / g->blocksize > 0xFFFFFFFFull && !(g->incompat & EXT4_FEATURE_INCOMPAT_64BIT) &&
	    get_bool(&c, "auto_64-bit_support", false))
		g->incompat |= EXT4_FEATURE_INCOMPAT_64BIT;
	if (!g->reserved_given) {
		double r = get_double(&c, "reserved_ratio", 5.0);

		if (!(r >= 0 && r <= 50)) {
			mk_fail(m, "%s: reserved_ratio = %g: a percentage from 0 to 50", m->conf_path, r);
			goto out;
		}
		g->reserved_given = true;
		g->reserved_percent = r;
	}
	if ((g->ro_compat & EXT4_FEATURE_RO_COMPAT_BIGALLOC) && !g->cluster_size) {
		int cs = get_int(&c, "cluster_size", (int)g->blocksize * 16);

		if (cs <= 0) {
			mk_fail(m, "%s: cluster_size = %d: not a size", m->conf_path, cs);
			goto out;
		}
		g->cluster_size = (uint32_t)cs;
	}
	if (!g->inode_ratio) {
		int r = get_int(&c, "inode_ratio", 8192);
		uint32_t floor = g->blocksize;

		if ((g->ro_compat & EXT4_FEATURE_RO_COMPAT_BIGALLOC) && g->cluster_size > floor)
			floor = g->cluster_size;
		/* a profile's ratio is at least a block (a cluster) */
		g->inode_ratio = r < 0 || (uint32_t)r < floor ? floor : (uint32_t)r;
	}
	if (m->o.rev0)
		g->inode_size = EXT4_GOOD_OLD_INODE_SIZE;	/* fixed at revision 0, -I or not */
	if (!g->inode_size) {
		int is = get_int(&c, "inode_size", 0);

		/* none: ext2fs_initialize's 128 */
		g->inode_size = is > 0 ? (uint32_t)is : EXT4_GOOD_OLD_INODE_SIZE;
	}
	if (g->incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) {
		if (!g->flex_size) {
			unsigned fs = get_uint(&c, "flex_bg_size", 16);

			if (!fs || (fs & (fs - 1))) {
				mk_fail(m, "%s: flex_bg_size = %u: a power of two", m->conf_path, fs);
				goto out;
			}
			g->flex_size = fs;
		}
	} else if (g->flex_size) {
		mk_fail(m, "-G: flex_bg is off, so there is no flex group size to set");
		goto out;
	}
	if (!m->lazy_given)
		m->o.lazy_itable_init = get_bool(&c, "lazy_itable_init", true);
	m->discard = get_bool(&c, "discard", m->discard);
	m->o.lazy_journal_init = get_bool(&c, "lazy_journal_init", false);
	m->o.periodic_fsck = get_bool(&c, "enable_periodic_fsck", false);
	if (c.err)
		goto out;
	m->o.mntopts_given = true;
	m->o.default_mount_opts = 0;
	if (edit_mntopts(&c, get_str(&c, "default_mntopts", "acl,user_xattr"),
			 &m->o.default_mount_opts) || hash_alg(&c))
		goto out;
	if (!m->o.errors && (v = get_str(&c, "errors", NULL))) {
		if (!strcmp(v, "continue"))
			m->o.errors = 1;
		else if (!strcmp(v, "remount-ro"))
			m->o.errors = 2;
		else if (!strcmp(v, "panic"))
			m->o.errors = 3;
		else {
			mk_fail(m, "%s: errors = %s: continue, remount-ro or panic", m->conf_path, v);
			goto out;
		}
	}
	/*
	 * where the journal starts (with extents): the first free block from
	 * -J location=, else the conf's journal_location, in blocks (a size
	 * with a suffix in bytes), as mke2fs; packed_meta_blocks moves it to 0
	 */
	v = m->journal_location_arg ? m->journal_location_arg : get_str(&c, "journal_location", "");
	if (v && *v) {
		uint64_t loc;

		if (mk_parse_blocks(v, g->blocksize, &loc)) {
			if (m->journal_location_arg)
				mk_fail(m, "-J location=%s: not a block number (or a size with k, M, "
					"G, T)", v);
			else
				mk_fail(m, "%s: journal_location = %s: not a block number (or a "
					"size with k, M, G, T)", m->conf_path, v);
			goto out;
		}
		m->o.journal_location_given = true;
		m->o.journal_location = loc;
	}
	/* sparse_super2's backup count (-E num_backup_sb= wins, parsed after) */
	{
		int nb = get_int(&c, "num_backup_sb", 2);

		if (c.err)
			goto out;
		if (nb < 0 || nb > 2) {
			mk_fail(m, "%s: num_backup_sb = %d: 0, 1 or 2", m->conf_path, nb);
			goto out;
		}
		m->o.geo.num_backup_sb = (uint32_t)nb;
		m->o.geo.num_backup_given = nb != 2;
	}
	/* as mke2fs: the tables packed at the start (with flex_bg), the journal after them */
	m->o.packed_meta_blocks = get_bool(&c, "packed_meta_blocks", false);
	if (c.err)
		goto out;
	if (m->o.packed_meta_blocks) {
		m->o.journal_location_given = true;
		m->o.journal_location = 0;
	}
	/* make_hugefiles: read here, made by main.c once the layout is known */
	m->hugefiles = get_bool(&c, "make_hugefiles", false);
	if (c.err)
		goto out;
	if (m->hugefiles) {
		m->hf_uid = get_int(&c, "hugefiles_uid", 0);
		m->hf_gid = get_int(&c, "hugefiles_gid", 0);
		m->hf_umask = get_int(&c, "hugefiles_umask", 077);
		m->hf_num = get_int(&c, "num_hugefiles", 0);
		m->hf_digits = get_int(&c, "hugefiles_digits", 5);
		m->hf_zero = get_bool(&c, "zero_hugefiles", true);
		m->hf_align_disk = get_bool(&c, "hugefiles_align_disk", false);
		if (c.err)
			goto out;
		if (!(m->hf_dir = strdup(get_str(&c, "hugefiles_dir", "/"))) ||
		    !(m->hf_name = strdup(get_str(&c, "hugefiles_name", "hugefile"))) ||
		    !(m->hf_slack = strdup(get_str(&c, "hugefiles_slack", "1M"))) ||
		    !(m->hf_size = strdup(get_str(&c, "hugefiles_size", "0"))) ||
		    !(m->hf_align = strdup(get_str(&c, "hugefiles_align", "0")))) {
			mk_fail(m, "out of memory");
			goto out;
		}
		if (m->hf_uid < 0 || m->hf_gid < 0 || m->hf_num < 0 || m->hf_digits < 0 ||
		    m->hf_digits > 20 || m->hf_umask < 0 || m->hf_umask > 0777) {
			mk_fail(m, "%s: hugefiles_uid, _gid, num_hugefiles, hugefiles_digits (0-20) "
				"or hugefiles_umask out of range", m->conf_path);
			goto out;
		}
		if (m->src_dir) {
			mk_fail(m, "%s: make_hugefiles with -d: not supported", m->conf_path);
			goto out;
		}
	}
	/* mke2fs's own undo file over a filesystem (main.c: auto_undo) */
	m->force_undo = get_int(&c, "force_undo", 0) != 0;
	if (c.err)
		goto out;
	if ((v = ek_profile_get(c.p, "defaults", NULL, "undo_dir")) && !(m->undo_dir = strdup(v))) {
		mk_fail(m, "out of memory");
		goto out;
	}
	/* each type's "options", then the command line's -E */
	for (int i = 0; c.types[i]; i++) {
		v = ek_profile_get(c.p, "fs_types", c.types[i], "options");
		if (v && *v && mk_parse_extended(m, v))
			goto out;
	}
	if (m->extended_arg && mk_parse_extended(m, m->extended_arg))
		goto out;
	if (encoding(&c))
		goto out;
	/* -E quotatype=: those files; prjquota turns project on, project adds prjquota */
	if (m->quota_types & (1u << EK_QUOTA_PRJ))
		g->ro_compat |= EXT4_FEATURE_RO_COMPAT_PROJECT;
	if (m->quota_types && (g->ro_compat & EXT4_FEATURE_RO_COMPAT_PROJECT))
		m->quota_types |= 1u << EK_QUOTA_PRJ;
	m->o.quota_types = m->quota_types;
	rc = 0;
out:
	free(c.usage_copy);
	ek_profile_free(c.p);
	return rc;
}

void mk_conf_release(struct mk *m)
{
	free(m->type_name);
	free(m->conf_path);
	free(m->features_arg);
	free(m->extended_arg);
	free(m->journal_dev_path);
	m->journal_dev_path = NULL;
	free(m->journal_dev_arg);
	free(m->journal_location_arg);
	free(m->undo_dir);
	free(m->auto_undo_path);
	m->undo_dir = m->auto_undo_path = NULL;
	m->journal_dev_arg = m->journal_location_arg = NULL;
	free(m->hf_dir);
	free(m->hf_name);
	free(m->hf_slack);
	free(m->hf_size);
	free(m->hf_align);
	m->hf_dir = m->hf_name = m->hf_slack = m->hf_size = m->hf_align = NULL;
}
