// SPDX-License-Identifier: MIT
/*
 * cmd_logdump.c - logdump: the jbd2 journal block by block, or every
 * journal record of one filesystem block or inode.
 *
 *   logdump [-acOS] [-b block] [-i inode] [-f journal_device]
 *
 * The options are e2fsprogs debugfs logdump's; the facts shown are its
 * facts, in our words:
 *   (none)  each descriptor, revoke and commit block of the live log with
 *           its transaction, then where and why the log ends
 *   -a      also every tag of every descriptor block (home block, journal
 *           block, flags, data checksum, what replay does with it) and
 *           every revoke record
 *   -b blk  only the records naming block blk: its logged copies, revoke
 *           records, and the copies of its group's block bitmap with the
 *           state of its bit in each ("block bitmap for block ...")
 *   -i ino  the inode table block holding inode ino ("Inode N is at group
 *           G, block B, offset O"), its logged copies and the inode as each
 *           copy holds it
 *   -c      the contents of the selected logged blocks (the logged inode
 *           alone with -i), escaped blocks with their magic put back
 *   -O      then the old, checkpointed entries in the rest of the ring
 *   -S      the journal superblock first
 *   -f dev  the external journal device (an image of it)
 *
 * The live log is the kernel's: ek_journal_scan() follows
 * fs/jbd2/recovery.c PASS_SCAN, so the ring wraps before the fast-commit
 * area (e2fsprogs 1.47 wraps at s_maxlen, reading the fast-commit area as
 * log) and the log ends where recovery ends it: a bad commit checksum, a
 * stale commit.  Each transaction's blocks are walked from its first block
 * with the scan's tags telling data blocks from the descriptor, revoke and
 * commit blocks between them.
 *
 * Old entries are found by reading the rest of the ring from the end of
 * the live log around to its start: every block with the jbd2 magic is a
 * header (a logged data block that starts with the magic is escaped, so a
 * data block never looks like one); a descriptor's data blocks follow it.
 * Unlike e2fsprogs -O, which follows the old log only while blocks carry
 * the magic, labels them with its own running count, and stops at the
 * first gap, the walk reads every block and labels each header with its
 * own h_sequence.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "debugfs.h"

struct logdump {
	struct dbg *d;
	struct ek_out *o;
	struct ek_journal *j;
	const char *source;	/* -f path, or NULL for the internal journal */
	struct ek_jlog log;
	struct ek_jplan plan;
	bool all, contents, old, super;
	bool by_block, by_inode;
	uint64_t block;		/* -b: the filesystem block asked for */
	ek_blk_t bitmap;	/* the block bitmap of its group, 0 if none */
	uint64_t bitmap_bit;	/* its bit there */
	ek_ino_t ino;		/* -i */
	ek_blk_t iblock;	/* the inode table block holding it */
	uint32_t ioff;		/* its byte offset in that block */
	struct ek_jfmt f;	/* the log blocks' layout and checksums */
	uint8_t *hdr, *data;	/* one journal block each */
	uint64_t unread;	/* journal blocks that could not be read */
	char read_err[320];	/* the first such error */
};

/* one logged block: a tag of a descriptor block */
struct ld_tag {
	ek_tid_t tid;
	uint32_t jblk;
	uint64_t home;
	uint32_t flags;
	uint8_t csum;		/* enum ek_csum */
	const char *replay;	/* what replay does with it; NULL for old entries */
};

/* journal block @p moved on by @n blocks around the ring [first, last) */
static uint32_t ring_add(const struct ek_jsb *sb, uint32_t p, uint64_t n)
{
	uint32_t ring = sb->last - sb->first;

	return sb->first + (uint32_t)(((uint64_t)(p - sb->first) + n) % ring);
}

/* read journal block @jblk into @buf; a failure is counted, reported at the end */
static int ld_read(struct logdump *l, uint32_t jblk, uint8_t *buf)
{
	int err = ek_journal_read(l->j, jblk, buf);

	if (err && !l->unread++)
		snprintf(l->read_err, sizeof(l->read_err), "%s", ek_error_msg(err));
	return err;
}

/* is @home one of the blocks -a, -b or -i selects? */
static bool selected(const struct logdump *l, uint64_t home)
{
	return l->all || (l->by_block && (home == l->block || (l->bitmap && home == l->bitmap))) ||
	       (l->by_inode && home == l->iblock);
}

/* ---- a logged inode ------------------------------------------------------ */

