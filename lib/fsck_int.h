// SPDX-License-Identifier: MIT
/* fsck_int.h - the checker's state, shared by its passes (lib/fsck*.c); not installed */
#ifndef EK_FSCK_INT_H
#define EK_FSCK_INT_H

#include "extkit.h"


/*
 * An inode's flags as fsck_iflags() gives them: IN_USE and the file type
 * of i_mode are kept in its state byte; IS_DIR and REACHED with the
 * directories (c->dflags), IS_EA and IN_BAD_BLOCK in sparse sets.
 */
#define IN_USE	0x1
#define IS_DIR	0x2
#define REACHED	0x4	/* pass 3: connected to the root */
#define IN_BAD_BLOCK 0x10	/* its inode table block is a bad block */
#define IS_EA	0x8	/* an xattr value inode (ea_inode): xattrs, not entries, name it */
#define FT_SHIFT 5	/* EXT4_FT_* of i_mode (0: no known type) */

/*
 * The inodes of one group, a byte each up to the last in use: IN_USE in
 * bit 0, the file type in bits 5-7, and two counts of two bits,
 * i_links_count (bits 1-2) and the directory entries naming the inode
 * (bits 3-4).  Most inodes count 1 or 2.  Once a count of the group
 * reaches COUNT_OVF, the group's counts move to @wide, a byte an inode
 * (links in the low nibble, entries in the high one), where WIDE_OVF
 * says the count is the overflow table's.  (The other flags of
 * fsck_iflags() live elsewhere: these bits are the counts'.)
 */
struct igrp {
	uint32_t n, cap;
	uint8_t *st;
	uint8_t *wide;		/* NULL, or cap bytes */
};
#define ST_LINKS 1	/* which count: its shift in st */
#define ST_REFS	3
#define COUNT_OVF 3	/* a two-bit count's largest value: the group widens */
#define WIDE_OVF 15	/* a nibble of 15: the count is the overflow entry's */

/* an inode whose link count or references do not fit a nibble */
struct ovf {
	ek_ino_t ino;		/* 0: empty slot */
	uint16_t links;
	uint32_t refs;
};

/* a sorted set of inode numbers (IS_EA, IN_BAD_BLOCK: few) */
struct inoset {
	ek_ino_t *v;
	size_t n, cap;
};

/* a directory in use: its '..' and the directory whose entry names it */
struct dinfo {
	ek_ino_t ino, parent, named_in;
};

/* a metadata extent (superblocks, descriptors, bitmaps, inode tables, MMP) */
struct range {
	ek_blk_t blk;
	uint64_t len;
};

