// SPDX-License-Identifier: MIT
/*
 * cmd_super.c - stats (superblock and groups, like dumpe2fs) and features.
 * JSON comes from the superblock field table; text follows dumpe2fs -h.
 */
#include <stdlib.h>
#include <string.h>
#include "debugfs.h"

static void fmt_uuid(const uint8_t *u, char *buf)
{
	static const uint8_t zero[16];

	if (!memcmp(u, zero, 16)) {
		strcpy(buf, "<none>");
		return;
	}
	ek_fmt_uuid(u, buf, 40);
}

static const char *hash_name(unsigned v)
{
	static const char *names[] = { "legacy", "half_md4", "tea", "legacy_unsigned",
				       "half_md4_unsigned", "tea_unsigned", "siphash" };

	return v < sizeof(names) / sizeof(names[0]) ? names[v] : "unknown";
}

static const char *os_name(unsigned v)
{
	static const char *names[] = { "Linux", "Hurd", "Masix", "FreeBSD", "Lites" };

	return v < 5 ? names[v] : "(unknown os)";
}

/* features in e2fsprogs order: compat, incompat, ro_compat, each by bit */
static void features_text(struct ek_out *o, const struct ek_super *sb)
{
	uint32_t words[3] = { sb->compat, sb->incompat, sb->ro_compat };
	static const char tchar[3] = { 'C', 'I', 'R' };
	const char *sep = "";

	for (int t = 0; t < 3; t++)
		for (int b = 0; b < 32; b++) {
			const char *n;

			if (!(words[t] & (1u << b)))
				continue;
			n = ek_feature_name(t, 1u << b);
			if (n)
				ek_out_text(o, "%s%s", sep, n);
			else
				ek_out_text(o, "%sFEATURE_%c%d", sep, tchar[t], b);
			sep = " ";
		}
	if (!*sep)
		ek_out_text(o, "(none)");
	ek_out_text(o, "\n");
}

static void features_json(struct ek_out *o, const char *key, const struct ek_super *sb)
{
	uint32_t words[3] = { sb->compat, sb->incompat, sb->ro_compat };
	static const char tchar[3] = { 'C', 'I', 'R' };

	ek_out_arr_begin(o, key);
	for (int t = 0; t < 3; t++)
		for (int b = 0; b < 32; b++) {
			const char *n;
			char unk[16];

			if (!(words[t] & (1u << b)))
				continue;
			n = ek_feature_name(t, 1u << b);
			if (!n) {
				snprintf(unk, sizeof(unk), "FEATURE_%c%d", tchar[t], b);
				n = unk;
			}
			ek_out_str(o, NULL, n);
		}
	ek_out_arr_end(o);
}

int do_features(struct dbg *d, int argc, char **argv)
{
	(void)argc, (void)argv;
	ek_out_text(d->out, "Filesystem features: ");
	features_text(d->out, &d->fs->sb);
	ek_out_obj_begin(d->out, NULL);
	features_json(d->out, "features", &d->fs->sb);
	ek_out_obj_end(d->out);
	return 0;
}

static void super_json(struct ek_out *o, const struct ek_fs *fs)
{
	size_t n;
	const struct ek_field *f = ek_super_fields(&n);
	const uint8_t *raw = (const uint8_t *)fs->raw_sb;
	char buf[64];

	ek_out_obj_begin(o, "superblock");
	for (size_t i = 0; i < n; i++) {
		switch (f[i].type) {
		case EK_F_UUID:
			fmt_uuid(raw + f[i].offset, buf);
			ek_out_str(o, f[i].name, buf);
			break;
		case EK_F_STRING: {
			size_t len = strnlen((const char *)raw + f[i].offset, f[i].size);

			ek_out_name(o, f[i].name, (const char *)raw + f[i].offset, len);
			break;
		}
		case EK_F_BYTES:
			ek_out_hex(o, f[i].name, raw + f[i].offset, f[i].size);
			break;
		case EK_F_FEATURES:
		default:
			if (f[i].count > 1) {
				ek_out_arr_begin(o, f[i].name);
				for (unsigned k = 0; k < f[i].count; k++)
					ek_out_u64(o, NULL, ek_field_get(raw, &f[i], k));
				ek_out_arr_end(o);
			} else {
				ek_out_u64(o, f[i].name, ek_field_get(raw, &f[i], 0));
			}
		}
	}
	features_json(o, "features", &fs->sb);
	ek_out_str(o, "hash_algorithm", hash_name(fs->sb.def_hash_version));
	ek_out_obj_end(o);
}

