// SPDX-License-Identifier: MIT
/*
 * main.c - extkit-mkfs: make an ext2/ext3/ext4 filesystem, empty or from a
 * directory, the way mke2fs 1.47 lays it out, and byte-reproducibly.
 *
 * The tool owns the policy: options (mke2fs's letters), the target (a file
 * created or extended, or a block device; never one in use, never an
 * existing filesystem without -F), UUIDs and SOURCE_DATE_EPOCH, output.
 * lib/newfs.c lays the filesystem out and writes it; lib/populate.c
 * copies the -d tree in.
 */
#include <blkid/blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>
#include "mkfs.h"


static void usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: %s [options] device|image [size]\n"
"  -t fs-type          ext2, ext3, ext4 or another [fs_types] type (default ext4)\n"
"  -T usage-type,...   mke2fs.conf usage types (default: by the size)\n"
"  -O [^]feature,...   add or remove features (none: all off)\n"
"  -b block-size       1024 to 65536 (default: mke2fs.conf, by the size)\n"
"  -I inode-size       bytes per inode (default: mke2fs.conf, 256)\n"
"  -i bytes-per-inode  inode ratio\n"
"  -N inodes           at least this many inodes\n"
"  -m percent          blocks reserved for root (default 5)\n"
"  -g blocks           blocks per group\n"
"  -G groups           groups per flex group (default 16)\n"
"  -L label            volume label\n"
"  -M dir              last mounted directory\n"
"  -U uuid|random|time|clear   filesystem UUID\n"
"  -E opt,...          (the last -E counts, as in mke2fs) hash_seed=UUID,\n"
"                      root_owner=UID:GID, root_perms=OCTAL,\n"
"                      lazy_itable_init=0|1, lazy_journal_init=0|1, nodiscard,\n"
"                      discard, offset=BYTES, stride=N, stripe_width=N,\n"
"                      desc_size=BYTES, resize=BLOCKS, test_fs,\n"
"                      assume_storage_prezeroed, orphan_file_size=N, no_copy_xattrs,\n"
"                      nanoseconds (-d: times keep their nanoseconds; default\n"
"                      whole_seconds, as mke2fs), htree_dirs (-d: a directory\n"
"                      past a block an htree; default linear, as mke2fs -d),\n"
"                      num_backup_sb=0|1|2, mmp_update_interval=SECS,\n"
"                      quotatype=usrquota:grpquota:prjquota, encoding=utf8,\n"
"                      encoding_flags=strict, packed_meta_blocks=0|1 (every\n"
"                      bitmap and inode table at the start, the journal next)\n"
"  -R opt,...          the old name of -E; -K: the old -E nodiscard;\n"
"  -s 0|1              the old switch for sparse_super (all three deprecated)\n"
"  -J size=MiB         journal size; -j adds a journal (ext3)\n"
"  -J fast_commit_size=KiB  the fast-commit area (with -O fast_commit)\n"
"  -J location=BLOCK   the journal from the first free block there (k, M, G, T:\n"
"                      bytes); -J v1_superblock: a version 1 journal superblock\n"
"  -J device=DEV       the journal on a journal device (-O journal_dev): a path,\n"
"                      UUID=uuid or LABEL=label\n"
"  -d dir              copy this directory tree into the filesystem\n"
"  --skip-unreadable   warn about unreadable source files instead of failing\n"
"  -o os               the creator OS: Linux, Hurd (GNU), Masix, FreeBSD, Lites\n"
"  -F                  overwrite an existing filesystem or partition table\n"
"  -n                  print the layout, write nothing\n"
"  -l file             the bad blocks listed in file (one number a line): the\n"
"                      filesystem is laid out around them, as mke2fs -l\n"
"  -c                  run badblocks(8) first (-cc: its write test), as mke2fs -c\n"
"  -r 0|1              the revision level (0: no features, as mke2fs -r 0)\n"
"  -S                  write the superblocks and group descriptors only (recovery:\n"
"                      same options as the filesystem was made with, then e2fsck)\n"
"  -D                  accepted (mke2fs's direct I/O; extkit syncs before the superblock)\n"
"  -z undo-file        save every block overwritten in undo-file (e2undo\n"
"                      undo-file device restores them); an existing one of the\n"
"                      same filesystem goes on, as with mke2fs\n"
"  -q                  quiet\n"
"  -v                  print the mke2fs.conf types used\n"
"  -e continue|remount-ro|panic   behaviour on errors\n"
"  -C cluster-size     bytes per cluster with -O bigalloc (default 16 blocks)\n"
"  -V                  print the version\n"
"  --json              the layout and result as JSON\n"
"size: with a k, M, G, T (or s: 512-byte sectors) suffix; without one, KiB (or blocks with -b).\n"
"MKE2FS_CONFIG: the mke2fs.conf to read (default /etc/mke2fs.conf, else built in;\n"
"its make_hugefiles makes huge files as mke2fs does).\n"
"E2FSPROGS_UNDO_DIR: where mke2fs's own undo file goes without -z (over a\n"
"filesystem, with force_undo, or checksums and lazy tables); none: no file.\n"
"SOURCE_DATE_EPOCH: clamps every time written and derives the UUID and hash seed.\n",
		prog);
}

