// SPDX-License-Identifier: MIT
/*
 * check_xattr.c - in-inode and block xattrs, ea_inode values, the xattr
 * block checksum, ACL conversion; a table of malformed regions reaching
 * every ek_corrupt()/ek_badcrc() site of lib/xattr.c; and e2fsprogs as
 * an oracle (mke2fs -d from a tree with xattrs, compared with debugfs
 * ea_list/ea_get), skipped with a message when the tools are missing.
 */
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include "unit.h"

#define INO	12	/* the inode under test */
#define EAINO	13	/* its ea_inode */
#define XBLK	20	/* its xattr block */
#define VBLK	21	/* the ea_inode's data block */
#define ISZ	256
#define EXTRA	32
#define IB_OFF	(EXT4_GOOD_OLD_INODE_SIZE + EXTRA)	/* in-inode magic */
#define IB_BASE	(IB_OFF + 4)				/* first entry */
#define IB_LEN	(ISZ - IB_BASE)				/* 92 bytes */
#define BSZ	1024

struct xent {
	uint8_t idx;
	const char *name;
	const void *val;
	uint32_t vlen;
	uint32_t inum;
};

/*
 * Lay out entries from @first (relative to @base) and values down from
 * @len, value offsets relative to @base.  Returns the terminator offset.
 */
static uint32_t lay_out(uint8_t *base, uint32_t len, uint32_t first,
			const struct xent *x, int n)
{
	uint32_t off = first, vend = len;

	for (int i = 0; i < n; i++) {
		uint8_t *e = base + off;
		uint8_t nl = strlen(x[i].name);

		e[0] = nl;
		e[1] = x[i].idx;
		put_le16(e + 2, 0);
		if (!x[i].inum && x[i].vlen) {
			vend = (vend - x[i].vlen) & ~3u;
			memcpy(base + vend, x[i].val, x[i].vlen);
			put_le16(e + 2, vend);
		}
		put_le32(e + 4, x[i].inum);
		put_le32(e + 8, x[i].vlen);
		put_le32(e + 12, 0x1000 + i);
		memcpy(e + 16, x[i].name, nl);
		off += EXT4_XATTR_LEN(nl);
	}
	if (off + 4 <= len)
		put_le32(base + off, 0);
	return off;
}

/* test fixture: one fs, a raw inode and a raw xattr block */
static struct unit_fs u;
static uint8_t ibuf[ISZ];
static uint8_t xblk[BSZ];

static void fx_init(uint32_t incompat, uint32_t ro_compat)
{
	unit_fs_init(&u, BSZ, 64, 0, incompat, ro_compat);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	memset(ibuf, 0, sizeof(ibuf));
	memset(xblk, 0, sizeof(xblk));
	put_le16(ibuf + offsetof(struct ext4_inode, i_mode), 0100644);
	put_le16(ibuf + offsetof(struct ext4_inode, i_links_count), 1);
	put_le16(ibuf + offsetof(struct ext4_inode, i_extra_isize), EXTRA);
}

static void fx_ibody(const struct xent *x, int n)
{
	put_le32(ibuf + IB_OFF, EXT4_XATTR_MAGIC);
	lay_out(ibuf + IB_BASE, IB_LEN, 0, x, n);
}

static void fx_block(const struct xent *x, int n)
{
	put_le32(xblk, EXT4_XATTR_MAGIC);
	put_le32(xblk + 4, 1);		/* h_refcount */
	put_le32(xblk + 8, 1);		/* h_blocks */
	lay_out(xblk, BSZ, sizeof(struct ext4_xattr_header), x, n);
	put_le32(ibuf + offsetof(struct ext4_inode, i_file_acl_lo), XBLK);
	put_le32(ibuf + offsetof(struct ext4_inode, i_blocks_lo), 2);
}

static void put_raw_inode(ek_ino_t ino, uint8_t *raw)
{
	if (u.fs->has_csum) {
		uint32_t c = ek_inode_csum(u.fs, ino, raw);

		put_le16(raw + offsetof(struct ext4_inode, l_i_checksum_lo), c & 0xFFFF);
		put_le16(raw + offsetof(struct ext4_inode, i_checksum_hi), c >> 16);
	}
	unit_write(&u, UNIT_IT, (ino - 1) * ISZ, raw, ISZ);
}

/* write the inode and (if used) the block, with checksums when enabled */
static void fx_write(void)
{
	if (u.fs->has_csum)
		put_le32(xblk + offsetof(struct ext4_xattr_header, h_checksum),
			 ek_xattr_block_csum(u.fs, XBLK, xblk));
	unit_write(&u, XBLK, 0, xblk, BSZ);
	put_raw_inode(INO, ibuf);
}

/* an ea_inode holding @len bytes of @fill at VBLK (block-mapped) */
static void fx_ea_inode(uint32_t len, uint8_t fill, uint32_t flags)
{
	uint8_t raw[ISZ] = { 0 }, data[BSZ];

	memset(data, 0, sizeof(data));
	memset(data, fill, len);
	unit_write(&u, VBLK, 0, data, BSZ);
	/* the value's hash, which the kernel keeps in i_atime */
	put_le32(raw + offsetof(struct ext4_inode, i_atime), ek_crc32c(u.fs->csum_seed, data, len));
	put_le16(raw + offsetof(struct ext4_inode, i_mode), 0100600);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
	put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), EXTRA);
	put_le32(raw + offsetof(struct ext4_inode, i_flags), flags);
	put_le32(raw + offsetof(struct ext4_inode, i_size_lo), len);
	put_le32(raw + offsetof(struct ext4_inode, i_blocks_lo), 2);
	put_le32(raw + offsetof(struct ext4_inode, i_block), VBLK);
	put_raw_inode(EAINO, raw);
}