static void line_time(struct ek_out *o, const char *label, int64_t t)
{
	char buf[64];

	ek_out_text(o, "%-26s%s\n", label, t ? ek_fmt_time(t, buf, sizeof(buf)) : "n/a");
}

static void super_text(struct ek_out *o, const struct ek_fs *fs)
{
	const struct ext4_super_block *r = fs->raw_sb;
	const struct ek_super *sb = &fs->sb;
	char buf[64];
	size_t len;

	len = strnlen(r->s_volume_name, sizeof(r->s_volume_name));
	ek_out_text(o, "%-26s%.*s\n", "Filesystem volume name:", len ? (int)len : 6,
		    len ? r->s_volume_name : "<none>");
	len = strnlen(r->s_last_mounted, sizeof(r->s_last_mounted));
	ek_out_text(o, "%-26s%.*s\n", "Last mounted on:", len ? (int)len : 15,
		    len ? r->s_last_mounted : "<not available>");
	fmt_uuid(sb->uuid, buf);
	ek_out_text(o, "%-26s%s\n", "Filesystem UUID:", buf);
	ek_out_text(o, "%-26s0x%04X\n", "Filesystem magic number:", sb->magic);
	ek_out_text(o, "%-26s%u (%s)\n", "Filesystem revision #:", sb->rev_level,
		    sb->rev_level ? "dynamic" : "original");
	ek_out_text(o, "%-26s", "Filesystem features:");
	features_text(o, sb);
	ek_out_text(o, "%-26s%s%s%s\n", "Filesystem flags:",
		    sb->flags & EXT2_FLAGS_SIGNED_HASH ? "signed_directory_hash " : "",
		    sb->flags & EXT2_FLAGS_UNSIGNED_HASH ? "unsigned_directory_hash " : "",
		    sb->flags & EXT2_FLAGS_TEST_FILESYS ? "test_filesystem " : "");
	ek_out_text(o, "%-26s%s%s%s\n", "Filesystem state:",
		    sb->state & EXT4_VALID_FS ? "clean" : "not clean",
		    sb->state & EXT4_ERROR_FS ? " with errors" : "",
		    sb->state & EXT4_ORPHAN_FS ? " (orphans being recovered)" : "");
	switch (le16_to_cpu(r->s_errors)) {
	case 1: ek_out_text(o, "%-26s%s\n", "Errors behavior:", "Continue"); break;
	case 2: ek_out_text(o, "%-26s%s\n", "Errors behavior:", "Remount read-only"); break;
	case 3: ek_out_text(o, "%-26s%s\n", "Errors behavior:", "Panic"); break;
	default: ek_out_text(o, "%-26s%s\n", "Errors behavior:", "Unknown (continue)");
	}
	ek_out_text(o, "%-26s%s\n", "Filesystem OS type:", os_name(le32_to_cpu(r->s_creator_os)));
	ek_out_text(o, "%-26s%u\n", "Inode count:", sb->inodes_count);
	ek_out_text(o, "%-26s%llu\n", "Block count:", (unsigned long long)sb->blocks_count);
	ek_out_text(o, "%-26s%llu\n", "Reserved block count:", (unsigned long long)sb->r_blocks_count);
	if (le32_to_cpu(r->s_overhead_clusters))
		ek_out_text(o, "%-26s%u\n", "Overhead clusters:", le32_to_cpu(r->s_overhead_clusters));
	ek_out_text(o, "%-26s%llu\n", "Free blocks:", (unsigned long long)sb->free_blocks_count);
	ek_out_text(o, "%-26s%u\n", "Free inodes:", sb->free_inodes_count);
	ek_out_text(o, "%-26s%u\n", "First block:", sb->first_data_block);
	ek_out_text(o, "%-26s%u\n", "Block size:", fs->blksz);
	if (ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_BIGALLOC))
		ek_out_text(o, "%-26s%u\n", "Cluster size:", fs->blksz << fs->cluster_bits);
	else
		ek_out_text(o, "%-26s%u\n", "Fragment size:", fs->blksz);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT))
		ek_out_text(o, "%-26s%u\n", "Group descriptor size:", fs->desc_size);
	if (sb->reserved_gdt_blocks)
		ek_out_text(o, "%-26s%u\n", "Reserved GDT blocks:", sb->reserved_gdt_blocks);
	ek_out_text(o, "%-26s%u\n", "Blocks per group:", sb->blocks_per_group);
	if (ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_BIGALLOC))
		ek_out_text(o, "%-26s%u\n", "Clusters per group:", sb->clusters_per_group);
	else
		ek_out_text(o, "%-26s%u\n", "Fragments per group:", sb->clusters_per_group);
	ek_out_text(o, "%-26s%u\n", "Inodes per group:", sb->inodes_per_group);
	ek_out_text(o, "%-26s%u\n", "Inode blocks per group:", fs->itable_blocks);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FLEX_BG))
		ek_out_text(o, "%-26s%u\n", "Flex block group size:", 1u << sb->log_groups_per_flex);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG))
		ek_out_text(o, "%-26s%u\n", "First meta block group:", sb->first_meta_bg);
	line_time(o, "Filesystem created:", sb->mkfs_time);
	line_time(o, "Last mount time:", sb->mtime);
	line_time(o, "Last write time:", sb->wtime);
	ek_out_text(o, "%-26s%u\n", "Mount count:", le16_to_cpu(r->s_mnt_count));
	ek_out_text(o, "%-26s%d\n", "Maximum mount count:", (int16_t)le16_to_cpu(r->s_max_mnt_count));
	line_time(o, "Last checked:", sb->lastcheck);
	ek_out_text(o, "%-26s%u\n", "Check interval:", le32_to_cpu(r->s_checkinterval));
	if (le64_to_cpu(r->s_kbytes_written))
		ek_out_text(o, "%-26s%llu kB\n", "Lifetime writes:",
			    (unsigned long long)le64_to_cpu(r->s_kbytes_written));
	ek_out_text(o, "%-26s%u\n", "Reserved blocks uid:", le16_to_cpu(r->s_def_resuid));
	ek_out_text(o, "%-26s%u\n", "Reserved blocks gid:", le16_to_cpu(r->s_def_resgid));
	if (sb->rev_level) {
		ek_out_text(o, "%-26s%u\n", "First inode:", sb->first_ino);
		ek_out_text(o, "%-26s%u\n", "Inode size:", sb->inode_size);
		if (sb->min_extra_isize)
			ek_out_text(o, "%-26s%u\n", "Required extra isize:", sb->min_extra_isize);
		if (sb->want_extra_isize)
			ek_out_text(o, "%-26s%u\n", "Desired extra isize:", sb->want_extra_isize);
	}
	if (sb->journal_inum)
		ek_out_text(o, "%-26s%u\n", "Journal inode:", sb->journal_inum);
	fmt_uuid(r->s_journal_uuid, buf);
	if (strcmp(buf, "<none>"))
		ek_out_text(o, "%-26s%s\n", "Journal UUID:", buf);
	if (le32_to_cpu(r->s_journal_dev))
		ek_out_text(o, "%-26s0x%04x\n", "Journal device:", le32_to_cpu(r->s_journal_dev));
	if (sb->last_orphan)
		ek_out_text(o, "%-26s%u\n", "First orphan inode:", sb->last_orphan);
	if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX) || sb->def_hash_version)
		ek_out_text(o, "%-26s%s\n", "Default directory hash:", hash_name(sb->def_hash_version));
	fmt_uuid((const uint8_t *)r->s_hash_seed, buf);
	if (strcmp(buf, "<none>"))
		ek_out_text(o, "%-26s%s\n", "Directory Hash Seed:", buf);
	if (fs->has_csum) {
		ek_out_text(o, "%-26s%s\n", "Checksum type:",
			    r->s_checksum_type == EXT4_CRC32C_CHKSUM ? "crc32c" : "unknown");
		ek_out_text(o, "%-26s0x%08x\n", "Checksum:", sb->checksum);
	}
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		ek_out_text(o, "%-26s0x%08x\n", "Checksum seed:", sb->checksum_seed);
	if (sb->orphan_file_inum)
		ek_out_text(o, "%-26s%u\n", "Orphan file inode:", sb->orphan_file_inum);
}

