// SPDX-License-Identifier: MIT
/*
 * jbd2.c - the blocks of the jbd2 log, decoded, checked and built in one
 * place (include/linux/jbd2.h, fs/jbd2/recovery.c and commit.c).
 *
 *   header      0x0 h_magic 0xC03B3998, 0x4 h_blocktype, 0x8 h_sequence
 *   descriptor  header, then tags from 0xC:
 *                 csum v3     0x0 t_blocknr, 0x4 t_flags (be32), 0x8
 *                             t_blocknr_high, 0xC t_checksum (be32)
 *                 otherwise   0x0 t_blocknr, 0x4 t_checksum (be16, v2),
 *                             0x6 t_flags (be16), 0x8 t_blocknr_high (64bit)
 *               a 16-byte UUID after each tag without SAME_UUID; the last
 *               tag has LAST_TAG; v2/v3 end the block in a crc32c tail
 *   revoke      header, 0xC r_count (bytes used, header included), then
 *               be32 (be64 with 64bit) home block numbers; tail as above
 *   commit      header, 0xC h_chksum_type, 0xD h_chksum_size, 0x10
 *               h_chksum[0], 0x30 h_commit_sec (be64), 0x38 h_commit_nsec
 *
 * jbd2 reads a tag's flags as the be16 at offset 6 in every layout (for
 * v3 the low half of t_flags), so that is what everything here reads.
 * Checksums: v2/v3 seed crc32c with the journal UUID; the tail and the
 * commit checksum cover their block with the checksum field zeroed; a
 * tag's covers the be32 sequence then the logged block (v2 keeps its low
 * 16 bits); v1 is a crc32_be over descriptor and data blocks, kept in the
 * commit block.
 */
#include <string.h>
#include "extkit.h"

void ek_jfmt_init(struct ek_jfmt *f, const struct ek_jsb *sb)
{
	memset(f, 0, sizeof(*f));
	f->blocksize = sb->blocksize;
	f->tag_bytes = (uint32_t)ek_jbd2_tag_bytes(sb->incompat);
	f->v3 = sb->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3;
	f->v23 = f->v3 || (sb->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2);
	f->v1 = !f->v23 && (sb->compat & JBD2_FEATURE_COMPAT_CHECKSUM);
	f->b64 = sb->incompat & JBD2_FEATURE_INCOMPAT_64BIT;
	f->tail = f->v23 ? sizeof(struct jbd2_journal_block_tail) : 0;
	f->rec_bytes = f->b64 ? 8 : 4;
	f->seed = ek_crc32c(~0u, sb->uuid, 16);
}

/* ---- header ------------------------------------------------------------ */

bool ek_jhdr_decode(const void *blk, uint32_t *type, ek_tid_t *seq)
{
	const uint8_t *b = blk;

	if (get_be32(b) != JBD2_MAGIC_NUMBER)
		return false;
	*type = get_be32(b + 4);
	*seq = get_be32(b + 8);
	return true;
}

void ek_jhdr_encode(void *blk, uint32_t type, ek_tid_t seq)
{
	uint8_t *b = blk;

	put_be32(b, JBD2_MAGIC_NUMBER);
	put_be32(b + 4, type);
	put_be32(b + 8, seq);
}

/* ---- descriptor tags ---------------------------------------------------- */

bool ek_jdesc_tag(const struct ek_jfmt *f, const uint8_t *d, uint32_t *off, struct ek_jtag_raw *out)
{
	uint32_t o = *off, end = f->blocksize - f->tail;

	if (o < sizeof(journal_header_t) || o > end || f->tag_bytes > end - o)
		return false;
	out->home = get_be32(d + o);
	out->flags = get_be16(d + o + 6);
	out->csum = f->v3 ? get_be32(d + o + 12) : f->v23 ? get_be16(d + o + 4) : 0;
	if (f->b64)
		out->home |= (uint64_t)get_be32(d + o + 8) << 32;
	o += f->tag_bytes;
	if (!(out->flags & JBD2_FLAG_SAME_UUID))
		o += 16;	/* may run past the block: the next call ends the walk */
	*off = o;
	return true;
}