int mk_fail(struct mk *m, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", m->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

void mk_warn(struct mk *m, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", m->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* a library error while writing the target: named once, by lib or here */
static int fail_write(struct mk *m, int err)
{
	const char *msg = ek_error_msg(err);

	if (strstr(msg, m->target))
		return mk_fail(m, "%s", msg);
	return mk_fail(m, "cannot write '%s': %s", m->target, msg);
}

/* a size: digits and an optional k/M/G/T suffix; @unit for a bare number */
static int parse_size(const char *s, uint64_t unit, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = unit;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	case 't': case 'T': mul = 1ull << 40; end++; break;
	case 's': mul = 512; end++; break;
	default: return -1;
	}
	if (*end || (v && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

/*
 * A block count as mke2fs reads one (parse_num_blocks2): bare, blocks of
 * @bs; with K, M, G or T, that many bytes in blocks; with s, 512-byte
 * sectors in blocks.
 */
int mk_parse_blocks(const char *s, uint32_t bs, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case '\0': *out = v; return 0;
	case 't': case 'T': shift += 10; /* fall through */
	case 'g': case 'G': shift += 10; /* fall through */
	case 'm': case 'M': shift += 10; /* fall through */
	case 'k': case 'K':
		if (end[1] || (v && (v << shift) >> shift != v))
			return -1;
		*out = (v << shift) / (bs / 1024);
		return 0;
	case 's':
		if (end[1])
			return -1;
		*out = v * 512 / bs;
		return 0;
	}
	return -1;
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* ---- UUIDs -------------------------------------------------------------------- */

/* 128 bits from two FNV-1a streams over @s: stable, not secret */
static void uuid_from_text(const char *s, uint8_t out[16])
{
	uint64_t h[2] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };

	for (int k = 0; k < 2; k++)
		for (const char *p = s; *p; p++) {
			h[k] ^= (uint8_t)*p;
			h[k] *= 0x100000001b3ull;
			h[k] ^= h[k] >> (29 + k);
		}
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(h[0] >> (8 * i));
		out[8 + i] = (uint8_t)(h[1] >> (8 * i));
	}
	out[6] = (out[6] & 0x0F) | 0x80;	/* version 8: custom (RFC 9562) */
	out[8] = (out[8] & 0x3F) | 0x80;	/* the RFC variant */
}

static int random_uuid(uint8_t out[16])
{
	if (getrandom(out, 16, 0) != 16)
		return -1;
	out[6] = (out[6] & 0x0F) | 0x40;
	out[8] = (out[8] & 0x3F) | 0x80;
	return 0;
}

/*
 * -U / hash_seed=: a UUID, "clear", "random", "time"; unset: random, or with
 * SOURCE_DATE_EPOCH derived from @inputs and @what.
 */
static int pick_uuid(struct mk *m, const char *arg, const char *what, const char *inputs,
		     uint8_t out[16])
{
	if (!arg) {
		if (m->have_sde) {
			char *s;

			if (asprintf(&s, "extkit-mkfs %s\n%s", what, inputs) < 0)
				return mk_fail(m, "out of memory");
			uuid_from_text(s, out);
			free(s);
			return 0;
		}
		arg = "random";
	}
	if (!strcmp(arg, "clear"))
		memset(out, 0, 16);
	else if (!strcmp(arg, "random")) {
		if (random_uuid(out))
			return mk_fail(m, "no random bytes for the %s: %s", what, strerror(errno));
	} else if (!strcmp(arg, "time"))
		uuid_generate_time(out);
	else if (uuid_parse(arg, out))
		return mk_fail(m, "'%s' is not a UUID (nor clear, random, time)", arg);
	return 0;
}

/* ---- -E ----------------------------------------------------------------------- */

/* -E quotatype=usrquota:grpquota:prjquota (usr, grp, prj too), as mke2fs */
static int parse_quotatype(struct mk *m, const char *val)
{
	static const char *const names[EK_QUOTA_TYPES][2] = {
		{ "usr", "usrquota" }, { "grp", "grpquota" }, { "prj", "prjquota" },
	};
	uint8_t types = 0;

	for (const char *p = val; *p;) {
		size_t n = strcspn(p, ":");
		unsigned t;

		for (t = 0; t < EK_QUOTA_TYPES; t++)
			if ((strlen(names[t][0]) == n && !strncmp(p, names[t][0], n)) ||
			    (strlen(names[t][1]) == n && !strncmp(p, names[t][1], n)))
				break;
		if (t == EK_QUOTA_TYPES)
			return mk_fail(m, "quotatype=%s: '%.*s' is not usrquota, grpquota or prjquota",
				       val, (int)n, p);
		types |= 1u << t;
		p += n + (p[n] == ':');
	}
	m->quota_types = types;
	return 0;
}

int mk_parse_extended(struct mk *m, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	bool resize_seen = false;
	int rc = 0;

	if (!copy)
		return mk_fail(m, "out of memory");
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		char *val = strchr(t, '=');

		if (val)
			*val++ = '\0';
		if (!strcmp(t, "hash_seed") && val) {
			snprintf(m->hash_seed_buf, sizeof(m->hash_seed_buf), "%s", val);
			m->hash_seed_arg = m->hash_seed_buf;
		} else if (!strcmp(t, "root_owner")) {
			char *colon = val ? strchr(val, ':') : NULL;

			if (!val) {
				m->o.root_uid = getuid();
				m->o.root_gid = getgid();
			} else if (!colon) {
				rc = mk_fail(m, "root_owner=%s: expected UID:GID", val);
			} else {
				*colon = '\0';
				if (parse_u32(val, &m->o.root_uid) || parse_u32(colon + 1, &m->o.root_gid))
					rc = mk_fail(m, "root_owner: '%s:%s' is not UID:GID", val, colon + 1);
			}
		} else if (!strcmp(t, "lazy_itable_init")) {
			m->o.lazy_itable_init = !val || strcmp(val, "0");
			m->lazy_given = true;
		} else if (!strcmp(t, "lazy_journal_init")) {
			m->o.lazy_journal_init = !val || strcmp(val, "0");
		} else if (!strcmp(t, "nodiscard")) {
			m->discard = false;
		} else if (!strcmp(t, "discard")) {
			m->discard = true;
		} else if (!strcmp(t, "encoding") && val) {
			if (ek_encoding_lookup(val, &m->encoding))
				rc = mk_fail(m, "encoding=%s: unknown (utf8 or utf8-12.1)", val);
			m->encoding_given = true;
		} else if (!strcmp(t, "encoding_flags") && val) {
			snprintf(m->encoding_flags_buf, sizeof(m->encoding_flags_buf), "%s", val);
		} else if (!strcmp(t, "quotatype") && val) {
			rc = parse_quotatype(m, val);
		} else if (!strcmp(t, "mmp_update_interval") && val) {
			uint32_t v;

			if (parse_u32(val, &v) || v > EK_MMP_MAX_UPDATE_INTERVAL)
				rc = mk_fail(m, "mmp_update_interval=%s: seconds, at most %u", val,
					     EK_MMP_MAX_UPDATE_INTERVAL);
			else
				m->o.mmp_update_interval = (uint16_t)v;
		} else if (!strcmp(t, "num_backup_sb") && val) {
			if (parse_u32(val, &m->o.geo.num_backup_sb) || m->o.geo.num_backup_sb > 2)
				rc = mk_fail(m, "num_backup_sb=%s: 0, 1 or 2", val);
			m->o.geo.num_backup_given = true;
		} else if (!strcmp(t, "offset") && val) {
			if (parse_size(val, 1, &m->offset))
				rc = mk_fail(m, "offset=%s: not a size", val);
		} else if ((!strcmp(t, "stride")) && val) {
			uint32_t v;

			if (parse_u32(val, &v))
				rc = mk_fail(m, "stride=%s: not a number of blocks", val);
			m->o.raid_stride = (uint16_t)v;	/* s_raid_stride is 16 bits, as mke2fs */
		} else if ((!strcmp(t, "stripe_width") || !strcmp(t, "stripe-width")) && val) {
			if (parse_u32(val, &m->o.raid_stripe_width))
				rc = mk_fail(m, "%s=%s: not a number of blocks", t, val);
		} else if ((!strcmp(t, "desc_size") || !strcmp(t, "desc-size")) && val) {
			if (resize_seen)	/* mke2fs counts resize= with the size it has then */
				rc = mk_fail(m, "-E %s must come before resize=", t);
			else if (parse_u32(val, &m->o.geo.desc_size) ||
			    (m->o.geo.desc_size & (m->o.geo.desc_size - 1)))
				rc = mk_fail(m, "%s=%s: not a power of two", t, val);
		} else if (!strcmp(t, "resize") && val) {
			resize_seen = true;
			/* blocks (or a size with a suffix): known once the block size is */
			if (m->o.geo.blocksize &&
			    (mk_parse_blocks(val, m->o.geo.blocksize, &m->o.geo.resize_blocks) ||
			     !m->o.geo.resize_blocks))
				rc = mk_fail(m, "resize=%s: not a number of blocks", val);
		} else if (!strcmp(t, "orphan_file_size") && val) {
			uint64_t v = 0;

			if (m->o.geo.blocksize) {
				if (mk_parse_blocks(val, m->o.geo.blocksize, &v) || v > UINT32_MAX)
					rc = mk_fail(m, "orphan_file_size=%s: not a size", val);
				m->o.orphan_file_blocks = (uint32_t)v;
			}
		} else if (!strcmp(t, "root_perms") && val) {
			char *end;
			unsigned long v = strtoul(val, &end, 8);

			if (end == val || *end || v > 07777)
				rc = mk_fail(m, "root_perms=%s: octal permission bits (at most 07777)", val);
			m->o.root_perms_given = true;
			m->o.root_perms = (uint16_t)v;
		} else if (!strcmp(t, "test_fs")) {
			m->o.test_fs = true;
		} else if (!strcmp(t, "assume_storage_prezeroed")) {
			m->prezeroed = !val || strcmp(val, "0");
		} else if (!strcmp(t, "no_copy_xattrs")) {
			m->no_copy_xattrs = true;
		} else if (!strcmp(t, "whole_seconds")) {
			m->nanoseconds = false;
		} else if (!strcmp(t, "nanoseconds")) {
			m->nanoseconds = true;
		} else if (!strcmp(t, "htree_dirs")) {
			m->htree_dirs = true;
		} else if (!strcmp(t, "packed_meta_blocks")) {
			char *end = NULL;
			unsigned long v = val ? strtoul(val, &end, 0) : 1;

			if (val && (end == val || *end))
				rc = mk_fail(m, "packed_meta_blocks=%s: 0 or 1", val);
			/* as mke2fs: on, it also puts the journal at the first free block */
			m->o.packed_meta_blocks = v != 0;
			if (v) {
				m->o.journal_location_given = true;
				m->o.journal_location = 0;
			}
		} else {
			rc = mk_fail(m, "unknown or incomplete extended option '%s'", t);
		}
	}
	free(copy);
	return rc;
}

/* ---- -J ----------------------------------------------------------------------- */

/*
 * -J opt,...: size=MiB, fast_commit_size=KiB, location=BLOCK, device=,
 * v1_superblock, as mke2fs reads them (several -J add up).  As in mke2fs,
 * only size= (and device=) ask for a journal: location= and the others
 * alone leave the type's features as they are.
 */
static int parse_journal_opts(struct mk *m, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	if (!copy)
		return mk_fail(m, "out of memory");
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		char *val = strchr(t, '=');

		if (val)
			*val++ = '\0';
		if (!strcmp(t, "device") && val && *val) {
			free(m->journal_dev_arg);
			if (!(m->journal_dev_arg = strdup(val)))
				rc = mk_fail(m, "out of memory");
			m->journal_flag = true;
		} else if (!strcmp(t, "size") && val) {
			if (parse_size(val, 1ull << 20, &m->journal_bytes) || !m->journal_bytes)
				rc = mk_fail(m, "-J size=%s: not a size in MiB", val);
			m->journal_flag = true;
		} else if (!strcmp(t, "fast_commit_size") && val) {
			if (parse_size(val, 1024, &m->o.geo.fc_bytes) || !m->o.geo.fc_bytes)
				rc = mk_fail(m, "-J fast_commit_size=%s: not a size in KiB", val);
		} else if (!strcmp(t, "location") && val && *val) {
			free(m->journal_location_arg);
			if (!(m->journal_location_arg = strdup(val)))
				rc = mk_fail(m, "out of memory");
		} else if (!strcmp(t, "v1_superblock") && !val) {
			m->o.journal_v1 = true;
		} else {
			rc = mk_fail(m, "-J %s%s%s: unknown or incomplete journal option (size=MiB, "
				     "fast_commit_size=KiB, location=BLOCK, device=DEV, v1_superblock)",
				     t, val ? "=" : "", val ? val : "");
		}
	}
	free(copy);
	return rc;
}