struct check {
	struct ek_fs *fs;
	const struct ek_fsck_opts *o;
	struct ek_fsck_summary *sum;
	uint8_t **bmap;		/* per group: computed block (cluster) bitmap, or NULL */
	struct range *meta;	/* metadata extents, sorted, merged */
	size_t nmeta, meta_cap;
	struct igrp *ig;	/* per group: its inodes' state (see struct igrp) */
	struct ovf *ovf;	/* open hash by inode, ovf_cap slots (a power of 2) */
	size_t novf, ovf_cap;
	struct dinfo *dirs;	/* the directories in use, by inode number */
	uint8_t *dflags;	/* per entry of dirs: DIR_REACHED, DIR_GONE */
	size_t dflags_cap;
	struct inoset ea_inodes, bad_block_inodes;
	size_t ndirs, dirs_cap;
	ek_blk_t *dups;		/* blocks claimed a second time (pass 1B names the owners) */
	size_t ndups, dups_cap;
	ek_blk_t *misaligned;	/* bigalloc: clusters a logical cluster maps into
				 * wrongly (first blocks; pass 1D copies them) */
	size_t nmisaligned, misaligned_cap;
	ek_blk_t *xblk;		/* the xattr block of each inode in use that has one */
	size_t nx, x_cap;
	ek_blk_t *bad;		/* the bad blocks inode's blocks, in its map order */
	size_t nbad, bad_cap;
	/* pass 1, the inode being walked */
	const struct ek_inode *ei;
	uint64_t claimed;	/* blocks its map and xattr block claim */
	ek_blk_t next_pblk;	/* contiguity of its data */
	bool fragmented;
	int64_t last_lblk;	/* its last mapped block, -1 for none */
	int64_t last_init;	/* its last written (not unwritten) block */
	bool ea_shared;		/* it has xattr value inodes: i_blocks not judged */
	struct fsck_xa *xa;	/* fsck_xattr.c's state: xattr blocks checked, value inode refs */
	uint32_t xnum[8];	/* extents: entries in the nodes at each depth (0: leaves) */
	uint32_t xnodes[8];	/* and tree blocks at each depth */
	uint64_t last_cluster;	/* bigalloc: the cluster it claimed last */
	bool have_cluster;
	uint64_t prev_lblk, prev_pblk;	/* bigalloc: its previous data block */
	bool have_prev;
	/* pass 2: names seen in the directory being read */
	uint32_t *name_slots;	/* open hash: offset + 1 into names, 0 empty */
	bool fold;		/* the directory being read is casefolded (ek_dir_folds) */
	size_t nslots, nnames;
	char *names;
	size_t names_len, names_cap;
	/* encryption: per inode its policy, 0 none, 1 a version not known
	 * (not compared, as e2fsck), 2 + an index into pol; allocated at
	 * the first encrypted inode.  pol_slots: open hash of pol, index + 1 */
	uint32_t *crypt;
	struct ek_crypt_policy *pol;
	size_t npol, pol_cap;
	uint32_t *pol_slots;
	size_t pol_nslots;
	/* pass 2, an htree directory: the hashes of each leaf's names */
	struct dxleaf *dxl;
	size_t ndxl, dxl_cap;
	bool dxl_unsorted;
	uint8_t *dxbuf;		/* root and interior nodes: 3 blocks */
	int err;		/* first operational error */
	uint32_t p1_group;	/* pass 1: the group last reported to progress_units */
	/* quota: the types whose usage is counted (feature on, inode named) */
	bool quota_on[EK_QUOTA_TYPES];
	struct ek_quota_tally quota[EK_QUOTA_TYPES];
	/* passes 3 and 4 (fsck_pass34.c): /lost+found once found or made, the
	 * root made again in this pass (not on disk yet) */
	ek_ino_t lnf;
	bool lnf_tried;
	bool root_new;
	bool root_scanned;	/* pass 1 met the root inode (fsck_pass1_root) */
	/* pass 3A: the directories pass 2 found to index (ek_fsck_opts.index_dirs) */
	ek_blk_t *pass3a;
	size_t npass3a, pass3a_cap;
	/* a directory's entries were left unread (DIR_DAMAGED not fixed): an
	 * inode that looks unattached may be named there */
	bool names_incomplete;
	/* repair */
	struct ek_wset *ws;	/* this pass's fixes (NULL: not repairing) */
	struct ek_finding pending;	/* the finding whose fix the site is applying */
	bool have_pending;
	bool stop;		/* the tool stopped the check, or cancel was raised */
	bool halted;		/* the tool stopped the check at a finding (preen) */
	bool told_no_journal;
	bool restart;		/* a fix asks for the passes to run again */
	unsigned restarts;	/* runs restarted so far */
	bool large_files;	/* pass 1: a regular file of 2 GiB or more */
	uint32_t incompat_set;	/* pass 1: INCOMPAT features a fix of this run set */
	uint8_t *reloc;		/* per group: tables to move at pass 1's end (fsck_pass0.c) */
	uint8_t *distrusted;	/* per group: its UNINIT flags and itable_unused read as
				 * clear (a bad checksum guards them), NULL when none */
	bool in_place;		/* the next commit is written in place (the primary superblock) */
	/* the journal (fsck_journal.c): the run cleared an internal journal */
	bool jnl_cleared;
	/* pass 0 cleared an invalid s_mmp_block or resize inode: made anew
	 * after the passes (fsck_pass0.c) */
	bool mmp_cleared, resize_recreate;
	/* a finding left unfixed means some blocks in use were not claimed (a
	 * damaged map, inode or xattr block): pass 5 then frees nothing */
	bool claims_incomplete;
	bool dups_left;		/* a block claimed twice was left shared */
	/* pass 1 and the xattr blocks marked: with every claim known, the
	 * computed map alone says which blocks are free (as e2fsck allocates) */
	bool claims_done;
	/* fsck_alloc_block's memo, once claims are done: no block of
	 * [full_from, full_to) can be handed out while map_clears (bits
	 * cleared in the computed maps) is still full_clears, so a goal in
	 * it is searched from full_to (repairs in a full region of the disk
	 * otherwise scan it whole, each) */
	ek_blk_t full_from, full_to;
	uint64_t map_clears, full_clears;
	/* pass 1 repairs of the inode being walked (fsck_pass1.c) */
	struct ek_ext *xv;	/* its extents as walked (what a rebuilt tree maps) */
	size_t nxv, xv_cap;
	ek_blk_t *xtree;	/* its extent tree blocks as walked (reused by a rebuild) */
	size_t nxtree, xtree_cap;
	size_t dups_at;		/* c->ndups before its walk */
	size_t nx_at;		/* c->nx before its xattr block was counted */
	uint32_t illegal;	/* indirect map: illegal pointers met */
	bool map_rebuild;	/* a fix dropped entries: the tree is rebuilt after the walk */
	bool map_clear;		/* a fix clears the inode (too many illegal blocks) */
	bool map_left;		/* a bad entry was left: its counts are unknown */
	bool cleared;		/* a fix cleared it: no more checks */
	/* findings (fsck_path.c): the count so far, and what their paths need */
	uint64_t nfindings;
	struct fsck_paths *paths;
	bool type_bad;		/* its type's own check failed: e2fsck -v does not count it */
};


