// SPDX-License-Identifier: MIT
/*
 * partition.c - why an image did not open: is it a whole disk with a
 * partition table, where a filesystem was expected?  Then the error can
 * name the partitions' byte offsets for the tools' --offset.
 *
 * MBR: 0x55 0xAA at byte 510, four 16-byte entries from byte 446 (type at
 * +4, 0 unused, 0xEE a GPT's protective entry; first LBA __le32 at +8).
 * GPT: "EFI PART" at LBA 1 (512- or 4096-byte sectors); its header gives
 * the entry array's LBA (__le64 at +72), the entry count (__le32 at +80)
 * and entry size (__le32 at +84); an entry with a non-zero type GUID
 * (bytes 0..15) starts at the LBA __le64 at +32.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "extkit.h"

#define GPT_ENTRIES_MAX	128

static int probe_gpt(int fd, uint32_t sector, uint64_t *offs, int max)
{
	uint8_t hdr[92], ent[128];
	uint64_t lba;
	uint32_t count, size;
	int n = 0;

	if (pread(fd, hdr, sizeof(hdr), sector) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, "EFI PART", 8))
		return -1;
	lba = get_le64(hdr + 72);
	count = get_le32(hdr + 80);
	size = get_le32(hdr + 84);
	if (size < sizeof(ent) || size > 4096 || lba > UINT64_MAX / sector / 2)
		return 0;
	if (count > GPT_ENTRIES_MAX)
		count = GPT_ENTRIES_MAX;
	for (uint32_t i = 0; i < count && n < max; i++) {
		static const uint8_t unused[16];

		if (pread(fd, ent, sizeof(ent), lba * sector + (uint64_t)i * size) !=
		    (ssize_t)sizeof(ent))
			break;
		if (!memcmp(ent, unused, 16) || !get_le64(ent + 32))
			continue;
		offs[n++] = get_le64(ent + 32) * sector;
	}
	return n;
}

int ek_partitions_probe(const char *path, uint64_t offset, uint64_t *offs, int max,
			 const char **kind)
{
	uint8_t mbr[512], magic[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = -1;

	*kind = NULL;
	if (fd < 0)
		return -1;
	/* only where no superblock is: 0xEF53 at byte 0x38 of the one at 1024 */
	if (offset > UINT64_MAX - 2048 ||
	    (pread(fd, magic, 2, offset + 1024 + 0x38) == 2 && get_le16(magic) == EXT4_SUPER_MAGIC))
		goto out;
	if (offset || pread(fd, mbr, sizeof(mbr), 0) != (ssize_t)sizeof(mbr))
		goto out;
	/* a GPT first: its MBR is only a protective entry */
	for (uint32_t sector = 512; sector <= 4096 && n < 0; sector *= 8) {
		n = probe_gpt(fd, sector, offs, max);
		if (n >= 0)
			*kind = "a GPT partition table";
	}
	if (n < 0 && mbr[510] == 0x55 && mbr[511] == 0xAA) {
		*kind = "an MBR partition table";
		n = 0;
		for (int i = 0; i < 4 && n < max; i++) {
			const uint8_t *e = mbr + 446 + 16 * i;

			if (e[4] && e[4] != 0xEE && get_le32(e + 8))
				offs[n++] = (uint64_t)get_le32(e + 8) * 512;
		}
	}
out:
	close(fd);
	return n;
}

void ek_partitions_hint(const char *path, uint64_t offset, const char *option, char *buf,
			size_t len)
{
	uint64_t offs[4];
	const char *kind;
	int n = ek_partitions_probe(path, offset, offs, 4, &kind);
	size_t h;

	if (!len)
		return;
	buf[0] = 0;
	if (n < 0)
		return;
	h = snprintf(buf, len, "; it holds %s", kind);
	for (int i = 0; i < n && h < len; i++)
		h += snprintf(buf + h, len - h, "%s%s %llu", i ? " or " : ": try ", option,
			      (unsigned long long)offs[i]);
}