static void map_run(struct ek_out *o, uint64_t lblk, uint64_t len, uint64_t pblk, bool unwritten)
{
	if (len == 1)
		ek_out_text(o, " (%llu%s):%llu", (unsigned long long)lblk, unwritten ? "[u]" : "",
			    (unsigned long long)pblk);
	else
		ek_out_text(o, " (%llu-%llu%s):%llu-%llu", (unsigned long long)lblk,
			    (unsigned long long)(lblk + len - 1), unwritten ? "[u]" : "",
			    (unsigned long long)pblk, (unsigned long long)(pblk + len - 1));
	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "logical", lblk);
	ek_out_u64(o, "physical", pblk);
	ek_out_u64(o, "length", len);
	ek_out_bool(o, "unwritten", unwritten);
	ek_out_obj_end(o);
}

/*
 * The block map held in the logged inode itself: the extent root's entries,
 * or the twelve direct pointers (as runs) and the IND/DIND/TIND pointers.
 * The blocks they point to are not read: they may have changed since.
 */
static void logged_map(struct ek_fs *fs, struct ek_out *o, const struct ek_inode *ei)
{
	const __le32 *ib = ek_inode_i_block(ei);
	const uint8_t *root = (const uint8_t *)ib;

	if (ek_inode_has_inline(ei)) {
		ek_out_text(o, "    Blocks: none (inline data)\n");
		ek_out_str(o, "block_map", "inline_data");
		return;
	}
	if (ek_inode_is_fast_symlink(fs, ei)) {
		/* the target in i_block: at most its 60 bytes */
		size_t n = ei->size < sizeof(((struct ext4_inode *)0)->i_block) ? ei->size :
			   sizeof(((struct ext4_inode *)0)->i_block);

		ek_out_text(o, "    Fast link dest: \"%.*s\"\n", (int)n, (const char *)root);
		ek_out_str(o, "block_map", "fast_symlink");
		ek_out_name(o, "fast_link", (const char *)root, n);
		return;
	}
	if (ek_is_chr(ei->mode) || ek_is_blk(ei->mode) || ek_is_fifo(ei->mode) ||
	    ek_is_sock(ei->mode)) {
		ek_out_text(o, "    Blocks: none\n");
		ek_out_str(o, "block_map", "none");
		return;
	}
	if (ei->flags & EXT4_EXTENTS_FL) {
		uint16_t magic = get_le16(root), entries = get_le16(root + 2);
		uint16_t max = get_le16(root + 4), depth = get_le16(root + 6);

		ek_out_str(o, "block_map", "extents");
		/* the root in i_block holds at most 4 entries of 12 bytes */
		if (magic != EXT4_EXT_MAGIC || entries > max || max > 4) {
			ek_out_text(o, "    Extents: bad root (magic 0x%04x, %u of %u entries)\n",
				    magic, entries, max);
			ek_out_bool(o, "extent_root_ok", false);
			return;
		}
		ek_out_bool(o, "extent_root_ok", true);
		ek_out_u64(o, "extent_depth", depth);
		ek_out_text(o, "    Extents (depth %u):", depth);
		ek_out_arr_begin(o, depth ? "extent_index" : "extents");
		for (uint16_t i = 0; i < entries; i++) {
			const uint8_t *e = root + 12 * (i + 1);
			uint32_t lblk = get_le32(e);

			if (depth) {
				uint64_t child = get_le32(e + 4) | (uint64_t)get_le16(e + 8) << 32;

				ek_out_text(o, " (%u+):%llu", lblk, (unsigned long long)child);
				ek_out_obj_begin(o, NULL);
				ek_out_u64(o, "logical", lblk);
				ek_out_u64(o, "node", child);
				ek_out_obj_end(o);
			} else {
				uint16_t len = get_le16(e + 4);
				uint64_t start = get_le32(e + 8) | (uint64_t)get_le16(e + 6) << 32;
				bool unwritten = len > 32768;

				if (!len)
					continue;
				map_run(o, lblk, unwritten ? len - 32768u : len, start, unwritten);
			}
		}
		ek_out_arr_end(o);
		ek_out_text(o, "\n");
		return;
	}
	ek_out_str(o, "block_map", "indirect");
	ek_out_text(o, "    Blocks:");
	ek_out_arr_begin(o, "direct");
	for (unsigned i = 0; i < EXT4_IND_BLOCK;) {
		uint32_t first = le32_to_cpu(ib[i]), n = 1;

		if (!first) {
			i++;
			continue;
		}
		while (i + n < EXT4_IND_BLOCK && le32_to_cpu(ib[i + n]) == first + n)
			n++;
		map_run(o, i, n, first, false);
		i += n;
	}
	ek_out_arr_end(o);
	for (unsigned k = 0; k < 3; k++) {
		static const char *names[] = { "ind", "dind", "tind" }, *labels[] = { "IND", "DIND", "TIND" };
		uint32_t b = le32_to_cpu(ib[EXT4_IND_BLOCK + k]);

		if (b)
			ek_out_text(o, " (%s):%u", labels[k], b);
		ek_out_u64(o, names[k], b);
	}
	ek_out_text(o, "\n");
}

