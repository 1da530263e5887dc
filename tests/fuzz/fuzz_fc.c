// SPDX-License-Identifier: MIT
/*
 * fuzz_fc.c - the fast-commit area parser on hostile bytes.
 *
 * Input: byte 0 picks the block size (1024 << (b & 3)), byte 1 the inode
 * size (128 << (b & 3), at most the block size), bytes 2..5 the expected
 * tid (le32); the rest is the area, in whole blocks.  Each decoded record
 * is read in full (ASan sees any pointer outside the area) and checked
 * against a filesystem of made-up size; the log's invariants trap.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

#define CHECK(c)	do { if (!(c)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ek_fs fs;
	struct ek_fclog log;
	uint32_t bs, isz, nblk;
	uint8_t *area;
	unsigned sum = 0;

	if (size < 6)
		return 0;
	bs = 1024u << (data[0] & 3);
	isz = 128u << (data[1] & 3);
	if (isz > bs)
		isz = bs;
	nblk = (size - 6) / bs;
	/* a copy of exactly the area: reads past it are ASan's to catch */
	area = malloc(nblk ? (size_t)nblk * bs : 1);
	if (!area)
		return 0;
	memcpy(area, data + 6, (size_t)nblk * bs);
	if (ek_fc_parse(area, nblk, bs, isz, get_le32(data + 2), &log)) {
		free(area);
		return 0;
	}
	memset(&fs, 0, sizeof(fs));
	fs.sb.inodes_count = 1u << 16;
	fs.sb.blocks_count = 1u << 20;
	fs.sb.first_data_block = bs == 1024;
	CHECK(log.nreplay <= log.nrecs);
	CHECK(log.ncommits <= log.nreplay);
	CHECK(log.blocks_read <= nblk);
	CHECK(!log.status == (log.state != EK_FC_BADCRC && log.state != EK_FC_CORRUPT &&
			      log.state != EK_FC_UNSUPP));
	CHECK(log.state != EK_FC_VALID || log.nreplay);
	for (size_t i = 0; i < log.nrecs; i++) {
		const struct ek_fc_rec *r = &log.recs[i];

		CHECK(r->area_blk < log.blocks_read);
		CHECK(r->off + 4 <= bs);
		CHECK(!r->stop || i == log.nrecs - 1);
		if (!r->decoded)
			continue;
		CHECK(r->off + 4 + r->len <= bs);
		if (r->tag == EXT4_FC_TAG_CREAT || r->tag == EXT4_FC_TAG_LINK ||
		    r->tag == EXT4_FC_TAG_UNLINK) {
			CHECK(r->u.dentry.name_len >= 1 && r->u.dentry.name_len <= 255);
			for (uint32_t k = 0; k < r->u.dentry.name_len; k++)
				sum += r->u.dentry.name[k];
		}
		if (r->tag == EXT4_FC_TAG_INODE) {
			CHECK(r->u.inode.raw_len >= 128 && r->u.inode.raw_len <= isz);
			for (uint32_t k = 0; k < r->u.inode.raw_len; k++)
				sum += r->u.inode.raw[k];
		}
		if (r->tag == EXT4_FC_TAG_TAIL && i < log.nreplay)
			CHECK(r->u.tail.crc == r->u.tail.crc_calc && r->u.tail.tid == log.expect_tid);
		sum += ek_fc_rec_check(&fs, r) == 0;
		sum += strlen(ek_fc_tag_name(r->tag) ? ek_fc_tag_name(r->tag) : "");
	}
	sum += strlen(ek_fc_state_name(log.state)) + strlen(log.end_reason);
	ek_fclog_release(&log);
	free(area);
	(void)sum;
	return 0;
}