/* what a walk saw: "user.a=6869;trusted.b=;" (hex values) */
struct seen {
	char text[4096];
	unsigned count, in_block, inum;
	int stop_at;		/* return 7 on this entry (1-based), 0 never */
};

static int collect(void *arg, const struct ek_xattr *xa)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	ck_assert_ptr_nonnull(xa->value);
	n += snprintf(s->text + n, sizeof(s->text) - n, "%s%.*s=", xa->prefix,
		      (int)xa->name_len, xa->name);
	for (uint32_t i = 0; i < xa->value_len && i < 8; i++)
		n += snprintf(s->text + n, sizeof(s->text) - n, "%02x", xa->value[i]);
	if (xa->value_len > 8)
		n += snprintf(s->text + n, sizeof(s->text) - n, "..%u", xa->value_len);
	snprintf(s->text + n, sizeof(s->text) - n, ";");
	s->count++;
	s->in_block += xa->in_block;
	if (xa->value_inum)
		s->inum = xa->value_inum;
	if (s->stop_at && s->count == (unsigned)s->stop_at)
		return 7;
	return 0;
}

static int walk(struct seen *s)
{
	struct ek_inode ei;
	int err;

	memset(s->text, 0, sizeof(s->text));
	s->count = s->in_block = s->inum = 0;
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	err = ek_xattr_iterate(u.fs, &ei, collect, s);
	ek_inode_release(&ei);
	return err;
}

static const uint8_t v_bar[] = "bar", v_bin[] = { 0x00, 0xff, 0x10 };
static uint8_t v_big[300];

START_TEST(test_prefix)
{
	ck_assert_str_eq(ek_xattr_prefix(1), "user.");
	ck_assert_str_eq(ek_xattr_prefix(2), "system.posix_acl_access");
	ck_assert_str_eq(ek_xattr_prefix(3), "system.posix_acl_default");
	ck_assert_str_eq(ek_xattr_prefix(4), "trusted.");
	ck_assert_str_eq(ek_xattr_prefix(6), "security.");
	ck_assert_str_eq(ek_xattr_prefix(7), "system.");
	ck_assert_str_eq(ek_xattr_prefix(8), "system.richacl");
	ck_assert_str_eq(ek_xattr_prefix(9), "");
	ck_assert_str_eq(ek_xattr_prefix(0), "");
	ck_assert_str_eq(ek_xattr_prefix(200), "");
}
END_TEST

START_TEST(test_ibody)
{
	const struct xent x[] = {
		{ 1, "foo", v_bar, 3, 0 },
		{ 4, "t1", v_bin, 3, 0 },
		{ 1, "e", NULL, 0, 0 },
		{ 42, "o", NULL, 0, 0 },	/* unknown index: reported, not an error */
	};
	struct seen s = { 0 };

	fx_init(0, 0);
	fx_ibody(x, 4);
	fx_write();
	ck_assert_int_eq(walk(&s), 0);
	ck_assert_str_eq(s.text, "user.foo=626172;trusted.t1=00ff10;user.e=;o=;");
	ck_assert_uint_eq(s.in_block, 0);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_no_ibody)
{
	const struct xent x[] = { { 1, "foo", v_bar, 3, 0 } };
	struct seen s = { 0 };

	/* i_extra_isize 0: the kernel reads no in-inode xattrs */
	fx_init(0, 0);
	fx_ibody(x, 1);
	put_le16(ibuf + offsetof(struct ext4_inode, i_extra_isize), 0);
	fx_write();
	ck_assert_int_eq(walk(&s), 0);
	ck_assert_uint_eq(s.count, 0);
	/* no magic: no xattrs */
	fx_ibody(x, 1);
	put_le32(ibuf + IB_OFF, 0xEA020001);
	fx_write();
	ck_assert_int_eq(walk(&s), 0);
	ck_assert_uint_eq(s.count, 0);
	unit_fs_done(&u);
}
END_TEST

static void block_case(uint32_t ro_compat, bool bad_csum, int expect)
{
	const struct xent xi[] = { { 1, "in", v_bar, 3, 0 } };
	const struct xent xb[] = {
		{ 1, "big", v_big, sizeof(v_big), 0 },
		{ 6, "selinux", v_bar, 3, 0 },
		{ 2, "", v_bin, 3, 0 },
	};
	struct seen s = { 0 };

	for (size_t i = 0; i < sizeof(v_big); i++)
		v_big[i] = i;
	fx_init(0, ro_compat);
	fx_ibody(xi, 1);
	fx_block(xb, 3);
	fx_write();
	if (bad_csum) {
		xblk[BSZ - 1] ^= 0x40;	/* inside user.big's value */
		unit_write(&u, XBLK, 0, xblk, BSZ);
	}
	ck_assert_int_eq(walk(&s), expect);
	/* all entries were delivered before the checksum was reported */
	ck_assert_str_eq(s.text, "user.in=626172;user.big=0001020304050607..300;"
			 "security.selinux=626172;system.posix_acl_access=00ff10;");
	ck_assert_uint_eq(s.in_block, 3);
	if (expect == -EK_BADCRC) {
		ck_assert_uint_eq(ek_last_error()->where, XBLK);
		ck_assert_ptr_nonnull(strstr(ek_last_error()->msg, "checksum"));
	}
	unit_fs_done(&u);
}