static void logged_time(struct ek_out *o, const char *key, const struct ek_time *t, bool extra)
{
	char buf[100];

	if (!t->present)
		return;
	/* as stat shows it: seconds, and the extra field (nsec << 2 | epoch bits) */
	ek_out_text(o, "    %6s: %s\n", key, ek_fmt_inode_time(t, extra, buf, sizeof(buf)));
	ek_out_obj_begin(o, key);
	ek_out_s64(o, "sec", t->sec);
	ek_out_u64(o, "nsec", t->nsec);
	ek_out_obj_end(o);
}

/* inode l->ino as the logged inode table block @blk holds it */
static void logged_inode(struct logdump *l, const uint8_t *blk)
{
	struct ek_fs *fs = l->d->fs;
	struct ek_out *o = l->o;
	struct ek_inode ei = { 0 };
	int err = ek_inode_decode(fs, l->ino, blk + l->ioff, &ei);

	ek_out_text(o, "    (inode block for inode %u, as logged):\n", l->ino);
	ek_out_obj_begin(o, "logged_inode");
	ek_out_u64(o, "inode", l->ino);
	if (!ei.raw) {
		ek_out_text(o, "    cannot decode: %s\n", ek_error_msg(err));
		ek_out_str(o, "error", ek_error_msg(err));
		ek_out_obj_end(o);
		return;
	}
	ek_out_text(o, "    Inode: %u   Type: %s   Mode: %04o   Flags: 0x%x   Links: %u\n", l->ino,
		    dbg_mode_type(ei.mode), ei.mode & 07777, ei.flags, ei.links_count);
	ek_out_text(o, "    User: %u   Group: %u   Size: %llu   Blockcount: %llu   Generation: %u\n",
		    ei.uid, ei.gid, (unsigned long long)ei.size, (unsigned long long)ei.blocks,
		    ei.generation);
	ek_out_str(o, "type", dbg_mode_type(ei.mode));
	ek_out_u64(o, "mode", ei.mode);
	ek_out_u64(o, "flags", ei.flags);
	ek_out_u64(o, "links", ei.links_count);
	ek_out_u64(o, "uid", ei.uid);
	ek_out_u64(o, "gid", ei.gid);
	ek_out_u64(o, "size", ei.size);
	ek_out_u64(o, "blockcount", ei.blocks);
	ek_out_u64(o, "generation", ei.generation);
	logged_time(o, "ctime", &ei.ctime, ei.extra_isize >= 4);
	logged_time(o, "atime", &ei.atime, ei.extra_isize >= 4);
	logged_time(o, "mtime", &ei.mtime, ei.extra_isize >= 4);
	logged_time(o, "crtime", &ei.crtime, ei.extra_isize >= 4);
	if (ei.dtime)
		ek_out_text(o, "    dtime: 0x%08x\n", ei.dtime);
	ek_out_u64(o, "dtime", ei.dtime);
	if (fs->has_csum) {
		ek_out_text(o, "    Inode checksum: 0x%08x (%s)\n", ei.checksum,
			    ei.csum_bad ? "bad" : "ok");
		ek_out_bool(o, "checksum_ok", !ei.csum_bad);
	}
	if (err && err != -EK_BADCRC) {
		ek_out_text(o, "    (%s)\n", ek_error_msg(err));
		ek_out_str(o, "error", ek_error_msg(err));
	}
	logged_map(fs, o, &ei);
	if (l->contents) {
		dbg_hexdump(o, "    ", ei.raw, fs->inode_size, l->ioff);
		ek_out_hex(o, "raw_hex", ei.raw, fs->inode_size);
	}
	ek_out_obj_end(o);
	ek_inode_release(&ei);
}

/* ---- records --------------------------------------------------------------- */

/* descriptor, revoke and commit blocks are listed unless -b or -i (without -a) */
static bool listing(const struct logdump *l)
{
	return l->all || (!l->by_block && !l->by_inode);
}

static const char *txn_word(bool old)
{
	return old ? "Old transaction" : "Transaction";
}

static void show_descriptor(struct logdump *l, bool old, ek_tid_t tid, uint32_t jblk)
{
	if (!listing(l))
		return;
	ek_out_text(l->o, "%s %u: descriptor block at journal block %u\n", txn_word(old), tid, jblk);
	ek_out_obj_begin(l->o, NULL);
	ek_out_u64(l->o, "tid", tid);
	ek_out_u64(l->o, "journal_block", jblk);
	ek_out_str(l->o, "type", "descriptor");
	ek_out_obj_end(l->o);
}