/* ---- the target ------------------------------------------------------------------ */

/* an existing filesystem or partition table at @offset: its name, or NULL */
static char *probe_existing(const char *path, uint64_t offset, uint64_t size)
{
	blkid_probe pr;
	const char *v = NULL;
	char *found = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	pr = blkid_new_probe();
	if (pr && !blkid_probe_set_device(pr, fd, (blkid_loff_t)offset, (blkid_loff_t)size)) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_enable_partitions(pr, 1);
		int rc = blkid_do_safeprobe(pr);

		if (rc == 0) {
			if (!blkid_probe_lookup_value(pr, "TYPE", &v, NULL) ||
			    !blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL))
				found = strdup(v);
		} else if (rc == -2) {	/* several signatures: something is there */
			found = strdup("");	/* the caller names this case */
		}
	}
	if (pr)
		blkid_free_probe(pr);
	close(fd);
	return found;
}

/* an unsigned number from the environment (MKE2FS_DEVICE_SECTSIZE and friends) */
static bool env_u32(const char *name, uint32_t *out)
{
	const char *v = getenv(name);

	if (!v)
		return false;
	*out = (uint32_t)strtoul(v, NULL, 10);	/* as mke2fs's atoi(): junk is 0 */
	return true;
}

/*
 * The device's logical and physical sector sizes (a regular file has
 * none), and libblkid's topology of a block device: minimum and optimal
 * I/O sizes, alignment offset.  MKE2FS_DEVICE_SECTSIZE and
 * MKE2FS_DEVICE_PHYS_SECTSIZE stand in for the sector sizes, as in mke2fs.
 */
static void probe_device(struct mk *m, const struct stat *st)
{
	if (S_ISBLK(st->st_mode)) {
		int fd = open(m->target, O_RDONLY | O_CLOEXEC), v;
		unsigned int pv;
		blkid_probe pr;
		blkid_topology tp;

		if (fd >= 0) {
			if (!ioctl(fd, BLKSSZGET, &v) && v > 0)
				m->lsector = (uint32_t)v;
			if (!ioctl(fd, BLKPBSZGET, &pv))
				m->psector = pv;
			close(fd);
		}
		pr = blkid_new_probe_from_filename(m->target);
		if (pr && (tp = blkid_probe_get_topology(pr))) {
			m->have_topology = true;
			m->min_io = blkid_topology_get_minimum_io_size(tp);
			m->opt_io = blkid_topology_get_optimal_io_size(tp);
			m->align_offset = blkid_topology_get_alignment_offset(tp);
		}
		if (pr)
			blkid_free_probe(pr);
	}
	env_u32("MKE2FS_DEVICE_SECTSIZE", &m->lsector);
	env_u32("MKE2FS_DEVICE_PHYS_SECTSIZE", &m->psector);
	if (!m->psector)
		m->psector = m->lsector;	/* kernels without the distinction */
}

/*
 * Look at the target, writing nothing: its size (*size, bytes for the
 * filesystem), and a refusal of what is mounted or holds a filesystem or
 * a partition table (without -F).
 */
static int check_target(struct mk *m, uint64_t want, uint64_t *size)
{
	struct stat st = { 0 };
	char *existing;
	int fd;

	if (stat(m->target, &st)) {
		if (errno != ENOENT)
			return mk_fail(m, "cannot stat '%s': %s", m->target, strerror(errno));
		if (!want)
			return mk_fail(m, "'%s' does not exist: give a size to create it", m->target);
		m->missing = true;
		*size = want;
		probe_device(m, &st);	/* a new file: the environment's sizes only */
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return mk_fail(m, "'%s' is neither a regular file nor a block device", m->target);
	probe_device(m, &st);
	if (!m->dry_run && ek_target_mounted(m->target))
		return mk_fail(m, "'%s' is mounted: refusing to make a filesystem on it", m->target);
	if (S_ISREG(st.st_mode)) {
		uint64_t have = (uint64_t)st.st_size > m->offset ? (uint64_t)st.st_size - m->offset : 0;

		*size = want ? want : have & ~4095ull;	/* a device size: whole pages */
	} else {
		uint64_t dev;

		fd = open(m->target, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &dev)) {
			if (fd >= 0)
				close(fd);
			return mk_fail(m, "cannot size '%s': %s", m->target, strerror(errno));
		}
		close(fd);
		if (dev <= m->offset)
			return mk_fail(m, "-E offset=%" PRIu64 " is past the end of '%s'", m->offset,
				    m->target);
		dev -= m->offset;
		if (want > dev)
			return mk_fail(m, "'%s' holds %" PRIu64 " bytes, fewer than the %" PRIu64 " asked "
				    "for: give a smaller size, or none for the whole device", m->target,
				    dev, want);
		*size = want ? want : dev & ~4095ull;
	}
	existing = probe_existing(m->target, m->offset, S_ISREG(st.st_mode) ? 0 : *size);
	if (existing && !m->force && !m->dry_run) {	/* -n writes nothing */
		mk_fail(m, "'%s' holds %s%s: use -F to overwrite it", m->target,
		     !*existing ? "signatures of more than one kind (blkid: ambivalent)" :
		     strcmp(existing, "dos") && strcmp(existing, "gpt") ? "a filesystem of type " :
		     "a partition table of type ", existing);
		free(existing);
		return 1;
	}
	free(existing);
	m->is_file = S_ISREG(st.st_mode);
	m->file_size = (uint64_t)st.st_size;
	return 0;
}

/*
 * Only once the layout is known to work: create the file or extend it,
 * and punch an image file out so it reads as zeros and stays sparse.
 */
static int ready_target(struct mk *m, uint64_t size)
{
	int fd;

	if (m->missing) {
		fd = open(m->target, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return mk_fail(m, "cannot create '%s': %s", m->target, strerror(errno));
		m->created = true;
		if (ftruncate(fd, (off_t)(m->offset + size))) {
			close(fd);
			return mk_fail(m, "cannot size '%s' to %" PRIu64 " bytes: %s", m->target,
				    m->offset + size, strerror(errno));
		}
		close(fd);
		m->o.zeroed = true;
		return 0;
	}
	if (!m->is_file)
		return 0;
	fd = open(m->target, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return mk_fail(m, "cannot open '%s': %s", m->target, strerror(errno));
	if (m->file_size < m->offset + size && ftruncate(fd, (off_t)(m->offset + size))) {
		close(fd);
		return mk_fail(m, "cannot extend '%s': %s", m->target, strerror(errno));
	}
	/* an undo file cannot bring back what a discard punched out (nor can mke2fs's) */
	if (m->discard && !m->undo_path && !fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				     (off_t)m->offset, (off_t)size)) {
		m->o.zeroed = true;
		/*
		 * mke2fs discards only a device (file) of at least one block (of
		 * -b, else 1 KiB): an empty file is extended, not discarded, and
		 * its tables are not flagged zeroed
		 */
		m->o.discard_zeroed = m->file_size >= (m->cli_blocksize ? m->cli_blocksize : 1024);
	}
	close(fd);
	return 0;
}

/* ---- -J device= ------------------------------------------------------------------------ */

/*
 * The block device whose superblock carries TAG=VALUE (UUID or LABEL),
 * probed afresh.  libblkid's own lookup trusts its cache file and lists
 * devices from /proc/partitions, which leaves out loop devices in many
 * containers, and a cache younger than its rescan interval hides a loop
 * device reused since; so every device in /sys/class/block is probed.
 */
static char *block_device_with_tag(const char *tag, const char *value)
{
	DIR *dir = opendir("/sys/class/block");
	struct dirent *d;
	char *found = NULL;

	while (dir && !found && (d = readdir(dir))) {
		char path[PATH_MAX];
		blkid_probe pr;
		const char *v;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/dev/%s", d->d_name);
		if (!(pr = blkid_new_probe_from_filename(path)))
			continue;	/* no node here, no medium, or not ours to read */
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL);
		if (blkid_do_safeprobe(pr) == 0 && !blkid_probe_lookup_value(pr, tag, &v, NULL) &&
		    !strcmp(v, value))
			found = strdup(path);
		blkid_free_probe(pr);
	}
	if (dir)
		closedir(dir);
	return found;
}