START_TEST(test_block_nocsum)
{
	block_case(0, false, 0);
	/* without metadata_csum the checksum field is not looked at */
	block_case(0, true, 0);
}
END_TEST

START_TEST(test_block_csum)
{
	block_case(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, false, 0);
}
END_TEST

START_TEST(test_block_badcsum)
{
	block_case(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, true, -EK_BADCRC);
}
END_TEST

START_TEST(test_block_csum_value)
{
	/* the checksum covers the block number and skips h_checksum */
	uint32_t a, b;

	fx_init(0, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	put_le32(xblk, EXT4_XATTR_MAGIC);
	a = ek_xattr_block_csum(u.fs, XBLK, xblk);
	put_le32(xblk + 16, 0xdeadbeef);
	ck_assert_uint_eq(ek_xattr_block_csum(u.fs, XBLK, xblk), a);
	b = ek_xattr_block_csum(u.fs, XBLK + 1, xblk);
	ck_assert_uint_ne(a, b);
	/* the definition: crc32c(seed, le64 blk) then the block, field as zero */
	{
		uint8_t copy[BSZ];
		__le64 le = cpu_to_le64(XBLK);

		memcpy(copy, xblk, BSZ);
		memset(copy + 16, 0, 4);
		ck_assert_uint_eq(a, ek_crc32c_sw(ek_crc32c_sw(u.fs->csum_seed, &le, 8), copy, BSZ));
	}
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_stop)
{
	const struct xent x[] = { { 1, "a", v_bar, 1, 0 }, { 1, "b", v_bar, 2, 0 } };
	struct seen s = { .stop_at = 1 };

	fx_init(0, 0);
	fx_ibody(x, 2);
	fx_block(x, 2);
	fx_write();
	ck_assert_int_eq(walk(&s), 7);
	ck_assert_uint_eq(s.count, 1);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_get)
{
	const struct xent xi[] = { { 1, "a", v_bar, 3, 0 }, { 7, "data", v_bin, 3, 0 } };
	const struct xent xb[] = { { 1, "b", v_bin, 2, 0 }, { 1, "a", v_bin, 1, 0 } };
	struct ek_inode ei;
	uint8_t *v;
	size_t n;

	fx_init(0, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	fx_ibody(xi, 2);
	fx_block(xb, 2);
	fx_write();
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	/* the inode body wins over the block, as the kernel */
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, 1, "a", 1, &v, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_mem_eq(v, "bar", 3);
	free(v);
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, 1, "b", 1, &v, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_mem_eq(v, v_bin, 2);
	free(v);
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, 7, "data", 4, &v, &n), 0);
	free(v);
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, 4, "a", 1, &v, &n), -ENODATA);
	ck_assert_ptr_null(v);
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, 1, "ab", 2, &v, &n), -ENODATA);
	/* a bad block checksum fails lookups through the block only */
	xblk[BSZ - 1] ^= 1;
	unit_write(&u, XBLK, 0, xblk, BSZ);
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, 1, "b", 1, &v, &n), -EK_BADCRC);
	ck_assert_ptr_null(v);
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, 1, "a", 1, &v, &n), 0);
	free(v);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_ea_inode)
{
	const struct xent x[] = { { 1, "huge", NULL, 700, EAINO }, { 1, "s", v_bar, 3, 0 } };
	struct seen s = { 0 };
	struct ek_inode ei;
	uint8_t *v;
	size_t n;

	fx_init(EXT4_FEATURE_INCOMPAT_EA_INODE, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	fx_ea_inode(700, 0xab, EXT4_EA_INODE_FL);
	fx_block(x, 2);
	fx_write();
	ck_assert_int_eq(walk(&s), 0);
	ck_assert_str_eq(s.text, "user.huge=abababababababab..700;user.s=626172;");
	ck_assert_uint_eq(s.inum, EAINO);
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	ck_assert_int_eq(ek_xattr_get(u.fs, &ei, 1, "huge", 4, &v, &n), 0);
	ck_assert_uint_eq(n, 700);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(v[i], 0xab);
	free(v);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

/*
 * Malformed regions: each case breaks one rule.  Together they reach every
 * ek_corrupt()/ek_badcrc() site in lib/xattr.c (the message fragment names
 * the site).
 */
static const struct bad_case {
	const char *what;
	int err;
	const char *msg;
} bad[] = {
	{ "not terminated", -EK_CORRUPT, "not terminated" },
	{ "header past end", -EK_CORRUPT, "header runs past" },
	{ "name past end", -EK_CORRUPT, "name of 80 bytes runs past" },
	{ "name with NUL", -EK_CORRUPT, "contains a NUL" },
	{ "value size too large", -EK_CORRUPT, "value size 70000 exceeds" },
	{ "value misaligned", -EK_CORRUPT, "not 4-byte aligned" },
	{ "value past end", -EK_CORRUPT, "runs past the end at 92" },
	{ "value overlaps entries", -EK_CORRUPT, "overlaps the entry table" },
	{ "block value past end", -EK_CORRUPT, "runs past the end at 1024" },
	{ "block value overlaps", -EK_CORRUPT, "overlaps the entry table" },
	{ "block out of range", -EK_CORRUPT, "outside the filesystem" },
	{ "block magic", -EK_CORRUPT, "bad magic" },
	{ "block h_blocks", -EK_CORRUPT, "h_blocks 2" },
	{ "block not terminated", -EK_CORRUPT, "not terminated" },
	{ "ea_inode feature off", -EK_CORRUPT, "feature is off" },
	{ "ea_inode out of range", -EK_CORRUPT, "outside 1..32" },
	{ "ea_inode no flag", -EK_CORRUPT, "lacks the EA_INODE flag" },
	{ "ea_inode inline", -EK_CORRUPT, "has inline data" },
	{ "ea_inode size", -EK_CORRUPT, "holds 600 bytes, the entry says 700" },
	{ "ea_inode too large", -EK_CORRUPT, "value size 65537 exceeds" },
	{ "ea_inode bad csum", -EK_BADCRC, "checksum mismatch in ea_inode" },
	{ "block bad csum", -EK_BADCRC, "checksum 0x" },
	{ "ea_inode value hash", -EK_CORRUPT, "holds a value of hash" },
	{ "ea_inode entry hash", -EK_CORRUPT, "e_hash 0x00001000 does not match ea_inode 13" },
};

static void bad_setup(int i)
{
	const struct xent one[] = { { 1, "a", v_bar, 3, 0 } };
	const struct xent ea[] = { { 1, "ea", NULL, 700, EAINO } };
	uint32_t incompat = 0, ro = 0;
	char name[100];

	if ((i >= 15 && i <= 20) || i >= 22)
		incompat = EXT4_FEATURE_INCOMPAT_EA_INODE;
	if (i == 20 || i == 21)
		ro = EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	fx_init(incompat, ro);
	memset(name, 'n', sizeof(name));
	switch (i) {
	case 0:		/* entry of 92 bytes fills the region: no room for the zero word */
		name[76] = 0;
		fx_ibody((struct xent[]){ { 1, name, NULL, 0, 0 } }, 1);
		break;
	case 1:		/* next entry at 80 has 12 bytes left */
		name[64] = 0;
		fx_ibody((struct xent[]){ { 1, name, NULL, 0, 0 } }, 1);
		put_le32(ibuf + IB_BASE + 80, 0x0101);
		break;
	case 2:
		name[64] = 0;
		fx_ibody((struct xent[]){ { 1, name, NULL, 0, 0 } }, 1);
		ibuf[IB_BASE] = 80;
		break;
	case 3:
		fx_ibody((struct xent[]){ { 1, "abcd", v_bar, 3, 0 } }, 1);
		ibuf[IB_BASE + 16 + 2] = 0;
		break;
	case 4:
		fx_ibody(one, 1);
		put_le32(ibuf + IB_BASE + 8, 70000);
		break;
	case 5:
		fx_ibody(one, 1);
		put_le16(ibuf + IB_BASE + 2, get_le16(ibuf + IB_BASE + 2) - 2);
		break;
	case 6:
		fx_ibody(one, 1);
		put_le32(ibuf + IB_BASE + 8, 9);
		break;
	case 7:		/* value at 20, the table ends at 20 + 4 */
		fx_ibody(one, 1);
		put_le16(ibuf + IB_BASE + 2, 20);
		break;
	case 8:
		fx_block(one, 1);
		put_le32(xblk + 32 + 8, 5);
		break;
	case 9:
		fx_block(one, 1);
		put_le16(xblk + 32 + 2, 48);
		break;
	case 10:
		fx_block(one, 1);
		put_le32(ibuf + offsetof(struct ext4_inode, i_file_acl_lo), 64);
		break;
	case 11:
		fx_block(one, 1);
		put_le32(xblk, 0xEA010000);
		break;
	case 12:
		fx_block(one, 1);
		put_le32(xblk + 8, 2);
		break;
	case 13:	/* entries fill the block to its last byte */
		fx_block(one, 1);
		memset(xblk + 32, 0xff, BSZ - 32);
		for (uint32_t off = 32; off < BSZ; off += 20) {
			memset(xblk + off, 0, 16);
			xblk[off] = off == BSZ - 32 ? 16 : 4;
			xblk[off + 1] = 1;
			if (off == BSZ - 32)
				break;
		}
		break;
	case 14:
	case 15:
		fx_block(ea, 1);
		if (i == 15)
			put_le32(xblk + 32 + 4, 1000);
		break;
	case 16:
		fx_ea_inode(700, 1, 0);
		fx_block(ea, 1);
		break;
	case 17:
		fx_ea_inode(700, 1, EXT4_EA_INODE_FL | EXT4_INLINE_DATA_FL);
		fx_block(ea, 1);
		break;
	case 18:
		fx_ea_inode(600, 1, EXT4_EA_INODE_FL);
		fx_block(ea, 1);
		break;
	case 19:
		fx_ea_inode(700, 1, EXT4_EA_INODE_FL);
		fx_block((struct xent[]){ { 1, "ea", NULL, 65537, EAINO } }, 1);
		break;
	case 20: {	/* the ea_inode's checksum is stale */
		uint8_t raw[ISZ];

		fx_ea_inode(700, 1, EXT4_EA_INODE_FL);
		ck_assert_int_eq(pread(u.fd, raw, ISZ, UNIT_IT * BSZ + (EAINO - 1) * ISZ), ISZ);
		raw[offsetof(struct ext4_inode, i_mtime)] ^= 1;
		unit_write(&u, UNIT_IT, (EAINO - 1) * ISZ, raw, ISZ);
		fx_block(ea, 1);
		break;
	}
	case 21:
		fx_block(one, 1);
		break;
	case 22: {	/* i_atime does not hold the value's hash */
		uint8_t raw[ISZ];

		fx_ea_inode(700, 1, EXT4_EA_INODE_FL);
		ck_assert_int_eq(pread(u.fd, raw, ISZ, UNIT_IT * BSZ + (EAINO - 1) * ISZ), ISZ);
		raw[offsetof(struct ext4_inode, i_atime)] ^= 1;
		put_raw_inode(EAINO, raw);
		fx_block(ea, 1);
		break;
	}
	case 23:	/* an in-inode entry's e_hash must cover the value hash */
		fx_ea_inode(700, 1, EXT4_EA_INODE_FL);
		fx_ibody(ea, 1);
		break;
	}
	fx_write();
	if (i == 21) {
		xblk[100] ^= 1;
		unit_write(&u, XBLK, 0, xblk, BSZ);
	}
}

START_TEST(test_bad)
{
	const struct bad_case *c = &bad[_i];
	struct seen s = { 0 };
	int err;

	bad_setup(_i);
	err = walk(&s);
	if (err != c->err || !strstr(ek_last_error()->msg, c->msg))
		ck_abort_msg("case %d (%s): got %d '%s', want %d '%s'", _i, c->what, err,
			     ek_last_error()->msg, c->err, c->msg);
	/* corrupt regions deliver nothing */
	if (c->err == -EK_CORRUPT && _i < 10)
		ck_assert_uint_eq(s.count, 0);
	unit_fs_done(&u);
}
END_TEST

/* ---- ACLs ---- */

/* on-disk: USER_OBJ rw, USER 1234 rw, GROUP_OBJ r, GROUP 55 r, MASK rw, OTHER r */
static const uint8_t acl_disk[] = {
	1, 0, 0, 0,
	0x01, 0, 6, 0,
	0x02, 0, 6, 0, 0xd2, 0x04, 0, 0,
	0x04, 0, 4, 0,
	0x08, 0, 4, 0, 55, 0, 0, 0,
	0x10, 0, 6, 0,
	0x20, 0, 4, 0,
};
static const uint8_t acl_vfs[] = {
	2, 0, 0, 0,
	0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
	0x02, 0, 6, 0, 0xd2, 0x04, 0, 0,
	0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	0x08, 0, 4, 0, 55, 0, 0, 0,
	0x10, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
	0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
};

START_TEST(test_acl)
{
	static const uint8_t min[] = { 1, 0, 0, 0, 1, 0, 6, 0, 4, 0, 4, 0, 0x20, 0, 4, 0 };
	static const uint8_t hdr[] = { 1, 0, 0, 0 };
	uint8_t *o;
	size_t n;

	ck_assert_int_eq(ek_acl_to_xattr(acl_disk, sizeof(acl_disk), &o, &n), 0);
	ck_assert_uint_eq(n, sizeof(acl_vfs));
	ck_assert_mem_eq(o, acl_vfs, n);
	free(o);
	ck_assert_int_eq(ek_acl_to_xattr(min, sizeof(min), &o, &n), 0);
	ck_assert_uint_eq(n, 4 + 3 * 8);
	ck_assert_uint_eq(get_le32(o + 4 + 16 + 4), 0xFFFFFFFF);
	free(o);
	/* an empty ACL is the header alone */
	ck_assert_int_eq(ek_acl_to_xattr(hdr, sizeof(hdr), &o, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(get_le32(o), 2);
	free(o);
}
END_TEST

static const struct acl_bad {
	const char *what;
	size_t len;
	const char *msg;
} acl_bad[] = {
	{ "short", 3, "shorter than its header" },
	{ "huge", 65540, "exceeds 65536" },
	{ "version", 36, "acl version 2" },
	{ "partial short", 10, "not a whole number" },
	{ "partial long", 24, "not four short entries" },
	{ "unknown tag", 36, "unknown tag 0x40" },
	{ "long entry truncated", 28, "acl entry at byte 24 runs past the end" },
	{ "entries end early", 28, "entries end at byte 24" },
	{ "short entry truncated", 28, "acl entry at byte 28 runs past the end" },
};

START_TEST(test_acl_bad)
{
	static uint8_t buf[65540];
	const struct acl_bad *c = &acl_bad[_i];
	uint8_t *o = (uint8_t *)1;
	size_t n = 1;
	int err;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, acl_disk, sizeof(acl_disk));
	switch (_i) {
	case 2: buf[0] = 2; break;
	case 5: buf[4 + 4 + 8] = 0x40; break;	/* GROUP_OBJ -> 0x40 */
	case 6:	/* 5 entries by size: USER_OBJ USER USER, then a USER at 24 */
		put_le16(buf + 4, 0x01);
		for (int k = 0; k < 3; k++)
			put_le16(buf + 8 + 8 * k, 0x02);
		break;
	case 7:	/* 5 entries by size, all short */
		for (int k = 0; k < 5; k++)
			put_le16(buf + 4 + 4 * k, 0x20);
		break;
	case 8:	/* 5 entries by size, USER USER USER use up the bytes */
		for (int k = 0; k < 3; k++)
			put_le16(buf + 4 + 8 * k, 0x02);
		break;
	}
	err = ek_acl_to_xattr(buf, c->len, &o, &n);
	if (err != -EK_CORRUPT || !strstr(ek_last_error()->msg, c->msg))
		ck_abort_msg("acl case %d (%s): got %d '%s', want '%s'", _i, c->what, err,
			     ek_last_error()->msg, c->msg);
	ck_assert_ptr_null(o);
	ck_assert_uint_eq(n, 0);
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

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 > cap) {
			cap = cap * 2 + 8192;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* run @cmd into @out (a file) and return its text */
static char *run(const char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *run(const char *out, const char *fmt, ...)
{
	char cmd[2048];
	size_t n, len;
	va_list ap;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof(cmd) - n, " >'%s' 2>/dev/null", out);
	ck_assert_int_eq(system(cmd), 0);
	return slurp(out, &len);
}

struct ora_x {
	char name[300];
	uint8_t *val;
	uint32_t len;
};

struct ora_list {
	struct ora_x x[64];
	unsigned n;
};

static int ora_collect(void *arg, const struct ek_xattr *xa)
{
	struct ora_list *l = arg;
	struct ora_x *x;

	ck_assert_uint_lt(l->n, 64);
	x = &l->x[l->n++];
	snprintf(x->name, sizeof(x->name), "%s%.*s", xa->prefix, (int)xa->name_len, xa->name);
	x->len = xa->value_len;
	x->val = malloc(xa->value_len + 1);
	memcpy(x->val, xa->value, xa->value_len);
	return 0;
}

static bool try_setxattr(const char *path, const char *name, const void *v, size_t n)
{
	return setxattr(path, name, v, n, 0) == 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* compare ek_xattr_iterate on each file of @img with debugfs ea_list/ea_get */
static unsigned oracle_image(const char *dir, const char *img, const char *tree,
			     const char *const *files, size_t nfiles)
{
	struct ek_open_opts o = { 0 };
	struct ek_fs *fs;
	char out[512], vfile[512];
	unsigned compared = 0;

	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(vfile, sizeof(vfile), "%s/val", dir);
	ck_assert_int_eq(ek_fs_open(img, &o, &fs), 0);
	for (size_t f = 0; f < nfiles; f++) {
		struct ora_list l = { .n = 0 };
		struct ek_inode ei;
		unsigned ino = 0, k = 0;
		char *text, *line, *save;

		text = run(out, "debugfs -R 'stat /%s' '%s'", files[f], img);
		ck_assert_int_eq(sscanf(text, "Inode: %u", &ino), 1);
		free(text);
		ck_assert_int_eq(ek_inode_read(fs, ino, &ei), 0);
		ck_assert_int_eq(ek_xattr_iterate(fs, &ei, ora_collect, &l), 0);
		ek_inode_release(&ei);

		text = run(out, "debugfs -R 'ea_list /%s' '%s'", files[f], img);
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char name[300];
			size_t len, vlen;
			char *val;

			if (sscanf(line, "  %299s (%zu)", name, &len) != 2)
				continue;
			ck_assert_msg(k < l.n, "/%s: debugfs lists %s beyond our %u", files[f],
				      name, l.n);
			ck_assert_msg(!strcmp(name, l.x[k].name), "/%s: entry %u is %s, we say %s",
				      files[f], k, name, l.x[k].name);
			ck_assert_uint_eq(len, l.x[k].len);
			/* raw value bytes (on-disk ACL form with -r) */
			unlink(vfile);
			free(run(out, "debugfs -R 'ea_get -r -f %s /%s %s' '%s'", vfile,
				 files[f], name, img));
			val = slurp(vfile, &vlen);
			ck_assert_ptr_nonnull(val);
			ck_assert_uint_eq(vlen, l.x[k].len);
			ck_assert_mem_eq(val, l.x[k].val, vlen);
			free(val);
			/* ACLs: our conversion equals what the kernel returned from the tree */
			if (!strncmp(name, "system.posix_acl_", 17)) {
				char src[512];
				uint8_t kv[1024], *cv;
				ssize_t kn;
				size_t cn;

				snprintf(src, sizeof(src), "%s/%s", tree, files[f]);
				kn = getxattr(src, name, kv, sizeof(kv));
				ck_assert_int_gt(kn, 0);
				ck_assert_int_eq(ek_acl_to_xattr(l.x[k].val, l.x[k].len, &cv, &cn), 0);
				ck_assert_uint_eq(cn, (size_t)kn);
				ck_assert_mem_eq(cv, kv, cn);
				free(cv);
			}
			k++;
			compared++;
		}
		free(text);
		ck_assert_msg(k == l.n, "/%s: debugfs lists %u xattrs, we found %u", files[f], k, l.n);
		for (unsigned i = 0; i < l.n; i++)
			free(l.x[i].val);
	}
	ek_fs_close(fs);
	return compared;
}

START_TEST(test_oracle)
{
	static const char *const files[] = { "a", "b", "c", "d", "e" };
	static const char *const files_ea[] = { "a", "b", "c", "d", "e", "f" };
	static const struct { const char *opts; bool ea; } cfg[] = {
		{ "", false },				/* ext4 defaults: metadata_csum */
		{ "-O ^metadata_csum -I 128", false },	/* everything in the block */
		{ "-O ea_inode", true },		/* a value in an ea_inode */
	};
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char dir[256], tree[300], img[300], p[1024];
	char big[3001], v[64];
	/* u:1234 rw, g:55 r, mask rw (VFS form, as setfacl writes it) */
	static const uint8_t acl[] = {
		2, 0, 0, 0,
		0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		0x02, 0, 6, 0, 0xd2, 0x04, 0, 0,
		0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x08, 0, 4, 0, 55, 0, 0, 0,
		0x10, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	};
	static const uint8_t dacl[] = {
		2, 0, 0, 0,
		0x01, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
		0x02, 0, 7, 0, 99, 0, 0, 0,
		0x04, 0, 5, 0, 0xff, 0xff, 0xff, 0xff,
		0x10, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 5, 0, 0xff, 0xff, 0xff, 0xff,
	};
	unsigned total = 0;
	bool ea_ok;

	if (!have_tool("mke2fs") || !have_tool("debugfs")) {
		printf("check_xattr: SKIP e2fsprogs oracle: mke2fs or debugfs not found\n");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/ek-xattr-XXXXXX", tmp);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	ck_assert_int_eq(mkdir(tree, 0755), 0);
	snprintf(p, sizeof(p), "%s/a", tree);
	write_file(p, "hello\n");
	if (!try_setxattr(p, "user.foo", "bar", 3)) {
		printf("check_xattr: SKIP e2fsprogs oracle: no user xattrs in %s: %s\n",
		       tmp, strerror(errno));
		snprintf(p, sizeof(p), "rm -rf '%s'", dir);
		ck_assert_int_eq(system(p), 0);
		return;
	}
	/* trusted.* and security.* need privileges; ACLs need fs support */
	if (!try_setxattr(p, "trusted.t1", "\x00\xff\x10", 3))
		printf("check_xattr: oracle without trusted.*: %s\n", strerror(errno));
	if (!try_setxattr(p, "security.selinux", "system_u:object_r:etc_t:s0", 26))
		printf("check_xattr: oracle without security.*: %s\n", strerror(errno));
	if (!try_setxattr(p, "system.posix_acl_access", acl, sizeof(acl)))
		printf("check_xattr: oracle without ACLs: %s\n", strerror(errno));
	snprintf(p, sizeof(p), "%s/b", tree);
	write_file(p, "b\n");
	memset(big, 'v', 700);
	ck_assert(try_setxattr(p, "user.big", big, 700));	/* lands in the block */
	snprintf(p, sizeof(p), "%s/c", tree);
	write_file(p, "");
	for (int i = 0; i < 6; i++) {
		char n[32];

		snprintf(n, sizeof(n), "user.k%d", i);
		memset(v, 'a' + i, 30);
		ck_assert(try_setxattr(p, n, v, 30));
	}
	snprintf(p, sizeof(p), "%s/d", tree);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	try_setxattr(p, "system.posix_acl_default", dacl, sizeof(dacl));
	try_setxattr(p, "user.dir", "x", 1);
	snprintf(p, sizeof(p), "%s/e", tree);
	write_file(p, "");
	ck_assert(try_setxattr(p, "user.empty", "", 0));

	for (size_t c = 0; c < 2; c++) {
		snprintf(img, sizeof(img), "%s/img%zu", dir, c);
		snprintf(p, sizeof(p), "mke2fs -q -F -t ext4 %s -d '%s' '%s' 8M >/dev/null 2>&1",
			 cfg[c].opts, tree, img);
		ck_assert_msg(system(p) == 0, "%s failed", p);
		total += oracle_image(dir, img, tree, files, 5);
	}
	/* a 3000-byte value does not fit a 1k block: ea_inode */
	snprintf(p, sizeof(p), "%s/f", tree);
	write_file(p, "");
	memset(big, 'h', 3000);
	ea_ok = try_setxattr(p, "user.huge", big, 3000);
	if (ea_ok) {
		snprintf(img, sizeof(img), "%s/img2", dir);
		snprintf(p, sizeof(p), "mke2fs -q -F -t ext4 %s -d '%s' '%s' 8M >/dev/null 2>&1",
			 cfg[2].opts, tree, img);
		ck_assert_msg(system(p) == 0, "%s failed", p);
		total += oracle_image(dir, img, tree, files_ea, 6);
	} else {
		printf("check_xattr: oracle without ea_inode: %s\n", strerror(errno));
	}
	printf("check_xattr: e2fsprogs oracle compared %u xattrs\n", total);
	ck_assert_uint_ge(total, 20);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(p), 0);
}
END_TEST

/*
 * ek_xattr_check(): e2fsck's rules on top of the walk's, one case each,
 * with the fault class fsck's preen decision reads.
 */
enum { C_OK, C_ENTRY, C_LAYOUT };
static const struct {
	const char *what;
	bool block;		/* the entries in the xattr block, else in the inode */
	int ea;			/* 0 none; 1 an ea_inode entry "huge" of 700 bytes */
	uint32_t ea_flags;	/* the value inode's i_flags */
	int mutate;		/* below */
	int want;		/* C_* */
	bool legacy;
} chk[] = {
	{ "in-inode, hashes right", false, 0, 0, 0, C_OK, false },
	{ "in-inode, e_hash 0", false, 0, 0, 1, C_OK, false },
	{ "in-inode, e_hash wrong", false, 0, 0, 2, C_ENTRY, false },
	{ "in-inode, values overlap", false, 0, 0, 3, C_LAYOUT, false },
	{ "block, hashes right", true, 0, 0, 0, C_OK, false },
	{ "block, e_hash 0", true, 0, 0, 1, C_ENTRY, false },
	{ "block, name index 0", true, 0, 0, 4, C_LAYOUT, false },
	{ "ea_inode, hash right", true, 1, EXT4_EA_INODE_FL, 0, C_OK, false },
	{ "ea_inode, hash right, no flag", false, 1, 0, 0, C_OK, false },
	{ "ea_inode, hash wrong", false, 1, EXT4_EA_INODE_FL, 2, C_ENTRY, false },
	{ "ea_inode, hash wrong, no flag", true, 1, 0, 2, C_ENTRY, false },
	{ "ea_inode, reserved inode", false, 1, EXT4_EA_INODE_FL, 5, C_ENTRY, false },
	{ "ea_inode, value size 0", false, 1, EXT4_EA_INODE_FL, 6, C_ENTRY, false },
	{ "ea_inode, size differs", true, 1, EXT4_EA_INODE_FL, 7, C_ENTRY, false },
	{ "ea_inode, old Lustre", false, 1, EXT4_EA_INODE_FL, 8, C_OK, true },
};

static bool chk_legacy;

static int chk_cb(void *arg, const struct ek_xattr *xa)
{
	(void)arg;
	if (xa->value_inum) {
		ck_assert_ptr_null(xa->value);
		chk_legacy = xa->ea_legacy;
	}
	return 0;
}

/* e_hash of each entry from @first (entry offsets and values from @base) */
static void chk_hash(uint8_t *base, uint32_t first, uint32_t ea_hash)
{
	for (uint32_t off = first; get_le32(base + off); off += EXT4_XATTR_LEN(base[off])) {
		uint8_t *e = base + off, le[4];
		uint32_t vs = get_le32(e + 8);

		put_le32(le, ea_hash);
		put_le32(e + 12, get_le32(e + 4) ? ek_xattr_hash((char *)e + 16, e[0], le, 4) :
			 ek_xattr_hash((char *)e + 16, e[0], base + get_le16(e + 2), vs));
	}
}

START_TEST(test_check)
{
	const struct xent plain[] = { { 1, "a", "foo", 3, 0 }, { 1, "bb", "quux", 4, 0 } };
	const struct xent eax[] = { { 1, "huge", NULL, 700, EAINO }, { 1, "s", "bar", 3, 0 } };
	const struct xent *x = chk[_i].ea ? eax : plain;
	uint8_t *base = chk[_i].block ? xblk : ibuf + IB_BASE, *e2;
	uint32_t first = chk[_i].block ? sizeof(struct ext4_xattr_header) : 0;
	uint8_t data[700];
	enum ek_xattr_fault fault = 99;
	struct ek_inode ei;
	int err;

	fx_init(EXT4_FEATURE_INCOMPAT_EA_INODE, 0);
	if (chk[_i].ea)
		fx_ea_inode(700, 0xab, chk[_i].ea_flags);
	if (chk[_i].block)
		fx_block(x, 2);
	else
		fx_ibody(x, 2);
	memset(data, 0xab, sizeof(data));
	chk_hash(base, first, ek_crc32c(u.fs->csum_seed, data, sizeof(data)));
	e2 = base + first + EXT4_XATTR_LEN(base[first]);
	switch (chk[_i].mutate) {
	case 1: put_le32(base + first + 12, 0); break;
	case 2: put_le32(base + first + 12, 0x12345678); break;
	case 3: put_le16(e2 + 2, get_le16(base + first + 2)); break;
	case 4: e2[1] = 0; break;
	case 5: put_le32(base + first + 4, 5); break;
	case 6: put_le32(base + first + 8, 0); break;
	case 7: put_le32(base + first + 8, 600); break;
	case 8: {	/* i_mtime names the parent, the generations match: no hash */
		uint8_t raw[ISZ];

		ck_assert_int_eq(pread(u.fd, raw, ISZ, (off_t)UNIT_IT * BSZ + (EAINO - 1) * ISZ), ISZ);
		put_le32(raw + offsetof(struct ext4_inode, i_mtime), INO);
		put_raw_inode(EAINO, raw);
		put_le32(base + first + 12, 0x12345678);
		break;
	}
	}
	fx_write();
	chk_legacy = false;
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	err = ek_xattr_check(u.fs, &ei, chk[_i].block, chk_cb, NULL, &fault);
	ek_inode_release(&ei);
	if (chk[_i].want == C_OK) {
		ck_assert_msg(!err, "%s: %d %s", chk[_i].what, err, ek_error_msg(err));
		ck_assert_int_eq(fault, 0);
	} else {
		ck_assert_msg(err == -EK_CORRUPT, "%s: %d", chk[_i].what, err);
		ck_assert_msg((int)fault == (chk[_i].want == C_ENTRY ? EK_XATTR_FAULT_ENTRY :
					     EK_XATTR_FAULT_LAYOUT), "%s: fault %d", chk[_i].what, fault);
	}
	ck_assert_int_eq(chk_legacy, chk[_i].legacy);
	unit_fs_done(&u);
}
END_TEST

static Suite *xattr_suite(void)
{
	Suite *s = suite_create("xattr");
	TCase *tc = tcase_create("core");
	TCase *tb = tcase_create("malformed");
	TCase *to = tcase_create("oracle");

	tcase_add_test(tc, test_prefix);
	tcase_add_test(tc, test_ibody);
	tcase_add_test(tc, test_no_ibody);
	tcase_add_test(tc, test_block_nocsum);
	tcase_add_test(tc, test_block_csum);
	tcase_add_test(tc, test_block_badcsum);
	tcase_add_test(tc, test_block_csum_value);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_get);
	tcase_add_test(tc, test_ea_inode);
	tcase_add_test(tc, test_acl);
	suite_add_tcase(s, tc);
	tcase_add_loop_test(tb, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_loop_test(tb, test_acl_bad, 0, sizeof(acl_bad) / sizeof(acl_bad[0]));
	tcase_add_loop_test(tb, test_check, 0, sizeof(chk) / sizeof(chk[0]));
	suite_add_tcase(s, tb);
	tcase_set_timeout(to, 120);
	tcase_add_test(to, test_oracle);
	suite_add_tcase(s, to);
	return s;
}

UNIT_MAIN(xattr_suite)