/* where a finding is */
#define AT_INODE(i)	(&(struct ek_finding){ .ino = (i), .group = -1 })
#define AT_GROUP(g)	(&(struct ek_finding){ .group = (int64_t)(g) })

/* ---- shared by the passes ---- */

/* fsck.c */
int fsck_blk_push(ek_blk_t **v, size_t *n, size_t *cap, ek_blk_t b);
struct dinfo *fsck_dinfo_of(const struct check *c, ek_ino_t ino);
int fsck_dir_add(struct check *c, ek_ino_t ino);
int fsck_alloc_block(struct check *c, ek_blk_t goal, ek_blk_t *out);
int fsck_free_block(struct check *c, ek_blk_t blk);
bool fsck_room_for(struct check *c, uint64_t want);
int fsck_commit(struct check *c);
int fsck_alloc_inode(struct check *c, uint32_t goal_group, uint16_t mode, uint16_t links,
		     ek_ino_t *out);
void fsck_fix_done(struct check *c, int err);
void fsck_forget_freed(struct check *c, const ek_blk_t *blks, size_t n);
int fsck_commit(struct check *c);
/* a pass's fixes so far committed when they hold enough blocks (between
 * inode table chunks in pass 1, between directories in passes 2 and 3A),
 * so that memory stays bounded: 0, or commit()'s error */
int fsck_flush(struct check *c);
void fsck_inode_forget(struct check *c, ek_ino_t ino);
void fsck_unmark(struct check *c, ek_blk_t blk);
uint8_t fsck_iflags(const struct check *c, ek_ino_t ino);
int fsck_iflags_or(struct check *c, ek_ino_t ino, uint8_t bits);
void fsck_iflags_clear(struct check *c, ek_ino_t ino, uint8_t bits);
uint16_t fsck_imode(const struct check *c, ek_ino_t ino);
int fsck_inode_in_use(struct check *c, ek_ino_t ino, uint16_t mode, uint16_t links);
void fsck_inode_forget(struct check *c, ek_ino_t ino);
uint32_t fsck_links_of(const struct check *c, ek_ino_t ino);
int fsck_mark(struct check *c, ek_blk_t blk, bool *was);
ek_ino_t fsck_named_in_of(const struct check *c, ek_ino_t ino);
void fsck_paint_meta(const struct check *c, uint32_t g, uint8_t *map);
bool fsck_in_meta(const struct check *c, ek_blk_t blk);
int fsck_ref_add(struct check *c, ek_ino_t ino);
void fsck_ref_drop(struct check *c, ek_ino_t ino);
uint32_t fsck_refs_of(const struct check *c, ek_ino_t ino);
bool fsck_report(struct check *c, enum ek_problem_id id, const struct ek_finding *where, ...);
bool fsck_report_if(struct check *c, bool can_fix, enum ek_problem_id id,
		      const struct ek_finding *where, ...);