static void show_commit(struct logdump *l, bool old, const struct ek_jtxn *t, ek_tid_t tid,
			uint32_t jblk, const uint8_t *blk)
{
	struct ek_jcommit c;
	int64_t sec;
	char iso[40];

	bool time_ok;

	ek_jcommit_decode(blk, &c);
	sec = (int64_t)c.sec;
	time_ok = ek_jcommit_time_ok(sec, l->d->fs->sb.mkfs_time);
	if (!listing(l))
		return;
	if (time_ok)
		ek_out_text(l->o, "%s %u: commit block at journal block %u, committed %s", txn_word(old),
			    tid, jblk, ek_fmt_iso(sec, iso, sizeof(iso)));
	else
		ek_out_text(l->o, "%s %u: commit block at journal block %u, commit time impossible (%llu)",
			    txn_word(old), tid, jblk, (unsigned long long)c.sec);
	if (t && t->commit_csum == EK_CSUM_BAD)
		ek_out_text(l->o, ", checksum bad");
	ek_out_text(l->o, "\n");
	ek_out_obj_begin(l->o, NULL);
	ek_out_u64(l->o, "tid", tid);
	ek_out_u64(l->o, "journal_block", jblk);
	ek_out_str(l->o, "type", "commit");
	ek_out_s64(l->o, "commit_sec", sec);
	ek_out_u64(l->o, "commit_nsec", c.nsec);
	if (time_ok)
		ek_out_str(l->o, "commit_time", iso);
	else
		ek_out_null(l->o, "commit_time");
	ek_out_bool(l->o, "commit_time_ok", time_ok);
	if (t)
		ek_out_str(l->o, "checksum", ek_csum_name(t->commit_csum));
	ek_out_obj_end(l->o);
}

/* one logged block, if selected: its line, the bitmap bit, the inode, contents */
static void show_tag(struct logdump *l, bool old, const struct ld_tag *g)
{
	struct ek_out *o = l->o;
	bool is_bitmap = l->by_block && l->bitmap && g->home == l->bitmap;
	bool is_inode = l->by_inode && g->home == l->iblock;
	bool is_block = l->by_block && g->home == l->block;
	bool dump = l->contents && (l->all || is_block || is_bitmap);
	uint32_t bs = l->j->sb.blocksize;

	if (!selected(l, g->home))
		return;
	ek_out_text(o, "  FS block %llu logged at %stransaction %u, journal block %u (flags 0x%x%s%s%s)",
		    (unsigned long long)g->home, old ? "old " : "", g->tid, g->jblk, g->flags,
		    g->flags & JBD2_FLAG_ESCAPE ? ", escaped" : "",
		    g->csum != EK_CSUM_NONE ? ", checksum " : "",
		    g->csum != EK_CSUM_NONE ? ek_csum_name(g->csum) : "");
	if (g->replay)
		ek_out_text(o, ": replay %s", g->replay);
	ek_out_text(o, "\n");
	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "tid", g->tid);
	ek_out_u64(o, "journal_block", g->jblk);
	ek_out_str(o, "type", "data");
	ek_out_u64(o, "home", g->home);
	ek_out_u64(o, "flags", g->flags);
	ek_out_bool(o, "escaped", g->flags & JBD2_FLAG_ESCAPE);
	ek_out_str(o, "checksum", ek_csum_name(g->csum));
	if (g->replay)
		ek_out_str(o, "replay", g->replay);
	if (is_bitmap || is_inode || dump) {
		if (ld_read(l, g->jblk, l->data)) {
			ek_out_text(o, "    (journal block %u cannot be read)\n", g->jblk);
			ek_out_bool(o, "unreadable", true);
			ek_out_obj_end(o);
			return;
		}
		/* the block as replay writes it */
		if (g->flags & JBD2_FLAG_ESCAPE)
			put_be32(l->data, JBD2_MAGIC_NUMBER);
		if (is_bitmap) {
			bool set = ek_bit_test(l->data, l->bitmap_bit);

			ek_out_text(o, "    (block bitmap for block %llu: block is %s)\n",
				    (unsigned long long)l->block, set ? "in use" : "free");
			ek_out_bool(o, "bitmap_bit_set", set);
		}
		if (is_inode)
			logged_inode(l, l->data);
		if (dump) {
			dbg_hexdump(o, "    ", l->data, bs, 0);
			ek_out_hex(o, "contents_hex", l->data, bs);
		}
	}
	ek_out_obj_end(o);
}

/* does revoke record @home show: every one under -a, else those -b/-i name */
static bool revoke_shown(const struct logdump *l, uint64_t home)
{
	return l->all || (l->by_block && home == l->block) || (l->by_inode && home == l->iblock);
}

/*
 * A revoke block in @blk: listed as a block (its records too under -a), or
 * with -b/-i only for the records naming the block.  Returns false if its
 * r_count is impossible (only an old block can be: the scan checked the
 * live ones).
 */
