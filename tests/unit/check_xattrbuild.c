// SPDX-License-Identifier: MIT
/*
 * check_xattrbuild.c - laying out the xattrs of a new inode
 * (ek_xattr_build) and converting ACLs to the on-disk format
 * (ek_acl_from_xattr).  What is built is read back with the library's own
 * reader (ek_xattr_iterate) and its raw bytes checked: placement, order,
 * entry and block hashes, the block checksum, every -EINVAL and -ENOSPC
 * site.  e2fsprogs is the oracle (e2fsck -fn and debugfs ea_get on an
 * image the xattrs were written into), skipped when the tools are missing.
 */
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "unit.h"

#define INO	12	/* the inode under test */
#define XBLK	20	/* its xattr block */
#define ISZ	256
#define EXTRA	32
#define IB_OFF	(EXT4_GOOD_OLD_INODE_SIZE + EXTRA)	/* in-inode magic */
#define IB_BASE	(IB_OFF + 4)				/* first entry */
#define IB_LEN	(ISZ - IB_BASE)				/* 92 bytes */
#define E_OFFS	2	/* e_value_offs */
#define E_SIZE	8	/* e_value_size */
#define E_HASH	12	/* e_hash */

static struct unit_fs u;
static uint32_t bsz;
static uint8_t raw[ISZ];
static uint8_t *blk;		/* from ek_xattr_build, freed by fx_done() */

static void fx_init(uint32_t blksz, uint32_t ro_compat, uint16_t extra)
{
	bsz = blksz;
	unit_fs_init(&u, blksz, 64, 0, 0, ro_compat);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	memset(raw, 0, sizeof(raw));
	put_le16(raw + offsetof(struct ext4_inode, i_mode), 0100644);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
	put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), extra);
	blk = NULL;
}

static void fx_done(void)
{
	free(blk);
	blk = NULL;
	unit_fs_done(&u);
}

static int build(const struct ek_xattr_new *x, size_t n)
{
	free(blk);
	blk = (uint8_t *)1;	/* must be reset */
	return ek_xattr_build(u.fs, INO, raw, x, n, &blk);
}

/* store the inode and (if built) the block as mkfs would */
static void store(void)
{
	uint8_t copy[ISZ];

	memcpy(copy, raw, ISZ);
	if (blk) {
		ek_xattr_block_csum_set(u.fs, XBLK, blk);
		unit_write(&u, XBLK, 0, blk, bsz);
		put_le32(copy + offsetof(struct ext4_inode, i_file_acl_lo), XBLK);
		put_le32(copy + offsetof(struct ext4_inode, i_blocks_lo), bsz / 512);
	}
	if (u.fs->has_csum)
		ek_inode_csum_set(u.fs, INO, copy);
	unit_write(&u, UNIT_IT, (INO - 1) * ISZ, copy, ISZ);
}

/* what the reader saw: "user.a=6261;B:user.b=;" (B: in the block) */
struct seen {
	char text[8192];
	unsigned count, in_block;
};

static int collect(void *arg, const struct ek_xattr *xa)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	n += snprintf(s->text + n, sizeof(s->text) - n, "%s%s%.*s=", xa->in_block ? "B:" : "",
		      xa->prefix, (int)xa->name_len, xa->name);
	for (uint32_t i = 0; i < xa->value_len && i < 4; i++)
		n += snprintf(s->text + n, sizeof(s->text) - n, "%02x", xa->value[i]);
	if (xa->value_len > 4)
		n += snprintf(s->text + n, sizeof(s->text) - n, "..%u", xa->value_len);
	snprintf(s->text + n, sizeof(s->text) - n, ";");
	/* in-inode entries carry no hash, as the kernel writes them */
	if (!xa->in_block)
		ck_assert_uint_eq(xa->hash, 0);
	s->count++;
	s->in_block += xa->in_block;
	return 0;
}

static void walk(struct seen *s)
{
	struct ek_inode ei;

	memset(s, 0, sizeof(*s));
	store();
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	ck_assert_int_eq(ek_xattr_iterate(u.fs, &ei, collect, s), 0);
	ek_inode_release(&ei);
}

/* an independent ext4_xattr_hash_entry() (unsigned char names) */
static uint32_t ref_hash(const char *name, size_t nl, const uint8_t *v, size_t vl)
{
	uint32_t h = 0;

	for (size_t i = 0; i < nl; i++)
		h = (h << 5) ^ (h >> 27) ^ (unsigned char)name[i];
	for (size_t i = 0; i < vl; i += 4) {
		uint32_t w = 0;

		for (size_t k = 0; k < 4 && i + k < vl; k++)
			w |= (uint32_t)v[i + k] << (8 * k);
		h = (h << 16) ^ (h >> 16) ^ w;
	}
	return h;
}

