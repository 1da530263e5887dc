// SPDX-License-Identifier: MIT
/*
 * fuzz_build.c - the builders mkfs -d feeds with names and values from a
 * source tree: ek_dir_build (linear and htree directories), its inline
 * form, and ek_xattr_build (inode body and block).  The first bytes pick
 * the geometry and features; the rest, split at newlines, are the names
 * (distinct, 1 to 255 bytes, not "." or "..") and the xattr values.
 * Builders must refuse or build, never read or write out of bounds.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

static int cmp_ent(const void *a, const void *b)
{
	const struct ek_dirent_new *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->name_len < y->name_len ? x->name_len : y->name_len);

	return c ? c : (int)x->name_len - (int)y->name_len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefixes[] = { "user.", "trusted.", "security.", "system." };
	struct ek_fs fs;
	struct ek_dirent_new *ents;
	struct ek_xattr_new *x;
	uint8_t *blocks = NULL, *block = NULL, *xval = NULL, raw[1024] = { 0 };
	uint8_t iblock[EXT4_N_BLOCKS * 4];
	char (*names)[272];
	size_t n = 0, k = 0, pos = 4;
	uint32_t nblocks, xlen;
	bool indexed;

	if (size < 4)
		return 0;
	memset(&fs, 0, sizeof(fs));
	fs.blksz = data[0] & 1 ? 4096 : 1024;
	fs.log_blksz = fs.blksz == 4096 ? 12 : 10;
	fs.has_csum = data[0] & 2;
	fs.csum_seed = 0x12345678u * data[1];
	fs.inode_size = data[0] & 4 ? 512 : 256;
	fs.sb.inode_size = fs.inode_size;
	fs.sb.compat = (data[0] & 8 ? EXT4_FEATURE_COMPAT_DIR_INDEX : 0) |
		       EXT4_FEATURE_COMPAT_EXT_ATTR;
	fs.sb.incompat = (data[0] & 16 ? EXT4_FEATURE_INCOMPAT_FILETYPE : 0) |
			 (data[0] & 32 ? EXT4_FEATURE_INCOMPAT_LARGEDIR : 0);
	fs.sb.ro_compat = fs.has_csum ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0;
	fs.sb.def_hash_version = data[2] % 4;
	fs.sb.flags = data[0] & 64 ? 0x2 : 0x1;
	if (data[0] & 128) {	/* a casefolded directory: names hash folded */
		fs.sb.incompat |= EXT4_FEATURE_INCOMPAT_CASEFOLD;
		fs.sb.encoding = EXT4_ENC_UTF8_12_1;
	}
	for (int i = 0; i < 4; i++)
		fs.sb.hash_seed[i] = 0x9E3779B9u * (data[3] + i);

	ents = calloc(size, sizeof(*ents));
	x = calloc(size, sizeof(*x));
	names = calloc(size, sizeof(*names));
	if (!ents || !x || !names)
		goto out;
	/* names: the lines of the rest, cut to 255 bytes */
	while (pos < size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t len = (nl ? (size_t)(nl - data) : size) - pos;

		if (len && len <= 255 && !(len == 1 && data[pos] == '.') &&
		    !(len == 2 && data[pos] == '.' && data[pos + 1] == '.')) {
			memcpy(names[n], data + pos, len);
			ents[n] = (struct ek_dirent_new){ .name = names[n], .name_len = (uint8_t)len,
							  .file_type = (uint8_t)(len % 8),
							  .ino = 12 + n };
			n++;
		}
		pos += len + 1;
	}
	/* distinct names, as a directory holds them */
	qsort(ents, n, sizeof(*ents), cmp_ent);
	for (size_t i = 0; i < n; i++)
		if (!k || cmp_ent(&ents[k - 1], &ents[i]))
			ents[k++] = ents[i];
	n = k;
	if (ek_dir_build(&fs, 11, 0, data[0] & 128 ? EXT4_CASEFOLD_FL : 0, 2, data[0] & 64 ? 20 : 0,
			 data[2] & 4, ents, n, &blocks, &nblocks, &indexed) == 0) {
		uint32_t sum = 0;

		for (size_t i = 0; i < (size_t)nblocks * fs.blksz; i++)
			sum += blocks[i];
		free(blocks);
		if (sum == 0xFFFFFFFFu)
			abort();	/* keeps the read of every byte */
	}
	if (ek_dir_build_inline(&fs, 2, ents, n, 200, iblock, &xval, &xlen) == 0)
		free(xval);

	/* xattrs: a prefix for each name, the next name as its value */
	for (size_t i = 0; i < n && i < 64; i++) {
		static char full[64][300];

		snprintf(full[i], sizeof(full[i]), "%s%.*s", prefixes[ents[i].name_len % 4],
			 ents[i].name_len, ents[i].name);
		x[i] = (struct ek_xattr_new){ .name = full[i], .value = ents[(i + 1) % n].name,
					      .len = ents[(i + 1) % n].name_len };
	}
	put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), data[2] & 1 ? 32 : 0);
	if (ek_xattr_build(&fs, 12, raw, x, n < 64 ? n : 64, &block) == 0)
		free(block);
out:
	free(ents);
	free(x);
	free(names);
	return 0;
}