/* a path as given; UUID= and LABEL= by a fresh probe, then libblkid's cache */
static char *journal_dev_find(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char tag[8];

	if (!eq || eq - arg >= (ptrdiff_t)sizeof(tag))
		return strdup(arg);
	memcpy(tag, arg, (size_t)(eq - arg));
	tag[eq - arg] = 0;
	if (strcmp(tag, "UUID") && strcmp(tag, "LABEL"))
		return strdup(arg);
	char *path = block_device_with_tag(tag, eq + 1);
	return path ? path : blkid_evaluate_tag(arg, NULL, NULL);
}

/*
 * The journal device -J device= names (a path, UUID= or LABEL=, found by
 * libblkid): a block device made by -O journal_dev, whose block size the
 * filesystem takes when -b does not give one, as mke2fs does
 */
static int journal_dev_open(struct mk *m)
{
	struct ek_io *io = NULL;
	struct stat st;
	uint32_t bs = 0;
	int err;

	m->journal_dev_path = journal_dev_find(m->journal_dev_arg);
	if (!m->journal_dev_path)
		return mk_fail(m, "-J device=%s: no such journal device", m->journal_dev_arg);
	if (stat(m->journal_dev_path, &st))
		return mk_fail(m, "-J device=%s: '%s': %s", m->journal_dev_arg, m->journal_dev_path,
			       strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return mk_fail(m, "-J device=%s: '%s' is not a block device (a journal device is "
			       "named by its device number)", m->journal_dev_arg, m->journal_dev_path);
	if ((err = ek_io_open(m->journal_dev_path, 0, 0, &io)) ||
	    (err = ek_journal_dev_attach(io, NULL, 0, &bs, m->o.journal_uuid))) {
		ek_io_close(io);
		return mk_fail(m, "-J device=%s: '%s': %s", m->journal_dev_arg, m->journal_dev_path,
			       ek_error_msg(err));
	}
	ek_io_close(io);
	if (m->o.geo.blocksize && m->o.geo.blocksize != bs)
		return mk_fail(m, "-J device=%s: the journal device has %u-byte blocks, -b asks for %u",
			       m->journal_dev_arg, bs, m->o.geo.blocksize);
	m->o.geo.blocksize = m->cli_blocksize = bs;
	m->o.geo.journal_external = true;
	m->o.journal_dev = (uint32_t)st.st_rdev;
	if (!m->quiet)
		fprintf(stderr, "%s: the journal device's block size: %u\n", m->prog, bs);
	return 0;
}

/* the new filesystem among the journal device's users */
static int journal_dev_attach(struct mk *m)
{
	struct ek_io *io = NULL;
	uint8_t uuid[16];
	uint32_t bs;
	int err;

	if (!(err = ek_io_open(m->journal_dev_path, EK_IO_RW, 0, &io)))
		err = ek_journal_dev_attach(io, m->o.uuid, m->o.now, &bs, uuid);
	ek_io_close(io);
	if (!err && memcmp(uuid, m->o.journal_uuid, 16))
		err = ek_err(-EBUSY, "it changed since it was read");
	if (err)
		return mk_fail(m, "-J device=%s: '%s': %s", m->journal_dev_arg, m->journal_dev_path,
			       ek_error_msg(err));
	return 0;
}

/* ---- -O journal_dev ------------------------------------------------------------------- */

/* an external journal device for other filesystems' -J device= */
static int journal_device(struct mk *m, uint64_t size)
{
	struct ek_io *io = NULL;
	struct ek_undo *undo = NULL;
	uint64_t blocks;
	char uuid[37];
	int err, rc = 1;

	m->o.geo.size = size;
	if (m->src_dir)
		return mk_fail(m, "-d: a journal device holds no files");
	if ((err = ek_newfs_journal_dev(NULL, &m->o, &blocks)))
		return mk_fail(m, "%s", ek_error_msg(err));
	uuid_unparse(m->o.uuid, uuid);
	if (!m->quiet && !m->json)
		printf("Creating a journal device of %" PRIu64 " %uk blocks\nUUID: %s\n", blocks,
		       m->o.geo.blocksize / 1024, uuid);
	if (m->json)
		printf("{\"journal_device\":true,\"uuid\":\"%s\",\"blocks\":%" PRIu64
		       ",\"block_size\":%u,\"written\":%s}\n", uuid, blocks, m->o.geo.blocksize,
		       m->dry_run ? "false" : "true");
	if (m->dry_run)
		return 0;
	if ((rc = ready_target(m, blocks * m->o.geo.blocksize)))
		return rc;
	rc = 1;
	if ((err = ek_io_open(m->target, EK_IO_RW, m->offset, &io))) {
		mk_fail(m, "%s", ek_error_msg(err));
		goto out;
	}
	if (m->undo_path && ((err = ek_undo_resume(m->undo_path, io, m->o.geo.blocksize, &undo)) ||
			     (err = ek_io_set_undo(io, undo)))) {
		mk_fail(m, "-z '%s': %s", m->undo_path, ek_error_msg(err));
		goto out;
	}
	if ((err = ek_newfs_journal_dev(io, &m->o, &blocks)))
		fail_write(m, err);
	else
		rc = 0;
out:
	if (undo) {
		ek_io_set_undo(io, NULL);
		if ((err = ek_undo_close(undo)) && !rc)
			rc = mk_fail(m, "-z '%s': %s", m->undo_path, ek_error_msg(err));
	}
	ek_io_close(io);
	return rc;
}

/* ---- bad blocks (-l, -c) ------------------------------------------------------------- */

struct badlist {
	uint64_t *v;
	size_t n, cap;
};


/* sorted, each block once */
static void badlist_settle(struct badlist *l)
{
	size_t k = 0;

	if (l->n < 2)
		return;	/* nothing to order (and no array yet when empty) */
	qsort(l->v, l->n, sizeof(*l->v), ek_cmp_u64);
	for (size_t i = 0; i < l->n; i++)
		if (!k || l->v[i] != l->v[k - 1])
			l->v[k++] = l->v[i];
	l->n = k;
}

/*
 * The bad blocks listed in @f, as mke2fs reads a list (ext2fs_read_bb_FILE):
 * a number at the start of a line (after blanks), other lines skipped;
 * a block outside the filesystem [@first, @blocks) ignored with a warning;
 * one past 2^32 fails.  Added to @l, sorted, each once.
 */
static int read_badblocks(struct mk *m, FILE *f, const char *what, uint64_t first,
			  uint64_t blocks, struct badlist *l)
{
	char line[128];

	while (fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " \t");
		char *end;
		unsigned long long v;

		if (*p < '0' || *p > '9')
			continue;	/* as sscanf("%llu") failing: not a block */
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || v > UINT32_MAX)
			return mk_fail(m, "%s: bad block %.*s: past 2^32 (the bad blocks inode maps "
				       "32-bit blocks)", what, (int)strcspn(p, " \t\r\n"), p);
		if (v < first || v >= blocks) {
			mk_warn(m, "%s: bad block %llu is outside the filesystem (%" PRIu64 " to %"
				PRIu64 "); ignored", what, v, first, blocks - 1);
			continue;
		}
		if (l->n == l->cap) {
			uint64_t *nv;

			badlist_settle(l);	/* duplicates do not grow it */
			if (l->n >= l->cap / 2) {	/* still half full: grow */
				size_t cap = l->cap ? l->cap * 2 : 64;

				if (!(nv = realloc(l->v, cap * sizeof(*nv))))
					return mk_fail(m, "out of memory");
				l->v = nv;
				l->cap = cap;
			}
		}
		l->v[l->n++] = v;
	}
	if (ferror(f))
		return mk_fail(m, "%s: %s", what, strerror(errno));
	badlist_settle(l);
	return 0;
}