/* check every block entry hash against ref_hash(); h_hash 0, as libext2fs writes it */
static void check_block_hashes(void)
{
	uint32_t off, n = 0;

	ck_assert_ptr_nonnull(blk);
	ck_assert_uint_eq(get_le32(blk), EXT4_XATTR_MAGIC);
	ck_assert_uint_eq(get_le32(blk + 4), 1);	/* h_refcount */
	ck_assert_uint_eq(get_le32(blk + 8), 1);	/* h_blocks */
	for (off = 32; get_le32(blk + off); off += EXT4_XATTR_LEN(blk[off])) {
		uint32_t vs = get_le32(blk + off + E_SIZE), vo = get_le16(blk + off + E_OFFS);
		uint32_t eh = ref_hash((const char *)blk + off + 16, blk[off], blk + vo, vs);

		ck_assert_uint_eq(get_le32(blk + off + E_HASH), eh);
		ck_assert_uint_ne(eh, 0);
		/* an empty value: the offset where the next value would end (libext2fs) */
		if (!vs)
			ck_assert(vo > off && vo <= 1024 && !(vo & 3));
		n++;
	}
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(get_le32(blk + 12), 0);
}

static uint8_t v30[8][30], v_big[2048];
static const char selinux[] = "system_u:object_r:etc_t:s0";

static void fill_values(void)
{
	for (int i = 0; i < 8; i++)
		memset(v30[i], 'a' + i, 30);
	for (size_t i = 0; i < sizeof(v_big); i++)
		v_big[i] = i * 7;
}

START_TEST(test_body_only)
{
	const struct ek_xattr_new x[] = {
		{ "user.b", "2", 1 },
		{ "system.data", "", 0 },
		{ "trusted.t", "\x00\xff\x10", 3 },
	};
	struct seen s;

	fx_init(1024, 0, EXTRA);
	ck_assert_int_eq(build(x, 3), 0);
	ck_assert_ptr_null(blk);
	ck_assert_uint_eq(get_le32(raw + IB_OFF), EXT4_XATTR_MAGIC);
	/* system.data first, empty: size 0 at the end of the body (libext2fs); then sorted */
	ck_assert_uint_eq(raw[IB_BASE], 4);
	ck_assert_uint_eq(raw[IB_BASE + 1], EXT4_XATTR_INDEX_SYSTEM);
	ck_assert_uint_eq(get_le16(raw + IB_BASE + E_OFFS), IB_LEN);
	ck_assert_uint_eq(get_le32(raw + IB_BASE + E_SIZE), 0);
	/* user.b's value is the first one, at the end of the inode */
	ck_assert_uint_eq(get_le16(raw + IB_BASE + 20 + E_OFFS), IB_LEN - 4);
	ck_assert_uint_eq(raw[IB_BASE + IB_LEN - 4], '2');
	ck_assert_uint_eq(get_le16(raw + IB_BASE + 40 + E_OFFS), IB_LEN - 8);
	ck_assert_uint_eq(get_le32(raw + IB_BASE + 60), 0);	/* terminator */
	walk(&s);
	ck_assert_str_eq(s.text, "system.data=;user.b=32;trusted.t=00ff10;");
	ck_assert_uint_eq(s.in_block, 0);
	fx_done();
}
END_TEST

/*
 * 92 bytes of body: user.k0 (52 bytes with its entry) fits, k1.. do not;
 * user.big (100) spills but user.tiny after it still fits (first fit).
 */
static void spill_case(uint32_t blksz, uint32_t ro)
{
	struct ek_xattr_new x[] = {
		{ "security.selinux", selinux, sizeof(selinux) - 1 },
		{ "user.tiny", "t", 1 },
		{ "user.big", v_big, 80 },
		{ "user.k5", v30[5], 30 }, { "user.k4", v30[4], 30 }, { "user.k3", v30[3], 30 },
		{ "user.k2", v30[2], 30 }, { "user.k1", v30[1], 30 }, { "user.k0", v30[0], 30 },
	};
	struct ek_inode ei;
	struct seen s;

	fill_values();
	fx_init(blksz, ro, EXTRA);
	ck_assert_int_eq(build(x, 9), 0);
	walk(&s);
	ck_assert_str_eq(s.text, "user.k0=61616161..30;user.tiny=74;"
			 "B:user.k1=62626262..30;B:user.k2=63636363..30;B:user.k3=64646464..30;"
			 "B:user.k4=65656565..30;B:user.k5=66666666..30;B:user.big=00070e15..80;"
			 "B:security.selinux=73797374..26;");
	ck_assert_uint_eq(s.in_block, 7);
	check_block_hashes();
	/* values from the end of the block in entry order, padded with zeros */
	ck_assert_uint_eq(get_le16(blk + 32 + E_OFFS), blksz - 32);
	ck_assert_uint_eq(blk[blksz - 2], 0);
	ck_assert_uint_eq(get_le16(blk + 32 + 20 + E_OFFS), blksz - 64);
	if (ro & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) {
		ck_assert_uint_eq(get_le32(blk + 16), ek_xattr_block_csum(u.fs, XBLK, blk));
		ck_assert_uint_ne(get_le32(blk + 16), 0);
	} else {
		ck_assert_uint_eq(get_le32(blk + 16), 0);
	}
	/* the values read back whole */
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	for (int i = 0; i < 9; i++) {
		const char *dot = strchr(x[i].name, '.');
		uint8_t idx = x[i].name[0] == 'u' ? 1 : 6;
		uint8_t *v;
		size_t n;

		ck_assert_int_eq(ek_xattr_get(u.fs, &ei, idx, dot + 1, strlen(dot + 1), &v, &n), 0);
		ck_assert_uint_eq(n, x[i].len);
		ck_assert_mem_eq(v, x[i].value, n);
		free(v);
	}
	ek_inode_release(&ei);
	fx_done();
}