static bool show_revoke(struct logdump *l, bool old, ek_tid_t tid, uint32_t jblk, const uint8_t *blk)
{
	struct ek_out *o = l->o;
	uint32_t count = ek_jrevoke_count(blk), nrec, nshown = 0;

	if (ek_jrevoke_decode(&l->f, blk, jblk, &nrec)) {
		if (listing(l)) {
			ek_out_text(o, "%s %u: revoke block at journal block %u, r_count %u "
				    "impossible: ignored\n", txn_word(old), tid, jblk, count);
			ek_out_obj_begin(o, NULL);
			ek_out_u64(o, "tid", tid);
			ek_out_u64(o, "journal_block", jblk);
			ek_out_str(o, "type", "revoke");
			ek_out_u64(o, "bad_r_count", count);
			ek_out_obj_end(o);
		}
		return false;
	}
	for (uint32_t i = 0; i < nrec; i++)
		nshown += revoke_shown(l, ek_jrevoke_rec(&l->f, blk, i));
	if (!listing(l) && !nshown)
		return true;
	if (listing(l))
		ek_out_text(o, "%s %u: revoke block at journal block %u, %u record%s\n", txn_word(old),
			    tid, jblk, nrec, nrec == 1 ? "" : "s");
	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "tid", tid);
	ek_out_u64(o, "journal_block", jblk);
	ek_out_str(o, "type", "revoke");
	ek_out_u64(o, "record_count", nrec);
	if (nshown) {
		ek_out_arr_begin(o, "revoked");
		for (uint32_t i = 0; i < nrec; i++) {
			uint64_t home = ek_jrevoke_rec(&l->f, blk, i);

			if (!revoke_shown(l, home))
				continue;
			ek_out_text(o, "  Revoke FS block %llu at journal block %u, %stransaction %u\n",
				    (unsigned long long)home, jblk, old ? "old " : "", tid);
			ek_out_u64(o, NULL, home);
		}
		ek_out_arr_end(o);
	}
	ek_out_obj_end(o);
	return true;
}

/* ---- the live log ----------------------------------------------------------- */

/* the blocks of live transaction @t in log order, from its first block */
static void walk_txn(struct logdump *l, const struct ek_jtxn *t)
{
	const struct ek_jsb *sb = &l->j->sb;
	uint32_t p = t->first_jblk, k = 0;

	for (uint32_t n = 0; n < t->nblocks; n++, p = ring_add(sb, p, 1)) {
		if (k < t->ntags && t->tags[k].jblk == p) {
			const struct ek_jtag *tag = &t->tags[k++];
			struct ld_tag g = {
				.tid = t->tid, .jblk = p, .home = tag->home, .flags = tag->flags,
				.csum = tag->csum,
				.replay = ek_jfate_name(ek_jplan_fate(&l->plan, l->j, t, tag)),
			};

			show_tag(l, false, &g);
			continue;
		}
		uint32_t type;
		ek_tid_t seq;

		if (ld_read(l, p, l->hdr) || !ek_jhdr_decode(l->hdr, &type, &seq))
			continue;
		switch (type) {
		case JBD2_DESCRIPTOR_BLOCK:
			show_descriptor(l, false, t->tid, p);
			break;
		case JBD2_REVOKE_BLOCK:
			show_revoke(l, false, t->tid, p, l->hdr);
			break;
		case JBD2_COMMIT_BLOCK:
			show_commit(l, false, t, t->tid, p, l->hdr);
			break;
		}
	}
	if (!listing(l))
		return;
	if (t->state == EK_JTXN_TORN)
		ek_out_text(l->o, "Transaction %u: no commit block: not replayed\n", t->tid);
	else if (t->state == EK_JTXN_BAD_COMMIT && t->commit_csum == EK_CSUM_BAD)
		ek_out_text(l->o, "Transaction %u: its commit block fails its checksum: replay stops before it\n",
			    t->tid);
	else if (t->state == EK_JTXN_BAD_COMMIT)
		ek_out_text(l->o, "Transaction %u: a descriptor or revoke block fails its checksum: "
			    "the kernel refuses this recovery\n", t->tid);
}