/*
 * -l FILE and -c: the bad blocks of the target, as mke2fs gets them (-c runs
 * badblocks(8) with mke2fs's options, once the target exists at its size);
 * into m->o.bad_blocks for ek_newfs_create(), which lays the filesystem
 * out around them.
 */
static int bad_blocks(struct mk *m, struct badlist *l)
{
	struct ek_geometry g;
	FILE *f;
	int rc;

	if (ek_geometry_compute(&m->o.geo, &g))
		return 0;	/* ek_newfs_create() names the problem */
	if (m->badblocks_file) {
		if (!(f = fopen(m->badblocks_file, "r")))
			return mk_fail(m, "-l '%s': %s", m->badblocks_file, strerror(errno));
		rc = read_badblocks(m, f, m->badblocks_file, g.first_data_block, g.blocks, l);
		fclose(f);
		if (rc)
			return rc;
	}
	if (m->check_blocks && !m->dry_run) {	/* -n writes nothing and tests nothing */
		char *cmd;
		int st;

		if (system("command -v badblocks >/dev/null 2>&1"))
			return mk_fail(m, "-c: badblocks (e2fsprogs) is not installed: install it, "
				       "or leave -c out");
		if (m->offset)
			return mk_fail(m, "-c: badblocks cannot test from -E offset=");
		if (strchr(m->target, '\''))
			return mk_fail(m, "-c: '%s': a name with a quote", m->target);
		if (asprintf(&cmd, "badblocks -b %u -X %s%s'%s' %" PRIu64, g.blocksize,
			     m->quiet ? "" : "-s ", m->check_blocks > 1 ? "-w " : "", m->target,
			     g.blocks - 1) < 0)
			return mk_fail(m, "out of memory");
		if (m->verbose)
			fprintf(stderr, "%s: running %s\n", m->prog, cmd);
		f = popen(cmd, "r");
		free(cmd);
		if (!f)
			return mk_fail(m, "-c: cannot run badblocks: %s", strerror(errno));
		rc = read_badblocks(m, f, "badblocks", g.first_data_block, g.blocks, l);
		st = pclose(f);
		if (rc)
			return rc;
		if (st)
			return mk_fail(m, "-c: badblocks failed (status %d)", st);
	}
	if (!l->n)
		return 0;
	if (m->o.super_only)
		return mk_fail(m, "-S with bad blocks (-l, -c): not supported");
	if (!m->quiet)
		fprintf(stderr, "%s: %zu bad block%s: laid out around them, in the bad blocks "
			"inode\n", m->prog, l->n, l->n == 1 ? "" : "s");
	m->o.bad_blocks = l->v;
	m->o.nbad = l->n;
	return 0;
}

/* a backup superblock or descriptor copy on a bad block: said, as mke2fs says it */
static void bad_backups_warn(struct mk *m, struct ek_newfs *nf)
{
	struct ek_fs *fs = ek_newfs_fs(nf);
	uint32_t last_g = UINT32_MAX;

	for (size_t i = 0; i < m->o.nbad; i++) {
		uint32_t grp = ek_group_of_block(fs, m->o.bad_blocks[i]);

		if (grp && grp != last_g && m->o.bad_blocks[i] - ek_group_first_block(fs, grp) <
		    ek_group_sb_gdt_blocks(fs, grp)) {
			mk_warn(m, "bad block %" PRIu64 " holds group %u's backup superblock or "
				"descriptors: that copy will not read back", m->o.bad_blocks[i], grp);
			last_g = grp;
		}
	}
}

/* ---- make_hugefiles ------------------------------------------------------------------ */