START_TEST(test_spill)
{
	spill_case(1024, 0);
	spill_case(1024, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	spill_case(4096, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
}
END_TEST

START_TEST(test_block_only)
{
	const struct ek_xattr_new x[] = { { "user.a", "bar", 3 }, { "user.e", NULL, 0 } };
	uint8_t before[ISZ];
	struct seen s;

	/* i_extra_isize 0: no in-inode xattrs, and the extra space is left alone */
	fx_init(1024, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, 0);
	memset(raw + 200, 0x5a, 8);
	memcpy(before, raw, ISZ);
	ck_assert_int_eq(build(x, 2), 0);
	ck_assert_mem_eq(raw, before, ISZ);
	walk(&s);
	ck_assert_str_eq(s.text, "B:user.a=626172;B:user.e=;");
	check_block_hashes();
	/* the empty value: size 0 at the offset where user.a's value starts (libext2fs) */
	ck_assert_uint_eq(get_le16(blk + 52 + E_OFFS), get_le16(blk + 32 + E_OFFS));
	ck_assert_uint_eq(get_le32(blk + 52 + E_SIZE), 0);
	fx_done();

	/* no room for the magic and a terminator after i_extra_isize */
	fx_init(1024, 0, 124);
	ck_assert_int_eq(build(x, 2), 0);
	walk(&s);
	ck_assert_str_eq(s.text, "B:user.a=626172;B:user.e=;");
	fx_done();

	/* nothing at all: no block, a zeroed body without magic */
	fx_init(1024, 0, EXTRA);
	memset(raw + IB_OFF, 0xee, ISZ - IB_OFF);
	ck_assert_int_eq(build(NULL, 0), 0);
	ck_assert_ptr_null(blk);
	for (int i = IB_OFF; i < ISZ; i++)
		ck_assert_uint_eq(raw[i], 0);
	walk(&s);
	ck_assert_uint_eq(s.count, 0);
	fx_done();
}
END_TEST

START_TEST(test_boundaries)
{
	struct ek_xattr_new x = { "user.a", v_big, 68 };
	uint8_t before[ISZ];
	struct seen s;

	fill_values();
	/* 20 + 68 + 4 = 92: the body exactly */
	fx_init(1024, 0, EXTRA);
	ck_assert_int_eq(build(&x, 1), 0);
	ck_assert_ptr_null(blk);
	ck_assert_uint_eq(get_le16(raw + IB_BASE + E_OFFS), 24);
	walk(&s);
	ck_assert_str_eq(s.text, "user.a=00070e15..68;");
	/* one byte more pads to 72 and goes to the block */
	x.len = 69;
	ck_assert_int_eq(build(&x, 1), 0);
	ck_assert_ptr_nonnull(blk);
	/* the body keeps its magic and no entry, as libext2fs writes it */
	ck_assert_uint_eq(get_le32(raw + IB_OFF), EXT4_XATTR_MAGIC);
	ck_assert_uint_eq(get_le32(raw + IB_OFF + 4), 0);
	walk(&s);
	ck_assert_str_eq(s.text, "B:user.a=00070e15..69;");
	fx_done();

	/* 32 + 20 + 968 + 4 = 1024: the block exactly */
	fx_init(1024, 0, 0);
	x.len = 968;
	ck_assert_int_eq(build(&x, 1), 0);
	ck_assert_uint_eq(get_le16(blk + 32 + E_OFFS), 56);
	walk(&s);
	ck_assert_str_eq(s.text, "B:user.a=00070e15..968;");
	check_block_hashes();
	x.len = 969;
	memcpy(before, raw, ISZ);
	ck_assert_int_eq(build(&x, 1), -ENOSPC);
	ck_assert_ptr_null(blk);
	ck_assert_mem_eq(raw, before, ISZ);
	fx_done();

	/* a 255-byte name is fine */
	{
		char name[5 + 255 + 1];
		struct ek_xattr_new y = { name, "v", 1 };

		memcpy(name, "user.", 5);
		memset(name + 5, 'n', 255);
		name[260] = 0;
		fx_init(1024, 0, EXTRA);
		ck_assert_int_eq(build(&y, 1), 0);
		ck_assert_uint_eq(blk[32], 255);
		check_block_hashes();
		fx_done();
	}
}
END_TEST

START_TEST(test_order)
{
	struct ek_xattr_new x[] = {
		{ "user.k0", v30[0], 30 }, { "user.k1", v30[1], 30 }, { "user.k2", v30[2], 30 },
		{ "trusted.z", "z", 1 }, { "user.longer", v30[3], 17 }, { "system.data", "ab", 2 },
		{ "security.a", v30[4], 3 }, { "user.e", "", 0 },
	};
	uint8_t raw1[ISZ], blk1[1024];

	/* the same set in any order gives the same bytes */
	fill_values();
	fx_init(1024, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, EXTRA);
	ck_assert_int_eq(build(x, 8), 0);
	ck_assert_ptr_nonnull(blk);
	memcpy(raw1, raw, ISZ);
	memcpy(blk1, blk, 1024);
	/* system.data leads the body */
	ck_assert_uint_eq(raw[IB_BASE + 1], EXT4_XATTR_INDEX_SYSTEM);
	for (int r = 0; r < 20; r++) {
		for (int i = 7; i > 0; i--) {
			int j = (r * 7 + i * 13) % (i + 1);
			struct ek_xattr_new t = x[i];

			x[i] = x[j];
			x[j] = t;
		}
		memset(raw + IB_OFF, 0, ISZ - IB_OFF);
		ck_assert_int_eq(build(x, 8), 0);
		ck_assert_mem_eq(raw, raw1, ISZ);
		ck_assert_mem_eq(blk, blk1, 1024);
	}
	fx_done();
}
END_TEST

START_TEST(test_hash)
{
	const struct ek_xattr_new a = { "user.a", "bar", 3 };
	const struct ek_xattr_new hi = { "user.\xc3\xa9", "", 0 };
	const struct ek_xattr_new two[] = { { "user.a", "bar", 3 }, { "user.\xc3\xa9", "", 0 } };

	fx_init(1024, 0, 0);
	/* 'a' = 0x61, then the word "bar\0": 0x610000 ^ 0x00726162 */
	ck_assert_int_eq(build(&a, 1), 0);
	ck_assert_uint_eq(get_le32(blk + 32 + E_HASH), 0x00136162);
	ck_assert_uint_eq(get_le32(blk + 12), 0);	/* h_hash: 0, as libext2fs (mke2fs -d) */
	ck_assert_uint_eq(ek_xattr_hash("a", 1, "bar", 3), 0x00136162);
	/* names hash as unsigned bytes (kernel >= 6.2): 0xc3, then 0x1860 ^ 0xa9 */
	ck_assert_int_eq(build(&hi, 1), 0);
	ck_assert_uint_eq(get_le32(blk + 32 + E_HASH), 0x18c9);
	/* the legacy signed hash differs */
	ck_assert_uint_eq(ek_xattr_hash("\xc3\xa9", 2, "", 0), 0x07d6);
	/* h_hash stays 0 with more entries; the empty value's offset is the first's */
	ck_assert_int_eq(build(two, 2), 0);
	ck_assert_uint_eq(get_le32(blk + 12), 0);
	ck_assert_uint_eq(get_le16(blk + 32 + E_OFFS), get_le16(blk + 32 + EXT4_XATTR_LEN(1) + E_OFFS));
	check_block_hashes();
	fx_done();
}
END_TEST

START_TEST(test_csum)
{
	const struct ek_xattr_new a = { "user.a", "bar", 3 };
	uint32_t c;

	fx_init(1024, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, 0);
	ck_assert_int_eq(build(&a, 1), 0);
	ck_assert_uint_eq(get_le32(blk + 16), 0);
	ek_xattr_block_csum_set(u.fs, XBLK, blk);
	c = get_le32(blk + 16);
	ck_assert_uint_eq(c, ek_xattr_block_csum(u.fs, XBLK, blk));
	/* the definition: crc32c(seed, le64 blk), then the block with the field zero */
	{
		uint8_t copy[1024];
		__le64 le = cpu_to_le64(XBLK);

		memcpy(copy, blk, 1024);
		memset(copy + 16, 0, 4);
		ck_assert_uint_eq(c, ek_crc32c_sw(ek_crc32c_sw(u.fs->csum_seed, &le, 8), copy, 1024));
	}
	/* the block number is part of it; setting again is stable */
	ek_xattr_block_csum_set(u.fs, XBLK + 1, blk);
	ck_assert_uint_ne(get_le32(blk + 16), c);
	ek_xattr_block_csum_set(u.fs, XBLK, blk);
	ck_assert_uint_eq(get_le32(blk + 16), c);
	fx_done();
}
END_TEST

/* ---- ACLs ---- */

/* USER_OBJ rw, USER 1234 rw, GROUP_OBJ r, GROUP 55 r, MASK rw, OTHER r */
static const uint8_t acl_vfs[] = {
	2, 0, 0, 0,
	0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
	0x02, 0, 6, 0, 0xd2, 0x04, 0, 0,
	0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	0x08, 0, 4, 0, 55, 0, 0, 0,
	0x10, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
	0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
};
static const uint8_t acl_disk[] = {
	1, 0, 0, 0,
	0x01, 0, 6, 0,
	0x02, 0, 6, 0, 0xd2, 0x04, 0, 0,
	0x04, 0, 4, 0,
	0x08, 0, 4, 0, 55, 0, 0, 0,
	0x10, 0, 6, 0,
	0x20, 0, 4, 0,
};
/* default ACL: USER_OBJ rwx, USER 99 rwx, GROUP_OBJ rx, MASK rwx, OTHER rx */
static const uint8_t dacl_vfs[] = {
	2, 0, 0, 0,
	0x01, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
	0x02, 0, 7, 0, 99, 0, 0, 0,
	0x04, 0, 5, 0, 0xff, 0xff, 0xff, 0xff,
	0x10, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
	0x20, 0, 5, 0, 0xff, 0xff, 0xff, 0xff,
};

START_TEST(test_acl)
{
	/* the three-entry minimum; its ids are ignored */
	static const uint8_t min[] = {
		2, 0, 0, 0,
		0x01, 0, 6, 0, 1, 2, 3, 4,
		0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	};
	static const uint8_t min_disk[] = { 1, 0, 0, 0, 1, 0, 6, 0, 4, 0, 4, 0, 0x20, 0, 4, 0 };
	static const uint8_t hdr[] = { 2, 0, 0, 0 };
	uint8_t *o, *back;
	size_t n, bn;

	ck_assert_int_eq(ek_acl_from_xattr(acl_vfs, sizeof(acl_vfs), &o, &n), 0);
	ck_assert_uint_eq(n, sizeof(acl_disk));
	ck_assert_mem_eq(o, acl_disk, n);
	ck_assert_int_eq(ek_acl_to_xattr(o, n, &back, &bn), 0);
	ck_assert_uint_eq(bn, sizeof(acl_vfs));
	ck_assert_mem_eq(back, acl_vfs, bn);
	free(o);
	free(back);
	ck_assert_int_eq(ek_acl_from_xattr(min, sizeof(min), &o, &n), 0);
	ck_assert_uint_eq(n, sizeof(min_disk));
	ck_assert_mem_eq(o, min_disk, n);
	free(o);
	ck_assert_int_eq(ek_acl_from_xattr(dacl_vfs, sizeof(dacl_vfs), &o, &n), 0);
	ck_assert_int_eq(ek_acl_to_xattr(o, n, &back, &bn), 0);
	ck_assert_mem_eq(back, dacl_vfs, sizeof(dacl_vfs));
	free(o);
	free(back);
	/* the header alone stays an empty ACL */
	ck_assert_int_eq(ek_acl_from_xattr(hdr, sizeof(hdr), &o, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(get_le32(o), 1);
	free(o);
}
END_TEST

static const struct acl_bad {
	const char *what;
	uint16_t ent[8][2];	/* tag, perm; tag 0 ends */
	size_t len;		/* 0: from ent */
	const char *msg;
} acl_bad[] = {
	{ "short", { { 0 } }, 3, "shorter than its header" },
	{ "huge", { { 0 } }, 65540, "exceeds 65536" },
	{ "version", { { 0 } }, 0, "acl version 1, expected 2" },
	{ "partial entry", { { 1, 6 } }, 10, "not a whole number of 8-byte entries" },
	{ "perm bits", { { 1, 6 }, { 4, 8 }, { 0x20, 4 } }, 0, "entry 1 has permissions 0x8 beyond rwx" },
	{ "unknown tag", { { 1, 6 }, { 0x40, 4 }, { 0x20, 4 } }, 0, "entry 1 has unknown tag 0x40" },
	{ "group_obj first", { { 4, 4 }, { 1, 6 }, { 0x20, 4 } }, 0, "entry 0: tag 0x4 out of order" },
	{ "two user_obj", { { 1, 6 }, { 1, 6 }, { 4, 4 }, { 0x20, 4 } }, 0, "entry 1: tag 0x1 out of order" },
	{ "user after group", { { 1, 6 }, { 4, 4 }, { 2, 4 }, { 0x10, 4 }, { 0x20, 4 } }, 0,
	  "entry 2: tag 0x2 out of order" },
	{ "named, no mask", { { 1, 6 }, { 2, 6 }, { 4, 4 }, { 0x20, 4 } }, 0,
	  "entry 3: tag 0x20 out of order" },
	{ "entry after other", { { 1, 6 }, { 4, 4 }, { 0x20, 4 }, { 0x20, 4 } }, 0,
	  "entry 3: tag 0x20 out of order" },
	{ "no other", { { 1, 6 }, { 4, 4 }, { 0x10, 4 } }, 0, "ends without its other entry" },
	{ "no mask", { { 1, 6 }, { 2, 6 }, { 4, 4 } }, 0, "ends without its mask entry" },
};

static size_t acl_bad_fill(const struct acl_bad *c, uint8_t *buf)
{
	size_t n = 4;

	put_le32(buf, 2);
	for (int i = 0; i < 8 && c->ent[i][0]; i++, n += 8) {
		put_le16(buf + n, c->ent[i][0]);
		put_le16(buf + n + 2, c->ent[i][1]);
		put_le32(buf + n + 4, c->ent[i][0] == 2 || c->ent[i][0] == 8 ? 1000 + i : 0xffffffff);
	}
	return c->len ? c->len : n;
}

START_TEST(test_acl_bad)
{
	static uint8_t buf[65540];
	const struct acl_bad *c = &acl_bad[_i];
	uint8_t *o = (uint8_t *)1;
	size_t len, n = 1;
	int err;

	memset(buf, 0, sizeof(buf));
	len = acl_bad_fill(c, buf);
	if (_i == 2)
		put_le32(buf, 1);
	err = ek_acl_from_xattr(buf, len, &o, &n);
	if (err != -EINVAL || !strstr(ek_last_error()->msg, c->msg))
		ck_abort_msg("acl case %d (%s): got %d '%s', want '%s'", _i, c->what, err,
			     ek_last_error()->msg, c->msg);
	ck_assert_ptr_null(o);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(test_acl_build)
{
	const struct ek_xattr_new x[] = {
		{ "system.posix_acl_default", dacl_vfs, sizeof(dacl_vfs) },
		{ "system.posix_acl_access", acl_vfs, sizeof(acl_vfs) },
	};
	struct ek_inode ei;
	struct seen s;
	uint8_t *v, *back;
	size_t n, bn;

	fx_init(1024, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, EXTRA);
	ck_assert_int_eq(build(x, 2), 0);
	walk(&s);
	/* on-disk form (36 bytes) in the body, the default ACL spills */
	ck_assert_str_eq(s.text, "system.posix_acl_access=01000000..36;"
			 "B:system.posix_acl_default=01000000..28;");
	check_block_hashes();
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, EXT4_XATTR_INDEX_POSIX_ACL_ACCESS, "", 0, &v, &n), 0);
	ck_assert_uint_eq(n, sizeof(acl_disk));
	ck_assert_mem_eq(v, acl_disk, n);
	ck_assert_int_eq(ek_acl_to_xattr(v, n, &back, &bn), 0);
	ck_assert_uint_eq(bn, sizeof(acl_vfs));
	ck_assert_mem_eq(back, acl_vfs, bn);
	free(v);
	free(back);
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT, "", 0, &v, &n), 0);
	ck_assert_int_eq(ek_acl_to_xattr(v, n, &back, &bn), 0);
	ck_assert_mem_eq(back, dacl_vfs, sizeof(dacl_vfs));
	free(v);
	free(back);
	ek_inode_release(&ei);
	fx_done();
}
END_TEST

/* ---- refusals: -EINVAL and -ENOSPC, each leaving @raw alone ---- */

static char long_name[5 + 256 + 1];
static const uint8_t bad_acl[] = { 1, 0, 0, 0, 1, 0, 6, 0 };
static struct ek_xattr_new many[60];
static char many_names[60][16];

static const struct build_bad {
	const char *what;
	int err;
	const char *msg;
} build_bad[] = {
	{ "unknown prefix", -EINVAL, "inode 12: xattr 'foo.bar' has no known prefix" },
	{ "bare prefix", -EINVAL, "xattr name 'user.' is a bare prefix" },
	{ "name too long", -EINVAL, "name of 256 bytes after the prefix exceeds 255" },
	{ "given twice", -EINVAL, "inode 12: xattr 'user.a' is given twice" },
	{ "no name", -EINVAL, "xattr without a name" },
	{ "no value", -EINVAL, "xattr 'user.a' has 3 bytes but no value" },
	{ "bad acl", -EINVAL, "inode 12: xattr 'system.posix_acl_access': acl version 1, expected 2" },
	{ "bad extra_isize", -EINVAL, "i_extra_isize 30 is invalid" },
	{ "value too large", -ENOSPC,
	  "inode 12: xattr 'user.big' of 2000 bytes fits neither in the inode body nor in the xattr block" },
	{ "value beyond 64k", -ENOSPC, "xattr 'user.huge' of 70000 bytes fits neither" },
	{ "too many", -ENOSPC, "fits neither" },
	{ "system.data too large", -ENOSPC, "xattr 'system.data' of 100 bytes does not fit in the inode body" },
	{ "system.data, no body", -ENOSPC, "'system.data' of 0 bytes does not fit" },
};

START_TEST(test_build_bad)
{
	static uint8_t huge[70000];
	const struct build_bad *c = &build_bad[_i];
	struct ek_xattr_new x[3] = { { "user.ok", "1", 1 } };
	struct ek_xattr_new *xp = x;
	uint8_t before[ISZ];
	size_t n = 2;
	int err;

	fill_values();
	fx_init(1024, 0, _i == 7 ? 30 : _i == 12 ? 0 : EXTRA);
	switch (_i) {
	case 0: x[1] = (struct ek_xattr_new){ "foo.bar", "x", 1 }; break;
	case 1: x[1] = (struct ek_xattr_new){ "user.", "x", 1 }; break;
	case 2:
		memcpy(long_name, "user.", 5);
		memset(long_name + 5, 'n', 256);
		x[1] = (struct ek_xattr_new){ long_name, "x", 1 };
		break;
	case 3:
		x[1] = (struct ek_xattr_new){ "user.a", "x", 1 };
		x[2] = (struct ek_xattr_new){ "user.a", "y", 1 };
		n = 3;
		break;
	case 4: x[1] = (struct ek_xattr_new){ NULL, "x", 1 }; break;
	case 5: x[1] = (struct ek_xattr_new){ "user.a", NULL, 3 }; break;
	case 6: x[1] = (struct ek_xattr_new){ "system.posix_acl_access", bad_acl, sizeof(bad_acl) }; break;
	case 7: break;
	case 8: x[1] = (struct ek_xattr_new){ "user.big", v_big, 2000 }; break;
	case 9: x[1] = (struct ek_xattr_new){ "user.huge", huge, sizeof(huge) }; break;
	case 10:
		for (unsigned i = 0; i < 60; i++) {
			snprintf(many_names[i], sizeof(many_names[i]), "user.k%02u", i % 100);
			many[i] = (struct ek_xattr_new){ many_names[i], v30[i % 8], 30 };
		}
		xp = many;
		n = 60;
		break;
	case 11: x[1] = (struct ek_xattr_new){ "system.data", v_big, 100 }; break;
	case 12: x[1] = (struct ek_xattr_new){ "system.data", "", 0 }; break;
	}
	memset(raw + IB_OFF, 0x77, ISZ - IB_OFF);
	memcpy(before, raw, ISZ);
	err = build(xp, n);
	if (err != c->err || !strstr(ek_last_error()->msg, c->msg))
		ck_abort_msg("case %d (%s): got %d '%s', want %d '%s'", _i, c->what, err,
			     ek_last_error()->msg, c->err, c->msg);
	ck_assert_ptr_null(blk);
	ck_assert_mem_eq(raw, before, ISZ);
	fx_done();
}
END_TEST

/* ---- e2fsprogs as oracle ---- */

static bool have_tool(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1 || test -x /sbin/%s "
		 "|| test -x /usr/sbin/%s", name, name, name);
	return system(cmd) == 0;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void put_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static uint8_t *get_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

struct ora_file {
	const char *name;
	const struct ek_xattr_new *x;
	size_t n;
	bool block;		/* the build needs the xattr block */
	ek_ino_t ino;		/* from debugfs stat */
};

/*
 * Build the xattrs of each file into the image: a file that needs a block
 * had one allocated by debugfs ea_set, reused here (i_file_acl, i_blocks
 * and the bitmaps stay as e2fsprogs left them).
 */
static void ora_write(const char *img, const struct ora_file *f, size_t nf)
{
	struct ek_open_opts o = { 0 };
	struct ek_fs *fs;
	int fd = open(img, O_RDWR);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ek_fs_open(img, &o, &fs), 0);
	for (size_t i = 0; i < nf; i++) {
		struct ek_inode ei;
		ek_blk_t iblk;
		uint32_t ioff;
		ek_ino_t ino = f[i].ino;
		uint8_t ib[1024], *xb = NULL;

		ck_assert_int_eq(ek_inode_read(fs, ino, &ei), 0);
		ck_assert_uint_eq(!!ei.file_acl, f[i].block);
		ck_assert_int_eq(ek_inode_loc(fs, ino, &iblk, &ioff), 0);
		ck_assert_int_eq(pread(fd, ib, fs->inode_size, iblk * fs->blksz + ioff),
				 fs->inode_size);
		ck_assert_int_eq(ek_xattr_build(fs, ino, ib, f[i].x, f[i].n, &xb), 0);
		ck_assert_uint_eq(!!xb, f[i].block);
		if (xb) {
			ek_xattr_block_csum_set(fs, ei.file_acl, xb);
			ck_assert_int_eq(pwrite(fd, xb, fs->blksz, ei.file_acl * fs->blksz),
					 fs->blksz);
			free(xb);
		}
		ek_inode_csum_set(fs, ino, ib);
		ck_assert_int_eq(pwrite(fd, ib, fs->inode_size, iblk * fs->blksz + ioff),
				 fs->inode_size);
		ek_inode_release(&ei);
	}
	ek_fs_close(fs);
	close(fd);
}

