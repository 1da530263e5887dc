/* SPDX-License-Identifier: MIT */
/* mkfs.h - what extkit-mkfs's files share: the run's state, the option helpers */
#ifndef EK_MKFS_H
#define EK_MKFS_H

#include <stdbool.h>
#include <stdint.h>
#include "extkit.h"

struct mk {
	const char *prog;
	const char *argv0;		/* mkfs.ext4 and friends name the type */
	const char *target;
	const char *size_arg;
	const char *src_dir;
	const char *uuid_arg;
	const char *hash_seed_arg;
	char hash_seed_buf[64];		/* -E hash_seed=: outlives the option string */
	bool encoding_given;		/* -E encoding= (turns casefold on) */
	uint16_t encoding;
	char encoding_flags_buf[64];	/* -E encoding_flags=, "" if not given */
	uint8_t quota_types;		/* -E quotatype=: 1 << EK_QUOTA_*, 0 if not given */
	uint64_t offset;
	bool force, quiet, dry_run, json, discard, skip_unreadable, verbose;
	bool have_sde;
	int64_t sde;
	struct ek_newfs_opts o;
	bool created;			/* we made the file: remove it on failure */
	bool missing;			/* the target does not exist yet */
	bool is_file;			/* a regular file (else a block device) */
	uint64_t file_size;
	bool lazy_given;
	uint32_t cli_blocksize;		/* -b: mke2fs sizes the device in these units */
	/* the command line, applied over mke2fs.conf by mk_conf_resolve() */
	const char *type_arg;		/* -t */
	bool os_given;			/* -o (else mke2fs.conf's [defaults] creator_os) */
	const char *usage_arg;		/* -T */
	char *features_arg;		/* every -O, joined with commas */
	char *extended_arg;		/* the last -E (or -R): mke2fs reads only that one */
	int sparse_arg;			/* -s: 1 sparse_super on, 0 off, -1 not given */
	char *journal_dev_arg;		/* -J device=PATH|UUID=|LABEL= */
	char *journal_location_arg;	/* -J location= (blocks once the block size is known) */
	char *journal_dev_path;		/* what it names (libblkid) */
	bool journal_flag;		/* -j or -J */
	uint64_t journal_bytes;		/* -J size= */
	/* what mk_conf_resolve() decided */
	char *type_name;		/* ext2, ext3, ext4 or another [fs_types] name */
	char *conf_path;		/* the mke2fs.conf read, or "built-in defaults" */
	/* the device (check_target): sector sizes and libblkid's I/O topology */
	uint32_t lsector, psector;	/* logical, physical; 0: unknown (a file) */
	bool have_topology;		/* a block device libblkid gave a topology for */
	uint64_t min_io, opt_io, align_offset;
	bool prezeroed;			/* -E assume_storage_prezeroed */
	bool no_copy_xattrs;		/* -E no_copy_xattrs */
	bool nanoseconds;		/* -E nanoseconds (whole_seconds: off, the default) */
	bool htree_dirs;		/* -E htree_dirs */
	const char *undo_path;		/* -z: save what is overwritten, for e2undo */
	char *auto_undo_path;		/* mke2fs's own undo file (undo_dir), or NULL */
	bool force_undo;		/* mke2fs.conf force_undo */
	char *undo_dir;			/* mke2fs.conf [defaults] undo_dir, or NULL */
	uint64_t tree_inodes;		/* -d: inodes the tree needs (the progress bar's total) */
	unsigned bar_last;		/* ek_out_bar()'s state */
	const char *badblocks_file;	/* -l */
	int check_blocks;		/* -c: 1 read test, 2 (-cc) read-write test */
	bool target_ready;		/* ready_target() done already (-c) */
	/* mke2fs.conf make_hugefiles: the relations as read (sizes need the block size) */
	bool hugefiles;
	char *hf_dir, *hf_name, *hf_slack, *hf_size, *hf_align;
	int hf_digits, hf_num, hf_uid, hf_gid, hf_umask;
	bool hf_zero, hf_align_disk;
};

int mk_fail(struct mk *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_warn(struct mk *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * a block count as mke2fs reads one (parse_num_blocks2): bare, blocks of
 * @bs; with k, M, G, T, bytes; with s, 512-byte sectors.  0, or -1 when
 * @s is not one
 */
int mk_parse_blocks(const char *s, uint32_t bs, uint64_t *out);
/* -o and mke2fs.conf's creator_os: s_creator_os by name (as e2fsprogs names them) or number */
int mk_parse_os(const char *arg, uint32_t *os);
/* one -E list (mke2fs.conf "options" too): 0, or 1 after a message */
int mk_parse_extended(struct mk *m, const char *list);

/*
 * conf.c: read mke2fs.conf (MKE2FS_CONFIG, /etc/mke2fs.conf, or the
 * defaults built in) and settle every choice mke2fs takes from it for a
 * filesystem of @size bytes, the command line winning: m->o is then ready
 * for ek_newfs_create().  0, or 1 after a message.
 */
int mk_conf_resolve(struct mk *m, uint64_t size);
void mk_conf_release(struct mk *m);

#endif