void fsck_units(struct check *c, unsigned pass, uint64_t done, uint64_t total);

/* fsck_pass0.c */
void fsck_check_features(struct check *c);
bool fsck_check_group_tables(struct check *c, uint32_t g);
int fsck_check_meta_conflicts(struct check *c);
int fsck_relocate_tables(struct check *c);
bool fsck_itables_pending(const struct check *c);
bool fsck_itable_moving(const struct check *c, uint32_t g);
int fsck_check_journal_inode(struct check *c);
void fsck_check_mmp(struct check *c);
int fsck_mmp_recreate(struct check *c);
int fsck_resize_recreate(struct check *c);
/* fsck_super.c: the superblock fields and descriptor flags e2fsck fixes */
void fsck_check_super_fields(struct check *c);
int fsck_stamp_checked(struct check *c, bool errors_left);
/* blocks may be shared: the shared_blocks feature, unless unsharing */
bool fsck_shares_allowed(const struct check *c);
int fsck_check_resize_inode(struct check *c);
int fsck_mark_bad_itable(struct check *c);
int fsck_reloc_bitmap(struct check *c, uint32_t g, bool inode);

/* fsck_badblocks.c */
int fsck_bad_inode_self(struct check *c, const struct ek_inode *ei);
int fsck_bad_blocks_tables(struct check *c);

/* fsck_pass1.c */
int fsck_check_xattr_refs(struct check *c);
bool fsck_has_map(const struct ek_fs *fs, const struct ek_inode *ei);
/* a linked file or directory holding an extent root without the extents
 * flag, on an extent filesystem: read as the extent tree it is */
bool fsck_extents_unflagged(const struct check *c, const struct ek_inode *ei);
int fsck_mark_xattr(struct check *c);
int fsck_pass1_inode(void *arg, struct ek_inode *ei, int derr);
int fsck_pass1_root(struct check *c);
bool fsck_reserved_ino(const struct ek_fs *fs, ek_ino_t ino);
bool fsck_sb_ino(const struct ek_fs *fs, ek_ino_t ino);

/* fsck_pass1b.c */
int fsck_pass1b(struct check *c);

/* fsck_pass2.c */
uint8_t fsck_mode_ftype(uint16_t mode);
uint64_t fsck_name_hash(const char *p, size_t n);
int fsck_pass2(struct check *c);
int fsck_pass3a(struct check *c);
const char *fsck_type_name(uint16_t mode);

/* fsck_xattr.c (h-xattr) */
int fsck_check_xattrs(struct check *c, struct ek_inode *ei);
void fsck_pass4_ea(struct check *c, ek_ino_t ino, uint32_t *want);
uint32_t fsck_ea_refs(struct check *c, ek_ino_t ino);
uint32_t fsck_xattr_qinodes(const struct check *c);
void fsck_xattr_release(struct check *c);
int fsck_check_encrypted_entry(struct check *c, const struct ek_inode *dir, uint32_t policy,
			       const struct ek_dirent *de, const struct ek_finding *at,
			       const char *name, bool clearable);

/* fsck_path.c */
int fsck_path_note(struct check *c, const struct ek_finding *f);
int fsck_paths_pass2(struct check *c);
int fsck_path_seen(struct check *c, ek_ino_t dir, const struct ek_dirent *de);
int fsck_paths_resolve(struct check *c);
void fsck_paths_free(struct check *c);

/* fsck_pass34.c */
void fsck_pass3(struct check *c);
int fsck_pass4(struct check *c);

/* fsck_journal.c */
int fsck_journal_recreate(struct check *c);
/* an ek_ind_sink (arg: the check) on fsck_alloc_block and the set: one block a call */
int fsck_sink_alloc(void *arg, ek_blk_t goal, uint64_t want, ek_blk_t *start, uint64_t *got);
int fsck_sink_put(void *arg, ek_blk_t blk, const uint8_t *buf);

/* fsck_pass5.c */
int fsck_check_quota(struct check *c);
int fsck_pass5(struct check *c);
void fsck_quota_setup(struct check *c);

#endif