static void show_live(struct logdump *l)
{
	const struct ek_jsb *sb = &l->j->sb;
	struct ek_out *o = l->o;
	size_t committed = 0;

	if (sb->start)
		ek_out_text(o, "Journal starts at block %u, transaction %u\n", sb->start, sb->sequence);
	if (ek_jlog_emit_status(o, l->j, &l->log))
		ek_out_text(o, "Next transaction %u\n", sb->sequence);
	ek_out_arr_begin(o, "records");
	for (size_t i = 0; i < l->log.ntxns; i++)
		walk_txn(l, &l->log.txns[i]);
	ek_out_arr_end(o);

	ek_out_arr_begin(o, "transactions");
	for (size_t i = 0; i < l->log.ntxns; i++) {
		const struct ek_jtxn *t = &l->log.txns[i], *p = i ? t - 1 : NULL;

		committed += t->state == EK_JTXN_COMMITTED;
		ek_jtxn_emit(o, l->j, t, p && ek_jtxn_time_ok(l->j, p) ? p->commit_sec : -1,
			     p ? p->commit_nsec : 0);
	}
	ek_out_arr_end(o);
	if (sb->start) {
		ek_out_text(o, "End of the log at journal block %u: %s", l->log.end_jblk,
			    l->log.end_reason);
		if (committed)
			ek_out_text(o, " (%zu committed transaction%s, %u..%u)\n", committed,
				    committed == 1 ? "" : "s", l->log.start_tid, l->log.end_tid - 1);
		else
			ek_out_text(o, " (no committed transaction)\n");
	}
	ek_out_obj_begin(o, "end");
	ek_out_u64(o, "journal_block", l->log.end_jblk);
	ek_out_str(o, "reason", l->log.end_reason);
	ek_out_u64(o, "committed", committed);
	ek_out_u64(o, "end_tid", l->log.end_tid);
	ek_out_bool(o, "kernel_refuses", l->log.status != 0);
	ek_out_obj_end(o);
}

/* ---- old entries: the rest of the ring --------------------------------------- */

/* the data checksum of an old tag (v2/v3), as recovery would check it */
static uint8_t old_tag_csum(struct logdump *l, ek_tid_t tid, uint32_t jblk, uint32_t want)
{
	if (!l->f.v23 || ld_read(l, jblk, l->data))
		return EK_CSUM_NONE;
	return ek_jtag_csum(&l->f, tid, l->data) == want ? EK_CSUM_OK : EK_CSUM_BAD;
}

/*
 * The tags of the old descriptor block in l->hdr: the data blocks follow it
 * at ring offsets *n.. of the old region [from, from + len); tags whose data
 * block lies past the region were overwritten by the live log.
 */
static void old_tags(struct logdump *l, ek_tid_t tid, uint32_t from, uint32_t len, uint32_t *n)
{
	const struct ek_jsb *sb = &l->j->sb;
	uint32_t off = sizeof(journal_header_t);
	struct ek_jtag_raw raw;

	while (*n < len && ek_jdesc_tag(&l->f, l->hdr, &off, &raw)) {
		struct ld_tag g = { .tid = tid, .home = raw.home, .flags = raw.flags };

		g.jblk = ring_add(sb, from, (*n)++);
		if (selected(l, g.home)) {
			g.csum = old_tag_csum(l, tid, g.jblk, raw.csum);
			show_tag(l, true, &g);
		}
		if (g.flags & JBD2_FLAG_LAST_TAG)
			break;
	}
}

static void show_old(struct logdump *l)
{
	const struct ek_jsb *sb = &l->j->sb;
	struct ek_out *o = l->o;
	uint32_t ring = sb->last - sb->first, from = sb->first, len = ring, headers = 0;

	if (sb->start) {
		uint64_t live = 0;

		/* the live log: s_start to the end of the last transaction the
		 * scan kept; blocks of one it dropped as stale (an older commit
		 * time after a checksum mismatch) are old entries */
		if (l->log.ntxns) {
			const struct ek_jtxn *t = &l->log.txns[l->log.ntxns - 1];

			live = (uint64_t)((t->first_jblk - sb->first) + ring - (sb->start - sb->first)) %
			       ring + t->nblocks;
		}
		if (live > ring)
			live = ring;
		from = ring_add(sb, sb->start, live);
		len = ring - (uint32_t)live;
	}
	if (len)
		ek_out_text(o, "Old entries in the rest of the ring, journal blocks %u..%u%s:\n", from,
			    ring_add(sb, from, len - 1),
			    (uint64_t)from + len > sb->last ? " (wrapping)" : "");
	else
		ek_out_text(o, "Old entries: none, the live log fills the ring\n");
	ek_out_obj_begin(o, "old");
	ek_out_u64(o, "first_block", from);
	ek_out_u64(o, "blocks", len);
	ek_out_arr_begin(o, "records");
	for (uint32_t n = 0; n < len;) {
		uint32_t p = ring_add(sb, from, n++), type;
		ek_tid_t tid;

		if (ld_read(l, p, l->hdr) || !ek_jhdr_decode(l->hdr, &type, &tid))
			continue;
		headers++;
		switch (type) {
		case JBD2_DESCRIPTOR_BLOCK:
			show_descriptor(l, true, tid, p);
			old_tags(l, tid, from, len, &n);
			break;
		case JBD2_REVOKE_BLOCK:
			show_revoke(l, true, tid, p, l->hdr);
			break;
		case JBD2_COMMIT_BLOCK:
			show_commit(l, true, NULL, tid, p, l->hdr);
			break;
		default:
			headers--;
			if (listing(l))
				ek_out_text(o, "Journal block %u: jbd2 magic with block type %u: skipped\n",
					    p, type);
		}
	}
	ek_out_arr_end(o);
	ek_out_u64(o, "header_blocks", headers);
	ek_out_obj_end(o);
	ek_out_text(o, "%u old descriptor, revoke and commit blocks\n", headers);
}

