// SPDX-License-Identifier: MIT
/*
 * fuzz_xattr.c - extended attributes: open the input as an image, iterate
 * the xattrs of inodes 1..min(64, inodes_count) (in-inode, block,
 * ea_inode values), look one name up, and convert every ACL value.
 */
#include <stdio.h>
#include <stdlib.h>
#include "fuzz.h"

static int fuzz_one(void *arg, const struct ek_xattr *xa)
{
	uint32_t sum = 0;
	uint8_t *acl;
	size_t len;

	(void)arg;
	/* touch every byte so ASan sees out-of-bounds values */
	for (uint32_t i = 0; i < xa->name_len; i++)
		sum += (uint8_t)xa->name[i];
	for (uint32_t i = 0; i < xa->value_len; i++)
		sum += xa->value[i];
	if (xa->index == EXT4_XATTR_INDEX_POSIX_ACL_ACCESS ||
	    xa->index == EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT) {
		if (ek_acl_to_xattr(xa->value, xa->value_len, &acl, &len) == 0) {
			for (size_t i = 0; i < len; i++)
				sum += acl[i];
			free(acl);
		}
	}
	return sum == 0xFFFFFFFFu;	/* practically never: keeps sum live */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ek_open_opts o = { .flags = EK_OPEN_NO_BITMAPS };
	struct ek_fs *fs;
	char path[64];
	int fd = fuzz_memfd(data, size, path);

	if (fd < 0)
		return 0;
	if (ek_fs_open(path, &o, &fs) == 0) {
		uint32_t n = fs->sb.inodes_count < 64 ? fs->sb.inodes_count : 64;

		for (ek_ino_t ino = 1; ino <= n; ino++) {
			struct ek_inode ei;
			uint8_t *v;
			size_t len;
			int err = ek_inode_read(fs, ino, &ei);

			if (err == 0 || err == -EK_BADCRC || (err == -EK_CORRUPT && ei.raw)) {
				ek_xattr_iterate(fs, &ei, fuzz_one, NULL);
				if (ek_xattr_get(fs, &ei, EXT4_XATTR_INDEX_SYSTEM, "data", 4,
						 &v, &len) == 0)
					free(v);
			}
			ek_inode_release(&ei);
		}
		ek_fs_close(fs);
	}
	close(fd);
	return 0;
}