static void group_flags_text(struct ek_out *o, const struct ek_fs *fs, const struct ek_group *g)
{
	const char *sep = "";

	ek_out_text(o, "           [");
	if (g->flags & EXT4_BG_INODE_UNINIT) {
		ek_out_text(o, "%sInode not init", sep);
		sep = ", ";
	}
	if (g->flags & EXT4_BG_BLOCK_UNINIT) {
		ek_out_text(o, "%sBlock not init", sep);
		sep = ", ";
	}
	if (fs->has_csum || fs->has_gdt_csum)
		ek_out_text(o, "%sChecksum 0x%04x%s", sep, g->checksum, g->csum_bad ? " (bad)" : "");
	ek_out_text(o, "]\n");
}

void dbg_journal_super(struct ek_out *o, const struct ek_journal *j, const char *device)
{
	const struct ek_jsb *s = &j->sb;
	uint64_t kb;
	const char *sep = "";

	ek_out_text(o, "%-26s", "Journal features:");
	for (int t = 0; t < 3; t++) {
		uint32_t w = t == 0 ? s->compat : t == 1 ? s->incompat : s->ro_compat;

		for (int b = 0; b < 32; b++) {
			char unk[16];

			if (!(w & (1u << b)))
				continue;
			ek_out_text(o, "%s%s", sep, ek_jsb_feature_name(t, b, unk, sizeof(unk)));
			sep = " ";
		}
	}
	ek_out_text(o, "%s\n", *sep ? "" : "(none)");
	kb = (uint64_t)s->maxlen * s->blocksize / 1024;
	if (kb < 8192)
		ek_out_text(o, "%-26s%lluk\n", "Total journal size:", (unsigned long long)kb);
	else
		ek_out_text(o, "%-26s%lluM\n", "Total journal size:", (unsigned long long)(kb >> 10));
	ek_out_text(o, "%-26s%u\n", "Total journal blocks:", s->maxlen);
	ek_out_text(o, "%-26s%u\n", "Max transaction length:",
		    s->max_transaction ? s->max_transaction : s->last);
	ek_out_text(o, "%-26s%u\n", "Fast commit length:", s->num_fc_blks);
	if (s->first != 1)
		ek_out_text(o, "%-26s%u\n", "Journal first block:", s->first);
	ek_out_text(o, "%-26s0x%08x\n", "Journal sequence:", s->sequence);
	ek_out_text(o, "%-26s%u\n", "Journal start:", s->start);
	if (s->errno_)
		ek_out_text(o, "%-26s%d\n", "Journal errno:", s->errno_);
	if (s->version == 2 && s->nr_users != 1) {
		/* a shared (external) journal lists its filesystems; capped at 48 */
		const uint8_t *users = j->raw_sb + offsetof(journal_superblock_t, s_users);
		uint32_t n = s->nr_users < JBD2_USERS_MAX ? s->nr_users : JBD2_USERS_MAX;
		char uuid[40];

		ek_out_text(o, "%-26s%u\n", "Journal number of users:", s->nr_users);
		for (uint32_t i = 0; i < n; i++) {
			fmt_uuid(users + 16 * i, uuid);
			ek_out_text(o, "%-26s%s\n", i ? "" : "Journal users:", uuid);
		}
	}
	if (s->compat & JBD2_FEATURE_COMPAT_CHECKSUM)
		ek_out_text(o, "%-26s%s\n", "Journal checksum type:", "crc32");
	if (s->incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		ek_out_text(o, "%-26s%s\n", "Journal checksum type:", "crc32c");
		ek_out_text(o, "%-26s0x%08x\n", "Journal checksum:", s->checksum);
	}
	ek_journal_emit(o, j, device);
}

