/* SPDX-License-Identifier: MIT */
/*
 * extkit.h - libextkit public interface.
 *
 * The library reads, makes and changes ext2/ext3/ext4 images.  It never
 * prints and never exits: functions return 0 or a negative error code
 * (-ENOMEM, -EIO, -EINVAL for caller bugs, or -EK_CORRUPT, -EK_BADCRC,
 * -EK_UNSUPP), and the place where damage was found is recorded for
 * ek_error_msg().  Decoded ("in-core") structures carry host-order values;
 * raw on-disk structures live in ondisk.h.
 */
#ifndef EXTKIT_H
#define EXTKIT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "ondisk.h"
#include "jbd2_ondisk.h"

#define EK_VERSION "0.1.0"

typedef uint64_t ek_blk_t;	/* filesystem block number */
typedef uint32_t ek_ino_t;	/* inode number */
typedef uint32_t ek_tid_t;	/* journal transaction id */

/* opaque handles: an image (io.c), an undo log (undo.c), a write set
 * (wset.c), the output emitter (out.c), a filesystem being made (newfs.c) */
struct ek_io;
struct ek_undo;
struct ek_wset;
struct ek_out;
struct ek_newfs;

/* ---- errors (err.c) ---------------------------------------------------- */

enum {
	EK_CORRUPT = 2000,	/* on-disk structure is inconsistent */
	EK_BADCRC,		/* checksum mismatch (data decoded anyway) */
	EK_UNSUPP,		/* feature or format we do not handle */
};

enum ek_where {
	EK_AT_NONE,
	EK_AT_BLOCK,		/* where = block number */
	EK_AT_INODE,		/* where = inode number */
	EK_AT_GROUP,		/* where = group number */
	EK_AT_OFFSET,		/* where = byte offset in the image */
};

struct ek_error {
	int code;			/* negative error code */
	enum ek_where kind;
	uint64_t where;
	const char *file;		/* source location that detected it, for -v */
	int line;
	char msg[320];			/* "inode 12: extent header bad magic 0x0" */
};

/* The last error recorded on this thread; valid until the next one. */
const struct ek_error *ek_last_error(void);
/* Message of the last error if @err matches it, else a generic text for @err. */
const char *ek_error_msg(int err);
/* record @code with @prefix before the message of @err (the last error) */
int ek_err_wrap(int code, int err, const char *prefix);
void ek_error_clear(void);

int ek__error(int code, const char *file, int line, enum ek_where kind,
	      uint64_t where, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#define ek_corrupt(blk, ...) \
	ek__error(-EK_CORRUPT, __FILE__, __LINE__, EK_AT_BLOCK, (blk), __VA_ARGS__)
#define ek_corrupt_ino(ino, ...) \
	ek__error(-EK_CORRUPT, __FILE__, __LINE__, EK_AT_INODE, (ino), __VA_ARGS__)
#define ek_corrupt_grp(grp, ...) \
	ek__error(-EK_CORRUPT, __FILE__, __LINE__, EK_AT_GROUP, (grp), __VA_ARGS__)
#define ek_corrupt_fs(...) \
	ek__error(-EK_CORRUPT, __FILE__, __LINE__, EK_AT_NONE, 0, __VA_ARGS__)
#define ek_badcrc(blk, ...) \
	ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_BLOCK, (blk), __VA_ARGS__)
#define ek_badcrc_ino(ino, ...) \
	ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_INODE, (ino), __VA_ARGS__)
#define ek_unsupp(...) \
	ek__error(-EK_UNSUPP, __FILE__, __LINE__, EK_AT_NONE, 0, __VA_ARGS__)
#define ek_err(code, ...) \
	ek__error((code), __FILE__, __LINE__, EK_AT_NONE, 0, __VA_ARGS__)

/* ---- memory (err.c) ---------------------------------------------------- */

/* calloc(n, sz) that fails with NULL on overflow or when n * sz > 1 GiB */
void *ek_calloc(size_t n, size_t sz);
void *ek_malloc(size_t sz);
/*
 * The array at *@arrayp (a T **, given as void *) of *@cap elements of @sz
 * bytes grown to hold at least @need: the capacity doubled from 16, capped
 * as ek_calloc.  0, or -ENOMEM with the array and *@cap untouched.
 */
int ek_grow(void *arrayp, size_t *cap, size_t need, size_t sz);

/* ---- sets of numbers (set.c) ------------------------------------------ */

struct ek_set {
	uint64_t *slot;		/* 0 = empty */
	size_t cap, used;
};

/* add @v (nonzero): 0 added, 1 already present, -ENOMEM, -EINVAL for 0 */
int ek_set_add(struct ek_set *s, uint64_t v);
void ek_set_release(struct ek_set *s);

/* sorted arrays of 64-bit numbers (blocks) and of inode numbers: qsort's
 * comparators, and the index of the first of @n elements >= @key (@n when
 * none is) */
int ek_cmp_u64(const void *a, const void *b);
int ek_cmp_u32(const void *a, const void *b);
size_t ek_lower_u64(const uint64_t *v, size_t n, uint64_t key);
size_t ek_lower_u32(const uint32_t *v, size_t n, uint32_t key);

/* ---- crc (crc.c) ------------------------------------------------------- */

/* crc32c (Castagnoli), kernel convention: no pre/post inversion inside. */
uint32_t ek_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t ek_crc32c_sw(uint32_t crc, const void *buf, size_t len);
/* crc16 (poly 0x8005, reflected) as used by uninit_bg descriptors */
uint16_t ek_crc16(uint16_t crc, const void *buf, size_t len);
/* big-endian crc32 (poly 0x04C11DB7), jbd2 checksum v1 */
uint32_t ek_crc32_be(uint32_t crc, const void *buf, size_t len);

/* ---- io (io.c) --------------------------------------------------------- */

#define EK_IO_RW	0x1	/* open for writing (O_EXCL on block devices) */

/*
 * Open @path (image file or block device); @offset is where the filesystem
 * starts inside it.  On success *out is owned by the caller: ek_io_close().
 */
int ek_io_open(const char *path, unsigned flags, uint64_t offset, struct ek_io **out);
void ek_io_close(struct ek_io *io);
/* bytes available after the offset */
uint64_t ek_io_size(const struct ek_io *io);
/* Read exactly @len bytes at @off (relative to the offset); -EIO on error or EOF. */
int ek_io_pread(struct ek_io *io, void *buf, size_t len, uint64_t off);
/* bytes from @off (up to @len) that are a hole of a sparse image file, so
 * read as zeros (lseek SEEK_DATA); 0 when not, unknown, or an overlay is set */
uint64_t ek_io_hole_len(struct ek_io *io, uint64_t off, uint64_t len);
int ek_io_pwrite(struct ek_io *io, const void *buf, size_t len, uint64_t off);
/* make written data durable (fdatasync) */
int ek_io_sync(struct ek_io *io);

/*
 * A read overlay: copy block @blk (of the overlay's block size) into @buf
 * and return 0, return 1 when it does not hold @blk (the image's own block
 * is read instead; @buf may have been scribbled on), or a negative error.
 */
typedef int (*ek_block_overlay)(void *arg, ek_blk_t blk, void *buf);
/*
 * Put @fn in front of every read of @io (NULL removes it); blocks are
 * 2^@log_blksz bytes counted from the io's offset.  -EINVAL for an io
 * open for writing: an overlaid io never writes.
 */
int ek_io_set_overlay(struct ek_io *io, ek_block_overlay fn, void *arg, uint32_t log_blksz);
/* may two threads call ek_io_pread at once (no overlay, whose reads share
 * a buffer) */
bool ek_io_reads_concurrent(const struct ek_io *io);

/* the path the io was opened with; its start offset on that file or device */
const char *ek_io_path(const struct ek_io *io);
uint64_t ek_io_offset(const struct ek_io *io);
/*
 * Is @path mounted: the block device itself, or an image file that backs a
 * loop device (or a partition of one) with a mounted filesystem?  Files and
 * devices are compared by device and inode number, so other names of the
 * same file count.  false when it cannot tell (no /proc).  Every tool that
 * writes asks this first.
 */
bool ek_target_mounted(const char *path);
/* test fault hook (EK_TEST_FAIL_WRITES): true once it has stopped writes */
bool ek__io_stopped(void);

/*
 * Undo files (undo.c), in e2fsprogs' format "E2UNDO02": e2undo restores
 * ours and ek_undo_apply() restores e2fsck/mke2fs/tune2fs/resize2fs -z files.
 *
 * Writing.  ek_undo_create() makes the new file @path (never overwrites one)
 * for the device @io writes, saving in @blksz-byte blocks (the filesystem
 * block size, 1024..1 MiB; it reads the device through its own read-only
 * handle).  Attached with ek_io_set_undo(), each ek_io_pwrite() first saves
 * the original bytes of every block it touches that was not saved yet and
 * makes them durable (ek_undo_save), then after the write keeps the
 * recorded superblock equal to the device's (ek_undo_written), so the file
 * is valid wherever the tool stops.  ek_undo_close() records the superblock
 * as the tool left it, marks the file finished and frees @u (NULL is fine);
 * after the test fault hook stopped the writes it only frees, as a crash
 * would.  One undo per device: an external journal device has its own.
 */
int ek_undo_create(const char *path, const struct ek_io *io, uint32_t blksz,
		   struct ek_undo **out);
/*
 * As e2fsprogs' undo manager opens a -z file (mke2fs's): a missing or
 * empty @path is started as ek_undo_create() starts one; an existing undo
 * file goes on, with its own block sizes, when the superblock it recorded
 * is the device's now (the same filesystem, unchanged since): blocks it
 * saved already are not saved again, so it restores the device as it was
 * before the first run.  Refused (nothing written): not an undo file or
 * damaged (-EK_CORRUPT, its header, key blocks or key sizes), another
 * filesystem or a changed one, another offset (-EINVAL).
 */
int ek_undo_resume(const char *path, const struct ek_io *io, uint32_t blksz,
		   struct ek_undo **out);
int ek_undo_close(struct ek_undo *u);
/* bytes [@off, @off + @len) of the device are about to be / were written */
int ek_undo_save(struct ek_undo *u, uint64_t off, uint64_t len);
int ek_undo_written(struct ek_undo *u, uint64_t off, uint64_t len);
/*
 * The io keeps @u (not owned) for its writes; NULL detaches.  -EINVAL when
 * @u was made for another device or offset (nothing attached).
 */
int ek_io_set_undo(struct ek_io *io, struct ek_undo *u);
/* lib-internal: the device @u reads (owned by @u), its path */
const struct ek_io *ek__undo_io(const struct ek_undo *u);
const char *ek__undo_path(const struct ek_undo *u);

/* The codec.  Decoded header, host order. */
struct ek_undo_hdr {
	uint64_t num_keys, super_offset, key_offset, fs_offset;
	uint32_t block_size, fs_block_size, sb_crc, state;
	uint32_t f_compat, f_incompat, f_rocompat;
	bool crc_bad;		/* with @force: header_crc did not match */
	bool unknown_features;	/* with @force: incompat/rocompat bits set */
};
/*
 * Decode the 512-byte header at @raw, checking in order: magic (-EK_CORRUPT),
 * unknown incompat/rocompat features (-EK_UNSUPP), header_crc (-EK_BADCRC),
 * then geometry (-EK_CORRUPT: block sizes, the superblock copy and first key
 * block after the header).  With @force the features and the checksum only
 * set crc_bad / unknown_features; the geometry is always checked.
 */
int ek_undo_hdr_decode(const void *raw, bool force, struct ek_undo_hdr *out);
/* encode @h into 512 bytes at @raw with its header_crc (the flags are ignored) */
void ek_undo_hdr_encode(const struct ek_undo_hdr *h, void *raw);
/* crc32c of key block @blk (@bs bytes) as if its crc field were 0 */
uint32_t ek_undo_keyblock_csum(const void *blk, uint32_t bs);
/* set the magic and crc of key block @blk */
void ek_undo_keyblock_seal(void *blk, uint32_t bs);
/* key block @blk at undo block @where: magic (-EK_CORRUPT), crc (-EK_BADCRC) */
int ek_undo_keyblock_check(const void *blk, uint32_t bs, uint64_t where);
/* keys a key block of @bs bytes holds */
static inline uint32_t ek_undo_keys_per_block(uint32_t bs) { return bs / 16 - 1; }

/*
 * Reading.  ek_undo_apply() restores @image (opened at the header's
 * fs_offset) from the undo file @undo_path.  Before writing anything it
 * checks the header, the superblock copy against the image's superblock
 * (-EINVAL: another filesystem, or changed since), every key block and
 * every saved range's checksum and place; EK_UNDO_FORCE turns those
 * refusals into flags in @out and goes on, as e2undo -f.  Keys whose data
 * or target lies outside the file or image are refused (skipped and counted
 * with force).  Ranges are written last key first, so a block saved twice
 * gets its oldest bytes.  An unfinished file (the tool stopped) is restored
 * as far as it goes.  When the file was unfinished or a check was overridden
 * the filesystem is marked for a check (EXT4_VALID_FS cleared; EXT4_ERROR_FS
 * set too when damaged data was restored), as e2undo does.  Whether the
 * image is mounted is the caller's question (ek_target_mounted).
 */
#define EK_UNDO_FORCE	0x1

struct ek_undo_result {
	struct ek_undo_hdr hdr;
	uint64_t keys;			/* ranges written */
	uint64_t bytes;
	bool finished;			/* E2UNDO_STATE_FINISHED */
	bool sb_mismatch;		/* forced: the image's superblock differs */
	bool other_fs;			/* ... and its UUID differs */
	bool sb_crc_bad;		/* forced: the superblock copy's crc */
	uint64_t bad_keyblocks;		/* forced: key blocks failing magic or crc */
	uint64_t bad_data;		/* forced: ranges restored despite a bad crc */
	uint64_t skipped;		/* forced: ranges outside the file or image */
	bool marked;			/* the filesystem was marked for a check */
	bool not_marked;		/* it should have been, but holds no ext superblock */
};
int ek_undo_apply(const char *undo_path, const char *image, unsigned flags,
		  struct ek_undo_result *out);


/* ---- partition tables (partition.c) ------------------------------------ */

/*
 * An image where no superblock is at @offset but a partition table is:
 * the byte offsets of up to @max partitions into @offs, its kind ("an MBR
 * partition table"...) into *kind; the count (0: a table without
 * partitions), or -1 when there is no table or a superblock is there.
 */
int ek_partitions_probe(const char *path, uint64_t offset, uint64_t *offs, int max,
			const char **kind);
/* "; it holds an MBR partition table: try OPTION 1048576" for an error
 * message, or "" when there is no table there */
void ek_partitions_hint(const char *path, uint64_t offset, const char *option, char *buf,
			size_t len);

/* ---- superblock (super.c) ---------------------------------------------- */

struct ek_feature {
	int type;		/* 0 compat, 1 incompat, 2 ro_compat */
	uint32_t mask;
	const char *name;	/* e2fsprogs spelling */
};

#define EK_FEAT_COMPAT		0
#define EK_FEAT_INCOMPAT	1
#define EK_FEAT_RO_COMPAT	2

/* incompat features we can read */
#define EK_INCOMPAT_SUPP (EXT4_FEATURE_INCOMPAT_FILETYPE | \
	EXT4_FEATURE_INCOMPAT_RECOVER | EXT4_FEATURE_INCOMPAT_META_BG | \
	EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_64BIT | \
	EXT4_FEATURE_INCOMPAT_MMP | EXT4_FEATURE_INCOMPAT_FLEX_BG | \
	EXT4_FEATURE_INCOMPAT_EA_INODE | EXT4_FEATURE_INCOMPAT_CSUM_SEED | \
	EXT4_FEATURE_INCOMPAT_LARGEDIR | EXT4_FEATURE_INCOMPAT_INLINE_DATA | \
	EXT4_FEATURE_INCOMPAT_ENCRYPT | EXT4_FEATURE_INCOMPAT_CASEFOLD)

/* Name of one feature bit, or NULL; ek_feature_lookup parses "FEATURE_C12" too. */
const char *ek_feature_name(int type, uint32_t mask);
/* casefold: s_encoding by name ("utf8", "utf8-12.1"): 0, or -EINVAL */
int ek_encoding_lookup(const char *name, uint16_t *out);
/* the name of s_encoding @value, NULL if unknown */
const char *ek_encoding_name(uint16_t value);
/*
 * s_encoding_flags from words joined by '-' ("strict", "nostrict"), from
 * none set, as e2fsprogs reads -E encoding_flags=: 0, or -EINVAL
 */
int ek_encoding_flags_parse(uint16_t encoding, const char *s, uint16_t *flags);
int ek_feature_lookup(const char *name, int *type, uint32_t *mask);
const struct ek_feature *ek_feature_table(size_t *count);
/*
 * A default mount option's bits in s_default_mount_opts by its e2fsprogs
 * name ("acl", "journal_data_writeback", "MNTOPT_12"); -EINVAL if unknown.
 * The journal modes share bits 5-6 (EK_DEFM_JMODE).
 */
#define EK_DEFM_JMODE 0x0060
int ek_mntopt_lookup(const char *name, uint32_t *mask);
/*
 * The e2fsprogs name of one option bit, or of a journal mode (@mask holding
 * only EK_DEFM_JMODE bits); NULL for a bit without a name (MNTOPT_n).
 * Static storage.
 */
const char *ek_mntopt_name(uint32_t mask);

/* the superblock's split block counts: the hi half only with 64bit (super.c) */
enum ek_sb_field { EK_SB_BLOCKS_COUNT, EK_SB_R_BLOCKS_COUNT, EK_SB_FREE_BLOCKS_COUNT };
uint64_t ek_sb_get(const struct ext4_super_block *sb, enum ek_sb_field f);
void ek_sb_set(struct ext4_super_block *sb, enum ek_sb_field f, uint64_t v);
/* a superblock time: seconds in @lo, bits 32-39 in the _hi byte @hi */
void ek_time_set(__le32 *lo, uint8_t *hi, int64_t t);

/* Decoded superblock: host order, lo/hi pairs joined. */
struct ek_super {
	uint32_t inodes_count;
	uint64_t blocks_count;
	uint64_t r_blocks_count;
	uint64_t free_blocks_count;
	uint32_t free_inodes_count;
	uint32_t first_data_block;
	uint32_t log_block_size;
	uint32_t log_cluster_size;
	uint32_t blocks_per_group;
	uint32_t clusters_per_group;
	uint32_t inodes_per_group;
	uint32_t rev_level;
	uint32_t first_ino;
	uint32_t inode_size;
	uint32_t compat, incompat, ro_compat;
	uint32_t desc_size;
	uint32_t reserved_gdt_blocks;
	uint32_t first_meta_bg;
	uint32_t log_groups_per_flex;
	uint32_t journal_inum;
	uint32_t last_orphan;
	uint32_t orphan_file_inum;
	uint32_t hash_seed[4];
	uint32_t def_hash_version;
	uint32_t flags;
	uint16_t encoding, encoding_flags;	/* casefold: s_encoding, s_encoding_flags */
	uint32_t min_extra_isize, want_extra_isize;
	uint32_t checksum_seed;
	uint32_t checksum;
	uint16_t state, magic;
	int64_t mtime, wtime, mkfs_time, lastcheck;
	uint8_t uuid[16];
};

/*
 * Decode and validate the 1024-byte superblock at @raw, in order: magic,
 * unknown incompat features (-EK_UNSUPP), checksum (-EK_BADCRC unless
 * @ignore_csum), then geometry.  @sb_blk is for messages.
 */
int ek_super_decode(const struct ext4_super_block *raw, bool ignore_csum,
		    struct ek_super *out);
uint32_t ek_super_csum(const struct ext4_super_block *raw);
/*
 * The primary superblock of the device @io, raw, for a field-level update:
 * read it, change fields (ek_sb_set), then write it back, which sets the
 * checksum (under metadata_csum) and flushes @io; ek_super_put_primary
 * writes it without the flush (the caller flushes).
 */
int ek_super_read_primary(struct ek_io *io, struct ext4_super_block *out);
int ek_super_write_primary(struct ek_io *io, struct ext4_super_block *sb);
int ek_super_put_primary(struct ek_io *io, struct ext4_super_block *sb);

/* field table for the raw superblock: drives stats/ssv/JSON */
enum ek_ftype { EK_F_UINT, EK_F_HEX, EK_F_TIME, EK_F_UUID, EK_F_STRING,
		EK_F_BYTES, EK_F_HASHALG, EK_F_FEATURES, EK_F_STATE,
		EK_F_ERRORS, EK_F_OS, EK_F_MNTOPTS };

struct ek_field {
	const char *name;	/* snake_case without the s_ prefix */
	uint16_t offset;
	uint16_t size;		/* bytes of the low part (1, 2, 4, 8, or array length) */
	uint16_t hi_offset;	/* 0: none */
	uint8_t hi_size;
	uint8_t type;		/* enum ek_ftype */
	uint16_t count;		/* array elements (0/1 scalar) */
};

const struct ek_field *ek_super_fields(size_t *count);
/* value of an integer field (lo | hi << bits) */
uint64_t ek_field_get(const void *raw, const struct ek_field *f, unsigned idx);

/* ---- filesystem (fs.c) ------------------------------------------------- */

struct ek_group {
	ek_blk_t block_bitmap;
	ek_blk_t inode_bitmap;
	ek_blk_t inode_table;
	uint32_t free_blocks;
	uint32_t free_inodes;
	uint32_t used_dirs;
	uint32_t itable_unused;
	uint32_t block_bitmap_csum;
	uint32_t inode_bitmap_csum;
	uint16_t flags;
	uint16_t checksum;
	bool csum_bad;		/* descriptor checksum mismatch */
};

#define EK_OPEN_RW		0x01	/* writable */
#define EK_OPEN_NO_BITMAPS	0x02	/* never read bitmaps (debugfs -c) */
#define EK_OPEN_IGNORE_CSUM	0x04	/* decode despite checksum errors */

struct ek_open_opts {
	unsigned flags;
	uint64_t offset;	/* byte offset of the fs in the image */
	ek_blk_t superblock;	/* 0: primary; else a backup superblock block */
	uint32_t blocksize;	/* with superblock: its block size (0: try all) */
	/* read-only opens: every read, the superblock's included, goes through
	 * this overlay (blocks of the filesystem's block size), e.g. a replay
	 * plan's (ek_jplan_overlay); @overlay_arg must outlive the ek_fs */
	ek_block_overlay overlay;
	void *overlay_arg;
};

#define EK_MAX_WARNINGS 64

struct ek_fs {
	struct ek_io *io;
	struct ext4_super_block *raw_sb;	/* owned, 1024 bytes as read */
	struct ek_super sb;
	uint32_t blksz;
	uint32_t log_blksz;		/* log2(blksz) */
	uint32_t cluster_bits;		/* log2(blocks per cluster) */
	uint32_t group_count;
	uint32_t desc_size;
	uint32_t desc_per_block;
	uint32_t inode_size;
	uint32_t inodes_per_block;
	uint32_t itable_blocks;		/* inode table blocks per group */
	uint32_t csum_seed;		/* metadata_csum seed */
	ek_blk_t sb_block;		/* where the superblock was read (0 = primary) */
	unsigned flags;			/* EK_OPEN_* */
	bool has_csum;			/* metadata_csum */
	bool has_gdt_csum;		/* uninit_bg (gdt_csum) */
	struct ek_group *groups;	/* group_count entries */
	uint8_t *gd_raw;		/* raw descriptor table */
	uint8_t **block_bitmaps;	/* lazily loaded, per group */
	uint8_t **inode_bitmaps;
	unsigned nwarnings;		/* non-fatal findings on open/read */
	char *warnings[EK_MAX_WARNINGS];
	unsigned warnings_dropped;
	struct ek_itcache *itcache;	/* recently read inode-table chunks (inode.c) */

};

/* Open the filesystem in @path.  *out is freed with ek_fs_close(). */
int ek_fs_open(const char *path, const struct ek_open_opts *opts, struct ek_fs **out);
void ek_fs_close(struct ek_fs *fs);
/* fill the derived fields of @fs from fs->sb (ek_fs_open does it; mkfs too) */
void ek_fs_derive(struct ek_fs *fs);
/*
 * Read the superblock and descriptors of @fs again after a write (same
 * geometry: -EK_CORRUPT if it changed) and drop the cached bitmaps and
 * inode-table chunks.  0 or <0.
 */