/* ---- the fast-commit area ---------------------------------------------------- */

/*
 * The fast-commit area, journal blocks [last, maxlen) after the log ring,
 * as recovery reads it after the full transactions: its state and each
 * record (lib/fastcommit.c parses them), with whether replay applies it.
 */
static void print_fast_commit_area(struct logdump *l)
{
	const struct ek_jsb *sb = &l->j->sb;
	struct ek_out *o = l->o;
	struct ek_fclog fc;
	int err;

	if (!sb->num_fc_blks) {
		ek_out_null(o, "fast_commit");
		return;
	}
	ek_out_obj_begin(o, "fast_commit");
	err = ek_fc_scan(l->j, l->log.end_tid, &fc);
	if (err) {
		ek_out_text(o, "Fast-commit area: %s\n", ek_error_msg(err));
		ek_out_str(o, "error", ek_error_msg(err));
		ek_out_obj_end(o);
		return;
	}
	ek_out_text(o, "Fast-commit area: journal blocks %u..%u, %s", fc.first_jblk,
		    fc.first_jblk + fc.nblocks - 1, ek_fc_state_name(fc.state));
	if (fc.state == EK_FC_VALID)
		ek_out_text(o, ", %zu records of %zu fast commits to replay", fc.nreplay, fc.ncommits);
	ek_out_text(o, " (expected tid %u; %s)\n", fc.expect_tid, fc.end_reason);
	ek_fc_summary_emit(o, &fc);
	ek_out_arr_begin(o, "records");
	if (fc.nrecs)
		ek_out_text(o, "    jblock offset replay record\n");
	for (size_t i = 0; i < fc.nrecs; i++)
		ek_fc_rec_emit(o, &fc, i);
	ek_out_arr_end(o);
	ek_out_obj_end(o);
	ek_fclog_release(&fc);
}

/* ---- the command ------------------------------------------------------------ */

static int open_journal(struct logdump *l)
{
	struct ek_fs *fs = l->d->fs;
	unsigned flags = fs->flags & EK_OPEN_IGNORE_CSUM;
	int err;

	if (!l->source && ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) && !fs->sb.journal_inum)
		return ek_err(-ENOENT, "the journal is on an external device: name it with -f JOURNAL_DEVICE");
	for (;;) {
		err = l->source ? ek_journal_open_dev(fs, l->source, flags, &l->j) :
				  ek_journal_open(fs, flags, &l->j);
		dbg_flush_warnings(l->d);
		if (err != -EK_BADCRC || (flags & EK_OPEN_IGNORE_CSUM))
			return err;
		/* inspection shows a journal superblock with a bad checksum */
		dbg_warn(l->d, "logdump: warning: %s", ek_error_msg(err));
		flags |= EK_OPEN_IGNORE_CSUM;
	}
}

/* -i: an inode number ("<12>", or "12" when no such name exists) or a path */
static int parse_inode(struct logdump *l, const char *arg)
{
	struct ek_fs *fs = l->d->fs;
	uint64_t v;
	int err = dbg_parse_ino(l->d, arg, &l->ino);

	if (err == -ENOENT && !dbg_parse_u64(arg, &v)) {
		if (v < 1 || v > fs->sb.inodes_count)
			return ek_err(-EINVAL, "inode %llu is outside 1..%u", (unsigned long long)v,
				      fs->sb.inodes_count);
		l->ino = v;
		err = 0;
	}
	if (!err)
		err = ek_inode_loc(fs, l->ino, &l->iblock, &l->ioff);
	return err;
}

static void show_journal(struct logdump *l)
{
	const struct ek_jsb *sb = &l->j->sb;
	struct ek_out *o = l->o;

	if (l->j->dev)
		ek_out_text(o, "Journal: external device %s, %u blocks of %u bytes, log ring %u..%u\n",
			    l->source, sb->maxlen, sb->blocksize, sb->first, sb->last - 1);
	else
		ek_out_text(o, "Journal: inode %u%s, %u blocks of %u bytes, log ring %u..%u\n",
			    l->d->fs->sb.journal_inum,
			    l->j->from_backup ? " (mapped from the superblock's backup)" : "",
			    sb->maxlen, sb->blocksize, sb->first, sb->last - 1);
	/* the whole superblock in JSON (the keys of stats and extkit-replay
	 * info); -S adds its text lines */
	ek_out_obj_begin(o, "journal");
	if (l->super) {
		dbg_journal_super(o, l->j, l->source);
		ek_out_text(o, "\n");
	} else {
		ek_journal_emit(o, l->j, l->source);
	}
	ek_out_obj_end(o);
}