START_TEST(test_oracle)
{
	static const char *const cfg[] = {
		"-b 4096 -I 256",			/* metadata_csum, 4k */
		"-b 1024 -I 256 -O ^metadata_csum",
		"-b 1024 -I 128",			/* no body: all in the block */
	};
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char dir[256], img[300], src[300], val[300], out[300];
	const struct ek_xattr_new f1[] = {
		{ "user.k0", v30[0], 30 }, { "user.k1", v30[1], 30 }, { "user.k2", v30[2], 30 },
		{ "user.big", v_big, 300 }, { "user.e", "", 0 }, { "user.\xc3\xa9t\xc3\xa9", "x", 1 },
		{ "security.selinux", selinux, sizeof(selinux) - 1 },
		{ "trusted.t", "\x00\xff\x10", 3 },
		{ "system.posix_acl_access", acl_vfs, sizeof(acl_vfs) },
	};
	const struct ek_xattr_new f2[] = { { "user.a", "bar", 3 }, { "user.b", "", 0 } };
	const struct ek_xattr_new f3[] = { { "system.posix_acl_default", dacl_vfs, sizeof(dacl_vfs) } };
	unsigned compared = 0;

	if (!have_tool("mke2fs") || !have_tool("debugfs") || !have_tool("e2fsck")) {
		printf("check_xattrbuild: SKIP e2fsprogs oracle: mke2fs, debugfs or e2fsck not found\n");
		return;
	}
	fill_values();
	snprintf(dir, sizeof(dir), "%s/ek-xbuild-XXXXXX", tmp);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/img", dir);
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(val, sizeof(val), "%s/val", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	put_file(src, "hello\n", 6);
	put_file(val, v_big, 700);	/* forces an xattr block */
	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		bool small = c == 2;
		struct ora_file f[] = {
			{ "f1", f1, sizeof(f1) / sizeof(f1[0]), true },
			{ "f2", f2, 2, small },
			{ "d3", f3, 1, small },
		};

		ck_assert_int_eq(sh("mke2fs -q -F -t ext4 %s '%s' 16M >/dev/null 2>&1", cfg[c], img), 0);
		ck_assert_int_eq(sh("debugfs -w -R 'write %s f1' '%s' >/dev/null 2>&1", src, img), 0);
		ck_assert_int_eq(sh("debugfs -w -R 'write %s f2' '%s' >/dev/null 2>&1", src, img), 0);
		ck_assert_int_eq(sh("debugfs -w -R 'mkdir d3' '%s' >/dev/null 2>&1", img), 0);
		for (size_t i = 0; i < 3; i++) {
			size_t n;
			uint8_t *t;

			ck_assert_int_eq(sh("debugfs -R 'stat /%s' '%s' >'%s' 2>/dev/null",
					    f[i].name, img, out), 0);
			t = get_file(out, &n);
			ck_assert_ptr_nonnull(t);
			t[n] = 0;
			ck_assert_int_eq(sscanf((char *)t, "Inode: %u", &f[i].ino), 1);
			free(t);
			if (f[i].block)
				ck_assert_int_eq(sh("debugfs -w -R 'ea_set -f %s %s user.tmp' '%s' >/dev/null 2>&1",
						    val, f[i].name, img), 0);
		}
		ck_assert_int_eq(sh("e2fsck -fn '%s' >/dev/null 2>&1", img), 0);
		ora_write(img, f, 3);
		if (sh("e2fsck -fn '%s' >'%s' 2>&1", img, out)) {
			size_t n;
			uint8_t *t = get_file(out, &n);

			ck_abort_msg("e2fsck -fn after %s: %.*s", cfg[c], (int)n, t);
		}
		/* each value as debugfs reads it (ACLs converted back to the xattr form) */
		for (size_t i = 0; i < 3; i++) {
			for (size_t k = 0; k < f[i].n; k++) {
				const struct ek_xattr_new *x = &f[i].x[k];
				size_t n;
				uint8_t *v;

				if ((unsigned char)x->name[5] >= 0x80)
					continue;	/* not through a shell quote */
				unlink(out);
				ck_assert_int_eq(sh("debugfs -R 'ea_get -f %s %s %s' '%s' >/dev/null 2>&1",
						    out, f[i].name, x->name, img), 0);
				v = get_file(out, &n);
				ck_assert_msg(v != NULL, "%s %s: debugfs ea_get wrote nothing",
					      f[i].name, x->name);
				/* debugfs gives id 0 where the kernel gives -1 (no id) */
				if (!strncmp(x->name, "system.posix_acl_", 17))
					for (size_t e = 4; e + 8 <= n; e += 8)
						if (get_le16(v + e) != 2 && get_le16(v + e) != 8)
							put_le32(v + e + 4, 0xffffffff);
				ck_assert_msg(n == x->len && !memcmp(v, x->value, n),
					      "%s %s (%s): debugfs reads %zu bytes, we wrote %zu",
					      f[i].name, x->name, cfg[c], n, x->len);
				free(v);
				compared++;
			}
		}
	}
	printf("check_xattrbuild: e2fsprogs oracle compared %u xattrs, e2fsck -fn clean\n",
	       compared);
	ck_assert_uint_ge(compared, 30);
	ck_assert_int_eq(sh("rm -rf '%s'", dir), 0);
}
END_TEST

static Suite *xattrbuild_suite(void)
{
	Suite *s = suite_create("xattrbuild");
	TCase *tc = tcase_create("core");
	TCase *tb = tcase_create("refused");
	TCase *to = tcase_create("oracle");

	tcase_add_test(tc, test_body_only);
	tcase_add_test(tc, test_spill);
	tcase_add_test(tc, test_block_only);
	tcase_add_test(tc, test_boundaries);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_hash);
	tcase_add_test(tc, test_csum);
	tcase_add_test(tc, test_acl);
	tcase_add_test(tc, test_acl_build);
	suite_add_tcase(s, tc);
	tcase_add_loop_test(tb, test_acl_bad, 0, sizeof(acl_bad) / sizeof(acl_bad[0]));
	tcase_add_loop_test(tb, test_build_bad, 0, sizeof(build_bad) / sizeof(build_bad[0]));
	suite_add_tcase(s, tb);
	tcase_set_timeout(to, 120);
	tcase_add_test(to, test_oracle);
	suite_add_tcase(s, to);
	return s;
}

UNIT_MAIN(xattrbuild_suite)