/* the start of the partition @m->target is (sysfs), in 512-byte sectors; 0 when none */
static uint64_t partition_start(struct mk *m)
{
	struct stat st;
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	if (stat(m->target, &st) || !S_ISBLK(st.st_mode))
		return 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/start", major(st.st_rdev),
		 minor(st.st_rdev));
	if (!(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* mke2fs.conf's make_hugefiles, as mke2fs makes them (after the layout, before -d) */
static int make_hugefiles(struct mk *m, struct ek_newfs *nf, struct ek_out *out)
{
	uint32_t bs = ek_newfs_geometry(nf)->blocksize;
	struct ek_hugefiles h = {
		.dir = m->hf_dir, .name = m->hf_name, .digits = m->hf_digits,
		.num = (uint64_t)m->hf_num, .uid = (uint32_t)m->hf_uid, .gid = (uint32_t)m->hf_gid,
		.umask = (uint16_t)m->hf_umask, .zero = m->hf_zero,
	};
	uint64_t files, blocks;
	int err;

	if (mk_parse_blocks(m->hf_slack, bs, &h.slack) || mk_parse_blocks(m->hf_size, bs, &h.size) ||
	    mk_parse_blocks(m->hf_align, bs, &h.align))
		return mk_fail(m, "%s: hugefiles_slack, hugefiles_size or hugefiles_align: not a size",
			       m->conf_path);
	if (m->hf_align_disk) {
		h.part_offset = partition_start(m) / (bs / 512);
		if (h.part_offset % ek_cluster_ratio(ek_newfs_fs(nf)))
			return mk_fail(m, "the partition's offset (%" PRIu64 " blocks) is not a whole "
				       "number of clusters", h.part_offset);
	}
	if ((err = ek_newfs_hugefiles(nf, &h, &files, &blocks)))
		return mk_fail(m, "while creating huge files: %s", ek_error_msg(err));
	if (!m->quiet) {
		ek_out_text(out, "Created %" PRIu64 " huge file(s)", files);
		if (blocks)
			ek_out_text(out, " with %" PRIu64 " blocks each", blocks);
		ek_out_text(out, "\n");
	}
	ek_out_obj_begin(out, "hugefiles");
	ek_out_u64(out, "files", files);
	ek_out_u64(out, "blocks_each", blocks);
	ek_out_obj_end(out);
	return 0;
}

/* ---- output -------------------------------------------------------------------------- */

static void print_layout(struct mk *m, struct ek_newfs *nf, struct ek_out *o)
{
	const struct ek_geometry *g = ek_newfs_geometry(nf);
	struct ek_fs *fs = ek_newfs_fs(nf);
	char uuid[37];
	uint64_t jstart = ek_newfs_journal_start(nf);

	uuid_unparse(m->o.uuid, uuid);
	ek_out_text(o, "Creating an %s filesystem with %" PRIu64 " %uk blocks and %" PRIu64
		    " inodes (%s size)\n", m->type_name, g->blocks, g->blocksize / 1024,
		    g->inodes, g->size_type);
	ek_out_text(o, "Filesystem UUID: %s\n", uuid);
	ek_out_text(o, "%u block groups of %u blocks, %u inodes each\n", g->groups,
		    g->blocks_per_group, g->inodes_per_group);
	ek_out_str(o, "uuid", uuid);
	ek_out_u64(o, "blocks", g->blocks);
	ek_out_u64(o, "block_size", g->blocksize);
	ek_out_u64(o, "inodes", g->inodes);
	ek_out_u64(o, "inode_size", g->inode_size);
	ek_out_u64(o, "group_count", g->groups);
	ek_out_u64(o, "blocks_per_group", g->blocks_per_group);
	ek_out_u64(o, "inodes_per_group", g->inodes_per_group);
	ek_out_u64(o, "inode_table_blocks", g->inode_table_blocks);
	ek_out_u64(o, "reserved_gdt_blocks", g->reserved_gdt);
	ek_out_u64(o, "reserved_blocks", g->reserved_blocks);
	ek_out_str(o, "size_type", g->size_type);
	if (jstart) {
		ek_out_text(o, "Journal: %" PRIu64 " blocks from block %" PRIu64 "\n",
			    g->journal_blocks, jstart);
		ek_out_obj_begin(o, "journal");
		ek_out_u64(o, "blocks", g->journal_blocks);
		ek_out_u64(o, "start", jstart);
		ek_out_obj_end(o);
	}
	ek_out_text(o, "Superblock backups:");
	for (uint32_t i = 1; i < g->groups; i++)
		if (ek_geometry_has_super(g, i))
			ek_out_text(o, " %" PRIu64, ek_group_first_block(fs, i));
	ek_out_text(o, "\n");
	ek_out_arr_begin(o, "groups");
	for (uint32_t i = 0; i < g->groups; i++) {
		const struct ek_group *grp = &fs->groups[i];
		ek_blk_t first = ek_group_first_block(fs, i);

		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "group", i);
		ek_out_u64(o, "first_block", first);
		ek_out_u64(o, "last_block", ek_group_last_block(fs, i));
		if (ek_geometry_has_super(g, i) || ek_group_sb_gdt_blocks(fs, i)) {
			/* group 0 of 1 KiB bigalloc starts at block 0, its superblock is block 1 */
			ek_blk_t sb = i == 0 && g->blocksize == 1024 ? 1 : first;
			bool has_sb = ek_geometry_has_super(g, i);
			/* meta_bg: a group's copy of its own descriptor block, superblock or not */
			bool meta = g->incompat & EXT4_FEATURE_INCOMPAT_META_BG;
			/* meta_bg reserves no GDT blocks (a resize= count only stays in the superblock) */
			uint32_t rsv = has_sb && !meta ? g->reserved_gdt : 0;
			uint32_t gdt = ek_group_sb_gdt_blocks(fs, i) - has_sb - rsv;

			if (has_sb)
				ek_out_u64(o, "superblock", sb);
			if (gdt) {
				ek_out_u64(o, "gdt_first", has_sb ? sb + 1 : first);
				ek_out_u64(o, "gdt_blocks", gdt);
			}
			if (has_sb)
				ek_out_u64(o, "reserved_gdt_blocks", rsv);
		}
		ek_out_u64(o, "block_bitmap", grp->block_bitmap);
		ek_out_u64(o, "inode_bitmap", grp->inode_bitmap);
		ek_out_u64(o, "inode_table", grp->inode_table);
		ek_out_obj_end(o);
		if (m->quiet || g->groups > 64)
			continue;
		ek_out_text(o, "Group %u: blocks %" PRIu64 "-%" PRIu64 "%s, bitmaps %" PRIu64 "/%" PRIu64
			    ", inode table %" PRIu64 "-%" PRIu64 "\n", i, first,
			    (uint64_t)ek_group_last_block(fs, i),
			    ek_geometry_has_super(g, i) ? " (superblock)" : "",
			    (uint64_t)grp->block_bitmap, (uint64_t)grp->inode_bitmap,
			    (uint64_t)grp->inode_table,
			    (uint64_t)grp->inode_table + g->inode_table_blocks - 1);
	}
	ek_out_arr_end(o);
}

/*
 * The -d tree against the new filesystem, before anything is written:
 * too many files or too much data is refused with the option that helps.
 */
static int check_tree(struct mk *m, struct ek_newfs *nf)
{
	const struct ek_geometry *g = ek_newfs_geometry(nf);
	struct ek_populate_need need;
	uint64_t ifree = ek_newfs_free_inodes(nf), bfree = ek_newfs_free_blocks(nf);
	int err = ek_populate_measure(nf, m->src_dir, &need);

	if (err)
		return mk_fail(m, "%s", ek_error_msg(err));	/* it names the tree */
	m->tree_inodes = need.inodes;
	if (need.inodes > ifree)
		return mk_fail(m, "-d '%s': the tree needs %" PRIu64 " inodes, the filesystem has %" PRIu64
			    " free; use -N %" PRIu64 " or a smaller -i", m->src_dir, need.inodes,
			    ifree, g->inodes - ifree + need.inodes);
	if (need.blocks > bfree)
		return mk_fail(m, "-d '%s': the tree needs at least %" PRIu64 " KiB for its data, the "
			    "filesystem has %" PRIu64 " KiB free; give a larger size", m->src_dir,
			    need.blocks * g->blocksize >> 10, bfree * g->blocksize >> 10);
	return 0;
}

/* -d: a bar on stderr while the tree is copied */
static void populate_progress(void *arg, uint64_t done, uint64_t total)
{
	struct mk *m = arg;

	ek_out_bar(stderr, "Copying files", &m->bar_last, done, total);
}

static void warn_cb(void *arg, const char *msg)
{
	struct mk *m = arg;

	fprintf(stderr, "%s: warning: %s\n", m->prog, msg);
}

/* @list, or @list "," @add: the -O and -E given so far */
static int append_list(char **list, const char *add)
{
	char *s;

	if (asprintf(&s, "%s%s%s", *list ? *list : "", *list ? "," : "", add) < 0)
		return -1;
	free(*list);
	*list = s;
	return 0;
}

/* a command line that cannot be read: one line, and where to look */
static int usage_error(struct mk *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(struct mk *m, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", m->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", m->prog);
	mk_conf_release(m);
	return 2;
}

int mk_parse_os(const char *arg, uint32_t *os)
{
	static const char *const names[] = { "linux", "hurd", "masix", "freebsd", "lites" };

	if (*arg >= '0' && *arg <= '9')
		return parse_u32(arg, os);
	if (!strcasecmp(arg, "gnu")) {
		*os = 1;
		return 0;
	}
	for (uint32_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(arg, names[i])) {
			*os = i;
			return 0;
		}
	return -1;
}

/*
 * mke2fs's own undo file (should_do_undo, mke2fs_setup_tdb): without -z,
 * over an ext2/3/4 superblock (read at byte 1024 of the target, as mke2fs
 * reads it), with mke2fs.conf's force_undo or with checksums (metadata_csum
 * or uninit_bg) and lazy inode tables, mke2fs saves what it overwrites in
 * DIR/mke2fs-NAME.e2undo, DIR being $E2FSPROGS_UNDO_DIR, else [defaults]
 * undo_dir, else /var/lib/e2fsprogs; none when DIR is "none", empty or not
 * writable.  An old file of that name is removed first, as mke2fs does.
 */
static int auto_undo(struct mk *m)
{
	const struct ek_geometry_opts *g = &m->o.geo;
	const char *dir = getenv("E2FSPROGS_UNDO_DIR");
	uint8_t magic[2];
	char *copy, *path;
	int fd, r;

	if (m->undo_path || m->dry_run || m->missing)
		return 0;
	if (!m->force_undo && !(m->o.lazy_itable_init &&
				(g->ro_compat & (EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |
						 EXT4_FEATURE_RO_COMPAT_GDT_CSUM))))
		return 0;
	if ((fd = open(m->target, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;	/* as mke2fs: no superblock to keep, the rest names the error */
	r = (int)pread(fd, magic, 2, EXT4_SUPERBLOCK_OFFSET + offsetof(struct ext4_super_block, s_magic));
	close(fd);
	if (r != 2 || get_le16(magic) != EXT4_SUPER_MAGIC)
		return 0;
	if (!dir)
		dir = m->undo_dir ? m->undo_dir : "/var/lib/e2fsprogs";
	if (!*dir || !strcmp(dir, "none") || access(dir, W_OK))
		return 0;
	if (!(copy = strdup(m->target)))
		return mk_fail(m, "out of memory");
	r = asprintf(&path, "%s/mke2fs-%s.e2undo", dir, basename(copy));
	free(copy);
	if (r < 0)
		return mk_fail(m, "out of memory");
	m->auto_undo_path = path;
	if (unlink(path) && errno != ENOENT)
		return mk_fail(m, "cannot remove the old undo file '%s': %s", path, strerror(errno));
	m->undo_path = path;
	return 0;
}

/* ---- main ------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' + 256 },
		{ "skip-unreadable", no_argument, NULL, 'S' + 256 },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	/* static: what an early return leaves allocated stays reachable (LeakSanitizer) */
	static struct mk m = { .prog = "extkit-mkfs", .discard = true, .sparse_arg = -1 };
	struct ek_newfs *nf = NULL;
	struct ek_io *io = NULL;
	struct ek_undo *undo = NULL;
	struct ek_out *out = NULL;
	uint64_t want = 0, size = 0;
	const char *sde;
	char *inputs = NULL;
	struct badlist bad = { 0 };
	int c, rc = 1, err;

	m.argv0 = argv[0];
	m.o.lazy_itable_init = true;
	opterr = 0;	/* one line of our own, not getopt's and the whole usage */
	while ((c = getopt_long(argc, argv, ":t:T:O:b:I:i:N:m:g:G:L:M:U:E:R:J:jd:C:e:o:z:r:l:s:cDFKnqSvVh",
				longopts, NULL)) != -1) {
		uint32_t v;
		uint64_t v64;

		switch (c) {
		case 't':
			if (m.type_arg)
				return mk_fail(&m, "-t may be given once");
			m.type_arg = optarg;
			break;
		case 'T':
			if (m.usage_arg)
				return mk_fail(&m, "-T may be given once");
			m.usage_arg = optarg;
			break;
		case 'O':
			if (append_list(&m.features_arg, optarg))
				return mk_fail(&m, "out of memory");
			break;
		case 'b':
			if (parse_u32(optarg, &m.o.geo.blocksize))
				return mk_fail(&m, "-b %s: not a block size", optarg);
			m.cli_blocksize = m.o.geo.blocksize;
			break;
		case 'I':
			if (parse_u32(optarg, &m.o.geo.inode_size))
				return mk_fail(&m, "-I %s: not an inode size", optarg);
			break;
		case 'i':
			if (parse_u32(optarg, &m.o.geo.inode_ratio) || m.o.geo.inode_ratio < 1024)
				return mk_fail(&m, "-i %s: bytes per inode must be at least 1024", optarg);
			break;
		case 'N':
			if (parse_u32(optarg, &v) || !v)
				return mk_fail(&m, "-N %s: not an inode count", optarg);
			m.o.geo.inodes = v;
			break;
		case 'm': {
			char *end;
			double pct = strtod(optarg, &end);

			if (end == optarg || *end || pct < 0 || pct > 50)
				return mk_fail(&m, "-m %s: a percentage from 0 to 50", optarg);
			m.o.geo.reserved_given = true;
			m.o.geo.reserved_percent = pct;
			break;
		}
		case 'g':
			if (parse_u32(optarg, &m.o.geo.blocks_per_group))
				return mk_fail(&m, "-g %s: not a block count", optarg);
			break;
		case 'G':
			if (parse_u32(optarg, &m.o.geo.flex_size) || !m.o.geo.flex_size)
				return mk_fail(&m, "-G %s: not a group count", optarg);
			break;
		case 'L':
			if (strlen(optarg) > sizeof(m.o.label))
				return mk_fail(&m, "label '%s' is longer than 16 bytes", optarg);
			strncpy(m.o.label, optarg, sizeof(m.o.label));
			break;
		case 'M':
			if (strlen(optarg) >= sizeof(m.o.last_mounted))
				return mk_fail(&m, "-M: '%s' is longer than 63 bytes", optarg);
			strncpy(m.o.last_mounted, optarg, sizeof(m.o.last_mounted));
			break;
		case 'U': m.uuid_arg = optarg; break;
		case 'R':	/* mke2fs's old name for -E: the same, with its warning */
			mk_warn(&m, "-R is deprecated, use -E instead");
			/* fall through */
		case 'E':
			/* as mke2fs: only the last -E (or -R) counts */
			free(m.extended_arg);
			if (!(m.extended_arg = strdup(optarg)))
				return mk_fail(&m, "out of memory");
			break;
		case 'K':	/* mke2fs's old -E nodiscard */
			mk_warn(&m, "-K is deprecated, use -E nodiscard instead");
			m.discard = false;
			break;
		case 's': {	/* mke2fs's old sparse_super switch: 0 off, above 0 on */
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end)
				return mk_fail(&m, "-s %s: 0 (no sparse_super) or 1 (sparse_super)",
					       optarg);
			m.sparse_arg = v > 0 ? 1 : v == 0 ? 0 : -1;
			break;
		}
		case 'J':
			if (parse_journal_opts(&m, optarg))
				return 1;
			break;
		case 'j': m.journal_flag = true; break;
		case 'd': m.src_dir = optarg; break;
		case 'C':
			if (parse_size(optarg, 1, &v64) || v64 > UINT32_MAX)
				return mk_fail(&m, "-C %s: not a cluster size", optarg);
			m.o.geo.cluster_size = (uint32_t)v64;
			break;
		case 'e':
			if (!strcmp(optarg, "continue")) m.o.errors = 1;
			else if (!strcmp(optarg, "remount-ro")) m.o.errors = 2;
			else if (!strcmp(optarg, "panic")) m.o.errors = 3;
			else return mk_fail(&m, "-e %s: continue, remount-ro or panic", optarg);
			break;
		case 'o':
			m.os_given = true;
			if (mk_parse_os(optarg, &m.o.creator_os))
				return mk_fail(&m, "-o %s: unknown creator OS (Linux, Hurd or GNU, Masix, "
					       "FreeBSD, Lites, or a number)", optarg);
			break;
		case 'z': m.undo_path = optarg; break;
		case 'r':
			if (parse_u32(optarg, &v) || v > 1)
				return mk_fail(&m, "-r %s: a revision level is 0 or 1", optarg);
			m.o.rev0 = v == 0;
			break;
		case 'l': m.badblocks_file = optarg; break;
		case 'c': m.check_blocks++; break;
		case 'D': break;	/* direct I/O: extkit writes and syncs before the superblock */
		case 'F': m.force = true; break;
		case 'n': m.dry_run = true; break;
		case 'q': m.quiet = true; break;
		case 'S': m.o.super_only = true; break;
		case 'v': m.verbose = true; break;
		case 'V': printf("extkit-mkfs %s\n", EK_VERSION); return 0;
		case 'J' + 256: m.json = true; break;
		case 'S' + 256: m.skip_unreadable = true; break;
		case 'h': usage(stdout, m.prog); return 0;
		case ':':
			return usage_error(&m, "option requires an argument -- '%c'", optopt);
		default:
			if (optopt)
				return usage_error(&m, "invalid option -- '%c'", optopt);
			return usage_error(&m, "unrecognized option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error(&m, "no device or image given");
	if (argc - optind > 2)
		return usage_error(&m, "'%s': one device or image and one size at most",
				   argv[optind + 2]);
	/* -E now for offset= (the size depends on it), again after mke2fs.conf */
	if (m.extended_arg && mk_parse_extended(&m, m.extended_arg))
		return 1;
	m.target = argv[optind];
	m.size_arg = optind + 1 < argc ? argv[optind + 1] : NULL;

	m.o.geo.journal_bytes = m.journal_bytes;
	if (m.size_arg && parse_size(m.size_arg, m.o.geo.blocksize ? m.o.geo.blocksize : 1024, &want))
		return mk_fail(&m, "'%s' is not a size", m.size_arg);

	sde = getenv("SOURCE_DATE_EPOCH");
	if (sde && *sde) {
		char *end;
		long long v = strtoll(sde, &end, 10);

		if (*end || v < 0)
			return mk_fail(&m, "SOURCE_DATE_EPOCH=%s is not a number of seconds", sde);
		m.have_sde = true;
		m.sde = v;
		m.o.now = v;
	} else {
		const char *fake = getenv("E2FSPROGS_FAKE_TIME");

		m.o.now = fake && *fake ? strtoll(fake, NULL, 10) : (int64_t)time(NULL);
	}

	/*
	 * the MMP block names the host and the device as mke2fs does; under
	 * SOURCE_DATE_EPOCH no host name, so the image does not depend on it
	 */
	if (!m.have_sde && gethostname(m.o.mmp_nodename, sizeof(m.o.mmp_nodename) - 1))
		m.o.mmp_nodename[0] = '\0';
	snprintf(m.o.mmp_bdevname, sizeof(m.o.mmp_bdevname), "%s", m.target);

	if (m.src_dir) {
		struct stat st;

		if (stat(m.src_dir, &st))
			return mk_fail(&m, "-d '%s': %s", m.src_dir, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return mk_fail(&m, "-d '%s': not a directory", m.src_dir);
	}
	if (m.o.super_only) {
		/* a recovery tool: what is on the target stays, it must be there */
		if (m.src_dir)
			return mk_fail(&m, "-S writes the superblocks and descriptors only: no -d");
		if (access(m.target, F_OK))
			return mk_fail(&m, "-S: '%s': %s (it rewrites an existing filesystem's "
				       "superblocks)", m.target, strerror(errno));
	}
	if (m.journal_dev_arg && (rc = journal_dev_open(&m)))
		goto out;
	if ((rc = check_target(&m, want, &size)))
		goto out;
	if ((rc = mk_conf_resolve(&m, size)))
		goto out;
	rc = 1;
	if (m.hugefiles && m.o.super_only) {
		mk_fail(&m, "%s: make_hugefiles with -S: not supported (mke2fs -S would write "
			"the files over the filesystem)", m.conf_path);
		goto out;
	}
	if (m.prezeroed)	/* nothing to zero: the tables and the journal read as zeros */
		m.o.lazy_itable_init = m.o.lazy_journal_init = true;
	if ((rc = auto_undo(&m)))
		goto out;
	rc = 1;
	m.o.geo.size = size;
	/* what a derived UUID and hash seed depend on: every choice that shapes the image */
	if (asprintf(&inputs, "sde=%lld size=%llu type=%s bs=%u isize=%u ratio=%u N=%llu "
		     "g=%u G=%u m=%g/%d feat=%x/%x/%x mnt=%x hash=%u fsck=%d journal=%llu label=%.16s "
		     "mounted=%.64s root=%u:%u src=%s errors=%u lazy=%d cluster=%u", (long long)m.sde,
		     (unsigned long long)size, m.type_name, m.o.geo.blocksize, m.o.geo.inode_size,
		     m.o.geo.inode_ratio, (unsigned long long)m.o.geo.inodes,
		     m.o.geo.blocks_per_group, m.o.geo.flex_size, m.o.geo.reserved_percent,
		     m.o.geo.reserved_given, m.o.geo.compat, m.o.geo.incompat,
		     m.o.geo.ro_compat, m.o.default_mount_opts, m.o.def_hash_version,
		     m.o.periodic_fsck, (unsigned long long)m.journal_bytes, m.o.label, m.o.last_mounted, m.o.root_uid,
		     m.o.root_gid, m.src_dir ? "yes" : "no", m.o.errors, m.o.lazy_itable_init,
		     m.o.geo.cluster_size) < 0) {
		mk_fail(&m, "out of memory");
		goto out;
	}
	if (pick_uuid(&m, m.uuid_arg, "uuid", inputs, m.o.uuid) ||
	    pick_uuid(&m, m.hash_seed_arg, "hash seed", inputs, m.o.hash_seed))
		goto out;

	m.o.keep_2k_4k = m.undo_path != NULL;	/* as mke2fs -z leaves them */
	if (m.o.geo.incompat & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV) {
		rc = journal_device(&m, size);
		goto out;
	}
	if (m.badblocks_file || m.check_blocks) {
		struct ek_geometry g;

		/* badblocks reads the target: it must be there at its size first */
		if (m.check_blocks && !m.dry_run && !m.o.super_only &&
		    !ek_geometry_compute(&m.o.geo, &g) &&
		    (rc = ready_target(&m, g.blocks * g.blocksize)))
			goto out;
		m.target_ready = m.check_blocks && !m.dry_run && !m.o.super_only;
		if ((rc = bad_blocks(&m, &bad)))
			goto out;
		rc = 1;
	}
	/* the whole layout first: a request that cannot work touches nothing */
	m.o.defer_root = m.src_dir != NULL;
	if ((err = ek_newfs_create(NULL, &m.o, &nf))) {
		mk_fail(&m, "%s", ek_error_msg(err));
		goto out;
	}
	if (m.src_dir && (rc = check_tree(&m, nf)))
		goto out;
	rc = 1;
	bad_backups_warn(&m, nf);
	out = ek_out_new(stdout, m.json ? EK_OUT_JSON : EK_OUT_TEXT);
	if (!out) {
		mk_fail(&m, "out of memory");
		goto out;
	}
	ek_out_obj_begin(out, NULL);
	if (!m.quiet || m.json)
		print_layout(&m, nf, out);
	if (m.dry_run) {
		ek_out_bool(out, "written", false);
		rc = 0;
		goto out;
	}
	/* the file holds the filesystem's whole blocks, as mke2fs leaves it (-S: as it is) */
	if (!m.o.super_only && !m.target_ready &&
	    (rc = ready_target(&m, ek_newfs_fs(nf)->sb.blocks_count * ek_newfs_geometry(nf)->blocksize)))
		goto out;
	rc = 1;
	if (m.o.super_only && !m.quiet)
		fprintf(stderr, "%s: rewriting the superblocks and group descriptors of '%s' "
			"(-S): run e2fsck -fy next; the journal is not made again\n", m.prog, m.target);
	if (m.prezeroed)
		m.o.zeroed = m.o.discard_zeroed = true;
	if ((err = ek_io_open(m.target, EK_IO_RW, m.offset, &io))) {
		mk_fail(&m, "%s", ek_error_msg(err));
		goto out;
	}
	if (m.undo_path) {
		if ((err = ek_undo_resume(m.undo_path, io, ek_newfs_geometry(nf)->blocksize, &undo)) ||
		    (err = ek_io_set_undo(io, undo))) {
			mk_fail(&m, "-z '%s': %s", m.undo_path, ek_error_msg(err));
			goto out;
		}
		if (!m.quiet)
			ek_out_text(out, "Overwriting '%s'; to undo: e2undo %s %s\n", m.target,
				    m.undo_path, m.target);
	}
	ek_newfs_set_target(nf, io, m.o.zeroed);
	ek_newfs_set_discard_zeroed(nf, m.o.discard_zeroed);
	if ((err = ek_newfs_begin(nf))) {
		fail_write(&m, err);
		goto out;
	}
	if (m.o.geo.journal_external && (rc = journal_dev_attach(&m)))
		goto out;
	if (m.hugefiles && !(ek_newfs_fs(nf)->sb.incompat & EXT4_FEATURE_INCOMPAT_EXTENTS))
		mk_warn(&m, "make_hugefiles needs the extent feature: no huge files made (as mke2fs)");
	else if (m.hugefiles && (rc = make_hugefiles(&m, nf, out)))
		goto out;
	rc = 1;
	if (m.src_dir) {
		struct ek_populate_opts po = {
			.clamp_time = m.have_sde,
			.epoch = m.sde,
			.skip_unreadable = m.skip_unreadable,
			.warn = warn_cb,
			.warn_arg = &m,
			.no_xattrs = m.no_copy_xattrs,
			.nanoseconds = m.nanoseconds,
			.htree_dirs = m.htree_dirs,
		};

		/* a tree of some size, a terminal to show it on: a progress bar */
		if (!m.quiet && !m.json && isatty(STDERR_FILENO) && m.tree_inodes >= 1000) {
			m.bar_last = 101;
			po.progress = populate_progress;
			po.progress_arg = &m;
			po.progress_total = m.tree_inodes;
		}
		struct ek_populate_stats ps = { 0 };

		err = ek_populate(nf, m.src_dir, &po, &ps);
		if (po.progress && m.bar_last != 100)
			fputc('\n', stderr);	/* the bar's line ends (at 100% it has) */
		if (err) {
			mk_fail(&m, "%s", ek_error_msg(err));
			goto out;
		}
		if (!m.quiet)
				ek_out_text(out, "Copied %" PRIu64 " files, %" PRIu64 " directories, %"
				    PRIu64 " bytes from %s\n", ps.files, ps.dirs, ps.bytes, m.src_dir);
		ek_out_obj_begin(out, "populate");
		ek_out_u64(out, "files", ps.files);
		ek_out_u64(out, "directories", ps.dirs);
		ek_out_u64(out, "bytes", ps.bytes);
		ek_out_u64(out, "skipped", ps.skipped);
		ek_out_obj_end(out);
	}
	if ((err = ek_newfs_finish(nf))) {
		fail_write(&m, err);
		goto out;
	}
	ek_out_bool(out, "written", true);
	rc = 0;
out:
	if (out) {
		ek_out_obj_end(out);
		ek_out_free(out);
	}
	ek_newfs_free(nf);
	if (undo) {
		ek_io_set_undo(io, NULL);
		if ((err = ek_undo_close(undo)) && !rc)
			rc = mk_fail(&m, "-z '%s': %s", m.undo_path, ek_error_msg(err));
	}
	ek_io_close(io);
	free(inputs);
	free(bad.v);
	mk_conf_release(&m);
	if (rc && m.created && !m.dry_run)
		unlink(m.target);	/* nothing half-made is left behind */
	return rc;
}