static void show_selection(struct logdump *l)
{
	struct ek_fs *fs = l->d->fs;
	struct ek_out *o = l->o;

	if (l->by_block) {
		ek_out_obj_begin(o, "block");
		ek_out_u64(o, "block", l->block);
		if (l->bitmap) {
			uint32_t g = ek_group_of_block(fs, l->block);

			ek_out_text(o, "FS block %llu is in group %u, its block bitmap is block %llu\n",
				    (unsigned long long)l->block, g, (unsigned long long)l->bitmap);
			ek_out_u64(o, "group", g);
			ek_out_u64(o, "bitmap_block", l->bitmap);
			ek_out_u64(o, "bitmap_bit", l->bitmap_bit);
		} else {
			ek_out_text(o, "FS block %llu is outside the filesystem's block groups\n",
				    (unsigned long long)l->block);
		}
		ek_out_obj_end(o);
	}
	if (l->by_inode) {
		ek_out_text(o, "Inode %u is at group %u, block %llu, offset %u\n", l->ino,
			    ek_group_of_ino(fs, l->ino), (unsigned long long)l->iblock, l->ioff);
		ek_out_obj_begin(o, "inode");
		ek_out_u64(o, "inode", l->ino);
		ek_out_u64(o, "group", ek_group_of_ino(fs, l->ino));
		ek_out_u64(o, "block", l->iblock);
		ek_out_u64(o, "offset", l->ioff);
		ek_out_obj_end(o);
	}
}

int do_logdump(struct dbg *d, int argc, char **argv)
{
	struct logdump l = { .d = d, .o = d->out };
	struct ek_fs *fs = d->fs;
	const char *inode_arg = NULL;
	int c, err;

	while ((c = getopt(argc, argv, "ab:ci:f:OS")) != -1) {
		switch (c) {
		case 'a':
			l.all = true;
			break;
		case 'b':
			if (dbg_parse_u64(optarg, &l.block)) {
				dbg_errorf(d, "logdump: bad block number '%s'", optarg);
				return 1;
			}
			l.by_block = true;
			break;
		case 'c':
			l.contents = true;
			break;
		case 'i':
			inode_arg = optarg;
			break;
		case 'f':
			l.source = optarg;
			break;
		case 'O':
			l.old = true;
			break;
		case 'S':
			l.super = true;
			break;
		default:
			return dbg_usage("logdump");
		}
	}
	if (optind != argc)
		return dbg_usage("logdump");
	if (inode_arg) {
		err = parse_inode(&l, inode_arg);
		if (err)
			return dbg_fail(d, "logdump", err);
		l.by_inode = true;
	}
	if (l.by_block && l.block >= fs->sb.first_data_block && l.block < fs->sb.blocks_count) {
		uint32_t g = ek_group_of_block(fs, l.block);

		l.bitmap = fs->groups[g].block_bitmap;
		l.bitmap_bit = (l.block - ek_group_first_block(fs, g)) >> fs->cluster_bits;
	}

	/* everything that can fail before anything is printed */
	err = open_journal(&l);
	if (err)
		return dbg_fail(d, "logdump", err);
	err = ek_journal_scan(l.j, &l.log);
	if (!err) {
		err = ek_journal_plan(l.j, &l.log, l.log.end_tid - 1, &l.plan);
		if (err)
			ek_jlog_release(&l.log);
	}
	l.hdr = ek_malloc(l.j->sb.blocksize);
	l.data = ek_malloc(l.j->sb.blocksize);
	if (!err && (!l.hdr || !l.data))
		err = -ENOMEM;
	if (err) {
		free(l.hdr);
		free(l.data);
		ek_journal_close(l.j);
		return dbg_fail(d, "logdump", err);
	}
	ek_jfmt_init(&l.f, &l.j->sb);

	ek_out_obj_begin(l.o, NULL);
	show_journal(&l);
	show_selection(&l);
	show_live(&l);
	if (l.old)
		show_old(&l);
	print_fast_commit_area(&l);
	ek_out_obj_end(l.o);

	free(l.hdr);
	free(l.data);
	ek_jplan_release(&l.plan);
	ek_jlog_release(&l.log);
	ek_journal_close(l.j);
	if (l.unread) {
		dbg_errorf(d, "logdump: %llu journal blocks could not be read: %s",
			   (unsigned long long)l.unread, l.read_err);
		return 1;
	}
	return 0;
}