/* the internal journal's superblock lines, as dumpe2fs -h prints them */
static void journal_info(struct dbg *d)
{
	struct ek_journal *j;
	int err;

	if (!ek_has_compat(d->fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) || !d->fs->sb.journal_inum)
		return;
	err = ek_journal_open(d->fs, d->fs->flags & EK_OPEN_IGNORE_CSUM, &j);
	if (err == -EK_BADCRC) {
		/* inspection shows a journal superblock with a bad checksum */
		dbg_warn(d, "stats: warning: %s", ek_error_msg(err));
		err = ek_journal_open(d->fs, EK_OPEN_IGNORE_CSUM, &j);
	}
	dbg_flush_warnings(d);
	if (err) {
		dbg_warn(d, "stats: warning: %s", ek_error_msg(err));
		return;
	}
	ek_out_obj_begin(d->out, "journal");
	dbg_journal_super(d->out, j, NULL);
	ek_out_obj_end(d->out);
	ek_journal_close(j);
}

int do_stats(struct dbg *d, int argc, char **argv)
{
	struct ek_fs *fs = d->fs;
	bool header_only = false;
	uint32_t dirs = 0;
	int c;

	while ((c = getopt(argc, argv, "h")) != -1) {
		if (c != 'h')
			return dbg_usage("stats");
		header_only = true;
	}
	if (optind != argc)
		return dbg_usage("stats");

	ek_out_obj_begin(d->out, NULL);
	super_text(d->out, fs);
	super_json(d->out, fs);
	journal_info(d);
	if (header_only) {
		ek_out_obj_end(d->out);
		return 0;
	}
	for (uint32_t g = 0; g < fs->group_count; g++)
		dirs += fs->groups[g].used_dirs;
	ek_out_text(d->out, "%-26s%u\n", "Directories:", dirs);
	ek_out_u64(d->out, "directories", dirs);
	ek_out_arr_begin(d->out, "groups");
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];

		ek_out_text(d->out, " Group %2u: block bitmap at %llu, inode bitmap at %llu, inode table at %llu\n",
			    g, (unsigned long long)grp->block_bitmap,
			    (unsigned long long)grp->inode_bitmap, (unsigned long long)grp->inode_table);
		ek_out_text(d->out, "           %u free %s, %u free inodes, %u used director%s",
			    grp->free_blocks,
			    ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_BIGALLOC) ? "clusters" : "blocks",
			    grp->free_inodes, grp->used_dirs, grp->used_dirs == 1 ? "y" : "ies");
		if (fs->has_csum || fs->has_gdt_csum)
			ek_out_text(d->out, ", %u unused inodes", grp->itable_unused);
		ek_out_text(d->out, "\n");
		if (fs->has_csum || fs->has_gdt_csum)
			group_flags_text(d->out, fs, grp);

		ek_out_obj_begin(d->out, NULL);
		ek_out_u64(d->out, "group", g);
		ek_out_u64(d->out, "first_block", ek_group_first_block(fs, g));
		ek_out_u64(d->out, "last_block", ek_group_last_block(fs, g));
		ek_out_bool(d->out, "has_superblock", ek_group_has_super(fs, g));
		ek_out_u64(d->out, "block_bitmap", grp->block_bitmap);
		ek_out_u64(d->out, "inode_bitmap", grp->inode_bitmap);
		ek_out_u64(d->out, "inode_table", grp->inode_table);
		ek_out_u64(d->out, "free_blocks", grp->free_blocks);
		ek_out_u64(d->out, "free_inodes", grp->free_inodes);
		ek_out_u64(d->out, "used_dirs", grp->used_dirs);
		ek_out_u64(d->out, "itable_unused", grp->itable_unused);
		ek_out_u64(d->out, "flags", grp->flags);
		ek_out_bool(d->out, "inode_uninit", grp->flags & EXT4_BG_INODE_UNINIT);
		ek_out_bool(d->out, "block_uninit", grp->flags & EXT4_BG_BLOCK_UNINIT);
		ek_out_bool(d->out, "itable_zeroed", grp->flags & EXT4_BG_INODE_ZEROED);
		ek_out_u64(d->out, "checksum", grp->checksum);
		ek_out_bool(d->out, "checksum_ok", !grp->csum_bad);
		ek_out_obj_end(d->out);
	}
	ek_out_arr_end(d->out);
	ek_out_obj_end(d->out);
	return 0;
}