uint32_t ek_jdesc_count(const struct ek_jfmt *f, const uint8_t *d)
{
	uint32_t off = sizeof(journal_header_t), n = 0;
	struct ek_jtag_raw t;

	while (ek_jdesc_tag(f, d, &off, &t)) {
		n++;
		if (t.flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	return n;
}

uint32_t ek_jdesc_capacity(const struct ek_jfmt *f)
{
	return (f->blocksize - sizeof(journal_header_t) - 16 - f->tail) / f->tag_bytes;
}

void ek_jdesc_put_tag(const struct ek_jfmt *f, uint8_t *d, uint32_t *off,
		      const struct ek_jtag_raw *t, const uint8_t uuid[16])
{
	uint8_t *p = d + *off;

	put_be32(p, (uint32_t)t->home);
	if (f->v3) {
		put_be32(p + 4, t->flags);
		put_be32(p + 8, f->b64 ? (uint32_t)(t->home >> 32) : 0);
		put_be32(p + 12, t->csum);
	} else {
		put_be16(p + 4, f->v23 ? (uint16_t)t->csum : 0);
		put_be16(p + 6, (uint16_t)t->flags);
		if (f->b64)
			put_be32(p + 8, (uint32_t)(t->home >> 32));
	}
	*off += f->tag_bytes;
	if (!(t->flags & JBD2_FLAG_SAME_UUID)) {
		memcpy(d + *off, uuid, 16);
		*off += 16;
	}
}

uint32_t ek_jtag_csum(const struct ek_jfmt *f, ek_tid_t tid, const void *data)
{
	uint8_t seq[4];
	uint32_t c;

	if (!f->v23)
		return 0;
	put_be32(seq, tid);
	c = ek_crc32c(ek_crc32c(f->seed, seq, 4), data, f->blocksize);
	return f->v3 ? c : (c & 0xFFFF);
}

/* ---- the descriptor/revoke tail (jbd2_descriptor_block_csum_verify) ------ */

static uint32_t tail_csum(const struct ek_jfmt *f, const uint8_t *blk)
{
	uint32_t c = ek_crc32c(f->seed, blk, f->blocksize - 4);

	return ek_crc32c(c, "\0\0\0\0", 4);
}

bool ek_jtail_ok(const struct ek_jfmt *f, const uint8_t *blk)
{
	return !f->v23 || tail_csum(f, blk) == get_be32(blk + f->blocksize - 4);
}

void ek_jtail_set(const struct ek_jfmt *f, uint8_t *blk)
{
	if (f->v23)
		put_be32(blk + f->blocksize - 4, tail_csum(f, blk));
}

/* ---- revoke blocks (jbd2 scan_revoke_records) ----------------------------- */

uint32_t ek_jrevoke_count(const uint8_t *blk)
{
	return get_be32(blk + offsetof(jbd2_journal_revoke_header_t, r_count));
}

int ek_jrevoke_decode(const struct ek_jfmt *f, const uint8_t *blk, uint32_t jblk, uint32_t *nrec)
{
	uint32_t count = ek_jrevoke_count(blk), hdr = sizeof(jbd2_journal_revoke_header_t);

	*nrec = 0;
	if (count > f->blocksize - f->tail)
		return ek_corrupt_fs("journal block %u: revoke r_count %u is past the block (%u)",
				     jblk, count, f->blocksize - f->tail);
	if (count < hdr)
		return 1;
	*nrec = (count - hdr) / f->rec_bytes;
	return 0;
}

uint64_t ek_jrevoke_rec(const struct ek_jfmt *f, const uint8_t *blk, uint32_t i)
{
	const uint8_t *p = blk + sizeof(jbd2_journal_revoke_header_t) + (size_t)i * f->rec_bytes;

	return f->b64 ? get_be64(p) : get_be32(p);
}

void ek_jrevoke_encode(const struct ek_jfmt *f, uint8_t *blk, ek_tid_t tid, const uint64_t *homes,
		       uint32_t n)
{
	uint32_t off = sizeof(jbd2_journal_revoke_header_t);

	memset(blk, 0, f->blocksize);
	ek_jhdr_encode(blk, JBD2_REVOKE_BLOCK, tid);
	for (uint32_t i = 0; i < n; i++, off += f->rec_bytes) {
		if (f->b64)
			put_be64(blk + off, homes[i]);
		else
			put_be32(blk + off, (uint32_t)homes[i]);
	}
	put_be32(blk + offsetof(jbd2_journal_revoke_header_t, r_count), off);
	ek_jtail_set(f, blk);
}

/* ---- commit blocks (jbd2_commit_block_csum_verify) ----------------------- */

void ek_jcommit_decode(const uint8_t *blk, struct ek_jcommit *out)
{
	const struct commit_header *ch = (const void *)blk;

	out->tid = be32_to_cpu(ch->h_sequence);
	out->chksum_type = ch->h_chksum_type;
	out->chksum_size = ch->h_chksum_size;
	out->chksum = be32_to_cpu(ch->h_chksum[0]);
	out->sec = be64_to_cpu(ch->h_commit_sec);
	out->nsec = be32_to_cpu(ch->h_commit_nsec);
}

/* crc32c over the block with h_chksum[0] taken as zero */
static uint32_t commit_csum(const struct ek_jfmt *f, const uint8_t *blk)
{
	uint32_t off = offsetof(struct commit_header, h_chksum), c;

	c = ek_crc32c(f->seed, blk, off);
	c = ek_crc32c(c, "\0\0\0\0", 4);
	return ek_crc32c(c, blk + off + 4, f->blocksize - off - 4);
}

bool ek_jcommit_csum_ok(const struct ek_jfmt *f, const uint8_t *blk, uint32_t crc_v1)
{
	struct ek_jcommit c;

	ek_jcommit_decode(blk, &c);
	if (f->v23)
		return commit_csum(f, blk) == c.chksum;
	if (f->v1)
		return (c.chksum == crc_v1 && c.chksum_type == JBD2_CRC32_CHKSUM &&
			c.chksum_size == JBD2_CRC32_CHKSUM_SIZE) ||
		       (c.chksum_type == 0 && c.chksum_size == 0 && c.chksum == 0);
	return true;
}

void ek_jcommit_encode(const struct ek_jfmt *f, uint8_t *blk, ek_tid_t tid, int64_t sec,
		       uint32_t nsec, uint32_t crc_v1)
{
	struct commit_header *ch = (void *)blk;

	memset(blk, 0, f->blocksize);
	ek_jhdr_encode(blk, JBD2_COMMIT_BLOCK, tid);
	ch->h_commit_sec = cpu_to_be64((uint64_t)sec);
	ch->h_commit_nsec = cpu_to_be32(nsec);
	if (f->v1) {
		ch->h_chksum_type = JBD2_CRC32_CHKSUM;
		ch->h_chksum_size = JBD2_CRC32_CHKSUM_SIZE;
		ch->h_chksum[0] = cpu_to_be32(crc_v1);
	} else if (f->v23) {
		ch->h_chksum[0] = cpu_to_be32(commit_csum(f, blk));
	}
}

bool ek_jcommit_time_ok(int64_t sec, int64_t not_before)
{
	return sec >= 0 && sec < EK_JCOMMIT_TIME_MAX && (not_before <= 0 || sec >= not_before);
}