int ek_fs_refresh(struct ek_fs *fs);
/* Record a non-fatal finding (bad bitmap checksum...) for the tool to print. */
void ek_fs_warn(struct ek_fs *fs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline bool ek_has_compat(const struct ek_fs *fs, uint32_t m) { return fs->sb.compat & m; }
static inline bool ek_has_incompat(const struct ek_fs *fs, uint32_t m) { return fs->sb.incompat & m; }
static inline bool ek_has_ro_compat(const struct ek_fs *fs, uint32_t m) { return fs->sb.ro_compat & m; }

/* Read @count blocks at @blk into @buf; the range is checked against the fs. */
int ek_fs_read_blocks(struct ek_fs *fs, ek_blk_t blk, uint32_t count, void *buf);
bool ek_fs_block_valid(const struct ek_fs *fs, ek_blk_t blk);
bool ek_fs_range_valid(const struct ek_fs *fs, ek_blk_t blk, uint64_t count);

/* ---- groups and bitmaps (group.c) -------------------------------------- */

uint32_t ek_group_of_block(const struct ek_fs *fs, ek_blk_t blk);
uint32_t ek_group_of_ino(const struct ek_fs *fs, ek_ino_t ino);
ek_blk_t ek_group_first_block(const struct ek_fs *fs, uint32_t g);
ek_blk_t ek_group_last_block(const struct ek_fs *fs, uint32_t g);
uint32_t ek_group_blocks(const struct ek_fs *fs, uint32_t g);
bool ek_group_has_super(const struct ek_fs *fs, uint32_t g);
/*
 * The clusters in the order allocators take them: from @goal's cluster to
 * the end of its group, the groups after it, wrapping, and the start of
 * goal's group last; each cluster once.  ek_cluster_scan_next() gives the
 * next one's first block, with s->g and s->bit (its group and its bit in
 * the group's block bitmap) and s->new_group when it begins a group;
 * ek_cluster_scan_skip_group() leaves the rest of the group out.
 */
struct ek_cluster_scan {
	uint32_t g, g0, k;	/* the group; the goal's; groups begun after it */
	uint64_t bit, next, end, goal_bit;
	ek_blk_t first;		/* group g's first block */
	bool new_group;
};
void ek_cluster_scan_start(const struct ek_fs *fs, ek_blk_t goal, struct ek_cluster_scan *s);
bool ek_cluster_scan_next(const struct ek_fs *fs, struct ek_cluster_scan *s, ek_blk_t *blk);
static inline void ek_cluster_scan_skip_group(struct ek_cluster_scan *s) { s->next = s->end; }
/*
 * The rule behind ek_group_has_super(), from the feature words and
 * s_backup_bgs (sparse_super2): group 0; with sparse_super2 the two backup
 * groups; without sparse_super every group; else 1 and powers of 3, 5, 7
 */
bool ek_super_group_has_super(uint32_t compat, uint32_t ro_compat, const uint32_t backup_bgs[2],
			      uint32_t g);
/* blocks used by the superblock copy and GDT (+reserved GDT) in group g */
uint32_t ek_group_sb_gdt_blocks(const struct ek_fs *fs, uint32_t g);
/* without meta_bg: reserved GDT block @i of the copy in group @g (one with a
 * superblock), where mke2fs puts it and the resize inode maps it */
ek_blk_t ek_group_reserved_gdt_block(const struct ek_fs *fs, uint32_t g, uint32_t i);
/*
 * The resize inode (inode 7, resize_inode without meta_bg), as mke2fs and
 * libext2fs's ext2fs_create_resize_inode() lay it out:
 * ek_resize_dind_encode: its double-indirect block (fs->blksz bytes at
 * @buf): slot (descriptor blocks + i) % (blksz / 4) names the primary's
 * reserved GDT block i; ek_resize_gdt_encode: the primary's reserved GDT
 * block @i, listing the same block of each backup copy in group order;
 * ek_resize_inode_encode: raw inode @raw's i_block[DIND] = @dind, its
 * i_size (the double-indirect range's end) and i_blocks (the
 * double-indirect block, the reserved GDT blocks and their copies).
 */
void ek_resize_dind_encode(const struct ek_fs *fs, uint8_t *buf);
void ek_resize_gdt_encode(const struct ek_fs *fs, uint32_t i, uint8_t *buf);
void ek_resize_inode_encode(const struct ek_fs *fs, ek_blk_t dind, uint8_t *raw);
/* block number of GDT block @i (primary copy), meta_bg aware */
ek_blk_t ek_gdt_block(const struct ek_fs *fs, ek_blk_t sb_blk, uint32_t i);
uint16_t ek_group_desc_csum(const struct ek_fs *fs, uint32_t g, const void *desc);
/* the split (lo/hi) fields of a raw group descriptor */
enum ek_gd_field {
	EK_GD_BLOCK_BITMAP, EK_GD_INODE_BITMAP, EK_GD_INODE_TABLE,
	EK_GD_FREE_BLOCKS, EK_GD_FREE_INODES, EK_GD_USED_DIRS, EK_GD_ITABLE_UNUSED,
	EK_GD_BLOCK_BITMAP_CSUM, EK_GD_INODE_BITMAP_CSUM,
	EK_GD_FLAGS,		/* bg_flags (EXT4_BG_*): one half only */
};
/* field @f of descriptor @desc: the hi half only where fs->desc_size holds it */
uint64_t ek_gd_get(const struct ek_fs *fs, const void *desc, enum ek_gd_field f);
void ek_gd_set(const struct ek_fs *fs, void *desc, enum ek_gd_field f, uint64_t v);
/* metadata_csum of a block (cluster) or inode bitmap, as the descriptor stores it */
uint32_t ek_bitmap_csum(const struct ek_fs *fs, const void *map, bool inode);
/* decode descriptors from fs->gd_raw into fs->groups, checking each */
int ek_groups_load(struct ek_fs *fs);

/*
 * Bitmaps: 1 = in use.  A BLOCK_UNINIT group's bitmap is computed; a
 * checksum mismatch is a warning (ek_fs_warn), not an error.
 */
int ek_block_bitmap_get(struct ek_fs *fs, uint32_t g, const uint8_t **out);
/* group @g's inode (@inode) or block bitmap into @map (one block), not cached:
 * computed for an uninit group, read otherwise; the checksum is not judged */
int ek_bitmap_read(struct ek_fs *fs, uint32_t g, bool inode, uint8_t *map);
/* the padding of group @g's bitmap @map is set as the kernel writes it: the
 * bytes past the group's bits, and in the last group's block bitmap the
 * clusters past the end of the filesystem (e2fsck's "padding at end") */
bool ek_bitmap_padding_ok(const struct ek_fs *fs, uint32_t g, bool inode, const uint8_t *map);
/* metadata_csum of a block or inode bitmap, truncated as the descriptor stores it */
uint32_t ek_group_bitmap_csum(const struct ek_fs *fs, bool inode, const uint8_t *map);
int ek_inode_bitmap_get(struct ek_fs *fs, uint32_t g, const uint8_t **out);
/* 1 in use, 0 free, negative error */
int ek_test_block(struct ek_fs *fs, ek_blk_t blk);
int ek_test_inode(struct ek_fs *fs, ek_ino_t ino);

static inline bool ek_bit_test(const uint8_t *map, uint64_t bit)
{
	return map[bit >> 3] & (1u << (bit & 7));
}

/* ---- inodes (inode.c) -------------------------------------------------- */

struct ek_time {
	int64_t sec;
	uint32_t nsec;
	bool present;		/* field exists in this inode */
};

struct ek_inode {
	ek_ino_t ino;
	uint16_t mode;
	uint16_t links_count;
	uint32_t uid, gid;
	uint64_t size;
	uint64_t blocks;	/* in 512-byte units, huge_file resolved */
	uint32_t flags;
	uint32_t generation;
	uint64_t file_acl;
	uint32_t dtime;
	struct ek_time atime, ctime, mtime, crtime;
	uint16_t extra_isize;	/* 0 for 128-byte inodes */
	uint32_t projid;
	uint64_t version;
	uint32_t checksum;	/* as stored */
	bool csum_bad;
	uint32_t raw_size;	/* bytes in raw */
	uint8_t *raw;		/* owned copy of the on-disk inode */
};

static inline const __le32 *ek_inode_i_block(const struct ek_inode *ei)
{
	return ((const struct ext4_inode *)ei->raw)->i_block;
}

/*
 * Read and decode inode @ino.  Returns -EK_BADCRC (checksum) or -EK_CORRUPT
 * (bad i_extra_isize) with *out fully decoded; other errors leave *out
 * empty.  Always release with ek_inode_release(), whatever the result.
 */
int ek_inode_read(struct ek_fs *fs, ek_ino_t ino, struct ek_inode *out);
/* Decode @raw (inode_size bytes) of inode @ino; copies raw. */
int ek_inode_decode(struct ek_fs *fs, ek_ino_t ino, const void *raw, struct ek_inode *out);
void ek_inode_release(struct ek_inode *ei);
uint32_t ek_inode_csum(const struct ek_fs *fs, ek_ino_t ino, const void *raw);
/* forget cached inode-table chunks (after writing inodes behind the cache) */
void ek_inode_cache_drop(struct ek_fs *fs);
uint32_t ek_inode_csum_seed(const struct ek_fs *fs, ek_ino_t ino, uint32_t generation);
/* on-disk offset of inode @ino; -EK_CORRUPT if its table is out of range */
int ek_inode_loc(struct ek_fs *fs, ek_ino_t ino, ek_blk_t *blk, uint32_t *off);
bool ek_inode_has_inline(const struct ek_inode *ei);
/* file.c: the bytes inline data of @ei holds (i_block's 60 and the value of
 * system.data, none without it), as e2fsprogs' ext2fs_inline_data_size();
 * 0 or the xattr walk's error (*out 0) */
int ek_inline_size(struct ek_fs *fs, const struct ek_inode *ei, uint64_t *out);
/* device number of a character or block special inode (old or new encoding) */
void ek_inode_rdev(const struct ek_inode *ei, uint32_t *major, uint32_t *minor);
/* a symlink whose target is in i_block: no data blocks (i_blocks no more
 * than its xattr block's), not inline, and i_size under i_block's 60 bytes */
bool ek_inode_is_fast_symlink(const struct ek_fs *fs, const struct ek_inode *ei);
/* a symlink with no data blocks, whatever its i_size (the kernel's
 * ext4_inode_is_fast_symlink(), e2fsck's "no valid blocks"): i_block holds
 * no block map to walk; with i_size 60 or more it is an invalid one */
bool ek_inode_symlink_blockless(const struct ek_fs *fs, const struct ek_inode *ei);

/*
 * Scan every inode table in order with large sequential reads.  In @fn,
 * ei->raw points into the scan buffer: do not release it; copy what must
 * outlive the call (ek_inode_decode(fs, ino, ei->raw, &copy)).  @fn is
 * called for each inode whose raw bytes are not all zero in groups that
 * are initialised; return nonzero from @fn to stop (returned as is).
 * Per-inode decode problems are passed to @fn via @err.
 */
typedef int (*ek_inode_scan_fn)(void *arg, struct ek_inode *ei, int err);
int ek_inode_scan(struct ek_fs *fs, ek_inode_scan_fn fn, void *arg);
/*
 * The same, with @between called after each chunk of the tables.  Only
 * there may the caller write the image or change @fs (a commit and its
 * refresh), and only when @may_write: called with it false (the scan's
 * reader thread running), @between returns EK_SCAN_WANT_WRITE to be called
 * again with the reader idle and @may_write true.  It returns 0 to go on,
 * EK_SCAN_WROTE when it wrote the image (the scan reads what follows
 * afresh), anything else to stop the scan (returned as is).
 */
#define EK_SCAN_WROTE 1
#define EK_SCAN_WANT_WRITE 2
typedef int (*ek_inode_scan_between_fn)(void *arg, bool may_write);
int ek_inode_scan_between(struct ek_fs *fs, ek_inode_scan_fn fn, ek_inode_scan_between_fn between,
			  void *arg);
/* is a second thread worth starting: a second CPU (test-only:
 * EK_TEST_NO_THREADS=1 says no, so that a test compares both ways) */
bool ek_threads_wanted(void);

static inline bool ek_is_dir(uint16_t m) { return (m & 0170000) == 0040000; }
static inline bool ek_is_reg(uint16_t m) { return (m & 0170000) == 0100000; }
static inline bool ek_is_lnk(uint16_t m) { return (m & 0170000) == 0120000; }
static inline bool ek_is_chr(uint16_t m) { return (m & 0170000) == 0020000; }
static inline bool ek_is_blk(uint16_t m) { return (m & 0170000) == 0060000; }
static inline bool ek_is_fifo(uint16_t m) { return (m & 0170000) == 0010000; }
static inline bool ek_is_sock(uint16_t m) { return (m & 0170000) == 0140000; }

/* ---- block mapping (extent.c, blockmap.c, map.c) ----------------------- */

enum ek_map_kind {
	EK_MAP_DATA,		/* lblk..lblk+len-1 -> pblk.. */
	EK_MAP_INDEX,		/* extent index entry: pblk is the child node */
	EK_MAP_TREE,		/* a block holding tree nodes (extent node, IND/DIND/TIND) */
};

struct ek_mapping {
	enum ek_map_kind kind;
	unsigned level;		/* depth of the node holding the entry (0 = leaf) */
	uint64_t lblk;
	uint64_t len;		/* blocks (DATA), 1 (TREE), covered range or 0 (INDEX) */
	ek_blk_t pblk;
	bool unwritten;
};

/* return nonzero to stop the walk; the value is returned by the walk */
typedef int (*ek_map_fn)(void *arg, const struct ek_mapping *m);

/*
 * Walk the block map of @ei (extent tree or indirect blocks) in logical
 * order.  DATA runs are maximal contiguous runs for indirect maps.  Loops,
 * shared tree blocks, out-of-range pointers and bad nodes stop the walk
 * with -EK_CORRUPT naming the inode and block; a tree-block checksum
 * mismatch is -EK_BADCRC at the end, after the walk completed.
 */
int ek_map_walk(struct ek_fs *fs, const struct ek_inode *ei, ek_map_fn fn, void *arg);
/*
 * A bad entry ek_map_walk_checked() met: @err is its -EK_CORRUPT (or
 * -EK_BADCRC for EK_MAPBAD_CSUM), its message recorded (ek_error_msg).
 */
enum ek_map_bad_kind {
	EK_MAPBAD_EXTENT,	/* a leaf extent: length 0, out of order, or outside the fs */
	EK_MAPBAD_INDEX,	/* an index entry: out of order, its child outside the fs,
				 * met twice, or a bad header (@pblk: the child) */
	EK_MAPBAD_START,	/* an index entry whose child starts elsewhere (walked) */
	EK_MAPBAD_CSUM,		/* tree block @pblk passes checks but fails its checksum */
	EK_MAPBAD_IND,		/* an indirect map pointer outside the fs (or met twice):
				 * @level 0 a data block, 1-3 an indirect block */
};
struct ek_map_bad {
	enum ek_map_bad_kind kind;
	int err;
	ek_blk_t node;		/* the block holding the entry; 0: the inode's i_block */
	unsigned slot;		/* the entry's index in it */
	unsigned level;		/* extents: depth of @node; indirect: see above */
	uint64_t lblk, len;	/* the entry's logical start and length (0: an index) */
	ek_blk_t pblk;		/* the physical block (a child node for an index) */
};
/* return 0 to go on without the entry (CSUM, START: with it), else stop */
typedef int (*ek_map_bad_fn)(void *arg, const struct ek_map_bad *b);
/*
 * ek_map_walk() telling @bad about each bad entry below the root instead
 * of stopping: the walk goes on past it (nothing it leads to is emitted).
 * A bad root header still stops the walk.
 */
int ek_map_walk_checked(struct ek_fs *fs, const struct ek_inode *ei, ek_map_fn fn,
			ek_map_bad_fn bad, void *arg);
/*
 * ek_map_walk_checked() reading an extent tree up to EK_EXT_DEEP_MAX
 * levels deep instead of the kernel's 5 (fsck: a tree too deep is read to
 * be rebuilt, as e2fsck does); every other rule is the same.
 */
int ek_map_walk_deep(struct ek_fs *fs, const struct ek_inode *ei, ek_map_fn fn,
		     ek_map_bad_fn bad, void *arg);
/* physical block for @lblk; *pblk = 0 for a hole.  *unwritten optional. */
int ek_map_bmap(struct ek_fs *fs, const struct ek_inode *ei, uint64_t lblk,
		ek_blk_t *pblk, bool *unwritten);
/*
 * Writing an indirect map (ext2/ext3): where ek_ind_map_write() gets its
 * blocks (@alloc: up to @want contiguous from @goal on, at least one;
 * *got set) and sends its indirect blocks' bytes (@put, fs->blksz bytes).
 */
struct ek_ext;
struct ek_ind_sink {
	int (*alloc)(void *arg, ek_blk_t goal, uint64_t want, ek_blk_t *start, uint64_t *got);
	int (*put)(void *arg, ek_blk_t blk, const uint8_t *buf);
	void *arg;
	/* optional: the indirect blocks' own allocator (one block), else @alloc */
	int (*alloc_meta)(void *arg, ek_blk_t goal, ek_blk_t *blk);
	/*
	 * open the indirect blocks of the logical block after the last run too
	 * (left empty), as ext2fs_block_iterate's BLOCK_FLAG_APPEND does when
	 * the list it appends ends there (mke2fs's bad blocks inode)
	 */
	bool open_after;
};
/*
 * Map the logical runs @runs[0..n) (sorted, lblk and len set) of raw inode
 * @raw (no blocks yet) as an indirect map laid out as mke2fs does: each
 * indirect block just before the data it maps, from @goal on.  i_block
 * and i_blocks are set; *out: the physical extents (malloc'd, caller
 * frees) for the caller to fill.  -EFBIG past 2^32 (blocks or offsets).
 */
int ek_ind_map_write(const struct ek_fs *fs, uint8_t *raw, const struct ek_ext *runs, size_t n,
		     ek_blk_t goal, const struct ek_ind_sink *sink, struct ek_ext **out,
		     size_t *nout);
/* bigalloc: cluster size in blocks */
static inline uint32_t ek_cluster_ratio(const struct ek_fs *fs) { return 1u << fs->cluster_bits; }

/*
 * Read file content: @fn receives consecutive chunks of up to @bufsz bytes
 * (holes and unwritten extents as zeros unless EK_READ_SKIP_HOLES) up to
 * i_size.  Handles inline data and fast symlinks.
 */
#define EK_READ_SKIP_HOLES 0x1	/* call @hole for holes instead of passing zeros */
struct ek_read_cb {
	int (*data)(void *arg, uint64_t off, const void *buf, size_t len);
	int (*hole)(void *arg, uint64_t off, uint64_t len);	/* may be NULL */
	void *arg;
};
int ek_file_read(struct ek_fs *fs, const struct ek_inode *ei, unsigned flags,
		 const struct ek_read_cb *cb);
/* read logical block @lblk of a file into @buf (zeros for a hole) */
int ek_file_read_block(struct ek_fs *fs, const struct ek_inode *ei, uint64_t lblk, void *buf);

/* ---- xattrs (xattr.c) -------------------------------------------------- */

struct ek_xattr {
	uint8_t index;		/* EXT4_XATTR_INDEX_* */
	const char *prefix;	/* "user." ... or "" if unknown index */
	const char *name;	/* not NUL-terminated */
	uint32_t name_len;
	const uint8_t *value;	/* valid during the callback only */
	uint32_t value_len;
	uint32_t value_inum;	/* ea_inode, 0 if inline */
	bool in_block;		/* stored in the xattr block */
	uint32_t hash;
	bool ea_legacy;		/* ek_xattr_check(): an old Lustre value inode (no hash, not charged) */
};

/* largest value accepted (ea_inode or inline), the kernel's XATTR_SIZE_MAX */
#define EK_XATTR_SIZE_MAX 65536u

typedef int (*ek_xattr_fn)(void *arg, const struct ek_xattr *xa);
/*
 * Iterate in-inode then block xattrs.  A bad region (entry, name, value,
 * ea_inode) stops the walk with -EK_CORRUPT before any of that region's
 * entries reach @fn.  A bad xattr block or ea_inode checksum is -EK_BADCRC
 * after the walk completed.  Nonzero from @fn stops and is returned as is.
 */
int ek_xattr_iterate(struct ek_fs *fs, const struct ek_inode *ei, ek_xattr_fn fn, void *arg);
/* what ek_xattr_check() found: e2fsck's preen fixes the first kind only */
enum ek_xattr_fault {
	EK_XATTR_FAULT_ENTRY = 1,	/* an entry's name length, value size, hash or value inode */
	EK_XATTR_FAULT_LAYOUT,		/* regions overlapping, a header, or what e2fsck does not check */
};
/*
 * fsck's check of one place of @ei's xattrs (@block: its xattr block, else
 * the inode body): ek_xattr_iterate()'s checks plus e2fsck's (values that
 * do not overlap, entry hashes, value inodes: see xattr.c).  Value inodes
 * are not read: @fn gets value NULL for them.  -EK_CORRUPT with *@fault
 * set, -EK_BADCRC for a block that passes but fails its checksum (*@fault
 * 0), or what @fn returned.
 */
int ek_xattr_check(struct ek_fs *fs, const struct ek_inode *ei, bool block, ek_xattr_fn fn,
		   void *arg, enum ek_xattr_fault *fault);
/* a value inode's reference count (i_ctime:l_i_version of its raw inode) */
uint64_t ek_xattr_ea_ref(const uint8_t *raw);
void ek_xattr_ea_ref_set(uint8_t *raw, uint64_t refs);
/* h_refcount of xattr block @blk (of inode @ino, for messages): magic checked */
int ek_xattr_block_refcount(struct ek_fs *fs, ek_blk_t blk, ek_ino_t ino, uint32_t *out);
/*
 * Find one xattr by index and name (inode body first, then the block).
 * On 0, *out is the value (malloc'd, caller frees; never NULL) and
 * *out_len its size.  On any error *out is NULL: -ENODATA if absent,
 * -EK_CORRUPT, or -EK_BADCRC when the block or ea_inode it was read
 * through fails its checksum.
 */
int ek_xattr_get(struct ek_fs *fs, const struct ek_inode *ei, uint8_t index,
		 const char *name, size_t name_len, uint8_t **out, size_t *out_len);
/* the hash of an xattr entry (e_hash), as the kernel computes it */
uint32_t ek_xattr_hash(const char *name, uint32_t name_len, const void *value, uint32_t value_len);
/* "user." ...; "" for an unknown index and for 9 (encryption, name "c") */
const char *ek_xattr_prefix(uint8_t index);
/*
 * Convert an on-disk ACL value (version 1, short and long entries) to the
 * Linux xattr format (posix_acl_xattr: version 2, 8-byte entries, id -1
 * where none).  *out is malloc'd, caller frees; -EK_CORRUPT if malformed.
 */
int ek_acl_to_xattr(const uint8_t *val, size_t len, uint8_t **out, size_t *out_len);
/* metadata_csum checksum of xattr block @blk (fs->blksz bytes at @buf) */
uint32_t ek_xattr_block_csum(const struct ek_fs *fs, ek_blk_t blk, const void *buf);

/* one xattr of a new inode (mkfs -d), as listxattr/getxattr give it */
struct ek_xattr_new {
	const char *name;	/* full name: "user.foo", "security.selinux",
				 * "system.posix_acl_access", "system.data" ... */
	const void *value;	/* may be NULL when len is 0 */
	size_t len;
};

/*
 * Convert a POSIX ACL from the Linux xattr format (posix_acl_xattr:
 * version 2, 8-byte entries) to the on-disk one (version 1, short entries
 * for USER_OBJ, GROUP_OBJ, MASK and OTHER, long ones for USER and GROUP).
 * The entries must be in the order posix_acl_valid() accepts; the header
 * alone is kept as an empty ACL.  *out is malloc'd, caller frees.
 * -EINVAL with a message if malformed, -ENOMEM.
 */
int ek_acl_from_xattr(const uint8_t *val, size_t len, uint8_t **out, size_t *out_len);
/*
 * Store @n xattrs of new inode @ino: in the inode body @raw (fs->inode_size
 * bytes, i_extra_isize already set; everything after it is rewritten)
 * and, for what does not fit there, in one xattr block.  Names map to
 * their index by prefix (user. 1, system.posix_acl_access 2 and _default 3
 * with the value converted by ek_acl_from_xattr(), trusted. 4, security. 6,
 * system. 7 ...).  Placement (see xattr.c) depends only on the set of
 * xattrs, not their order: sorted as the kernel sorts block entries,
 * system.data first and always in the body, then each into the body if it
 * still fits, the rest into the block.
 * *block is NULL if no block is needed, else fs->blksz bytes (malloc'd,
 * caller frees) with h_refcount 1 and h_hash 0 (as libext2fs; entry hashes
 * set); an empty value's offset is where the next value would end; the
 * body has its magic whenever there are xattrs.  The caller picks its
 * block number, sets i_file_acl and i_blocks and calls
 * ek_xattr_block_csum_set().  Errors leave @raw as it was and *block NULL:
 * -EINVAL for a name without a known prefix, a name given twice or a bad
 * ACL; -ENOSPC when the body and one block cannot hold them (ea_inode
 * values are not written); -ENOMEM.
 */
int ek_xattr_build(const struct ek_fs *fs, ek_ino_t ino, uint8_t *raw,
		   const struct ek_xattr_new *x, size_t n, uint8_t **block);
/* h_refcount of the xattr block @block (@blk) = @refs, its checksum
 * resealed when it matched before */
void ek_xattr_block_refcount_set(const struct ek_fs *fs, ek_blk_t blk, uint8_t *block,
				 uint32_t refs);
/* set h_checksum of xattr block @blk if metadata_csum, else leave it */
void ek_xattr_block_csum_set(const struct ek_fs *fs, ek_blk_t blk, uint8_t *block);
/*
 * Edit the value of in-inode xattr @index/@name of inode @ei in place:
 * @fn gets its bytes in @raw (the raw inode @ei was decoded from, or a
 * copy of it to write back) and their length; a non-zero entry hash is
 * recomputed after.  -ENODATA when the inode body holds no such value
 * (one in the xattr block or an ea_inode is not edited here).
 */
typedef int (*ek_xattr_edit_fn)(void *arg, uint8_t *val, uint32_t len);
int ek_xattr_ibody_edit(struct ek_fs *fs, const struct ek_inode *ei, uint8_t *raw, uint8_t index,
			const char *name, ek_xattr_edit_fn fn, void *arg);

/*
 * The fscrypt context of an encrypted inode: xattr index 9, name "c"
 * (fs/crypto/policy.c).  Version 1: 28 bytes (version, contents mode,
 * filenames mode, flags, 8-byte key descriptor, 16-byte nonce); version
 * 2: 40 bytes (the same four bytes, 4 reserved, 16-byte key identifier,
 * nonce).  The policy is the context without its nonce: the inodes of one
 * encrypted tree share it.
 */
struct ek_crypt_policy {
	uint8_t version;	/* 1 or 2 */
	uint8_t len;		/* bytes of @p that hold the policy: 12 or 24 */
	uint8_t p[24];		/* the context's first @len bytes */
};
/* an encrypted name is at least one cipher block (FSCRYPT_FNAME_MIN_MSG_LEN) */
#define EK_CRYPT_NAME_MIN 16
/*
 * Decode context @val (@len bytes) of inode @ino: 0 and *out set; 1 for a
 * version this code does not know (it may be valid: not compared, as
 * e2fsck); -EK_CORRUPT for version 0 or a size that does not match its
 * version.  Modes and flags are not judged: new ones appear with kernels.
 */
int ek_crypt_ctx_decode(ek_ino_t ino, const void *val, size_t len, struct ek_crypt_policy *out);

/* ---- directories (dir.c, dxhash.c) ------------------------------------- */

struct ek_dirent {
	ek_ino_t ino;
	uint8_t file_type;
	uint8_t name_len;
	const char *name;	/* not NUL-terminated; valid during the callback */
	uint32_t rec_len;
	uint64_t lblk;		/* directory block (0 for inline) */
	uint32_t offset;	/* offset in that block */
	bool deleted;		/* found in another entry's slack (EK_DIR_INCLUDE_DELETED) */
};

#define EK_DIR_INCLUDE_EMPTY 0x1	/* also report entries with inode 0 */
/* also report removed entries still readable in the slack of the entry
 * before them (a removal merges an entry into its predecessor's rec_len) */
#define EK_DIR_INCLUDE_DELETED 0x2
/* read the blocks of unwritten extents too (the kernel reads zeros there:
 * a checker reads what a fix marking them written would show) */
#define EK_DIR_READ_UNWRITTEN 0x4

typedef int (*ek_dir_fn)(void *arg, const struct ek_dirent *de);
/*
 * Iterate entries of directory @dir (linear, htree leaves, inline).  A bad
 * block is skipped and reported with -EK_CORRUPT after the walk; a bad
 * leaf checksum is -EK_BADCRC after the walk.
 */
int ek_dir_iterate(struct ek_fs *fs, const struct ek_inode *dir, unsigned flags,
		   ek_dir_fn fn, void *arg);
/*
 * Blocks of a directory its caller has read already: logical block l
 * (< n) is held when pblk[l] is the block it maps to, its bytes at
 * data + l * block size.  ek_dir_iterate_preread() walks as
 * ek_dir_iterate() does, taking those blocks instead of reading them again.
 */
struct ek_dir_preread {
	uint64_t n;
	const ek_blk_t *pblk;
	const uint8_t *data;
};
int ek_dir_iterate_preread(struct ek_fs *fs, const struct ek_inode *dir, unsigned flags,
			   ek_dir_fn fn, void *arg, const struct ek_dir_preread *pre);
/*
 * The entries of logical block @lblk of @dir alone, as ek_dir_iterate()
 * gives them (an index block has none but an htree root's '.' and '..');
 * an inline directory's whole area is its block 0.  -ENOENT when @lblk is
 * past i_size, a hole or unwritten; -ENOTDIR; damage as ek_dir_iterate().
 */
int ek_dir_iterate_block(struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk,
			 unsigned flags, ek_dir_fn fn, void *arg);
/* @dir is read through its htree index: EXT4_INDEX_FL, dir_index, not inline */
bool ek_dir_is_htree(const struct ek_fs *fs, const struct ek_inode *dir);
/* look up one name in @dir; -ENOENT if absent */
int ek_dir_lookup(struct ek_fs *fs, const struct ek_inode *dir, const char *name,
		  size_t len, ek_ino_t *out);
/*
 * Resolve @path from @cwd (absolute if it starts with '/'); symlinks in
 * the middle are followed, the last one only if @follow.  Depth limit 40.
 */
int ek_namei(struct ek_fs *fs, ek_ino_t root, ek_ino_t cwd, const char *path,
	     bool follow, ek_ino_t *out);
/* symlink target into @buf (NUL-terminated), -ENAMETOOLONG if it doesn't fit */
int ek_readlink(struct ek_fs *fs, const struct ek_inode *ei, char *buf, size_t bufsz);

/* dx hash: returns 0 and hash/minor_hash, -EINVAL for unknown version */
int ek_dx_hash(int version, const char *name, size_t len, const uint32_t seed[4],
	       uint32_t *hash, uint32_t *minor_hash);
/* hash version a directory of @fs uses for @v (adds unsigned variants) */
int ek_dx_hash_version(const struct ek_fs *fs, int v);
/*
 * dx hash of a name in a directory whose names fold (@fold, from
 * ek_dir_folds()): the hash of its casefolded form, or of its raw bytes
 * when it does not fold (invalid UTF-8), as the kernel's ext4fs_dirhash().
 * Returns what ek_dx_hash() returns.
 */
int ek_dx_hash_name(int version, bool fold, const char *name, size_t len,
		    const uint32_t seed[4], uint32_t *hash, uint32_t *minor_hash);

/* ---- casefolded names (unicode.c, s_encoding utf8-12.1) ------------------- */

/* room for any folded name: the kernel folds into a PATH_MAX buffer */
#define EK_CASEFOLD_MAX 4096
/*
 * Fold @len bytes at @s (stopping at a NUL) into @out (not NUL-terminated
 * unless room is left): the folded length, -EINVAL if @s is not UTF-8 the
 * tables accept, -ENAMETOOLONG if @size is too small.  As the kernel's
 * utf8_casefold() (NFD, full case folding, default ignorables removed).
 */
int ek_utf8_casefold(const char *s, size_t len, char *out, size_t size);
/*
 * 0 if @a and @b fold to the same bytes, 1 if not, -EINVAL when an invalid
 * sequence is met before they differ (utf8_strncasecmp())
 */
int ek_utf8_casecmp(const char *a, size_t alen, const char *b, size_t blen);
/* 0 if @s is valid UTF-8 for the tables (strict mode's check), else -EINVAL */
int ek_utf8_validate(const char *s, size_t len);
/* the offset of the first byte of @s that check refuses, @len if none */
size_t ek_utf8_invalid_at(const char *s, size_t len);
/*
 * Whether names in a directory with inode flags @dir_flags fold: the
 * casefold feature, the directory's EXT4_CASEFOLD_FL and s_encoding utf8,
 * and not encrypted (those hash with a key we do not have).
 */
bool ek_dir_folds(const struct ek_fs *fs, uint32_t dir_flags);
/*
 * Whether name @a equals @b in a directory whose names fold (@fold): equal
 * bytes when they do not; else equal folds, and when either name is
 * invalid UTF-8 no match in strict mode (s_encoding_flags), equal bytes
 * otherwise (the kernel's generic_ci_match()).
 */
bool ek_name_eq(const struct ek_fs *fs, bool fold, const char *a, size_t alen,
		const char *b, size_t blen);

/* rec_len as stored -> bytes (ext4_rec_len_from_disk: 64 KiB blocks) */
static inline uint32_t ek_rec_len_from_disk(uint16_t raw, uint32_t blksz)
{
	if (blksz < 65536)
		return raw;
	if (raw == 65535 || raw == 0)
		return blksz;
	return (raw & 65532u) | ((uint32_t)(raw & 3) << 16);
}

/*
 * bytes -> rec_len as stored, the inverse of ek_rec_len_from_disk() (the
 * kernel's ext4_rec_len_to_disk(), e2fsprogs' ext2fs_set_rec_len()): below
 * 65536 as is; a whole block of 65536 bytes as EXT4_MAX_REC_LEN 0xFFFF, a
 * whole larger block as 0; else the bits 16-17 go in the low two bits.
 */
static inline uint16_t ek_rec_len_to_disk(uint32_t len, uint32_t blksz)
{
	if (len < 65536)
		return (uint16_t)len;
	if (len == blksz)
		return blksz == 65536 ? 65535 : 0;
	return (uint16_t)((len & 65532u) | ((len >> 16) & 3));
}

/* ext4_dir_rec_len(): the bytes an entry with a @name_len-byte name needs */
static inline uint32_t ek_dirent_need(uint32_t name_len)
{
	return (8 + name_len + 3) & ~3u;
}

/*
 * Check the entry at @off of a dirent region @buf of @size bytes (a leaf
 * block without its checksum tail, or an inline area) of directory @dir,
 * as the kernel's __ext4_check_dir_entry.  @blk names the block in the
 * message (0: inline, reported on the inode).  @hash_in_dirent: casefolded
 * and encrypted directory, entries other than '.'/'..' carry 8 more bytes.
 * 0 and *rec_len, or -EK_CORRUPT naming the failed rule.
 */
int ek_dirent_check(const struct ek_fs *fs, ek_ino_t dir, ek_blk_t blk, const void *buf,
		    uint32_t off, uint32_t size, bool hash_in_dirent, uint32_t *rec_len);
/*
 * Call @fn for each entry of @buf[start, end) (a leaf without its tail, or
 * an inline area) after ek_dirent_check() passed it: @prev is the offset
 * of the entry before (UINT32_MAX for the first), @rec_len its length in
 * bytes.  @fn may change the entries at and before @off; one that changes
 * the rec_len at @off returns nonzero, which ends the walk.  Returns 0 when every entry was walked, else the first
 * nonzero return of @fn or of the check (-EK_CORRUPT).
 */
/* the entry at @off of @buf that ek_dirent_check() passed with @rec_len (lblk 0) */
struct ek_dirent ek_dirent_decode(const void *buf, uint32_t off, uint32_t rec_len);
typedef int (*ek_dirent_fn)(void *arg, uint8_t *buf, uint32_t prev, uint32_t off,
			    uint32_t rec_len);
int ek_dirent_walk(const struct ek_fs *fs, ek_ino_t dir, ek_blk_t blk, uint8_t *buf,
		   uint32_t start, uint32_t end, bool hash_in_dirent, ek_dirent_fn fn, void *arg);
/* metadata_csum of a leaf block (crc over blksz - 12 bytes) */
uint32_t ek_dir_leaf_csum(const struct ek_fs *fs, const struct ek_inode *dir, const void *buf);
/*
 * Encode one entry at @off of a leaf or inline area @b: @rec_len in bytes
 * (encoded by ek_rec_len_to_disk), @file_type only under the filetype feature.
 */
void ek_dirent_put(const struct ek_fs *fs, uint8_t *b, uint32_t off, ek_ino_t ino,
		   uint32_t rec_len, const char *name, uint8_t name_len, uint8_t file_type);
/* edit the entry at @off of a leaf or inline area @b in place */
void ek_dirent_set_ino(uint8_t *b, uint32_t off, ek_ino_t ino);
void ek_dirent_set_type(const struct ek_fs *fs, uint8_t *b, uint32_t off, uint8_t file_type);
void ek_dirent_set_rec_len(const struct ek_fs *fs, uint8_t *b, uint32_t off, uint32_t rec_len);
/* the @name_len bytes of an entry's name: each '/' and NUL made '.' */
void ek_dirent_name_fix(uint8_t *name, uint8_t name_len);
/*
 * A name a strict casefolded directory refuses (not UTF-8) made one it
 * takes, as e2fsck: its bytes from the first invalid one to a NUL or the
 * end become '.'.
 */
void ek_dirent_name_fix_encoding(uint8_t *name, uint8_t name_len);
/*
 * Block @b (logical @lblk) of directory @dir: does its checksum (leaf tail,
 * or htree root/node tail) match (true too when it has none)?  Reseal:
 * set it after an edit.
 */
bool ek_dir_block_csum_ok(struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk,
			  const uint8_t *b);
void ek_dir_block_reseal(struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk, uint8_t *b);
/* under metadata_csum: the checksum tail of leaf @b of directory @dir, and its checksum */
void ek_dir_leaf_tail(const struct ek_fs *fs, ek_ino_t dir, uint32_t gen, uint8_t *b);
/*
 * Salvage block @buf (logical @lblk of @dir) as e2fsck's pass 2 does: each
 * entry the checker refuses is mended (rec_len cut to the end, merged into
 * the entry before, or the rest of the block given up), so the readable
 * entries stay.  Index nodes are left alone; a leaf's checksum tail is
 * kept (not resealed).  Returns the entries mended (0: the block was fine),
 * *@first_bad the offset of the first.
 */
int ek_dir_block_salvage(const struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk,
			 uint8_t *buf, uint32_t *first_bad);
/*
 * The same for one region of an inline directory: buf[@start, @end) (i_block
 * from 4 to 60, or the value of system.data from 0).  0 when the region is
 * too small or not a multiple of 4 to be salvaged.
 */
int ek_dir_inline_salvage(const struct ek_fs *fs, const struct ek_inode *dir, uint8_t *buf,
			  uint32_t start, uint32_t end, uint32_t *first_bad);
/* metadata_csum of a dx block: entries up to @count, then the dx_tail */
uint32_t ek_dx_csum(const struct ek_fs *fs, const struct ek_inode *dir, const void *buf,
		    uint32_t count_offset, uint32_t count, uint32_t limit);

/* the rule of an htree index block that ek_dx_*_parse found broken first */
enum ek_dx_fault {
	EK_DX_OK = 0,
	EK_DX_ROOT,		/* root: '.', '..', reserved_zero or info_length */
	EK_DX_HASH_VERSION,	/* root: unknown, or siphash on the wrong directory */
	EK_DX_ROOT_FLAGS,	/* root: an incompatible flag in unused_flags */
	EK_DX_LEVELS,		/* root: indirect_levels above ek_dx_max_levels() */
	EK_DX_NOT_NODE,		/* node: the fake entry is not inode 0 spanning the block */
	EK_DX_LIMIT,		/* limit is not what the block size gives */
	EK_DX_COUNT,		/* count is 0 or above limit */
	EK_DX_BLOCK,		/* an entry points to block 0 or past i_size */
	EK_DX_ORDER,		/* entry hashes decrease */
	EK_DX_CSUM,		/* metadata_csum: the dx_tail checksum */
};

/* one htree index block (root or interior node) as ek_dx_*_parse found it */
struct ek_dx_node {
	enum ek_dx_fault fault;		/* EK_DX_OK, or the rule the parse failed */
	unsigned bad_entry;		/* EK_DX_BLOCK, EK_DX_ORDER: the entry */
	bool is_root;
	uint8_t hash_version;		/* root: as stored (0, 1, 2 or 6) */
	uint8_t info_length;		/* root */
	uint8_t indirect_levels;	/* root */
	uint8_t unused_flags;		/* root */
	uint32_t count_offset;		/* offset of dx_countlimit in the block */
	uint16_t limit, count;
	uint16_t expect_limit;		/* what limit should be for this block */
	bool has_tail;			/* metadata_csum: dx_tail after limit entries */
	uint32_t csum, expect_csum;	/* with has_tail */
	/* count dx_entry at count_offset in the caller's buffer (dies with it);
	 * NULL when count/limit are unusable */
	const uint8_t *entries;
};

/* entry @i: hash (entry 0 covers all hashes below entry 1: 0) and block */
static inline uint32_t ek_dx_entry_hash(const struct ek_dx_node *n, unsigned i)
{
	return i ? get_le32(n->entries + 8 * i) : 0;
}
static inline uint32_t ek_dx_entry_block(const struct ek_dx_node *n, unsigned i)
{
	return get_le32(n->entries + 8 * i + 4) & 0x0fffffff;
}

/*
 * Decode and check the htree root (logical block 0, @pblk for messages)
 * or an interior node held in @buf.  Returns 0, -EK_CORRUPT for the first
 * broken rule (out->fault names it; fields decoded so far are filled;
 * entries is set when count and limit are sane), or -EK_BADCRC when only
 * the checksum is wrong (everything filled, fault EK_DX_CSUM).  Entry
 * hashes must not decrease, compared without the continuation bit (as
 * e2fsck); entry blocks must lie in 1..i_size/blksz-1.
 */
int ek_dx_root_parse(struct ek_fs *fs, const struct ek_inode *dir, ek_blk_t pblk,
		     const void *buf, struct ek_dx_node *out);
int ek_dx_node_parse(struct ek_fs *fs, const struct ek_inode *dir, ek_blk_t pblk,
		     const void *buf, struct ek_dx_node *out);
/* the entry of @n covering @hash: the last whose hash is <= it (entry 0 covers all below entry 1) */
unsigned ek_dx_search(const struct ek_dx_node *n, uint32_t hash);
/* max indirect_levels of @fs (1, or 2 with large_dir) */
unsigned ek_dx_max_levels(const struct ek_fs *fs);
/*
 * Read logical block @lblk of directory @dir into @buf (fs->blksz bytes)
 * for an index walk, and its physical block into *pblk: -EK_CORRUPT when
 * it lies past i_size or is not allocated (a hole or unwritten), else what
 * the map and the read return.
 */
int ek_dir_read_block(struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk,
		      void *buf, ek_blk_t *pblk);

/* ---- building directories (dir.c) -------------------------------------- */

struct ek_dirent_new {
	const char *name;	/* not NUL-terminated necessarily; name_len bytes */
	uint8_t name_len;	/* 1..255 */
	uint8_t file_type;	/* EXT4_FT_* */
	ek_ino_t ino;
};

/*
 * The blocks of a new directory @dir (i_generation @gen, needed for the
 * metadata_csum seeds; inode flags @dir_flags: a casefolded directory
 * hashes folded names) whose parent is @parent, holding @ents (without "."
 * and "..", names distinct).  @ents may be reordered.  One linear block when
 * ".", ".." and every entry fit; otherwise an htree when the filesystem has
 * dir_index, else linear blocks filled in order.  *out: *nblocks × fs->blksz
 * bytes, malloc'd, caller frees; logical block order (htree: root, leaves,
 * then index nodes; see dir.c); all checksums set (leaf tails, dx tails)
 * when metadata_csum.  An htree's leaves are closed once less than
 * @slack_percent of a leaf is left (EK_HTREE_SLACK_PERCENT: e2fsck -D's
 * default room for names added later; 0 packs them full, for an image
 * built once).  @linear_by_inode: a directory left linear lists its entries
 * by inode number (e2fsck's pass 3A), else in the order given.  *indexed:
 * the caller sets EXT4_INDEX_FL.  Returns 0,
 * -ENOSPC naming @dir when the entries need more index levels than allowed
 * (2, 3 with largedir), -EK_UNSUPP for a default hash version other than
 * legacy, half_md4 or tea, -EINVAL for an empty, "." or ".." name, -ENOMEM.
 */
int ek_dir_build(const struct ek_fs *fs, ek_ino_t dir, uint32_t gen, uint32_t dir_flags,
		 ek_ino_t parent, unsigned slack_percent, bool linear_by_inode,
		 struct ek_dirent_new *ents, size_t n, uint8_t **out, uint32_t *nblocks,
		 bool *indexed);
#define EK_HTREE_SLACK_PERCENT 20
/*
 * A new inline directory (inline_data): the parent's number and the entries
 * that fit in i_block, the rest as the value of system.data (*xval, *xlen
 * bytes, malloc'd, NULL when empty).  -ENOSPC when that value would need
 * more than @max_xattr bytes.
 */
int ek_dir_build_inline(const struct ek_fs *fs, ek_ino_t parent, const struct ek_dirent_new *ents,
			size_t n, uint32_t max_xattr, uint8_t iblock[EXT4_N_BLOCKS * 4],
			uint8_t **xval, uint32_t *xlen);
/* a linear block of directory @dir (generation @gen) holding no entry: one
 * unused entry over it, and the checksum tail under metadata_csum */
void ek_dir_block_empty(const struct ek_fs *fs, ek_ino_t dir, uint32_t gen, uint8_t *b);
/*
 * Add the entry @name -> @ino to linear leaf @b (block @blk of directory
 * @dir, named in messages) where there is room, as the kernel's
 * add_dirent_to_buf(): in an unused entry large enough, or split off the
 * slack of the first entry with enough.  The caller reseals the checksum.
 * 0, -ENOSPC (no room), -EK_CORRUPT (a bad entry on the way), -EINVAL.
 */
int ek_dir_leaf_insert(const struct ek_fs *fs, ek_ino_t dir, ek_blk_t blk, uint8_t *b,
		       const char *name, uint8_t name_len, ek_ino_t ino, uint8_t file_type);

/* ---- journal (journal.c) ---------------------------------------------- */

/* decoded journal superblock */
struct ek_jsb {
	int version;			/* 1 or 2 */
	uint32_t blocksize, maxlen, first, sequence, start;
	int32_t errno_;
	uint32_t compat, incompat, ro_compat;
	uint8_t uuid[16];
	uint32_t nr_users, max_transaction, max_trans_data;
	uint8_t checksum_type;
	uint32_t checksum;
	uint32_t num_fc_blks;		/* with fast_commit (0 given -> 256) */
	uint32_t last;			/* end of the log ring: maxlen - num_fc_blks */
};

/*
 * Decode and check a journal superblock (1024 bytes at @raw) in the order
 * magic/type, unknown incompat (-EK_UNSUPP), checksum (-EK_BADCRC unless
 * @ignore_csum), geometry.  @blksz: the filesystem's block size, 0 for an
 * external journal not yet matched.
 */
int ek_jsb_decode(const void *raw, uint32_t blksz, bool ignore_csum, struct ek_jsb *out);
uint32_t ek_jsb_csum(const void *raw);
/*
 * Store @in into the 1024-byte journal superblock @raw: the fields struct
 * ek_jsb holds (s_num_fc_blks as given; v2 fields only for version 2),
 * then the checksum with checksum v2/v3.  Other bytes (s_users, padding)
 * are left as they are: zero @raw first for a new journal.
 */
void ek_jsb_encode(const struct ek_jsb *in, void *raw);
/*
 * The journal superblock of @j against e2fsck's rules that recovery does
 * not need (the kernel replays such a journal): more than one user,
 * unknown ro_compat features.  0, or -EK_CORRUPT naming the first failure.
 */
struct ek_journal;
int ek_journal_check_sb(const struct ek_journal *j);
/* bytes of one descriptor tag for the incompat features (jbd2 journal_tag_bytes) */
int ek_jbd2_tag_bytes(uint32_t incompat);

/* ---- jbd2 log blocks (jbd2.c): one codec per block kind ------------------
 *
 * Every log block starts with a journal_header_t (magic, h_blocktype,
 * h_sequence).  A descriptor block holds tags (ek_jbd2_tag_bytes() each,
 * a 16-byte UUID after a tag without SAME_UUID) up to LAST_TAG or to where
 * the next tag would overlap the checksum tail; a revoke block holds
 * r_count bytes (header included) of 4- or 8-byte (64bit) records; with
 * checksum v2/v3 both end in a crc32c tail.  A commit block carries the
 * commit time and the transaction's checksum.  The scan, the writer
 * (jcommit.c), logdump and the orphans report all go through these.
 */

/* what the journal's features say about the layout of its log blocks */
struct ek_jfmt {
	uint32_t blocksize;
	uint32_t tag_bytes;	/* one descriptor tag, UUID not included */
	uint32_t tail;		/* bytes of the descriptor/revoke tail: 4 with v2/v3 */
	uint32_t rec_bytes;	/* one revoke record: 8 with 64bit, else 4 */
	uint32_t seed;		/* crc32c(~0, journal uuid) for v2/v3 */
	bool v1, v23, v3, b64;	/* checksum v1, v2 or v3, v3, 64-bit block numbers */
};
void ek_jfmt_init(struct ek_jfmt *f, const struct ek_jsb *sb);

/* the header: true when @blk carries the jbd2 magic (then *type, *seq set) */
bool ek_jhdr_decode(const void *blk, uint32_t *type, ek_tid_t *seq);
void ek_jhdr_encode(void *blk, uint32_t type, ek_tid_t seq);

struct ek_jtag_raw {	/* one descriptor tag as stored */
	uint64_t home;	/* with 64bit, t_blocknr_high too */
	uint32_t flags;	/* JBD2_FLAG_*: the 16 bits at offset 6 in every layout, as jbd2 reads them */
	uint32_t csum;	/* the data checksum it records (16 bits with v2, none without v2/v3) */
};
/*
 * The tag at *@off of descriptor @d: false when no tag fits there (the
 * walk is over), else *@off moves past it (and its UUID).  The caller
 * stops after a tag with JBD2_FLAG_LAST_TAG.  At most blocksize / 8 tags.
 */
bool ek_jdesc_tag(const struct ek_jfmt *f, const uint8_t *d, uint32_t *off, struct ek_jtag_raw *out);
/* the data blocks descriptor @d describes (jbd2 count_tags) */
uint32_t ek_jdesc_count(const struct ek_jfmt *f, const uint8_t *d);
/* tags a descriptor holds when only the first carries the UUID */
uint32_t ek_jdesc_capacity(const struct ek_jfmt *f);
/* store tag @t at *@off of @d (the UUID @uuid after it unless SAME_UUID); *@off moves on */
void ek_jdesc_put_tag(const struct ek_jfmt *f, uint8_t *d, uint32_t *off,
		      const struct ek_jtag_raw *t, const uint8_t uuid[16]);
/* the checksum a tag records for logged block @data of transaction @tid (v2: low 16 bits) */
uint32_t ek_jtag_csum(const struct ek_jfmt *f, ek_tid_t tid, const void *data);

/* the crc32c tail of a descriptor or revoke block (v2/v3): check, set */
bool ek_jtail_ok(const struct ek_jfmt *f, const uint8_t *blk);
void ek_jtail_set(const struct ek_jfmt *f, uint8_t *blk);

/*
 * The records of revoke block @blk: *@nrec whole records below r_count.
 * -EK_CORRUPT (message naming journal block @jblk) when r_count runs past
 * the block, tail excluded (jbd2 scan_revoke_records refuses it); 1 when
 * r_count lies inside the header (no records); else 0.
 */
int ek_jrevoke_decode(const struct ek_jfmt *f, const uint8_t *blk, uint32_t jblk, uint32_t *nrec);
uint32_t ek_jrevoke_count(const uint8_t *blk);			/* raw r_count */
uint64_t ek_jrevoke_rec(const struct ek_jfmt *f, const uint8_t *blk, uint32_t i);
/* a revoke block of @n records (at most (blocksize - tail - 16) / rec_bytes), tail set */
void ek_jrevoke_encode(const struct ek_jfmt *f, uint8_t *blk, ek_tid_t tid, const uint64_t *homes,
		       uint32_t n);

struct ek_jcommit {		/* a decoded commit block */
	ek_tid_t tid;
	uint8_t chksum_type, chksum_size;
	uint32_t chksum;	/* h_chksum[0] */
	uint64_t sec;		/* h_commit_sec: __u64 in jbd2 */
	uint32_t nsec;
};
void ek_jcommit_decode(const uint8_t *blk, struct ek_jcommit *out);
/*
 * Is commit block @blk's checksum right?  v2/v3: its crc32c; v1: @crc_v1,
 * the crc32_be of the transaction's descriptor and data blocks (a commit
 * with no checksum type and size is accepted, as jbd2 does).  No checksum
 * feature: true.
 */
bool ek_jcommit_csum_ok(const struct ek_jfmt *f, const uint8_t *blk, uint32_t crc_v1);
/* a commit block for @tid at @sec.@nsec with the checksum the features ask for */
void ek_jcommit_encode(const struct ek_jfmt *f, uint8_t *blk, ek_tid_t tid, int64_t sec,
		       uint32_t nsec, uint32_t crc_v1);
/*
 * Can commit time @sec be real: not past the year 2500 and not before
 * @not_before (the filesystem's mkfs time, 0 for none)?  e2fsprogs' own
 * journal writer stores a 32-bit time into the 64-bit field, so its
 * commits read as times centuries ahead.
 */
bool ek_jcommit_time_ok(int64_t sec, int64_t not_before);
#define EK_JCOMMIT_TIME_MAX	16725225600LL	/* 2500-01-01T00:00:00Z */

struct ek_jrun {		/* journal blocks lblk.. live at pblk.. */
	uint64_t lblk;
	ek_blk_t pblk;
	uint64_t len;
};

struct ek_journal {
	struct ek_fs *fs;
	struct ek_jsb sb;
	uint8_t raw_sb[1024];
	struct ek_jrun *runs;		/* the journal inode's map, in order */
	size_t nruns;
	uint64_t nblocks;		/* blocks the inode's size covers */
	bool from_backup;		/* mapped through s_jnl_blocks */
	struct ek_io *dev;		/* external journal device (owned), or NULL */
	uint64_t dev_start;		/* the device block of its journal superblock */
	bool leave_journal;		/* apply: do not write the journal (a copy of the
					 * filesystem is replayed, the device is shared) */
	bool no_data_csum;		/* scan: leave v2/v3 data-block checksums unchecked
					 * (EK_CSUM_NONE) and read no data blocks, as the
					 * kernel's PASS_SCAN; v1 still sums them */
	/* apply: told of the home blocks written so far (or NULL) */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

/*
 * Locate and check the internal journal of @fs: the journal inode's map,
 * or the superblock's s_jnl_blocks copy when the inode is damaged (noted
 * with ek_fs_warn).  @flags: EK_OPEN_IGNORE_CSUM.  Free with
 * ek_journal_close().
 */
int ek_journal_open(struct ek_fs *fs, unsigned flags, struct ek_journal **out);
void ek_journal_close(struct ek_journal *j);
/* filesystem block holding journal block @jblk; -EK_CORRUPT if unmapped */
/*
 * Open the external journal device @path of @fs: its ext4 superblock must
 * carry journal_dev, the block size of @fs and the UUID @fs names in
 * s_journal_uuid; the journal superblock must list @fs among its users.
 * @flags: EK_OPEN_RW (to replay), EK_OPEN_IGNORE_CSUM.
 */
int ek_journal_open_dev(struct ek_fs *fs, const char *path, unsigned flags,
			struct ek_journal **out);
/*
 * The external journal device on @io (mke2fs -O journal_dev): check its
 * ext4 superblock (magic, journal_dev, block size 1024-65536) and its
 * journal superblock; *@blksz and @uuid (16 bytes) set.  With @add_user
 * (a filesystem's UUID), add that filesystem to the journal superblock's
 * users (once; the checksum set again) and write it back, then the
 * device's superblock as mke2fs leaves it: write time @now, a lifetime
 * write count that was counting the journal superblock's write, its checksum.
 */
int ek_journal_dev_attach(struct ek_io *io, const uint8_t *add_user, int64_t now,
			  uint32_t *blksz, uint8_t *uuid);
int ek_journal_bmap(const struct ek_journal *j, uint64_t jblk, ek_blk_t *pblk);
/* the physical run from @jblk: *pblk and its length *len (<= @max) */
int ek_journal_bmap_run(const struct ek_journal *j, uint64_t jblk, uint64_t max, ek_blk_t *pblk,
			uint64_t *len);
/* how many of the @count journal blocks from @jblk are a hole in the image
 * file (read as zeros: no header there); 0 when unknown (ek_io_hole_len) */
uint32_t ek_journal_hole_blocks(const struct ek_journal *j, uint64_t jblk, uint32_t count);
int ek_journal_read(const struct ek_journal *j, uint64_t jblk, void *buf);
/* @count journal blocks from @jblk on (no wrap), as few reads as the map allows */
int ek_journal_read_blocks(const struct ek_journal *j, uint64_t jblk, uint32_t count, void *buf);
/* write one journal block (the journal superblock, when replaying) */
int ek_journal_write(const struct ek_journal *j, uint64_t jblk, const void *buf, size_t len);
/* write j->raw_sb back (checksummed) and flush; nothing with leave_journal.
 * ek_journal_put_sb: the same without the flush (the caller flushes) */
int ek_journal_write_sb(struct ek_journal *j);
int ek_journal_put_sb(struct ek_journal *j);
/* as e2fsck's clear_v2_journal_fields(): the fields past a version 1
 * superblock (features, users...) zeroed in @j (internal) and written: a
 * version 2 superblock whose user count is a version 1 one's leftovers */
int ek_journal_clear_v2_fields(struct ek_journal *j);
/* name of journal feature bit @bit of @word (0 compat, 1 incompat, 2 ro_compat),
 * dumpe2fs's; unknown ones as FEATURE_<C|I|R><bit> in @buf */
const char *ek_jsb_feature_name(int word, int bit, char *buf, size_t len);
/*
 * The journal's superblock and location as keys of the open JSON object:
 * every tool's one key set (inode or device, mapped_from_backup, version,
 * block_size, blocks, first, last, fast_commit_blocks, features, compat,
 * incompat, ro_compat, uuid, sequence, start, errno, users,
 * max_transaction, checksum_type, checksum, needs_recovery).  @device:
 * the external journal's path, shown when j->dev is set.
 */
struct ek_out;
void ek_journal_emit(struct ek_out *o, const struct ek_journal *j, const char *device);

/* ---- journal scan (recovery.c) ----------------------------------------- */

/* wrap-safe transaction id order (jbd2 tid_gt/tid_geq) */
static inline bool ek_tid_after(ek_tid_t a, ek_tid_t b) { return (int32_t)(a - b) > 0; }
static inline bool ek_tid_after_eq(ek_tid_t a, ek_tid_t b) { return (int32_t)(a - b) >= 0; }

enum ek_csum { EK_CSUM_NONE, EK_CSUM_OK, EK_CSUM_BAD };

struct ek_jtag {		/* one logged block */
	uint64_t home;		/* filesystem block it belongs to */
	uint32_t jblk;		/* journal block holding the copy */
	uint32_t flags;		/* JBD2_FLAG_* */
	uint8_t csum;		/* enum ek_csum: the tag's data checksum (v2/v3) */
	uint32_t want_csum;	/* the data checksum the tag stores (v2: 16 bits) */
};

enum ek_jtxn_state {
	EK_JTXN_COMMITTED,	/* a valid commit block ends it: replayed */
	EK_JTXN_TORN,		/* no commit block: the log ends inside it */
	EK_JTXN_BAD_COMMIT,	/* its commit block fails its checksum: replay stops before it */
};

struct ek_jtxn {
	ek_tid_t tid;
	uint32_t first_jblk;	/* its first descriptor or revoke block */
	uint32_t commit_jblk;	/* its commit block (0 if torn) */
	uint32_t nblocks;	/* journal blocks it uses, descriptors and commit included */
	uint32_t ndesc, nrevoke_blocks;
	struct ek_jtag *tags;	/* logged blocks in log order */
	uint32_t ntags;
	uint64_t *revokes;	/* revoked home blocks in log order */
	uint32_t nrevokes;
	enum ek_jtxn_state state;
	int64_t commit_sec;	/* from the commit block (0 when none) */
	uint32_t commit_nsec;
	uint8_t commit_csum;	/* enum ek_csum */
	bool desc_csum_bad;	/* a descriptor or revoke block failed its checksum */
	uint32_t bad_revoke_jblk;	/* its first revoke block whose r_count runs past
					 * the block (records not read), 0: none */
	uint32_t bad_tags;	/* tags whose data checksum fails */
};

struct ek_jlog {
	struct ek_jtxn *txns;	/* in log order: committed ones, then at most one not */
	size_t ntxns;
	ek_tid_t start_tid;	/* s_sequence */
	ek_tid_t end_tid;	/* first transaction replay does not apply */
	uint32_t end_jblk;	/* journal block after the last one scanned */
	const char *end_reason;	/* why the scan stopped (static text; EK_JLOG_CLEAN) */
	int status;		/* 0, or why the kernel refuses recovery: -EK_BADCRC (a
				 * descriptor/revoke checksum), -EK_CORRUPT (a revoke
				 * r_count past its block in a committed transaction),
				 * an I/O error (a journal block cannot be read) */
	char refused[256];	/* with status: the reason, for people */
	bool refused_late;	/* (scan internal) status is PASS_REVOKE's */
	bool failed_commit;	/* a corrupt commit block, not an interrupted async
				 * one, ended the log (jbd2 j_failed_commit) */
};
/* is journal block @jblk in the live region (s_start..end_jblk, around the ring)? */
bool ek_jlog_live(const struct ek_journal *j, const struct ek_jlog *log, uint32_t jblk);

/* a block outside the live region that still holds a jbd2 header */
struct ek_jstale_blk {
	uint32_t jblk;
	uint32_t type;		/* JBD2_DESCRIPTOR_BLOCK, _COMMIT_BLOCK, _REVOKE_BLOCK... */
	ek_tid_t seq;		/* the transaction it belonged to */
	uint32_t ndata;		/* descriptor: the data blocks it describes that follow
				 * it outside the live region, unwrapped (skipped) */
};
/*
 * Walk the ring outside the live region (all of it when the journal is
 * clean), in block order, calling @fn for each block with a jbd2 header.
 * A descriptor's data blocks are skipped, not decoded.  Unreadable blocks
 * are passed over.  Returns 0, -ENOMEM, or @fn's nonzero return.
 */
int ek_jlog_stale_walk(struct ek_journal *j, const struct ek_jlog *log,
		       int (*fn)(void *arg, const struct ek_jstale_blk *b), void *arg);

/* end_reason of a clean journal (s_start 0): there is no live log */
#define EK_JLOG_CLEAN "the journal is clean: no live transactions"

/*
 * Scan the log from s_start with the kernel's PASS_SCAN rules
 * (fs/jbd2/recovery.c): follow descriptor/revoke/commit blocks while the
 * sequence matches, wrap at sb.last, stop at the first mismatch, a torn or
 * bad-checksum commit, or after s_maxlen blocks.  Data-tag checksums are
 * verified too.  A clean journal (s_start 0) gives no transactions.
 * Damage the kernel refuses to recover (out->status, out->refused) does
 * not fail the scan: what is there is kept for inspection.  Returns 0, or
 * -ENOMEM (out released).  Release with ek_jlog_release().
 */
int ek_journal_scan(struct ek_journal *j, struct ek_jlog *out);
const char *ek_jtxn_state_name(enum ek_jtxn_state s);	/* committed, torn, bad_checksum */
/* does logged block @data of transaction @tid match its tag's v2/v3 data
 * checksum (jbd2_block_tag_csum_verify)?  Checked before unescaping. */
bool ek_jtag_csum_ok(const struct ek_journal *j, ek_tid_t tid, uint32_t want_csum,
		     const void *data);
const char *ek_csum_name(uint8_t c);			/* enum ek_csum: ok, bad, none */
/*
 * Transaction @t as one JSON object (tid, state, blocks by kind, commit
 * time and delta from @prev_sec/@prev_nsec when >= 0, checksums;
 * bad_data_checksums null when the scan left them unchecked).  A commit
 * time that cannot be real (ek_jtxn_time_ok) is commit_time null,
 * commit_time_ok false, the raw value in commit_sec and no delta.
 */
void ek_jtxn_emit(struct ek_out *o, const struct ek_journal *j, const struct ek_jtxn *t,
		  int64_t prev_sec, uint32_t prev_nsec);
/* the same fields into an object the caller opened (and adds to) */
void ek_jtxn_emit_fields(struct ek_out *o, const struct ek_journal *j, const struct ek_jtxn *t,
			 int64_t prev_sec, uint32_t prev_nsec);
/* can @t's commit time be real (ek_jcommit_time_ok against the mkfs time)? */
bool ek_jtxn_time_ok(const struct ek_journal *j, const struct ek_jtxn *t);
/*
 * What recovery would make of the log, for every inspection command: a
 * text line "the journal is clean: no live transactions" for a clean
 * journal, one "recovery would be refused: REASON" when the kernel would
 * refuse it; JSON keys "clean" (bool) and "recovery_refused" (the reason,
 * or null).  Returns true for a clean journal.
 */
bool ek_jlog_emit_status(struct ek_out *o, const struct ek_journal *j, const struct ek_jlog *log);
void ek_jlog_release(struct ek_jlog *log);

/* ---- replay plan (replay.c) -------------------------------------------- */

struct ek_jrevoke {		/* the newest revoke of one home block */
	uint64_t home;
	ek_tid_t tid;
};

struct ek_jwrite {		/* one home block a replay writes */
	uint64_t home;
	uint32_t jblk;		/* the journal block holding its newest copy */
	ek_tid_t tid;
	uint32_t flags;		/* JBD2_FLAG_ESCAPE: restore the magic first */
	bool verify;		/* the scan left its data checksum unchecked: apply
				 * checks it as it reads the copy (kernel PASS_REPLAY) */
	uint32_t want_csum;
};

enum ek_jfate {			/* what replay does with one logged block */
	EK_JFATE_WRITTEN,	/* the newest copy of its home block */
	EK_JFATE_SUPERSEDED,	/* a later transaction logged the home again */
	EK_JFATE_REVOKED,	/* a revoke with tid >= its transaction names the home */
	EK_JFATE_BAD_CSUM,	/* its data checksum fails: skipped (kernel: -EIO at the end) */
	EK_JFATE_OUTSIDE,	/* its home lies outside the filesystem */
	EK_JFATE_NOT_COMMITTED,	/* its transaction is torn or past the end */
};

struct ek_jplan {
	ek_tid_t upto;		/* last transaction applied */
	struct ek_jwrite *writes;	/* sorted by home, one per home */
	size_t nwrites;
	struct ek_jrevoke *revokes;	/* sorted by home */
	size_t nrevokes;
	/* with unchecked copies: the older copies of each home, by home then
	 * newest first, for apply to fall back on when a copy fails */
	struct ek_jwrite *older;
	size_t nolder;
	uint64_t superseded, revoked, bad_csum, outside;
	uint64_t written;	/* after apply: home blocks written (a home whose
				 * every copy failed its checksum is not) */
};

/*
 * The replay plan of the committed transactions up to and including
 * @upto (pass log->end_tid - 1 for all): the kernel's REVOKE pass, then
 * for each home block the newest copy not revoked (jbd2 PASS_REPLAY).
 * Release with ek_jplan_release().
 */
int ek_journal_plan(const struct ek_journal *j, const struct ek_jlog *log, ek_tid_t upto,
		    struct ek_jplan *out);
void ek_jplan_release(struct ek_jplan *p);
/* the fate of tag @tag of transaction @t under plan @p */
enum ek_jfate ek_jplan_fate(const struct ek_jplan *p, const struct ek_journal *j,
			    const struct ek_jtxn *t, const struct ek_jtag *tag);
const char *ek_jfate_name(enum ek_jfate f);
/*
 * Apply @p to the filesystem of @j (open with EK_OPEN_RW): write each home
 * block once in ascending order (adjacent blocks in one write, escaped
 * copies with their magic restored; a copy the scan left unchecked is
 * checked as it is read, and one that fails gives way to the home's next
 * older copy, as the kernel's PASS_REPLAY skips it; @p's counts and
 * ->written are updated), flush; then mark the journal clean
 * (s_start 0, s_sequence past the last transaction, errno set for a
 * corrupt commit), flush; then ek_journal_finish().  @fc (or NULL), the
 * fast-commit replay computed over the plan (ek_fc_replay()), is written
 * after the home blocks, while the journal still needs recovery.
 * Interrupted anywhere, running it again gives the same image.
 */
int ek_journal_apply(struct ek_journal *j, const struct ek_jlog *log, struct ek_jplan *p,
		     struct ek_wset *fc,
		     int64_t now);
/* the write @p makes to home block @home, or NULL */
const struct ek_jwrite *ek_jplan_find(const struct ek_jplan *p, uint64_t home);
/* read block @blk as replaying @p would leave it (the journal copy if
 * the plan writes it, else the block on disk) */
int ek_jplan_read(const struct ek_journal *j, const struct ek_jplan *p, ek_blk_t blk, void *buf);
/* the last steps of apply alone: clear needs_recovery (a journal already
 * clean, e.g. after an apply cut short), carry the journal errno into
 * EXT4_ERROR_FS, set s_wtime; then clear the journal errno */
int ek_journal_finish(struct ek_journal *j, int64_t now);
/*
 * A log recovery refuses, dropped as e2fsck drops it ("recovering journal"
 * failing, then the journal reset): s_start 0 and s_sequence past every
 * transaction the scan met, the journal superblock written (the
 * filesystem superblock's needs_recovery is the caller's, after this).
 * *@lost: the committed transactions the log held, now lost.  A clean
 * journal is left alone.
 */
int ek_journal_drop_log(struct ek_journal *j, uint32_t *lost);

/* ---- fast commits (fastcommit.c) --------------------------------------- */

/*
 * The fast-commit area of a journal with the jbd2 fast_commit feature:
 * journal blocks sb.last + 1 .. sb.maxlen - 1 (the kernel's j_fc_first and
 * j_fc_last; block sb.last belongs to neither the ring nor the area).  It
 * holds ext4's TLV records (ondisk.h EXT4_FC_TAG_*) that recovery applies
 * after the full transactions, by the rules of the kernel's
 * ext4_fc_replay_scan() (fs/ext4/fast_commit.c), fed block by block by
 * fc_do_one_pass() (fs/jbd2/recovery.c):
 *  - the area counts only if its first block starts with a HEAD; a HEAD
 *    with feature bits refuses recovery, one naming a transaction other
 *    than the expected one (the tid after the last committed full
 *    transaction) ends the scan: a stale area, nothing replayed;
 *  - records never cross a block end; fewer than 4 bytes left in a block
 *    are skipped; each value length must suit its tag (an unknown tag
 *    never does);
 *  - each TAIL carries the crc32c (seed 0, no inversion) of every record
 *    since the previous tail (the first: since the area start), headers
 *    and values, PADs and the HEAD included, then of its own header and
 *    fc_tid; a tail counts when that crc and its tid (the expected one)
 *    match;
 *  - replay applies the records up to the last tail that counts, in area
 *    order; the first record that breaks a rule ends the scan.  Before
 *    any tail counts, a broken record (-EK_CORRUPT) or tail (-EK_BADCRC)
 *    makes the kernel refuse the whole recovery, as does a scan that runs
 *    past the last block of the area (the kernel reads one block past
 *    the journal and fails: -EK_CORRUPT).
 */
enum ek_fc_state {
	EK_FC_NONE,		/* not read: no fast_commit feature, or the journal is clean */
	EK_FC_EMPTY,		/* the area does not start with a HEAD: no fast commits */
	EK_FC_STALE,		/* its HEAD names another transaction: left over, not replayed */
	EK_FC_VALID,		/* nreplay records (through the last good tail) to replay */
	EK_FC_INCOMPLETE,	/* the HEAD matches but no tail counts: nothing to replay */
	EK_FC_BADCRC,		/* status -EK_BADCRC: the first tail fails its crc or tid */
	EK_FC_CORRUPT,		/* status -EK_CORRUPT: a malformed record before any good
				 * tail, or the scan ran past the area */
	EK_FC_UNSUPP,		/* status -EK_UNSUPP: a HEAD with unknown feature bits */
};

/* one record; pointers point into the area the scan read and die with it */
struct ek_fc_rec {
	uint16_t tag;		/* EXT4_FC_TAG_*, or the unknown value found */
	uint16_t len;		/* value bytes after the 4-byte header */
	uint32_t area_blk;	/* block of the area: journal block first_jblk + area_blk */
	uint32_t off;		/* byte offset of the header in that block */
	bool decoded;		/* the value passed its length check and is in u */
	bool stop;		/* this record ended the scan (never replayed) */
	union {
		struct {		/* HEAD */
			uint32_t features;
			ek_tid_t tid;
		} head;
		struct {		/* TAIL */
			ek_tid_t tid;
			uint32_t crc;		/* as stored */
			uint32_t crc_calc;	/* what the records since the previous tail give */
		} tail;
		struct {		/* ADD_RANGE: the extent (ino, lblk..) -> pblk.. */
			ek_ino_t ino;
			uint32_t lblk;
			uint32_t len;		/* blocks, 0..32768 (the unwritten bias removed) */
			bool unwritten;		/* ee_len > 32768 */
			uint64_t pblk;		/* 48 bits */
		} range;
		struct {		/* DEL_RANGE: blocks lblk..lblk+len-1 of ino */
			ek_ino_t ino;
			uint32_t lblk, len;
		} del;
		struct {		/* CREAT, LINK, UNLINK: the entry name in directory parent */
			ek_ino_t parent, ino;
			const uint8_t *name;	/* name_len bytes, not NUL-terminated */
			uint32_t name_len;	/* 1..255 */
		} dentry;
		struct {		/* INODE: the on-disk inode of ino */
			ek_ino_t ino;
			const uint8_t *raw;	/* raw_len bytes, unaligned */
			uint32_t raw_len;	/* 128..the filesystem's inode size */
		} inode;
	} u;
};

struct ek_fclog {
	struct ek_fc_rec *recs;	/* owned: the records read, in area order; the
				 * last one may be the one that ended the scan */
	size_t nrecs;
	size_t nreplay;		/* recs[0..nreplay) are what recovery applies, in
				 * order (HEAD, PAD and TAIL counted, as the kernel does) */
	size_t ncommits;	/* fast commits (good tails) among them */
	ek_tid_t expect_tid;
	enum ek_fc_state state;
	int status;		/* 0, or why the kernel refuses the whole recovery:
				 * -EK_BADCRC, -EK_CORRUPT, -EK_UNSUPP (message recorded) */
	uint32_t first_jblk;	/* journal block of area block 0 */
	uint32_t nblocks;	/* blocks in the area */
	uint32_t blocks_read;	/* blocks the scan read */
	char end_reason[160];	/* why the scan stopped */
	uint8_t *buf;		/* owned (ek_fc_scan): the blocks read; records point here */
};

/*
 * Scan the fast-commit area of @j for replay after the full transactions,
 * expecting fast commits of transaction @expect_tid (pass the full log's
 * end_tid).  Returns 0 when the area could be judged (the verdict is in
 * out->state and out->status), or an error reading it (-EIO, -EK_CORRUPT
 * for an unmapped block, -ENOMEM) with *out released.  A journal without
 * fast_commit, or clean (s_start 0: the kernel recovers nothing), gives
 * EK_FC_NONE.  Release with ek_fclog_release().
 */
int ek_fc_scan(struct ek_journal *j, ek_tid_t expect_tid, struct ek_fclog *out);
/*
 * The same rules on an area in memory (@nblocks blocks of @blksz bytes;
 * @inode_size bounds INODE records).  Records point into @area, which the
 * caller keeps; block numbers are area blocks (first_jblk 0).  -EINVAL for
 * a block or inode size no filesystem has.
 */
int ek_fc_parse(const void *area, uint32_t nblocks, uint32_t blksz, uint32_t inode_size,
		ek_tid_t expect_tid, struct ek_fclog *out);
void ek_fclog_release(struct ek_fclog *log);
/*
 * Record @i of @fc to @o: a text line (journal block, offset, replay
 * yes/no/stop, the record) and a JSON object; and the area's summary
 * fields (JSON only).
 */
void ek_fc_rec_emit(struct ek_out *o, const struct ek_fclog *fc, size_t i);
void ek_fc_summary_emit(struct ek_out *o, const struct ek_fclog *fc);
/*
 * Replay the records of @log (state EK_FC_VALID; else nothing) onto @fs as
 * the full replay leaves it (open it over the plan: ek_jplan_overlay),
 * into @ws, by the kernel's rules (fcreplay.c).  What it cannot apply
 * (ranges of block-mapped inodes, a new block-mapped directory, an inline
 * directory to convert without extents) is -EK_UNSUPP.  Seal and write
 * @ws afterwards.
 */
int ek_fc_replay(struct ek_fs *fs, struct ek_wset *ws, const struct ek_fclog *log);
/* "ADD_RANGE", "HEAD"... for a tag, NULL for an unknown one */
const char *ek_fc_tag_name(uint16_t tag);
/* "none", "empty", "stale", "valid", "incomplete", "bad_checksum", "corrupt", "unsupported" */
const char *ek_fc_state_name(enum ek_fc_state s);
/*
 * Check a decoded record against @fs before replaying it: inode numbers
 * within s_inodes_count, an extent inside the filesystem (pblk >=
 * s_first_data_block, pblk + len <= blocks) and within 2^32 logical
 * blocks, a non-empty range, a name without '/' or NUL that is not "." or
 * "..".  0 or -EK_CORRUPT with the reason recorded.  The kernel's scan
 * checks none of this; its replay skips what it cannot apply.
 */
int ek_fc_rec_check(const struct ek_fs *fs, const struct ek_fc_rec *r);

/* ---- orphan inodes (orphan.c) ------------------------------------------ */

/* read one block of the image (as it is, or as a replay would leave it) */
typedef int (*ek_block_reader)(void *arg, ek_blk_t blk, void *buf);

struct ek_orphan {
	ek_ino_t ino;
	bool in_file;		/* from the orphan file, else the superblock list */
	uint16_t links;		/* 0: to be deleted; else truncated to its size */
	uint16_t mode;
	uint32_t uid, gid;
	uint64_t size;
	bool has_blocks;	/* i_blocks or an xattr block */
	/* in_file: where the entry is, to clear it */
	ek_ino_t file_ino;	/* the orphan file */
	uint32_t file_gen;	/* its generation (block checksum seed) */
	ek_blk_t file_blk;
	uint32_t slot;
};

/* 0 if ek_orphans_release() can handle @o, else -EK_UNSUPP saying why */
int ek_orphan_supported(const struct ek_orphan *o);

typedef int (*ek_orphan_fn)(void *arg, const struct ek_orphan *o);
/*
 * The orphan inodes a mount would process: the list from s_last_orphan
 * through i_dtime, then the orphan file's entries.  @sb is the superblock
 * to use (1024 bytes), @read reads blocks.  A loop, an inode number out of
 * range or a bad orphan-file block stops with -EK_CORRUPT.
 */
int ek_orphans_iterate(struct ek_fs *fs, const struct ext4_super_block *sb, ek_block_reader read,
		       void *rarg, ek_orphan_fn fn, void *arg);

/*
 * Release the orphan inodes of @fs (after replay) as a mount would, into
 * the write set @ws (nothing is written here): deleted inodes from the
 * superblock list and the orphan file get i_dtime = @now, their blocks and
 * inode freed in the bitmaps and counts, their xattr block reference
 * dropped; inodes still linked are truncated to their size
 * (ek_inode_truncate()); the orphan-file slots, orphan_present and
 * s_last_orphan are cleared.  *released counts the inodes; @done (or NULL)
 * hears of each.  Seal and write @ws afterwards.
 */
/* called after each inode with the blocks it gave back (blocks, not clusters) */
typedef int (*ek_orphan_done_fn)(void *arg, const struct ek_orphan *o, uint64_t blocks_freed);
int ek_orphans_release(struct ek_fs *fs, struct ek_wset *ws, int64_t now, ek_orphan_done_fn done,
		       void *arg, uint64_t *released);
#define EK_ORPHAN_BLOCK_MAGIC 0x0b10ca04
/*
 * fsck's repair of orphans a mount refuses to process, as e2fsck: a
 * superblock list that cannot be followed (an inode out of range, a loop)
 * is cut at its head (s_last_orphan 0: its inodes are left to the check,
 * as any orphan left over); an orphan-file block without its tail magic
 * or checksum, or naming an inode out of range, is made empty again (its
 * entries are lost); then the orphans left are released as a mount would
 * (ek_orphans_release()), all inside @ws.  Returns 0 or -ENOMEM/-EIO, or
 * the release's error when what is left still cannot be processed.
 */
struct ek_orphans_reset {
	ek_ino_t list_head;	/* the list cut: the head it named; 0: kept */
	uint32_t file_blocks;	/* orphan-file blocks made empty */
	uint64_t released;	/* orphans released afterwards */
};
int ek_fix_orphans_reset(struct ek_wset *ws, int64_t now, struct ek_orphans_reset *out);
/* metadata_csum of orphan-file block @blk (physical) of inode @ino */
uint32_t ek_orphan_block_csum(const struct ek_fs *fs, ek_ino_t ino, uint32_t gen, ek_blk_t blk,
			      const uint8_t *buf);

/* ---- recovery: what a mount does after a crash (recover.c) -------------- */

struct ek_recover_opts {
	const char *image;	/* the filesystem to recover (the copy, for a copy) */
	const char *journal_dev;	/* its external journal device, or NULL */
	uint64_t offset;	/* byte offset of the filesystem in @image */
	unsigned flags;		/* EK_OPEN_RW to apply; EK_OPEN_IGNORE_CSUM */
	bool copy;		/* @image is a fresh copy, removed if apply fails: the
				 * orphan step writes directly and an external journal
				 * (shared with the original) is only read */
	bool have_upto;
	ek_tid_t upto;		/* with have_upto: the last transaction to replay */
	bool journal_only;	/* leave the orphan inodes */
	bool no_data_csum;	/* leave v2/v3 data checksums unchecked (no plan fates) */
	bool use_backup;	/* as e2fsck: a damaged journal inode's log is replayed
				 * through the superblock's backup (s_jnl_blocks), which
				 * the kernel does not use (else refused) */
	int64_t now;		/* time the orphan step stamps (i_dtime) */
	bool orphans_without_journal;	/* a filesystem without a journal is
				 * planned too: its orphan inodes alone (a mount and
				 * e2fsck release them on any filesystem), written in
				 * place; else it is an error (-ENOENT) */
};

struct ek_recover_orphan {	/* what the orphan step does to one inode */
	ek_ino_t ino;
	bool in_file;		/* listed in the orphan file, else the superblock list */
	bool truncate;		/* still linked: truncated to size; else deleted */
	uint16_t mode;
	uint32_t uid, gid;
	uint64_t size;
	uint64_t blocks_freed;	/* blocks (not clusters) going back to the free pool */
};

struct ek_recover_view;
struct ek_recovery {		/* the plan; everything here is owned */
	struct ek_fs *fs;	/* the image (read-write when opened so) */
	struct ek_journal *j;	/* NULL: no journal (orphans_without_journal) */
	struct ek_jlog log;
	struct ek_jplan plan;	/* step 1: the log up to plan.upto */
	bool clean;		/* s_start 0: no log to replay */
	bool finish_only;	/* clean, but needs_recovery or a journal errno is
				 * still set (an apply cut short): finish it */
	ek_tid_t *discarded;	/* committed transactions past plan.upto (--upto) */
	size_t ndiscarded;
	bool have_fc;		/* fc was scanned */
	struct ek_fclog fc;	/* step 2: fc.recs[0..fc_records) are applied */
	size_t fc_records;
	struct ek_recover_orphan *orphans;	/* step 3, in processing order */
	size_t norphans;
	int refused;		/* 0, or why apply refuses: -EK_* */
	char refused_msg[320];	/* ...in words */
	const char *refused_step;	/* "journal", "fast commits", "orphan inodes" */
	const char *refused_hint;	/* an option that helps, or NULL */
	/* private */
	char *image, *journal_dev;
	uint64_t offset;
	bool journal_only, copy;
	struct ek_recover_view *view;
	struct ek_fs *fc_fs, *orphan_fs;
	struct ek_wset *fc_ws, *orphan_ws;
	size_t orphans_cap;
};

/*
 * Plan the recovery of @o->image: scan and plan the log, the fast commits
 * over it and the orphan inodes over both, reading only.  A recovery the
 * kernel (or this library) would refuse still returns a plan, with
 * ->refused set; errors that leave no plan (the image or journal cannot be
 * opened, a bad --upto) return <0 with the message recorded.  Free with
 * ek_recover_free().
 */
int ek_recover_plan(const struct ek_recover_opts *o, struct ek_recovery **out);
/*
 * Read overlay (ek_open_opts.overlay, arg: the struct ek_recovery) of the
 * image as the whole plan leaves it: log, fast commits and orphan step
 * (the steps planned before any refusal).  A filesystem opened through it
 * is what a check after recovery sees, with nothing written (fsck -n).
 */
int ek_recover_overlay(void *rec, ek_blk_t blk, void *buf);

struct ek_recover_apply_opts {
	int64_t now;		/* s_wtime, i_dtime, commit times */
	struct ek_undo *undo;	/* the image's undo file, or NULL */
	struct ek_undo *journal_undo;	/* the external journal's, or NULL */
	void (*progress)(void *arg, uint64_t done, uint64_t total);	/* or NULL */
	void *progress_arg;
};

struct ek_recover_result {
	bool replayed;		/* the log was applied */
	bool finished;		/* a clean journal's needs_recovery/errno cleared */
	uint64_t written;	/* home blocks written */
	uint64_t fc_records;
	uint64_t orphans_released;
};

/*
 * Apply plan @r (opened with EK_OPEN_RW): the log and fast commits
 * (ek_journal_apply()), then the orphan step, recomputed on the written
 * image and committed through the journal (directly on a copy).  Returns
 * r->refused when set, without writing.  Interrupted anywhere, planning
 * and applying again gives the same image.  @r's fs and journal are
 * closed by the orphan step; only ek_recover_free() may follow.
 */
int ek_recover_apply(struct ek_recovery *r, const struct ek_recover_apply_opts *a,
		     struct ek_recover_result *out);
void ek_recover_free(struct ek_recovery *r);
/* copy image @src to the new file @dst (never overwritten), keeping holes and
 * permission bits, flushed; a failed copy is removed */
int ek_recover_copy(const char *src, const char *dst);

/* ---- the checker (fsck.c, problems.def) ---------------------------------- */

enum ek_severity { EK_SEV_ERROR, EK_SEV_WARNING, EK_SEV_COUNT };
/* what preen (-p) does with a problem: stop the check, fix it, leave it;
 * or-ed in problems.def with EK_NOT_A_FIX for a cosmetic one (a time in
 * the future): its fix leaves the exit status 0, and found on a clean
 * filesystem it does not force the whole check (as e2fsck); or with
 * EK_NO_CHANGE for one e2fsck fixes without marking the filesystem
 * changed (its check_super_block's descriptor fixes, written with the
 * final superblock): a fix all the same (it forces the whole check), but
 * with no fix of another kind and no orphan released, the exit status
 * stays 0 and no MODIFIED line is printed; or with EK_PREEN_NOMSG for one
 * e2fsck's preen fixes without printing it (PR_PREEN_NOMSG) */
enum ek_preen { EK_PREEN_HALT, EK_PREEN_FIX, EK_PREEN_LEAVE, EK_NOT_A_FIX = 0x10,
		EK_NO_CHANGE = 0x20, EK_PREEN_NOMSG = 0x40 };

enum ek_problem_id {
#define EK_PROBLEM(name, pass, sev, preen, msg, fix) EK_PR_##name,
#include "problems.def"
#undef EK_PROBLEM
	EK_PR_COUNT
};

struct ek_problem {		/* one line of problems.def */
	const char *name;	/* "LINK_COUNT_WRONG": the id, lower-cased in JSON */
	unsigned pass;
	enum ek_severity severity;
	uint8_t preen;		/* enum ek_preen: what e2fsck -p does with it */
	bool not_a_fix;		/* cosmetic: see EK_NOT_A_FIX */
	bool no_change;		/* see EK_NO_CHANGE */
	bool preen_nomsg;	/* see EK_PREEN_NOMSG */
	const char *message;	/* printf template */
	const char *fix;	/* what a repair does, or NULL: no fix yet */
	const char *question;	/* the text output's question: "Fix", "Clear inode"... */
};
/* the table entry of @id, or NULL */
const struct ek_problem *ek_problem_get(enum ek_problem_id id);

struct ek_finding {
	enum ek_problem_id id;
	ek_ino_t ino;		/* the inode concerned (an entry's target), or 0 */
	ek_ino_t dir;		/* the directory holding the entry, or 0 */
	ek_blk_t blk;
	bool has_blk;
	int64_t group;		/* or -1 */
	bool fixable;		/* repair is on and the finding has a fix here: the
				 * report callback's answer decides (EK_FSCK_FIX) */
	uint8_t preen;		/* enum ek_preen: what preen does with this one (its
				 * problem's, but for e2fsck -E unshare_blocks' copies,
				 * which preen makes) */
	bool fixed;		/* set on the copy given to ->fixed */
	uint64_t seq;		/* its number in this check, from 0 (ek_fsck_opts.path) */
	const char *entry_name;	/* with dir: the entry's name (not NUL-terminated,
				 * valid during the call), or NULL */
	size_t entry_len;
	char message[400];	/* the template filled in */
};

/* the report callback's answers under repair: fix it, leave it; <0 stops */
#define EK_FSCK_FIX	1
#define EK_FSCK_LEAVE	0
#define EK_FSCK_PASS_3A	6	/* ek_fsck_opts.progress: e2fsck's "Pass 3A" */

struct ek_fsck_opts {
	/* each finding as it is found; nonzero stops the check (returned) */
	int (*report)(void *arg, const struct ek_finding *f);
	/* the pass about to start (1..5; EK_FSCK_PASS_3A after pass 3 when
	 * pass 3A has directories to index) */
	void (*progress)(void *arg, unsigned pass);
	/* within pass @pass: @done of @total units (passes 1, 4 and 5: groups;
	 * 2 and 3: directories), from 0 to @total, never going back; NULL: none */
	void (*progress_units)(void *arg, unsigned pass, uint64_t done, uint64_t total);
	void *arg;
	ek_blk_t backup_sb;	/* @fs was opened from this backup superblock... */
	const char *backup_why;	/* ...because the primary failed so */
	int journal_err;	/* the journal could not be read for recovery */
	const char *journal_refused;	/* why the kernel would refuse recovery, or NULL */
	const char *journal_refused_step;	/* "journal", "filesystem"... */
	uint32_t journal_refused_lost;	/* "journal": the committed transactions of the log */
	const char *journal_sb_bad;	/* the journal superblock breaks e2fsck's rules, or NULL */
	/*
	 * Pass 5, for tests (tests/diff/e2diff.c) or NULL: the bitmaps the
	 * check computed for group @g, 1 = in use.  @blocks holds the group's
	 * @nclusters clusters (metadata included), @inodes its
	 * @ninodes inodes (the reserved ones set).  Valid during the call.
	 */
	void (*bitmaps)(void *arg, uint32_t g, const uint8_t *blocks, uint64_t nclusters,
			const uint8_t *inodes, uint32_t ninodes);
	/*
	 * Repair (lib/repair.c).  Off: read-only, @fs may be a read-only view.
	 * On (@fs opened EK_OPEN_RW): a finding with a fix is reported with
	 * ->fixable, and when the callback answers EK_FSCK_FIX the fix goes
	 * into a write set that is committed at the end of its pass (and
	 * after the descriptor step): through @journal when given (internal,
	 * opened RW on @fs, empty), else written in place in order
	 * (ek_wset_write_ordered).
	 */
	bool repair;
	int64_t now;			/* commit times */
	struct ek_journal *journal;	/* or NULL */
	struct ek_undo *undo;		/* attached to @fs's io while repairing, or NULL */
	/* told once per fix the tool asked for, after its report: applied to
	 * the pass's write set (->fixed true) or not; or NULL */
	void (*fixed)(void *arg, const struct ek_finding *f);
	/* the fixes told ->fixed true since the last call are on disk (@err
	 * 0), or are not and never will be (@err < 0: their commit failed, or
	 * the check stopped before it); told after every commit and once
	 * when a check that may write ends with an error; or NULL */
	void (*committed)(void *arg, int err);
	/* the passes start again from pass 1 (a fix changed what pass 1
	 * reads: e2fsck's "Restarting e2fsck from the beginning..."); or NULL */
	void (*restarting)(void *arg);
	/* told once, before the first commit without a journal; or NULL */
	void (*no_journal)(void *arg, const char *why);
	/* polled between passes and findings: nonzero stops the check after
	 * the commit of what was fixed (-ECANCELED); or NULL */
	const volatile int *cancel;
	/* repairing, e2fsck -D: every directory in blocks rebuilt (entries in
	 * hash order under an index, else by inode number), not a finding;
	 * ek_fsck_summary.dirs_optimized counts them */
	bool optimize_dirs;
	/* repairing, e2fsck's pass 3A without -D: a linear directory of 3
	 * blocks or more indexed (not a finding; counted in dirs_optimized),
	 * after pass 3, so a preen halt before it leaves nothing written */
	bool index_dirs;
	/* the report callback never answers < 0 (it never halts: -y, not
	 * preen nor asking, whose end of input stops): index_dirs's
	 * directories are indexed in pass 2, each as it is walked, and not
	 * read a second time after pass 3 (but the root and one without '..') */
	bool never_halts;
	/* the check was asked for whatever the state (-f): as e2fsck, the
	 * superblock's times are judged only then or with s_checkinterval */
	bool force;
	/* the superblock and descriptor checks alone (e2fsck's
	 * check_super_block, which runs before a clean filesystem is skipped) */
	bool pass0_only;
	/*
	 * The path of each finding about an inode or a directory entry, by
	 * its number (ek_finding.seq), told after the passes, when the
	 * directories are read (lib/fsck_path.c); or NULL (nothing is kept
	 * for it).  "/a/b" as e2fsck prints paths: "???" for a name not
	 * found, "<N>" first where the way up ends at directory N before the
	 * root (an inode no entry names: "<N>" alone); the filesystem's own
	 * inodes get none.  Valid during the call.
	 */
	void (*path)(void *arg, uint64_t seq, const char *path);
	/* e2fsck -E unshare_blocks: with the shared_blocks feature, the shared
	 * blocks are claimed twice all the same and copied (no file is deleted
	 * for room), then the feature is cleared; the copies count as no fix */
	bool unshare_blocks;
};

/*
 * e2fsck -v's statistics: pass 1 counts the inodes it keeps by type (the
 * root and the inodes from s_first_ino on; the filesystem's own inodes
 * not), pass 2 the entries naming an inode.  e2fsck prints "links" as
 * entry_links and "files" as entries, each less the links directories
 * make (2 per directory, less 1).
 */
#define EK_FSCK_EXTENT_DEPTHS 8	/* e2fsck's histogram: trees of depth 0 to 7 */
struct ek_fsck_stats {
	uint64_t fragmented_files, fragmented_dirs;	/* data in more than one run */
	uint64_t regular, directories, chardevs, blockdevs, fifos, sockets;
	uint64_t symlinks, fast_symlinks;	/* fast: the target in i_block */
	uint64_t ind, dind, tind;	/* block-mapped inodes with an (d, t) indirect block */
	/* inodes with an extent tree (the filesystem's own too) by its depth */
	uint64_t extent_depth[EK_FSCK_EXTENT_DEPTHS];
	uint64_t bad_blocks;		/* in the bad blocks inode's list */
	uint64_t large_files;		/* regular files of 2 GiB or more */
	uint64_t entries;		/* directory entries naming an inode, '.' and '..' too */
	uint64_t entry_links;		/* of those, naming an inode named before */
};

struct ek_fsck_summary {
	uint64_t inodes_used, inodes_count;
	uint64_t blocks_used, blocks_count;	/* blocks_used: counted in pass 5 */
	uint64_t dirs, fragmented;		/* fragmented: data in more than one run */
	uint64_t findings[EK_SEV_COUNT];
	uint64_t fixed[EK_SEV_COUNT];		/* of those, fixed */
	uint64_t fixed_not_a_fix;		/* of those, problems EK_NOT_A_FIX */
	uint64_t fixed_no_change;		/* of those, problems EK_NO_CHANGE */
	uint64_t commits;			/* write sets committed */
	uint64_t blocks_written;		/* blocks in them */
	uint64_t dirs_optimized;		/* rebuilt by optimize_dirs (-D) */
	struct ek_fsck_stats stats;		/* e2fsck -v's numbers */
};

/*
 * Check @fs with e2fsck's passes 1-5, read-only, reporting each finding
 * through @o->report.  Returns 0 when the check ran (findings or not),
 * <0 when it could not (-ENOMEM, an I/O error).
 */
int ek_fsck_check(struct ek_fs *fs, const struct ek_fsck_opts *o, struct ek_fsck_summary *out);
/* why a filesystem marked clean is checked all the same, in e2fsck's
 * words ("has been mounted 20 times without being checked"): the errors
 * flag, not cleanly unmounted, the mount count or check interval reached,
 * the last check in the future; NULL when it may be skipped */
const char *ek_fsck_force_reason(const struct ek_fs *fs, int64_t now, char *buf, size_t n);
/* mounts until the count or interval forces a check (0: never) */
int ek_fsck_mounts_to_check(const struct ek_fs *fs, int64_t now);
/*
 * The free blocks and inodes the group descriptors count; false (and
 * nothing summed) when a group claims more free than it holds
 */
bool ek_fsck_desc_free_counts(const struct ek_fs *fs, uint64_t *blocks, uint32_t *inodes);
/*
 * e2fsck's last step before it skips a clean filesystem: the superblock's
 * free counts (which the kernel keeps in memory and writes at unmount, so
 * a crash leaves them old) set silently to the descriptors' sums, in the
 * primary superblock only.  @fs opened writable through the primary.
 * 1 written, 0 nothing to do, <0 (-EROFS when it may not be written).
 */
int ek_fsck_skip_counts(struct ek_fs *fs);
/* -EK_CORRUPT naming the first group whose bitmaps or inode table lie
 * outside the filesystem (then e2fsck turns to the backup descriptors) */
int ek_fsck_desc_check(const struct ek_fs *fs);

/* ---- write sets (wset.c) -------------------------------------------------
 *
 * The blocks a change will write, computed whole in memory before any
 * write.  Blocks are copied from the image on first use and edited in the
 * set; marking blocks and inodes counts only bits that change.
 */
int ek_wset_init(struct ek_fs *fs, struct ek_wset **out);
/* the filesystem the set belongs to */
struct ek_fs *ek_wset_fs(const struct ek_wset *ws);
void ek_wset_free(struct ek_wset *ws);
/* the set's copy of @blk, read from the image on first use */
int ek_wset_block(struct ek_wset *ws, ek_blk_t blk, uint8_t **out);
/* the set's copy if it has one, else NULL */
uint8_t *ek_wset_find(const struct ek_wset *ws, ek_blk_t blk);
/* blocks the set's bitmap changes gave back to the free pool, net (can be < 0) */
int64_t ek_wset_free_blocks_delta(const struct ek_wset *ws);
/* read @blk as the set would leave it */
int ek_wset_read(struct ek_wset *ws, ek_blk_t blk, void *buf);
/* the superblock inside the set; the raw inode @ino inside the set */
struct ext4_super_block *ek_wset_super(struct ek_wset *ws);
int ek_wset_inode(struct ek_wset *ws, ek_ino_t ino, uint8_t **raw);
/* raw inode @ino as the set would leave it, without taking it into the
 * set: its block read into @blkbuf (a block), *raw inside it */
int ek_wset_read_inode(struct ek_wset *ws, ek_ino_t ino, uint8_t *blkbuf, uint8_t **raw);
int ek_wset_mark_block(struct ek_wset *ws, ek_blk_t blk, bool used);
int ek_wset_mark_inode(struct ek_wset *ws, ek_ino_t ino, bool used, bool dir);
/* a free block at or after @goal (any group), marked used */
int ek_wset_alloc_block(struct ek_wset *ws, ek_blk_t goal, ek_blk_t *out);
/* bitmap, descriptor and superblock checksums and counters, once at the end */
int ek_wset_seal(struct ek_wset *ws);
/*
 * Group @g's block (@inode false) or inode bitmap in the set, taken from
 * the library's view on first use (bytes past the group's bits set, the
 * group's UNINIT flag cleared): seal sets its checksum.  Group @g's raw
 * descriptor in the set: seal sets its checksum.
 */
int ek_wset_bitmap(struct ek_wset *ws, uint32_t g, bool inode, uint8_t **out);
int ek_wset_desc(struct ek_wset *ws, uint32_t g, uint8_t **out);
/* put @buf (a block) in the set as @blk's contents */
int ek_wset_put(struct ek_wset *ws, ek_blk_t blk, const void *buf);
size_t ek_wset_count(const struct ek_wset *ws);
/* 1 when every block of the sealed set holds what the image holds
 * already (nothing to write), 0 when not, -ENOMEM */
int ek_wset_unchanged(struct ek_wset *ws);
void ek_wset_entry(const struct ek_wset *ws, size_t i, ek_blk_t *blk, const uint8_t **buf);
/* order the entries by block number (ek_wset_entry follows it) */
int ek_wset_sort(struct ek_wset *ws);
/* write every block home, ascending and merged, and flush */
int ek_wset_write(struct ek_wset *ws);
/* the same through @io (the set's filesystem may be a read-only view) */
int ek_wset_write_io(struct ek_wset *ws, struct ek_io *io);
/*
 * Write every block home without a journal, in the order that keeps each
 * intermediate image safest, a flush between the stages: blocks the set
 * takes into use (free on disk), the bitmaps with only their new bits set
 * and those groups' descriptors, the other changed blocks, the inode-table
 * blocks, then the bitmaps with bits freed, the descriptors and the
 * superblock last (repair.c says what a cut at each stage leaves).  Call
 * after ek_wset_seal().  0 or <0 (the first failed write stops it).
 */
int ek_wset_write_ordered(struct ek_wset *ws);
/* blocks the allocator must not hand out */
int ek_wset_exclude(struct ek_wset *ws, ek_blk_t blk, uint32_t len);
/* seal recounts the touched groups' free blocks and inodes from the bitmaps */
void ek_wset_recount(struct ek_wset *ws);
/*
 * Hold frees back (@on), as e2fsck leaves the bitmaps and free counts to
 * its pass 5: while on, marking free a block or inode that the image's
 * bitmap has in use changes neither the bitmap nor the counts, and is
 * recorded (ek_wset_held); marking free what this set itself marked used
 * undoes that; marking used again what is held takes it off the record.
 * A bitmap the set leaves with the image's bits is not written at all
 * (neither its padding nor its checksum), its group's UNINIT flag kept.
 * A set begun after a commit takes over the mode and the record
 * (ek_wset_carry; ek_repair_commit does it).
 */
struct ek_held_free {
	uint64_t num;		/* block, or inode number */
	bool inode, dir;	/* an inode (a directory) */
};
void ek_wset_hold_frees(struct ek_wset *ws, bool on);
/* the frees held so far (@n of them; valid until the set changes) */
const struct ek_held_free *ek_wset_held(const struct ek_wset *ws, size_t *n);
bool ek_wset_is_held(const struct ek_wset *ws, uint64_t num, bool inode);
void ek_wset_held_clear(struct ek_wset *ws);
/* @to, begun after @from was committed, takes over its mode and record */
void ek_wset_carry(struct ek_wset *to, struct ek_wset *from);
/*
 * Write @ws through the (empty) journal as one transaction, then home,
 * then mark the journal empty (jcommit.c): cut short anywhere, a replay
 * completes it.  -ENOSPC when the log is too small for it.
 */
int ek_journal_commit_wset(struct ek_journal *j, struct ek_wset *ws, int64_t now);
/* set the checksum of raw inode @ino (metadata_csum) */
void ek_inode_csum_set(const struct ek_fs *fs, ek_ino_t ino, uint8_t *raw);

/* ---- repairs (repair.c) ----------------------------------------------------
 *
 * The fixes extkit-fsck applies, each into a write set through the
 * object's codec (inode.c, dir.c, xattr.c, group.c), and the commit of a
 * set.  Nothing is written until ek_repair_commit().
 */
enum ek_inode_fix {
	EK_IFIX_CSUM,		/* only the checksum (every fix sets it too) */
	EK_IFIX_DTIME,		/* i_dtime = 0 */
	EK_IFIX_DTIME_SET,	/* i_dtime = v (a deletion time) */
	EK_IFIX_FLAGS_CLEAR,	/* i_flags &= ~v */
	EK_IFIX_FLAGS_SET,	/* i_flags |= v */
	EK_IFIX_EA_REFS,	/* a value inode's reference count = v */
	EK_IFIX_SIZE,		/* i_size = v */
	EK_IFIX_IBLOCKS,	/* i_blocks = v 512-byte sectors (huge_file: in blocks) */
	EK_IFIX_ACL_HI,		/* i_file_acl_hi = 0 */
	EK_IFIX_FILE_ACL,	/* i_file_acl = v, both halves */
	EK_IFIX_FADDR,		/* i_obso_faddr = v */
	EK_IFIX_SIZE_HIGH,	/* i_size_high = v alone */
	EK_IFIX_BLOCKS_HI,	/* l_i_blocks_high = v alone */
	EK_IFIX_LINKS,		/* i_links_count = v */
	EK_IFIX_INLINE_DROP,	/* inline data dropped: i_size 0, INLINE_DATA_FL cleared,
				   i_block zeroed (e2fsck's truncate without system.data) */
};
int ek_fix_inode(struct ek_wset *ws, ek_ino_t ino, enum ek_inode_fix what, uint64_t v);
/* h_refcount of xattr block @blk = @refs, checksum resealed */
int ek_fix_xattr_refcount(struct ek_wset *ws, ek_blk_t blk, uint32_t refs);
/* xattr block @blk's checksum recomputed (magic checked) */
int ek_fix_xattr_block_csum(struct ek_wset *ws, ek_blk_t blk);
/* entry @de of directory @dir: its file type; cleared (merged into the entry
 * before it, or inode 0 when first in its block); inline dirs: ek_fix_inline_dirent */
int ek_fix_dirent_type(struct ek_wset *ws, const struct ek_inode *dir,
		       const struct ek_dirent *de, uint8_t type);
int ek_fix_dirent_clear(struct ek_wset *ws, const struct ek_inode *dir,
			const struct ek_dirent *de);
/* repair_inline.c: entry @de of inline directory @dir given file type @type,
 * or cleared (@type -1) as the kernel removes one */
int ek_fix_inline_dirent(struct ek_wset *ws, const struct ek_inode *dir, const struct ek_dirent *de,
			 int type);
/* repair_inline.c: region @region (0: i_block, 1: system.data) of inline
 * directory @dir salvaged (ek_dir_inline_salvage) */
int ek_fix_inline_dir_salvage(struct ek_wset *ws, const struct ek_inode *dir, int region);
/* repair_inline.c: i_mode of @ino = @mode */
int ek_fix_inode_mode(struct ek_wset *ws, ek_ino_t ino, uint16_t mode);
/* '..' of directory @dir = @parent */
int ek_fix_dotdot(struct ek_wset *ws, ek_ino_t dir, ek_ino_t parent);
/* ---- directory repairs (repair_dir.c) ---- */
/* where a repair gets a new block (fsck: its allocator, which marks it) */
struct ek_dir_alloc {
	int (*fn)(void *arg, ek_blk_t goal, ek_blk_t *out);
	void *arg;
};
/*
 * Rewrite directory @ino whole: '.', '..' = @parent and @ents (names
 * distinct, no '.' or '..'; reordered), built by ek_dir_build() into the
 * directory's first logical blocks, the blocks past them freed and i_size
 * set to the new length; EXT4_INDEX_FL set as *@indexed says.  When those
 * first blocks have holes or unwritten extents, or are too few, an
 * extent-mapped directory gets a new map: its blocks in logical order,
 * then blocks from @alloc (NULL: none); a casefolded directory's index
 * hashes the folded names.  -EK_UNSUPP (nothing changed) for an inline or
 * a casefolded encrypted directory, or a new map it cannot have
 * (indirect-mapped, bigalloc, a larger extent tree).
 */
int ek_fix_dir_rebuild(struct ek_wset *ws, ek_ino_t ino, ek_ino_t parent,
		       struct ek_dirent_new *ents, size_t n, const struct ek_dir_alloc *alloc,
		       bool *indexed);
/*
 * A directory's blocks built ahead of its rewrite, in another thread
 * (ek_dir_built_make: ek_dir_build with e2fsck -D's slack, from @fs's
 * scalar fields only), for ek_fix_dir_rebuild_built(), which uses them
 * when they were built for the directory as it finds it (its generation
 * and flags, @parent, @n entries), else builds its own.
 */
struct ek_dir_built {
	ek_ino_t ino, parent;
	uint32_t gen, flags;
	size_t n;
	uint8_t *blocks;	/* nb blocks, malloc'd, or NULL */
	uint32_t nb;
	bool indexed;
	int err;		/* ek_dir_build's result, and its message: */
	struct ek_error msg;
};
void ek_dir_built_make(const struct ek_fs *fs, struct ek_dir_built *b, struct ek_dirent_new *ents);
void ek_dir_built_release(struct ek_dir_built *b);
int ek_fix_dir_rebuild_built(struct ek_wset *ws, ek_ino_t ino, ek_ino_t parent,
			     struct ek_dirent_new *ents, size_t n, const struct ek_dir_alloc *alloc,
			     struct ek_dir_built *built, bool *indexed);
/* directory @ino's unwritten extents marked written (what they hold is read) */
int ek_fix_dir_written(struct ek_wset *ws, ek_ino_t ino);
/* entry @de of directory @dir: each '/' and NUL of its name made '.' (repair.c) */
int ek_fix_dirent_name(struct ek_wset *ws, const struct ek_inode *dir, const struct ek_dirent *de);
/* entry @de of strict casefolded directory @dir: ek_dirent_name_fix_encoding() */
int ek_fix_dirent_encoding(struct ek_wset *ws, const struct ek_inode *dir,
			   const struct ek_dirent *de);
/* group @g's bitmap = the first @nbits bits of @map (the rest as the kernel pads it) */
int ek_fix_group_bitmap(struct ek_wset *ws, uint32_t g, bool inode, const uint8_t *map,
			uint64_t nbits);
/* group @g's descriptor field @f = @v; the superblock's free counts */
int ek_fix_group_count(struct ek_wset *ws, uint32_t g, enum ek_gd_field f, uint32_t v);
int ek_fix_super_counts(struct ek_wset *ws, uint64_t free_blocks, uint32_t free_inodes);
/* ---- superblock and descriptors (repair_super.c) ---- */
/* the backup superblock and descriptors @fs was opened with written as the
 * primary's (UNINIT flags and itable_unused cleared under group checksums);
 * @fs then uses the primary */
int ek_fix_super_primary(struct ek_wset *ws);
/* a revision 0 superblock made revision 1 (s_first_ino 11, s_inode_size 128) */
int ek_fix_super_rev(struct ek_wset *ws);
/* feature @mask of @kind (EK_FEAT_*) set or cleared; setting one makes a
 * revision 0 superblock revision 1 */
int ek_fix_super_feature(struct ek_wset *ws, int kind, uint32_t mask, bool on);
/* group @g's bitmap (@f EK_GD_BLOCK_BITMAP or EK_GD_INODE_BITMAP) moved to
 * @blk: a copy of block @old, or zeros when @old is 0 (pass 5 then writes
 * the bitmap computed); its inode table (EK_GD_INODE_TABLE, @old 0) made
 * anew at @blk, zeroed */
int ek_fix_table_move(struct ek_wset *ws, uint32_t g, enum ek_gd_field f, ek_blk_t old,
		      ek_blk_t blk);
/* the internal journal dropped: has_journal, needs_recovery and the
 * superblock's journal fields cleared, the journal inode zeroed */
int ek_fix_journal_clear(struct ek_wset *ws);
/* inode 8 zeroed, the superblock left alone (e2fsck's "journal inode is
 * not in use, but contains data": its blocks are then claimed by nothing) */
int ek_fix_journal_inode_clear(struct ek_wset *ws);
/* inode @ino zeroed whole (e2fsck clears the resize inode so when
 * resize_inode is off; its blocks are then claimed by nothing) */
int ek_fix_inode_zero(struct ek_wset *ws, ek_ino_t ino);
/* the resize inode made anew (e2fsck's "Recreate", as libext2fs's
 * ext2fs_create_resize_inode): inode 7 a regular file of mode 0600, times
 * @now, its double-indirect block @dind (allocated by the caller) and the
 * primary's reserved GDT blocks written through group.c's encoders;
 * -EINVAL for a block outside the filesystem or meta_bg */
int ek_fix_resize_inode(struct ek_wset *ws, ek_blk_t dind, int64_t now);
/* s_reserved_gdt_blocks 0 (resize_inode off: no reserved GDT blocks) */
int ek_fix_super_reserved_gdt_clear(struct ek_wset *ws);
/* the MMP block (s_mmp_block, which must pass ek_mmp_block_check) made
 * anew as mkfs makes it, as e2fsck resets it: magic, the clean sequence,
 * @now, the check interval, no node or device name, its checksum */
int ek_fix_mmp_reset(struct ek_wset *ws, int64_t now);
/* s_mmp_block set to @blk: 0 as e2fsck clears an invalid one; else a
 * block the caller allocated, made a clean MMP block as above (as
 * tune2fs -O mmp's ext2fs_mmp_init places one) */
int ek_fix_mmp_block(struct ek_wset *ws, ek_blk_t blk, int64_t now);
/*
 * e2fsck's "Recreate journal", in two steps written in that order: inode 8
 * made a journal of @blocks blocks (@fc_blocks fast-commit ones) mapped
 * from @goal on through @sink, its journal superblock in @ws, the data
 * extents in *@out (malloc'd) for the caller to zero; then the superblock
 * turns it on (has_journal, s_journal_inum, s_jnl_blocks).
 */
int ek_fix_journal_inode(struct ek_wset *ws, uint64_t blocks, uint32_t fc_blocks, ek_blk_t goal,
			 const struct ek_ind_sink *sink, int64_t now, struct ek_ext **out,
			 size_t *nout);
int ek_fix_journal_on(struct ek_wset *ws);
/*
 * ---- lost+found (repair_lnf.c): passes 3 and 4 ----
 * ek_fix_dir_new: inode @ino becomes a new directory (mode 040000 | the
 * permission bits of @mode, links 2, times @now) whose one block @blk
 * (allocated by the caller) holds '.' and '..' = @parent: an extent root
 * under the extents feature, else i_block[0], as e2fsck makes the root
 * and /lost+found.
 * ek_fix_dir_link: the entry @name -> @ino (@file_type) added to linear
 * directory @dir, in the first block with room, all read through @ws;
 * -ENOSPC when no block has room, -EK_UNSUPP for an inline, htree or
 * encrypted directory (a linear casefolded one takes it as any other).
 * ek_fix_dir_expand: linear directory @dir grows by block @blk (allocated by
 * the caller), an empty leaf at its end: i_size, i_blocks and its map (the
 * last extent of an in-inode extent root extended or a free slot taken;
 * a direct block of a block map); -EK_UNSUPP where that is not enough.
 */
int ek_fix_dir_new(struct ek_wset *ws, ek_ino_t ino, ek_ino_t parent, uint16_t mode,
		   ek_blk_t blk, int64_t now);
int ek_fix_dir_link(struct ek_wset *ws, ek_ino_t dir, const char *name, uint8_t name_len,
		    ek_ino_t ino, uint8_t file_type);
/* 0 when ek_fix_dir_link() can add to @dir (room aside), else its error */
int ek_fix_dir_linkable(struct ek_wset *ws, ek_ino_t dir);
int ek_fix_dir_expand(struct ek_wset *ws, ek_ino_t dir, ek_blk_t blk);
/*
 * The usage of @id in quota file @ino (@type) set to @inodes and @space
 * bytes, in place (repair_lnf.c; a repair that makes /lost+found changes
 * the root's owner's usage): -ENOENT when the file has no entry for @id.
 */
int ek_fix_quota_usage(struct ek_wset *ws, ek_ino_t ino, unsigned type, uint32_t id,
		       uint64_t inodes, uint64_t space);
/*
 * repair_quota.c.  ek_fix_quota_inum: the superblock's quota inode number
 * of @type set to @ino (0: that type has no file, as e2fsck clears one no
 * quota inode can have).
 * ek_fix_quota_file: inode @ino made anew as a quota file holding @data
 * (@len bytes, from ek_quota_encode; a multiple of EK_QUOTA_BLKSZ), as
 * e2fsck's quota_write_inode() makes one: with @free_old the old file
 * truncated first (its blocks and map freed in @ws, *@freed counts them),
 * then mode 0100600, one link, immutable, the times @now, the data in
 * blocks from @sink from @goal on, mapped by an extent tree (extents
 * feature; tree blocks from @sink too) or an indirect map, every block
 * and the inode in @ws.  No bigalloc (the caller's to refuse).
 * -EK_CORRUPT for an old map the truncation refuses, the sink's errors.
 */
int ek_fix_quota_inum(struct ek_wset *ws, unsigned type, ek_ino_t ino);
int ek_fix_quota_file(struct ek_wset *ws, ek_ino_t ino, const uint8_t *data, size_t len,
		      bool free_old, ek_blk_t goal, const struct ek_ind_sink *sink, int64_t now,
		      uint64_t *freed);
/*
 * Seal and write @ws: through journal @j (empty, RW on the set's fs) as
 * jbd2 transactions, one when the set fits the log, else split into
 * several (each whole blocks, committed and checkpointed in turn: a cut
 * between them leaves each earlier one complete); without @j in place,
 * in order (ek_wset_write_ordered: pointed-at blocks before the blocks
 * that point, freed bits and the superblock last).  Then ek_fs_refresh().
 * The set is emptied for reuse by freeing and making it again: *ws is
 * replaced.  *ntx counts the transactions (0 when written in place).
 */
int ek_repair_commit(struct ek_wset **ws, struct ek_journal *j, int64_t now, unsigned *ntx);

/* ---- changing block maps (extent.c) -------------------------------------- */

struct ek_ext {
	uint32_t lblk, len;
	ek_blk_t pblk;
	bool unwritten;
};

/*
 * The extent node codec (extent.c), used by every reader and writer.
 * ek_ext_node_check: the header of node @node (@size bytes: 60 for the
 * root in i_block, else the block size) as the kernel's __ext4_ext_check():
 * magic, 0 < eh_max <= room, eh_entries <= eh_max, depth <= 5 and, unless
 * @depth is -1 (the root), the depth the parent expects, an index node
 * not empty.  @blk names the node (0: the root).  0 or -EK_CORRUPT.
 */
int ek_ext_node_check(ek_ino_t ino, ek_blk_t blk, const void *node, size_t size, int depth);
/*
 * ek_ext_node_check_depth: ek_ext_node_check() with depths up to
 * @max_depth allowed (a tree deeper than the kernel reads, which e2fsck
 * reads to rebuild it shallower: ek_map_walk_deep).
 */
int ek_ext_node_check_depth(ek_ino_t ino, ek_blk_t blk, const void *node, size_t size, int depth,
			    unsigned max_depth);
/* the deepest extent tree ek_map_walk_deep() reads (each level one more block) */
#define EK_EXT_DEEP_MAX 32
/*
 * ek_ext_node_check_start: the first entry of tree block @blk (checked by
 * ek_ext_node_check) starts at logical block @start, as its parent's index
 * entry says (the kernel's ext4_valid_extent_entries()).  0 or -EK_CORRUPT.
 */
int ek_ext_node_check_start(ek_ino_t ino, ek_blk_t blk, const void *node, uint32_t start);
/* leaf entry @p (struct ext4_extent): ee_len > 32768 is unwritten */
struct ek_ext ek_ext_decode(const void *p);
/* index entry @p (struct ext4_extent_idx): the child block */
ek_blk_t ek_ext_idx_child(const void *p);
/* metadata_csum of a tree block: crc32c over the header and eh_max entries */
uint32_t ek_ext_block_csum(const struct ek_fs *fs, ek_ino_t ino, uint32_t gen, const void *node);
/* an empty root in i_block: no entries, room for 4, depth 0 */
void ek_ext_root_init(uint8_t iblock[EXT4_N_BLOCKS * 4]);

/* append @e to the growing array *v (*n used of *cap); -ENOMEM */
int ek_ext_append(struct ek_ext **v, size_t *n, size_t *cap, const struct ek_ext *e);

/* an extent tree as a sorted list, with the tree blocks that held it */
struct ek_extlist {
	struct ek_ext *v;
	size_t n;
	ek_blk_t *tree;
	size_t ntree;
};

/* read the extent tree of raw inode @raw through @ws */
int ek_extlist_load(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, const uint8_t *raw,
		    struct ek_extlist *out);
void ek_extlist_release(struct ek_extlist *l);
/* unmap [from, to), freeing the blocks in @ws; *freed counts them (added to) */
int ek_extlist_punch(struct ek_extlist *l, struct ek_wset *ws, uint64_t from, uint64_t to,
		     uint64_t *freed);
/* map @e (its range must be unmapped), merged with contiguous neighbours */
int ek_extlist_insert(struct ek_extlist *l, const struct ek_ext *e);
/*
 * Write @l back as the tree of @raw (inside @ws): in the inode up to 4
 * extents, else full leaves and index levels, old tree blocks reused,
 * new ones allocated, left-overs freed; *tree_delta = blocks gained.
 */
int ek_extlist_store(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw,
		     const struct ek_extlist *l, int64_t *tree_delta);
/* the same, new tree blocks taken first from @spare[0..@nspare) (blocks
 * the caller allocated, marked in use here as taken) */
int ek_extlist_store_spare(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw,
			   const struct ek_extlist *l, const ek_blk_t *spare, size_t nspare,
			   int64_t *tree_delta);
/* the tree blocks ek_extlist_store writes for @n extents (none up to 4) */
uint64_t ek_extent_tree_blocks(const struct ek_fs *fs, uint64_t n);
/* where a tree writer gets its blocks and sends their bytes */
struct ek_tree_sink {
	int (*alloc)(void *arg, ek_blk_t *blk);
	int (*put)(void *arg, ek_blk_t blk, const uint8_t *node);	/* fs->blksz bytes */
	void *arg;
};
/*
 * A new file's extent tree blocks taken one at a time from @sink's
 * allocator at @goal, counted in @blocks (the file's i_blocks adds them):
 * ek_sink_tree() gives the ek_tree_sink that does so.
 */
struct ek_sink_tree {
	const struct ek_ind_sink *sink;
	ek_blk_t goal;
	uint64_t blocks;
};
struct ek_tree_sink ek_sink_tree(struct ek_sink_tree *t);
/*
 * @n new blocks from @sink's allocator, from @goal on, as the extents of
 * logical blocks 0..@n-1 (contiguous runs merged, at most 32768 blocks
 * each) in *@out (malloc'd, *@nout of them); @what names the file in an
 * error.
 */
int ek_sink_extents(const struct ek_ind_sink *sink, ek_blk_t goal, uint64_t n, const char *what,
		    struct ek_ext **out, size_t *nout);
/*
 * Store @v[0..n) (sorted, non-overlapping) as the extent tree of raw inode
 * @ino (i_generation already set): in the inode up to 4 extents, else
 * full leaves and index levels from @sink.  Blocks gained: counted by the
 * sink.
 */
/*
 * After ek_extent_tree_write() of the extents @v[0..n) at depth 1: the
 * root's slots past its index entries hold @v's entries there, as libext2fs
 * leaves a root that was a full leaf before its first split (a file grown
 * one extent at a time: mke2fs's journal).  Other roots are left alone.
 */
void ek_extent_root_grown(uint8_t *raw, const struct ek_ext *v, size_t n);
int ek_extent_tree_write(const struct ek_fs *fs, ek_ino_t ino, uint8_t *raw,
			 const struct ek_ext *v, size_t n, const struct ek_tree_sink *sink);
/*
 * An extent tree grown one extent at a time at the end of a file, block for
 * block as libext2fs's ext2fs_extent_insert() grows one (mke2fs's huge
 * files): ek_extent_grow_begin() empties the root of raw inode @ino
 * (i_generation set) and keeps @raw until ek_extent_grow_free(); each
 * ek_extent_grow_add() appends one extent (after the last one), splitting
 * full nodes as libext2fs does, with a new tree block from @alloc(@arg,
 * goal, out) for each split (goal: the block before the first one the
 * split node points to).  ek_extent_grow_finish() sets the checksums and
 * hands every tree block to @sink->put (its alloc is not used); *@blocks:
 * how many.  -ENOMEM, @alloc's error, -EFBIG past depth 5.
 */
struct ek_extent_grow;
int ek_extent_grow_begin(const struct ek_fs *fs, ek_ino_t ino, uint8_t *raw,
			 int (*alloc)(void *arg, ek_blk_t goal, ek_blk_t *blk), void *arg,
			 struct ek_extent_grow **out);
int ek_extent_grow_add(struct ek_extent_grow *g, const struct ek_ext *e);
/*
 * one block @pblk at logical @lblk, after the last extent, as
 * ext2fs_extent_set_bmap() appends one: the last extent one block longer
 * when it ends just before both (and is shorter than 32768), else a new
 * extent of one block (ek_extent_grow_add)
 */
int ek_extent_grow_block(struct ek_extent_grow *g, uint32_t lblk, ek_blk_t pblk);
int ek_extent_grow_finish(struct ek_extent_grow *g, const struct ek_tree_sink *sink,
			  uint64_t *blocks);
void ek_extent_grow_free(struct ek_extent_grow *g);
/* the checksum tail of extent tree block @node (after eh_max entries) set;
 * -EK_CORRUPT when the header leaves it no room (no-op without metadata_csum) */
int ek_ext_block_csum_set(const struct ek_fs *fs, ek_ino_t ino, uint32_t gen, uint8_t *node);

/* ---- repairs of pass 1: inodes and their maps (repair_inode.c) ----------
 *
 * Each edits the blocks concerned inside write set @ws through their
 * codecs (inode.c, extent.c), the inode's checksum set.
 */
/* as e2fsck clears an inode beyond repair: i_links_count 0, i_dtime @now,
 * i_flags 0; a reserved inode (below s_first_ino) loses its i_block too */
int ek_fix_inode_clear(struct ek_wset *ws, ek_ino_t ino, uint32_t now);
/* an invalid i_extra_isize set as e2fsck does (s_want_extra_isize when out
 * of range, else rounded up to 4); -EINVAL when it is valid */
int ek_fix_inode_extra_isize(struct ek_wset *ws, ek_ino_t ino);
/* the in-inode xattrs of @ino removed (their header's magic zeroed) */
int ek_fix_inode_xattrs_clear(struct ek_wset *ws, ek_ino_t ino);
/* indirect map of @ino: pointer @slot of indirect block @node (0: i_block) = 0 */
int ek_fix_ind_pointer(struct ek_wset *ws, ek_ino_t ino, ek_blk_t node, unsigned slot);
/* extent tree block @blk of @ino: its checksum set (the block passes checks) */
int ek_fix_extent_csum(struct ek_wset *ws, ek_ino_t ino, ek_blk_t blk);
/* @ino's block map replaced by an extent tree mapping @v[0..n) (sorted,
 * valid; the indirect blocks are the caller's to free), EXTENTS_FL set */
int ek_fix_map_to_extents(struct ek_wset *ws, ek_ino_t ino, const struct ek_ext *v, size_t n,
			  const struct ek_tree_sink *sink);
/* the extent tree of @ino rewritten to map @v[0..n) (sorted, valid), tree
 * blocks from @sink (ek_extent_tree_write) */
int ek_fix_extent_tree(struct ek_wset *ws, ek_ino_t ino, const struct ek_ext *v, size_t n,
		       const struct ek_tree_sink *sink);
/*
 * Unsharing (extent.c; e2fsck's pass 1D clone): inode @ino (raw inode @raw,
 * inside @ws) gets its own copy of the blocks of its map that @ops->decide
 * picks.  decide is called once per place in the map, in a fixed order
 * (extents: the tree blocks, then the data in logical order; indirect
 * maps: each pointer before what it points to), and returns 1 (copy), 0
 * (keep) or < 0.  With @plan nothing is written or allocated: *@need is
 * the most blocks a copy would allocate.  Otherwise each copy comes from
 * @ops->alloc, its contents are copied and the map points at it (an
 * extent tree is written again through ek_extent_tree_write(), the tree
 * blocks decide keeps reused first, those left over passed to
 * @ops->release, i_blocks adjusted; an indirect block copied keeps its
 * layout); *@copies counts the blocks copied.  The caller calls decide's
 * answers the same both times, sets the inode checksum.  Bigalloc: decide
 * is asked once per logical cluster (with its physical cluster's first
 * block), a copy is a new cluster with each block at its logical offset.
 * -EK_CORRUPT for a map the walk refuses (planning finds it first),
 * -EK_UNSUPP for a block map on bigalloc.
 */
struct ek_unshare_ops {
	int (*decide)(void *arg, ek_blk_t blk, bool tree);
	int (*alloc)(void *arg, ek_blk_t goal, ek_blk_t *out);
	int (*release)(void *arg, ek_blk_t blk);
	/* what a copy of @blk holds (NULL: the block as @ws has it) */
	int (*read)(void *arg, ek_blk_t blk, uint8_t *buf);
	void *arg;
};
int ek_inode_unshare(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw,
		     const struct ek_unshare_ops *ops, bool plan, uint64_t *need, uint64_t *copies);
/* repair_dup.c: xattr block @from copied to @to (its checksum set there when
 * it matched at @from); inode @ino's i_file_acl = @blk, checksum set */
int ek_fix_xattr_block_copy(struct ek_wset *ws, ek_blk_t from, ek_blk_t to);
int ek_fix_file_acl(struct ek_wset *ws, ek_ino_t ino, ek_blk_t blk);
/*
 * Split fields of a raw inode (inode.c), as the kernel's ext4_isize() and
 * ext4_isize_set(): readers apply the feature rules, setters write both
 * halves.  ek_inode_size: i_size_high counts for regular files, and for
 * everything with largedir; ek_inode_size_field: both halves as stored.
 * ek_inode_iblocks: i_blocks as stored (its high half with huge_file), in
 * 512-byte units or, with EXT4_HUGE_FILE_FL, filesystem blocks.
 * ek_inode_file_acl: the high half with 64bit.
 */
uint64_t ek_inode_size(const struct ek_fs *fs, const void *raw);
uint64_t ek_inode_size_field(const void *raw);
void ek_inode_size_set(void *raw, uint64_t size);
/* raw inode @raw without its inline data: i_size 0, INLINE_DATA_FL cleared,
 * i_block zeroed (no checksum set) */
void ek_inode_inline_drop(void *raw);
uint64_t ek_inode_iblocks(const struct ek_fs *fs, const void *raw);
void ek_inode_iblocks_set(void *raw, uint64_t v);
uint64_t ek_inode_file_acl(const struct ek_fs *fs, const void *raw);
void ek_inode_file_acl_set(void *raw, uint64_t blk);
uint32_t ek_inode_uid(const void *raw);
uint32_t ek_inode_gid(const void *raw);
void ek_inode_owner_set(void *raw, uint32_t uid, uint32_t gid);
/* add @delta filesystem blocks to i_blocks of @raw */
void ek_inode_add_blocks(const struct ek_fs *fs, uint8_t *raw, int64_t delta);
/*
 * Truncate raw inode @ino to its i_size as an orphan cleanup does: blocks
 * past it freed (extents or indirect map), the partial last block zeroed
 * past the size, i_blocks reduced.  Inline data and fast symlinks: nothing.
 */
int ek_inode_truncate(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw);

/* ---- block owners and the replayed view (owner.c) --------------------- */

/* a replay plan as a read overlay (ek_jplan_overlay; replay.c) */
struct ek_jplan_view {
	const struct ek_journal *j;
	const struct ek_jplan *p;
};
/*
 * Read overlay (ek_open_opts.overlay, arg: a struct ek_jplan_view): the
 * blocks the plan writes, as replaying it would leave them; 1 for others.
 * A filesystem opened through it is the image after that replay.
 */
int ek_jplan_overlay(void *view, ek_blk_t blk, void *buf);

enum ek_blk_owner_kind {
	EK_OWNER_UNKNOWN,	/* in use in the block bitmap, nothing found names it */
	EK_OWNER_FREE,		/* free in the block bitmap, nothing names it */
	EK_OWNER_OUTSIDE,	/* past the end of the filesystem */
	EK_OWNER_BOOT,		/* before the first data block (block 0 of 1 KiB blocks) */
	EK_OWNER_SUPER,		/* superblock copy of group @group (0: primary) */
	EK_OWNER_GDT,		/* group descriptors of first_group..last_group, the
				 * copy in group @group */
	EK_OWNER_RESERVED_GDT,	/* reserved GDT block, the copy in group @group */
	EK_OWNER_BLOCK_BITMAP,	/* of group @group */
	EK_OWNER_INODE_BITMAP,	/* of group @group */
	EK_OWNER_INODE_TABLE,	/* of group @group, inodes first_ino..last_ino */
	EK_OWNER_MMP,		/* the multi-mount protection block */
	EK_OWNER_JOURNAL,	/* block @lblk of the journal, inode @ino */
	EK_OWNER_DIR,		/* block @lblk of directory @ino */
	EK_OWNER_EXTENT_INDEX,	/* extent index node of @ino at depth @level, from @lblk */
	EK_OWNER_EXTENT_LEAF,	/* extent leaf of @ino, from logical block @lblk */
	EK_OWNER_INDIRECT,	/* indirect block of @ino, @level 1 single .. 3 triple,
				 * from logical block @lblk */
	EK_OWNER_XATTR,		/* xattr block of @refs inodes, first_ino..last_ino */
	EK_OWNER_DATA,		/* block @lblk of file @ino (symlink, special inode...) */
};

struct ek_blk_owner {
	enum ek_blk_owner_kind kind;
	uint32_t group;		/* SUPER, GDT, RESERVED_GDT, *_BITMAP, INODE_TABLE */
	bool backup;		/* SUPER, GDT, RESERVED_GDT: not the primary copy */
	ek_ino_t ino;		/* JOURNAL, DIR, EXTENT_*, INDIRECT, DATA */
	uint64_t lblk;		/* see the kinds */
	uint32_t level;		/* EXTENT_INDEX, INDIRECT */
	uint32_t first_group, last_group;	/* GDT */
	ek_ino_t first_ino, last_ino;		/* INODE_TABLE, XATTR */
	uint32_t refs;		/* XATTR */
	bool unwritten;		/* DATA, DIR: in an unwritten extent */
};

/*
 * Say for each of the @n blocks in @blocks what it is in @fs, into out[i]
 * (@n entries, duplicates allowed).  Static metadata comes from the
 * geometry and the descriptors; then one pass over the inode tables walks
 * the maps of the inodes in use (inode bitmap) and their xattr blocks;
 * what nothing names is free or unknown by the block bitmap.  Memory is
 * O(@n).  A metadata block wins over an inode that claims it, the first
 * inode over later ones.  Returns 0, -ENOMEM/-EINVAL (out undefined), or
 * the first damage met (an inode's map that could not be walked to the
 * end, an unreadable inode table or bitmap) after classifying all it
 * could, out filled.
 */
int ek_blocks_owner(struct ek_fs *fs, const ek_blk_t *blocks, size_t n, struct ek_blk_owner *out);
/*
 * ek_blocks_owner() walking only the inodes @inos[0..@ninos) (in use by
 * the inode bitmap; unreadable ones are damage) instead of every inode:
 * geometry and descriptors name what they name, the listed inodes' maps
 * and xattr blocks the rest, and a block none of them names is FREE or
 * UNKNOWN by the block bitmap (UNKNOWN: some inode not listed may own it).
 * An XATTR record counts the listed users only.  Cost: the listed maps.
 */
int ek_blocks_owner_among(struct ek_fs *fs, const ek_blk_t *blocks, size_t n,
			  const ek_ino_t *inos, size_t ninos, struct ek_blk_owner *out);

#define EK_OWNER_NKINDS (EK_OWNER_DATA + 1)

/*
 * How many blocks of each kind lie in each of @ncells cells of @per_cell
 * blocks from @first: a picture of a whole filesystem at a fixed cost.
 * Static metadata from the geometry and the descriptors; free blocks from
 * each group's bitmap (@read_bitmaps) or its descriptor's free count
 * (spread evenly over the group: a huge filesystem draws without reading
 * a bitmap); files' blocks by walking every inode in use (@walk_inodes),
 * else only the journal's.  In-use blocks nothing named are UNKNOWN, past
 * the end OUTSIDE.  A block named twice (damage; an xattr block shared)
 * counts twice; the reserved GDT blocks the resize inode maps count once,
 * as reserved_gdt (its own block is its double-indirect one).  @count: the caller's array of @ncells rows, zeroed.
 * Returns 0, -EINVAL, -ENOMEM, or the first damage met after counting
 * what it could.
 */
struct ek_owner_census {
	ek_blk_t first;
	uint64_t per_cell;
	size_t ncells;
	uint64_t (*count)[EK_OWNER_NKINDS];
	bool read_bitmaps, walk_inodes;
	uint64_t walked_inodes;		/* out */
};
int ek_owner_census(struct ek_fs *fs, struct ek_owner_census *c);
/* stable snake_case name of @k ("inode_table") */
const char *ek_blk_owner_kind_name(enum ek_blk_owner_kind k);
/* one line for people: "data of inode 12, logical block 3"; returns @buf */
const char *ek_blk_owner_describe(const struct ek_blk_owner *o, char *buf, size_t len);

/* ---- profile files: mke2fs.conf (profile.c) ------------------------------ */

/*
 * The profile format of mke2fs.conf, read as e2fsprogs reads it (the
 * format is described at the top of profile.c).  Parse errors are -EINVAL
 * with "NAME line N: why" recorded; -ENOMEM.  *out: free with
 * ek_profile_free(); it owns every string a lookup returns.
 */
struct ek_profile;
int ek_profile_parse(const char *text, size_t len, const char *name, struct ek_profile **out);
/* the file at @path: -ENOENT (recorded) when it does not exist */
int ek_profile_load(const char *path, struct ek_profile **out);
void ek_profile_free(struct ek_profile *p);
/*
 * The first value of relation @tag in top-level section @sec, or in its
 * (first) subsection @sub when @sub is not NULL; NULL when there is none.
 */
const char *ek_profile_get(const struct ek_profile *p, const char *sec, const char *sub,
			   const char *tag);
/* does [@sec] have a subsection @sub holding at least one relation (as mke2fs asks)? */
bool ek_profile_has_subsection(const struct ek_profile *p, const char *sec, const char *sub);
/* was [@sec] (or its subsection @sub) marked final with "*"? */
bool ek_profile_is_final(const struct ek_profile *p, const char *sec, const char *sub);
/*
 * Typed lookups with e2fsprogs' syntax (integers in C notation, booleans
 * y/yes/true/t/1/on and n/no/false/nil/0/off in any case): 0 and *out set,
 * 1 when the relation is absent (*out untouched), -EINVAL naming the
 * relation and its value when it does not parse.
 */
int ek_profile_get_int(const struct ek_profile *p, const char *sec, const char *sub,
		       const char *tag, int *out);
int ek_profile_get_uint(const struct ek_profile *p, const char *sec, const char *sub,
			const char *tag, unsigned *out);
int ek_profile_get_double(const struct ek_profile *p, const char *sec, const char *sub,
			  const char *tag, double *out);
int ek_profile_get_bool(const struct ek_profile *p, const char *sec, const char *sub,
			const char *tag, bool *out);

/* ---- the shape of a new filesystem (geometry.c) ---------------------------- */

enum ek_fs_type { EK_FS_EXT2 = 2, EK_FS_EXT3, EK_FS_EXT4 };

struct ek_geometry_opts {
	uint64_t size;		/* bytes */
	enum ek_fs_type type;
	uint32_t blocksize;	/* 0: by the size type */
	uint32_t inode_ratio;	/* bytes per inode, 0: by the size type */
	uint32_t inode_size;	/* 0: 256 */
	/* -O: features added and removed after the type's set */
	uint32_t compat_on, compat_off, incompat_on, incompat_off, ro_on, ro_off;
	/*
	 * features_given: the whole feature set is @compat, @incompat and
	 * @ro_compat (as extkit-mkfs resolves mke2fs.conf and -O); @type's
	 * built-in set and the _on/_off edits are not used
	 */
	bool features_given;
	uint32_t compat, incompat, ro_compat;
	uint64_t inodes;		/* -N: at least this many, 0: by the ratio */
	uint32_t blocks_per_group;	/* -g, 0: 8 × block size */
	bool reserved_given;		/* -m given: */
	double reserved_percent;	/* blocks reserved for root, percent */
	uint32_t flex_size;		/* -G groups per flex group, 0: 16 */
	uint64_t journal_bytes;		/* -J size=, 0: mke2fs's default for the size */
	uint64_t fc_bytes;		/* -J fast_commit_size= (fast_commit), 0: 1/64 of the default */
	bool journal_external;		/* has_journal on a journal device: no journal inode */
	uint32_t cluster_size;		/* -C bytes with bigalloc, 0: 16 blocks */
	bool num_backup_given;		/* -E num_backup_sb= (sparse_super2), else 2 */
	uint32_t num_backup_sb;
	uint32_t desc_size;		/* -E desc_size= with 64bit, 0: 64 */
	uint64_t resize_blocks;		/* -E resize=: room to grow to this many blocks, 0: 1024× */
};

struct ek_geometry {
	const char *size_type;	/* floppy, small, default, big, huge */
	uint32_t blocksize, inode_size, desc_size;
	uint32_t compat, incompat, ro_compat;
	uint64_t blocks;	/* after a too-small last group is dropped */
	uint32_t first_data_block;
	uint32_t blocks_per_group;
	uint32_t cluster_bits;		/* bigalloc: log2 of blocks per cluster, else 0 */
	uint32_t clusters_per_group;	/* blocks per group without bigalloc */
	uint32_t groups;
	uint32_t inodes_per_group;
	uint32_t inode_table_blocks;	/* per group */
	uint64_t inodes;
	uint32_t desc_blocks;
	uint32_t reserved_gdt;	/* per superblock copy, with resize_inode */
	uint64_t reserved_blocks;	/* for root: 5% */
	uint32_t log_flex;		/* log2 of the flex group size (flex_bg) */
	uint64_t journal_blocks;	/* with has_journal, fast-commit blocks included */
	uint32_t fc_blocks;		/* of them for fast commits */
	uint32_t backup_bgs[2];		/* sparse_super2: s_backup_bgs, 0 for none */
};

/* what mke2fs 1.47 would choose for @o (mkfs/NOTES.md); -EINVAL naming the problem */
int ek_geometry_compute(const struct ek_geometry_opts *o, struct ek_geometry *out);
/* mke2fs's (ext2fs_default_journal_size's) journal size for a filesystem of
 * @blocks blocks, fast-commit blocks not included; 0: too small for one */
uint64_t ek_journal_default_blocks(uint64_t blocks);
/* does group @grp hold a superblock copy (sparse_super, sparse_super2, or every group)? */
bool ek_geometry_has_super(const struct ek_geometry *g, uint32_t grp);

/* ---- building a new filesystem (newfs.c) ----------------------------------- */

struct ek_newfs_opts {
	struct ek_geometry_opts geo;
	char label[16];			/* s_volume_name, not NUL-terminated when full */
	char last_mounted[64];
	uint8_t uuid[16], hash_seed[16];
	uint32_t root_uid, root_gid;
	int64_t now;			/* every time mkfs sets itself */
	bool zeroed;			/* the target reads as zeros (a new or punched file) */
	bool discard_zeroed;		/* mke2fs's discard zeroed it: tables flagged ITABLE_ZEROED */
	bool lazy_itable_init;		/* leave unused inode tables unwritten */
	uint16_t errors;		/* s_errors, 0: continue (1) */
	bool mntopts_given;		/* s_default_mount_opts is: */
	uint32_t default_mount_opts;	/* else acl,user_xattr */
	bool hash_given;		/* s_def_hash_version is: */
	uint8_t def_hash_version;	/* EXT4_HASH_LEGACY..TEA, else half_md4 */
	bool periodic_fsck;		/* mke2fs.conf enable_periodic_fsck: 180 days, ~20 mounts */
	bool lazy_journal_init;		/* leave the journal's blocks unwritten */
	bool defer_root;		/* the root's entries come later (ek_newfs_dir_write) */
	uint16_t encoding, encoding_flags;	/* casefold: s_encoding (0: utf8), its flags */
	uint16_t mmp_update_interval;	/* s_mmp_update_interval; mmp: 0 is 5 s */
	char mmp_nodename[65];		/* the MMP block's host and device names */
	char mmp_bdevname[33];
	/* quota: the files made, 1 << EK_QUOTA_*; 0: user and group (and project with project) */
	uint8_t quota_types;
	uint16_t raid_stride;		/* s_raid_stride: also spreads the bitmaps without flex_bg */
	uint32_t raid_stripe_width;	/* s_raid_stripe_width */
	bool root_perms_given;		/* -E root_perms=: the root's permission bits are: */
	uint16_t root_perms;		/* else 0755 */
	bool test_fs;			/* s_flags test_filesys (ext4dev era kernels) */
	uint32_t orphan_file_blocks;	/* -E orphan_file_size=, 0: by the size */
	/*
	 * leave bytes 2048-4095 of the target as they are: mke2fs -z's undo
	 * layer drops that part of its wipe of the old superblock area
	 */
	bool keep_2k_4k;
	uint32_t creator_os;		/* s_creator_os: 0 Linux, 1 Hurd (mke2fs -o) */
	bool rev0;			/* revision 0 (mke2fs -r 0): no dynamic superblock fields */
	/*
	 * mke2fs -S: the superblocks and group descriptors only, every inode
	 * counted free and none marked unused (e2fsck reads them all), the
	 * state "errors"; no bitmap, table, inode, journal or data written
	 */
	bool super_only;
	/* geo.journal_external: the device's UUID and number (st_rdev) in the superblock */
	uint8_t journal_uuid[16];
	uint32_t journal_dev;
	/*
	 * bad blocks (mke2fs -l, -c): @nbad block numbers, sorted, without
	 * duplicates, each inside the filesystem.  As mke2fs: marked in use
	 * before the tables are placed (so no table lands on one), given to
	 * the bad blocks inode (inode 1, an indirect map); one in the primary
	 * superblock and descriptors (ek_newfs_bad_must_be_good()) is refused.
	 */
	const uint64_t *bad_blocks;
	size_t nbad;
	/*
	 * mke2fs -E packed_meta_blocks with flex_bg: every block bitmap, then
	 * every inode bitmap, then every inode table, first fit from the start
	 * of the filesystem (mke2fs then sets journal_location to 0 as well,
	 * with or without flex_bg: the tool's part)
	 */
	bool packed_meta_blocks;
	/*
	 * with extents, the journal starts at the first free block at or after
	 * journal_location when journal_location_given (mke2fs's
	 * journal_location), else in the group mke2fs picks mid-filesystem;
	 * a block-mapped journal is placed from the start either way
	 */
	bool journal_location_given;
	uint64_t journal_location;
	/*
	 * mke2fs -J v1_superblock: the journal superblock's block type says
	 * version 1, its other bytes as version 2 has them (as libext2fs)
	 */
	bool journal_v1;
};

/* the three time fields of an inode plus crtime */
enum ek_time_field { EK_TIME_ATIME, EK_TIME_CTIME, EK_TIME_MTIME, EK_TIME_CRTIME };
struct ek_timespec {
	int64_t sec;
	uint32_t nsec;
};
/*
 * Store @ts in time field @f of raw inode @raw (inode.c): seconds clamped
 * to what fits (32 signed bits, 34 with the _extra field), nanoseconds
 * and epoch bits in _extra where i_extra_isize reaches it; crtime only there.
 */
void ek_inode_time_set(const struct ek_fs *fs, void *raw, enum ek_time_field f,
		       struct ek_timespec ts);

/*
 * Raw inode @raw made new, as e2fsprogs makes one: zeroed, @mode and
 * @links, i_extra_isize 32 where the inode has room, atime, ctime and
 * mtime @ts, and crtime @ts when @crtime.
 */
void ek_inode_init_new(const struct ek_fs *fs, uint8_t *raw, uint16_t mode, uint16_t links,
		       struct ek_timespec ts, bool crtime);

/* a tree goal: the block before the file's data */
#define EK_NEWFS_TREE_BEFORE UINT64_MAX

/*
 * Lay out a new filesystem on @io (NULL for a dry run) as mke2fs 1.47 would:
 * group tables, root, lost+found, resize inode, journal, orphan file, all
 * in memory.  Nothing is written until ek_newfs_begin().  *out: free with
 * ek_newfs_free(), which leaves @io open.
 */
int ek_newfs_create(struct ek_io *io, const struct ek_newfs_opts *o, struct ek_newfs **out);
/*
 * An external journal device (mke2fs -O journal_dev) of @o->geo.size bytes
 * in @o->geo.blocksize blocks on @io (NULL: only check, *@blocks set): a
 * superblock with no groups or inodes (journal_dev; metadata_csum from
 * @o->geo.ro_compat), the journal superblock in the next block with no
 * users yet and the log to the end, the rest zeroed unless @o->zeroed or
 * lazy_journal_init.  -EINVAL naming a bad size.
 */
int ek_newfs_journal_dev(struct ek_io *io, const struct ek_newfs_opts *o, uint64_t *blocks);
void ek_newfs_free(struct ek_newfs *nf);
/* the new filesystem for the library's readers and checksum helpers (no I/O) */
struct ek_fs *ek_newfs_fs(struct ek_newfs *nf);
const struct ek_geometry *ek_newfs_geometry(const struct ek_newfs *nf);
/* the target (made with @io NULL, to check the layout before touching it) */
void ek_newfs_set_target(struct ek_newfs *nf, struct ek_io *io, bool zeroed);
/* mke2fs's discard zeroed the target (after ek_newfs_create, before ek_newfs_finish) */
void ek_newfs_set_discard_zeroed(struct ek_newfs *nf, bool discard_zeroed);
/* first block of the journal (0: none) */
ek_blk_t ek_newfs_journal_start(const struct ek_newfs *nf);
/*
 * The blocks mke2fs requires good for @g (ek_geometry_compute's answer):
 * [*first, *last], the primary superblock and descriptors and one block
 * more (mke2fs's handle_bad_blocks)
 */
void ek_newfs_bad_must_be_good(const struct ek_geometry *g, uint64_t *first, uint64_t *last);
/*
 * Allow writes: zero the old primary superblock so a run cut short leaves
 * no valid-looking image, and zero the journal unless the target reads as
 * zeros.  Data written after this goes straight to the image.
 */
int ek_newfs_begin(struct ek_newfs *nf);
/*
 * Bitmaps, descriptors, inode tables (checksums computed here), the
 * superblock copies, then the primary superblock, then a flush.
 */
int ek_newfs_finish(struct ek_newfs *nf);

/* up to @want contiguous blocks from the first free one at or after @goal (0: anywhere) */
int ek_newfs_alloc(struct ek_newfs *nf, ek_blk_t goal, uint64_t want, ek_blk_t *start,
		   uint64_t *got);
int ek_newfs_alloc_block(struct ek_newfs *nf, ek_blk_t goal, ek_blk_t *out);
/* @nblocks blocks at @blk, to the image (after ek_newfs_begin) */
int ek_newfs_write(struct ek_newfs *nf, ek_blk_t blk, const void *buf, uint64_t nblocks);
/*
 * A new inode with @mode, times now, the next free number.  *raw (and any
 * pointer from ek_newfs_inode()) is valid until the next ek_newfs_inode_new():
 * inode tables left behind are written out then; ek_newfs_inode() brings
 * one back.  Checksums are set when a table is written.
 */
int ek_newfs_inode_new(struct ek_newfs *nf, uint16_t mode, ek_ino_t *ino, uint8_t **raw);
/* inode @ino in memory (read back if written out already); NULL: out of memory or I/O */
uint8_t *ek_newfs_inode(struct ek_newfs *nf, ek_ino_t ino);
/*
 * Allocate and map the logical runs @runs[0..n) (sorted, lblk and len set)
 * of new inode @raw: extents (data from @goal on, then the tree at
 * @tree_goal; a run with .unwritten set becomes unwritten extents) or an
 * indirect map with its blocks in line (.unwritten is not representable
 * there: the caller writes those blocks).  Tree and
 * indirect blocks are written (or kept until writing begins); i_blocks,
 * i_block and EXTENTS_FL are set.  *out: the physical extents, malloc'd,
 * for the caller to write the data to.
 */
int ek_newfs_map(struct ek_newfs *nf, ek_ino_t ino, uint8_t *raw, const struct ek_ext *runs,
		 size_t n, ek_blk_t goal, ek_blk_t tree_goal, struct ek_ext **out, size_t *nout);
/*
 * The first block of new directory @ino, taken now, when the directory is
 * made (as ext2fs_mkdir() takes it, before the directory's children take
 * theirs); the root's was taken by ek_newfs_begin() (defer_root).  Pass
 * it to ek_newfs_dir_write().
 */
int ek_newfs_dir_begin(struct ek_newfs *nf, ek_ino_t ino, ek_blk_t *blk0);
/*
 * The blocks of new directory @ino (raw inode @raw, no blocks mapped yet)
 * holding @ents: built (ek_dir_build), allocated (from @blk0 on, the block
 * ek_newfs_dir_begin() gave, or 0), written; size and INDEX_FL set.
 */
int ek_newfs_dir_write(struct ek_newfs *nf, ek_ino_t ino, uint8_t *raw, ek_ino_t parent,
		       struct ek_dirent_new *ents, size_t n, ek_blk_t blk0);
/*
 * A linear directory grown entry by entry as mke2fs -d grows one
 * (ext2fs_link(), ext2fs_expand_dir(); newfs.c tells how): begun when
 * directory @ino is made, with its first block @blk0 (ek_newfs_dir_begin)
 * or 0 to start inline (inline_data); each ek_newfs_ldir_add() links one
 * name at once, taking a new block then when none has room, so blocks
 * interleave with the children's as mke2fs's do; ek_newfs_ldir_finish()
 * writes the blocks and sets @raw's map, size and i_blocks (still inline:
 * i_block, INLINE_DATA_FL and size 60; system.data is the caller's).
 * Free with ek_newfs_ldir_free() after finishing or failing.
 */
struct ek_newfs_ldir;
int ek_newfs_ldir_begin(struct ek_newfs *nf, ek_ino_t ino, ek_ino_t parent, ek_blk_t blk0,
			struct ek_newfs_ldir **out);
int ek_newfs_ldir_add(struct ek_newfs_ldir *d, const char *name, uint8_t len, ek_ino_t ino,
		      uint8_t type);
/* still inline (no entry has needed a block) */
bool ek_newfs_ldir_inline(const struct ek_newfs_ldir *d);
int ek_newfs_ldir_finish(struct ek_newfs_ldir *d, uint8_t *raw);
void ek_newfs_ldir_free(struct ek_newfs_ldir *d);
/* i_size; 2 GiB and more turns large_file on */
void ek_newfs_inode_set_size(struct ek_newfs *nf, uint8_t *raw, uint64_t size);
uint64_t ek_newfs_free_blocks(const struct ek_newfs *nf);
/* inodes still free for new files (all of them go to the next numbers) */
uint64_t ek_newfs_free_inodes(const struct ek_newfs *nf);

/* mke2fs.conf's make_hugefiles relations, sizes in blocks (mke2fs's defaults noted) */
struct ek_hugefiles {
	const char *dir;	/* hugefiles_dir ("/"): its directories made as needed */
	const char *name;	/* hugefiles_name ("hugefile"), then the index */
	int digits;		/* hugefiles_digits (5): the index zero-padded; 0: plain */
	uint64_t size;		/* hugefiles_size (0: the free space shared out) */
	uint64_t num;		/* num_hugefiles (0: as many as fit, or 1) */
	uint64_t slack;		/* hugefiles_slack (1M): left free before the first */
	uint64_t align;		/* hugefiles_align (0): sizes and starts aligned */
	uint64_t part_offset;	/* hugefiles_align_disk: the partition's start */
	uint32_t uid, gid;	/* hugefiles_uid, hugefiles_gid (0) */
	uint16_t umask;		/* hugefiles_umask (077) */
	bool zero;		/* zero_hugefiles (true; nothing written on a zeroed target) */
};
/*
 * Make the huge files as mke2fs's mk_hugefiles() does (after
 * ek_newfs_begin(), with no -d tree): each file one run of contiguous
 * blocks from past the slack on, as far as the free space goes, linked in
 * a linear directory.  *@files and *@blocks: how many, of how many blocks
 * (0: the rest).  -ENOSPC as mke2fs; -EK_UNSUPP for what is not done
 * (inline_data, bigalloc, a file of more than 4 extents).
 */
int ek_newfs_hugefiles(struct ek_newfs *nf, const struct ek_hugefiles *h, uint64_t *files,
		       uint64_t *blocks);

/* ---- copying a directory tree in (populate.c) -------------------------------- */

struct ek_populate_opts {
	bool clamp_time;		/* every time at most @epoch (SOURCE_DATE_EPOCH) */
	int64_t epoch;
	bool skip_unreadable;		/* an unreadable source: warn and leave it out */
	/* a warning for people (lib never prints); may be NULL */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	bool no_xattrs;			/* copy no xattrs (mke2fs -E no_copy_xattrs) */
	bool nanoseconds;		/* times keep their nanoseconds (mke2fs -d drops them) */
	bool htree_dirs;		/* directories built after their children, htree past a
					 * block (else grown linear entry by entry, as mke2fs -d) */
	/* may be NULL: called after each inode made, @done of @progress_total */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	uint64_t progress_total;	/* ek_populate_measure()'s inodes */
};

struct ek_populate_stats {
	uint64_t files, dirs, symlinks, specials, hardlinks, bytes, skipped;
};

/*
 * Copy the tree under @dir into the root of @nf (made with defer_root):
 * files with their holes, directories (linear as mke2fs -d grows them, or
 * htrees with @o->htree_dirs), symlinks, devices, fifos, sockets, hard
 * links, owners, modes, times (whole seconds unless @o->nanoseconds),
 * xattrs.  The root inode keeps mkfs's owner and mode.
 */
int ek_populate(struct ek_newfs *nf, const char *dir, const struct ek_populate_opts *o,
		struct ek_populate_stats *st);

/* what the tree under a -d directory takes at least */
struct ek_populate_need {
	uint64_t inodes;	/* new inodes: one per file, hard links once, no lost+found */
	uint64_t blocks;	/* data blocks at least: holes, inline data and hard links counted */
};

/*
 * Walk @dir (without copying) for what ek_populate() will need in @nf at
 * least, so a tree that cannot fit is refused before anything is written.
 * Entries that cannot be read are counted as far as lstat() sees them.
 */
int ek_populate_measure(struct ek_newfs *nf, const char *dir, struct ek_populate_need *out);

/* ---- layout (layout.c) ------------------------------------------------ */

struct ek_frag {
	uint64_t blocks;	/* data blocks mapped */
	uint64_t extents;	/* mapping entries (extents or indirect runs) */
	uint64_t runs;		/* physically contiguous runs */
	uint64_t ideal;		/* fewest entries that could map the blocks */
	uint64_t holes;		/* logical gaps between entries */
	uint64_t tree_blocks;	/* extent tree / indirect blocks */
	uint64_t hist[64];	/* entries by log2(length) */
};

/* fragmentation of one file; returns the map walk's result */
int ek_layout_file(struct ek_fs *fs, const struct ek_inode *ei, struct ek_frag *out);

struct ek_freefrag {
	uint64_t total_blocks;
	uint64_t free_blocks;
	uint64_t extents;	/* maximal free runs (across group boundaries) */
	uint64_t min_extent, max_extent;
	uint64_t hist[64];	/* free runs by log2(length in blocks) */
	uint64_t hist_blocks[64];
	uint64_t chunk_blocks;	/* chunk size asked for (0: none) */
	uint64_t total_chunks, free_chunks;
};

/*
 * The checkpoint seek profile: home blocks fed in the order they are
 * written.  A jump is a move of more than @gap blocks from the previous
 * home; distance sums the jumps.  Start from a zeroed struct.
 */
struct ek_seekstat {
	uint64_t writes, jumps, distance;
	bool have;		/* (internal) prev is set */
	uint64_t prev;
};
/* count a write of @home; the move's length when it is a jump, else 0 */
uint64_t ek_seek_add(struct ek_seekstat *s, uint64_t home, uint64_t gap);

/* free-space extents from the block bitmaps */
int ek_layout_free(struct ek_fs *fs, uint64_t chunk_blocks, struct ek_freefrag *out);

/* ---- multi-mount protection block (mmp.c) ------------------------------ */

struct ek_mmp {
	ek_blk_t block;			/* s_mmp_block */
	uint32_t magic, seq;
	int64_t time;
	char nodename[65], bdevname[33];	/* NUL-terminated copies */
	uint32_t check_interval;
	uint32_t checksum;
	uint32_t csum_want;		/* metadata_csum: the checksum the block should have */
	bool csum_bad;			/* metadata_csum and the checksum does not match */
};

/*
 * Read and check the MMP block of a filesystem with the mmp feature:
 * -EK_CORRUPT when s_mmp_block is outside the filesystem or the magic is
 * wrong, -EINVAL without the feature.  A checksum mismatch is reported in
 * @out->csum_bad, not as an error, so inspection can show the block.
 */
int ek_mmp_read(struct ek_fs *fs, struct ek_mmp *out);
/*
 * Is s_mmp_block a block the MMP block may be: after first_data_block,
 * inside the filesystem and none of the superblock copies, descriptors,
 * reserved GDT, bitmaps or inode tables (e2fsck: "Superblock has invalid
 * MMP block")?  0, or -EK_CORRUPT with the reason recorded.
 */
int ek_mmp_block_check(const struct ek_fs *fs, ek_blk_t blk);
/* the sequence's meaning: clean, e2fsck running, a live mount's, unknown */
/*
 * The MMP block of @m (magic, seq, time, names, check_interval; the
 * names at most 64 and 32 bytes, NUL-padded) into @buf, a block of @fs,
 * with its checksum under metadata_csum
 */
void ek_mmp_encode(const struct ek_fs *fs, const struct ek_mmp *m, void *buf);
enum ek_mmp_seq_state { EK_MMP_CLEAN, EK_MMP_FSCK, EK_MMP_LIVE, EK_MMP_UNKNOWN };
enum ek_mmp_seq_state ek_mmp_seq_state(uint32_t seq);
#define EK_MMP_MAX_UPDATE_INTERVAL 300	/* seconds, kernel EXT4_MMP_MAX_UPDATE_INTERVAL */
#define EK_MMP_UPDATE_INTERVAL 5	/* seconds, the default (kernel EXT4_MMP_UPDATE_INTERVAL) */
#define EK_MMP_MIN_CHECK_INTERVAL 5	/* kernel EXT4_MMP_MIN_CHECK_INTERVAL */

/* ---- quota files (quota.c) --------------------------------------------- */

enum { EK_QUOTA_USR, EK_QUOTA_GRP, EK_QUOTA_PRJ, EK_QUOTA_TYPES };
#define EK_QUOTA_BLKSZ 1024	/* the quota file's own block size */

struct ek_dquot {		/* one entry of a quota file (v2r1) */
	uint32_t id;
	uint64_t ihardlimit, isoftlimit, curinodes;
	uint64_t bhardlimit, bsoftlimit, curspace;	/* space in bytes */
	uint64_t btime, itime;	/* grace period ends, 0 when none */
};

struct ek_quota {		/* a decoded quota file */
	unsigned type;		/* EK_QUOTA_* */
	uint32_t version;
	uint32_t bgrace, igrace, flags;
	uint32_t blocks, free_blk, free_entry;	/* the info block's tree fields */
	uint32_t tree_blocks, data_blocks;	/* what the tree walk reached */
	struct ek_dquot *dq;	/* ascending ids; owned, ek_quota_release() */
	size_t count;
};

/* "user", "group", "project" */
const char *ek_quota_type_name(unsigned type);
/* the superblock's s_{usr,grp,prj}_quota_inum for @type (0: none) */
ek_ino_t ek_quota_inum(const struct ek_fs *fs, unsigned type);
/*
 * Decode and check the quota file @buf (@len bytes, its i_size) of @type;
 * @ino names it in messages.  Every tree pointer lies inside the file, no
 * tree block is reached twice, every data block header is checked (as the
 * kernel's check_dquot_block_header) and every entry in use is reached from
 * the tree by its own id.  -EK_CORRUPT naming the quota block, -EK_UNSUPP
 * for a version other than 1, -ENOMEM.  Release @out whatever the result.
 */
int ek_quota_decode(const void *buf, size_t len, unsigned type, ek_ino_t ino,
		    struct ek_quota *out);
/*
 * The same, salvaging as e2fsprogs' tree scan reads a damaged file: the
 * header checked as above (else its error), then every entry reached by
 * a pointer that is sound; a bad pointer, tree block or data block header
 * is passed over, entries the tree does not reach are not looked for.
 * 0 (what was reached in @out), -EK_CORRUPT/-EK_UNSUPP for the header,
 * -ENOMEM.  Release @out whatever the result.
 */
int ek_quota_salvage(const void *buf, size_t len, unsigned type, ek_ino_t ino,
		     struct ek_quota *out);
/* read inode @ino's content through the read path and decode it as above */
int ek_quota_read(struct ek_fs *fs, ek_ino_t ino, unsigned type, struct ek_quota *out);
/* the same content, not decoded: *out (*out_len bytes) is the caller's to free() */
int ek_quota_read_raw(struct ek_fs *fs, ek_ino_t ino, unsigned type, uint8_t **out,
		      size_t *out_len);
/*
 * The byte offset in quota file @buf (@len bytes) of the entry of @id,
 * reached down its tree path: 0, -ENOENT (no entry), -EK_CORRUPT (a
 * pointer outside the file).
 */
int ek_quota_entry_offset(const void *buf, size_t len, uint32_t id, size_t *out);
/* entry @e's usage (72 bytes at that offset): inodes and bytes in use; an
 * entry left all zero keeps the marker that tells it from a free one */
void ek_quota_entry_set_usage(uint8_t *e, uint64_t inodes, uint64_t space);
void ek_quota_release(struct ek_quota *q);
/* the entry of @id, or NULL; points into @q */
const struct ek_dquot *ek_quota_find(const struct ek_quota *q, uint32_t id);
/*
 * Lay out a quota file of @type holding @dq[0..n) (ids strictly ascending,
 * else -EINVAL) as e2fsprogs' quota_write_inode() does: entries with no
 * usage and no limit are left out, a week's grace times.  *out (*out_len
 * bytes, a multiple of EK_QUOTA_BLKSZ) is the caller's to free().
 */
int ek_quota_encode(unsigned type, const struct ek_dquot *dq, size_t n, uint8_t **out,
		    size_t *out_len);
/* the info block's grace periods (seconds) of encoded quota file @buf (@len bytes) */
void ek_quota_set_grace(uint8_t *buf, size_t len, uint32_t bgrace, uint32_t igrace);

/* usage per id, counted from the inodes: memory grows with the ids seen */
struct ek_quota_usage {
	uint32_t id;
	uint64_t inodes, space;	/* space in bytes */
	bool uncertain;		/* an inode whose charge is not known was counted */
};
struct ek_quota_tally {
	struct { struct ek_quota_usage u; bool used; } *slot;
	size_t cap, count;
};
int ek_quota_tally_add(struct ek_quota_tally *t, uint32_t id, uint64_t inodes, uint64_t space,
		       bool uncertain);
/* the tally's ids ascending: *out holds t->count records, the caller's to free() */
int ek_quota_tally_sorted(const struct ek_quota_tally *t, struct ek_quota_usage **out);
void ek_quota_tally_release(struct ek_quota_tally *t);
/*
 * Whom usage is charged for, as e2fsck's pass 1 counts it: the root and
 * every inode from s_first_ino, but the project quota file, the orphan
 * file and xattr value inodes (@i_flags EA_INODE); each charged inode
 * counts one inode and its i_blocks as bytes.  fsck and mkfs both ask here.
 */
bool ek_quota_charged(const struct ek_fs *fs, ek_ino_t ino, uint32_t i_flags);
/* a type that counts anything: project ids need inodes over 128 bytes (i_projid) */
bool ek_quota_type_charged(const struct ek_fs *fs, unsigned type);

/* ---- output (out.c) ---------------------------------------------------- */

enum ek_out_mode { EK_OUT_TEXT, EK_OUT_JSON, EK_OUT_JSONL };

/* One emitter for text and JSON.  In JSON modes the value calls build the
 * document and ek_out_text() is ignored; in text mode only ek_out_text()
 * writes.  Free with ek_out_free(), which closes open containers. */
struct ek_out *ek_out_new(FILE *f, enum ek_out_mode mode);
void ek_out_free(struct ek_out *o);
bool ek_out_json(const struct ek_out *o);
/* the key the next value takes when it is given none (wrapping a result) */
void ek_out_key(struct ek_out *o, const char *key);
bool ek_out_key_pending(const struct ek_out *o);
/* how many top-level JSON values were written so far */
unsigned long ek_out_top_values(const struct ek_out *o);
void ek_out_obj_begin(struct ek_out *o, const char *key);
void ek_out_obj_end(struct ek_out *o);
void ek_out_arr_begin(struct ek_out *o, const char *key);
void ek_out_arr_end(struct ek_out *o);
void ek_out_u64(struct ek_out *o, const char *key, uint64_t v);
void ek_out_s64(struct ek_out *o, const char *key, int64_t v);
void ek_out_bool(struct ek_out *o, const char *key, bool v);
void ek_out_null(struct ek_out *o, const char *key);
void ek_out_double(struct ek_out *o, const char *key, double v);
void ek_out_str(struct ek_out *o, const char *key, const char *s);
/* a name from (ptr, len): invalid UTF-8 becomes U+FFFD and key_hex is added */
void ek_out_name(struct ek_out *o, const char *key, const char *s, size_t len);
void ek_out_hex(struct ek_out *o, const char *key, const void *buf, size_t len);
/*
 * A point in time, the one shape every tool uses for every time:
 * {"sec": S, "nsec": N, "iso": "2026-11-30T08:21:44Z"} (seconds since the
 * epoch, UTC).  An absent time (a field the object does not have, a
 * superblock time never set) is written by the caller as null instead.
 */
void ek_out_time(struct ek_out *o, const char *key, int64_t sec, uint32_t nsec);
void ek_out_text(struct ek_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* JSONL: end of one top-level record (a newline) */
void ek_out_record_end(struct ek_out *o);
/*
 * A progress bar on @f (a terminal): "\r<label>: |====    |  45%", drawn
 * again only when the percentage moves past *@last (start it at a value
 * above 100), ended by a newline at 100%.  The one bar of every tool.
 */
void ek_out_bar(FILE *f, const char *label, unsigned *last, uint64_t done, uint64_t total);
/*
 * The length (1..4) of the valid UTF-8 sequence at @p (before @end), its
 * code point in *@cp when @cp is not NULL; 0 for an invalid, truncated or
 * overlong sequence, a surrogate or a value past U+10FFFF.
 */
size_t ek_utf8_seq(const uint8_t *p, const uint8_t *end, uint32_t *cp);
/* "s" after a count other than 1, for messages: "%llu block%s" */
static inline const char *ek_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}
/* format time as "Mon Nov 30 08:21:44 2026" (UTC unless TZ says) */
const char *ek_fmt_time(int64_t t, char *buf, size_t len);
/* an inode time as stat prints it: "0x%08x -- DATE", with @extra (the
 * inode has the _extra field) "0x%08x:%08x -- DATE" (nsec << 2 | epoch) */
const char *ek_fmt_inode_time(const struct ek_time *t, bool extra, char *buf, size_t len);
/* ISO-8601 UTC "2026-11-30T08:21:44Z" */
const char *ek_fmt_iso(int64_t t, char *buf, size_t len);
/* @u as 8-4-4-4-12 lower-case hex into @buf (37 bytes or more) */
const char *ek_fmt_uuid(const uint8_t u[16], char *buf, size_t len);

/* ---- SVG and HTML markup (svg.c) ------------------------------------ */

/*
 * A streaming writer of SVG (or HTML) markup.  Every attribute value and
 * every piece of text goes through one escaper: &, <, >, " and ' become
 * entities, invalid UTF-8 and the characters XML 1.0 forbids (C0 controls
 * but tab, newline and return; U+FFFE, U+FFFF) become U+FFFD, so a name
 * from a hostile image can neither end an attribute nor open a tag.
 * Element names and attribute names come from the program, never from
 * data.  Elements nest up to EK_SVG_DEPTH deep; ek_svg_end() closes the
 * innermost.  In HTML mode an empty element is written <x></x> (HTML has
 * no self-closing tags) but for HTML's void elements (<meta/>: no end tag
 * allowed), in SVG mode <x/>: the page stays well-formed XML and HTML.
 */
#define EK_SVG_DEPTH 32
struct ek_svg {
	FILE *f;
	bool html;		/* <x></x>, not <x/>, for an empty element */
	bool open;		/* the innermost start tag still takes attributes */
	unsigned depth;
	const char *stack[EK_SVG_DEPTH];
	bool overflow;		/* nesting past EK_SVG_DEPTH (a program bug): dropped */
	unsigned lost;		/* elements dropped and not ended yet */
};
/* @f: where to write (the caller's).  @html: HTML rules for empty elements */
void ek_svg_init(struct ek_svg *s, FILE *f, bool html);
/* the XML declaration and <svg> root of @w x @h user units, with xmlns */
void ek_svg_doc_begin(struct ek_svg *s, double w, double h);
/* start element @name (a literal): attributes may follow until content */
void ek_svg_begin(struct ek_svg *s, const char *name);
/* attribute: printf-formatted, then escaped */
void ek_svg_attr(struct ek_svg *s, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ek_svg_attr_u64(struct ek_svg *s, const char *name, uint64_t v);
/* a number with at most 2 decimals, no exponent ("12.5") */
void ek_svg_attr_num(struct ek_svg *s, const char *name, double v);
/* an attribute from (ptr, len) bytes, e.g. a file name from the image */
void ek_svg_attr_bytes(struct ek_svg *s, const char *name, const void *v, size_t len);
/* text content: printf-formatted, then escaped */
void ek_svg_text(struct ek_svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ek_svg_text_bytes(struct ek_svg *s, const void *v, size_t len);
/* markup the program made itself (a nested document), written as is */
void ek_svg_raw(struct ek_svg *s, const char *markup, size_t len);
/* close the innermost element */
void ek_svg_end(struct ek_svg *s);
/* close every open element; 0, or -EIO when a write failed */
int ek_svg_finish(struct ek_svg *s);
/* shapes the pictures share: a <rect> left open (attributes or a <title>
 * may follow; ek_svg_end() closes it); a whole <text> of @str at (x, y),
 * @anchor its text-anchor or NULL; a legend entry: a 10 x 10 swatch of
 * @fill (outlined in @stroke, or not when NULL) and @label, at *@x, *@y,
 * on the next line (from @left, 16 units down) when it would pass @right,
 * *@x advanced past it */
void ek_svg_rect(struct ek_svg *s, double x, double y, double w, double h, const char *fill);
void ek_svg_label(struct ek_svg *s, double x, double y, const char *anchor, const char *str);
void ek_svg_swatch(struct ek_svg *s, double *x, double *y, double left, double right,
		   const char *fill, const char *stroke, const char *label);
/* one complete element: <name attrs...>text</name> with a <title> helper */
void ek_svg_title(struct ek_svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* write (ptr, len) escaped for text or an attribute value to @f */
void ek_xml_escape(FILE *f, const void *v, size_t len);

#endif /* EXTKIT_H */
