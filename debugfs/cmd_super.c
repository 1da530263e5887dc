// SPDX-License-Identifier: MIT
/*
 * cmd_super.c - stats (superblock and groups, like dumpe2fs) and features.
 * JSON comes from the superblock field table; text follows dumpe2fs -h.
 */
#include <grp.h>
#include <pwd.h>
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

/* feature names of the words @first..@last (0 compat, 1 incompat, 2 ro_compat) */
static void features_json_words(struct ek_out *o, const char *key, const struct ek_super *sb,
				int first, int last)
{
	uint32_t words[3] = { sb->compat, sb->incompat, sb->ro_compat };
	static const char tchar[3] = { 'C', 'I', 'R' };

	ek_out_arr_begin(o, key);
	for (int t = first; t <= last; t++)
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

static void features_json(struct ek_out *o, const char *key, const struct ek_super *sb)
{
	features_json_words(o, key, sb, 0, 2);
}

int do_features(struct dbg *d, int argc, char **argv)
{
	(void)argc, (void)argv;
	ek_out_text(d->out, "Filesystem features: ");
	features_text(d->out, &d->fs->sb);
	ek_out_obj_begin(d->out, NULL);
	features_json(d->out, "features", &d->fs->sb);
	/* each word's raw mask beside its names, as stats has them */
	ek_out_u64(d->out, "feature_compat", d->fs->sb.compat);
	features_json_words(d->out, "feature_compat_names", &d->fs->sb, 0, 0);
	ek_out_u64(d->out, "feature_incompat", d->fs->sb.incompat);
	features_json_words(d->out, "feature_incompat_names", &d->fs->sb, 1, 1);
	ek_out_u64(d->out, "feature_ro_compat", d->fs->sb.ro_compat);
	features_json_words(d->out, "feature_ro_compat_names", &d->fs->sb, 2, 2);
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
			if (strcmp(buf, "<none>"))
				ek_out_str(o, f[i].name, buf);
			else
				ek_out_null(o, f[i].name);	/* all zero: none */
			break;
		case EK_F_STRING: {
			size_t len = strnlen((const char *)raw + f[i].offset, f[i].size);

			if (len)
				ek_out_name(o, f[i].name, (const char *)raw + f[i].offset, len);
			else
				ek_out_null(o, f[i].name);
			break;
		}
		case EK_F_TIME: {
			int64_t t = (int64_t)ek_field_get(raw, &f[i], 0);

			/* 0: never (not mounted, no error recorded...) */
			if (t)
				ek_out_time(o, f[i].name, t, 0);
			else
				ek_out_null(o, f[i].name);
			break;
		}
		case EK_F_FEATURES: {
			char k[64];
			int w = f[i].offset == offsetof(struct ext4_super_block, s_feature_compat) ? 0 :
				f[i].offset == offsetof(struct ext4_super_block, s_feature_incompat) ? 1 : 2;

			/* the raw mask, and its names beside it */
			ek_out_u64(o, f[i].name, ek_field_get(raw, &f[i], 0));
			snprintf(k, sizeof(k), "%s_names", f[i].name);
			features_json_words(o, k, &fs->sb, w, w);
			break;
		}
		case EK_F_BYTES:
			ek_out_hex(o, f[i].name, raw + f[i].offset, f[i].size);
			break;
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

	ek_out_text(o, "%-26s%s\n", label, ek_fmt_time(t, buf, sizeof(buf)));
}

/* an interval in seconds as dumpe2fs words it: "1 month, 2 days, 3:04:05" */
static const char *interval_text(uint32_t secs, char *buf, size_t len)
{
	static const struct { uint32_t secs; const char *unit; } units[] = {
		{ 86400 * 30, "month" }, { 86400 * 7, "week" }, { 86400, "day" },
	};
	size_t n = 0;

	if (!secs)
		return snprintf(buf, len, "<none>"), buf;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint32_t k = secs / units[i].secs;

		if (!k)
			continue;
		secs -= k * units[i].secs;
		n += snprintf(buf + n, len - n, "%s%u %s%s", n ? ", " : "", k, units[i].unit,
			      k > 1 ? "s" : "");
	}
	if (secs && n < len)
		snprintf(buf + n, len - n, "%s%u:%02u:%02u", n ? ", " : "", secs / 3600,
			 secs / 60 % 60, secs % 60);
	return buf;
}

/* default mount options (s_default_mount_opts), journal mode first; names from lib */
static void mntopts_text(struct ek_out *o, uint32_t m)
{
	const char *sep = "";

	ek_out_text(o, "%-26s", "Default mount options:");
	if (m & EK_DEFM_JMODE) {
		ek_out_text(o, "%s", ek_mntopt_name(m & EK_DEFM_JMODE));
		sep = " ";
	}
	for (int b = 0; b < 32; b++) {
		const char *name = ek_mntopt_name(1u << b);

		if (!(m & (1u << b)) || ((1u << b) & EK_DEFM_JMODE))
			continue;
		if (name)
			ek_out_text(o, "%s%s", sep, name);
		else
			ek_out_text(o, "%sMNTOPT_%d", sep, b);
		sep = " ";
	}
	ek_out_text(o, "%s\n", *sep ? "" : "(none)");
}

/* a uid or gid with its name on this host, as dumpe2fs shows it */
static void owner_line(struct ek_out *o, const char *label, unsigned id, bool group)
{
	const char *name = NULL;

	if (group) {
		struct group *gr = getgrgid(id);

		name = gr ? gr->gr_name : NULL;
	} else {
		struct passwd *pw = getpwuid(id);

		name = pw ? pw->pw_name : NULL;
	}
	ek_out_text(o, "%-26s%u (%s %s)\n", label, id, group ? "group" : "user",
		    name ? name : "unknown");
}

static const char *errcode_name(unsigned e, char *buf, size_t len)
{
	static const char *names[] = {
		"", "UNKNOWN", "EIO", "ENOMEM", "EFSBADCRC", "EFSCORRUPTED", "ENOSPC", "ENOKEY",
		"EROFS", "EFBIG", "EEXIST", "ERANGE", "EOVERFLOW", "EBUSY", "ENOTDIR",
		"ENOTEMPTY", "ESHUTDOWN", "EFAULT",
	};

	if (e < sizeof(names) / sizeof(names[0]))
		return names[e];
	snprintf(buf, len, "UNKNOWN_ERRCODE_%u", e);
	return buf;
}

/* the first or last error the kernel recorded (s_first_error_* / s_last_error_*) */
static void error_lines(struct ek_out *o, const char *which, int64_t t, const uint8_t *func,
			uint32_t line, uint32_t ino, uint64_t blk, unsigned code)
{
	char label[32], buf[64];

	snprintf(label, sizeof(label), "%s error time:", which);
	line_time(o, label, t);
	snprintf(label, sizeof(label), "%s error function:", which);
	ek_out_text(o, "%-26s%.*s\n", label, (int)strnlen((const char *)func, 32),
		    (const char *)func);
	snprintf(label, sizeof(label), "%s error line #:", which);
	ek_out_text(o, "%-26s%u\n", label, line);
	if (ino) {
		snprintf(label, sizeof(label), "%s error inode #:", which);
		ek_out_text(o, "%-26s%u\n", label, ino);
	}
	if (blk) {
		snprintf(label, sizeof(label), "%s error block #:", which);
		ek_out_text(o, "%-26s%llu\n", label, (unsigned long long)blk);
	}
	if (code) {
		snprintf(label, sizeof(label), "%s error err:", which);
		ek_out_text(o, "%-26s%s\n", label, errcode_name(code, buf, sizeof(buf)));
	}
}

/* every line dumpe2fs -h prints for the superblock, in its order */
static void super_text(struct ek_out *o, const struct ek_fs *fs)
{
	const struct ext4_super_block *r = fs->raw_sb;
	const struct ek_super *sb = &fs->sb;
	uint64_t kbw = le64_to_cpu(r->s_kbytes_written);
	uint32_t interval = le32_to_cpu(r->s_checkinterval);
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
		    sb->rev_level == 0 ? "original" : sb->rev_level == 1 ? "dynamic" : "unknown");
	ek_out_text(o, "%-26s", "Filesystem features:");
	features_text(o, sb);
	if (sb->flags)
		ek_out_text(o, "%-26s%s%s%s%s\n", "Filesystem flags:",
			    sb->flags & EXT2_FLAGS_SIGNED_HASH ? "signed_directory_hash " : "",
			    sb->flags & EXT2_FLAGS_UNSIGNED_HASH ? "unsigned_directory_hash " : "",
			    sb->flags & EXT2_FLAGS_TEST_FILESYS ? "test_filesystem " : "",
			    sb->flags & (EXT2_FLAGS_SIGNED_HASH | EXT2_FLAGS_UNSIGNED_HASH |
					 EXT2_FLAGS_TEST_FILESYS) ? "" : "(none)");
	mntopts_text(o, le32_to_cpu(r->s_default_mount_opts));
	len = strnlen((const char *)r->s_mount_opts, sizeof(r->s_mount_opts));
	if (len)
		ek_out_text(o, "%-26s%.*s\n", "Mount options:", (int)len,
			    (const char *)r->s_mount_opts);
	ek_out_text(o, "%-26s%s%s\n", "Filesystem state:",
		    sb->state & EXT4_VALID_FS ? "clean" : "not clean",
		    sb->state & EXT4_ERROR_FS ? " with errors" : "");
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
		ek_out_text(o, "%-26s%u\n", "Fragment size:", fs->blksz << fs->cluster_bits);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT))
		ek_out_text(o, "%-26s%u\n", "Group descriptor size:", le16_to_cpu(r->s_desc_size));
	if (sb->reserved_gdt_blocks)
		ek_out_text(o, "%-26s%u\n", "Reserved GDT blocks:", sb->reserved_gdt_blocks);
	ek_out_text(o, "%-26s%u\n", "Blocks per group:", sb->blocks_per_group);
	if (ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_BIGALLOC))
		ek_out_text(o, "%-26s%u\n", "Clusters per group:", sb->clusters_per_group);
	else
		ek_out_text(o, "%-26s%u\n", "Fragments per group:", sb->clusters_per_group);
	ek_out_text(o, "%-26s%u\n", "Inodes per group:", sb->inodes_per_group);
	ek_out_text(o, "%-26s%u\n", "Inode blocks per group:", fs->itable_blocks);
	if (le16_to_cpu(r->s_raid_stride))
		ek_out_text(o, "%-26s%u\n", "RAID stride:", le16_to_cpu(r->s_raid_stride));
	if (le32_to_cpu(r->s_raid_stripe_width))
		ek_out_text(o, "%-26s%u\n", "RAID stripe width:", le32_to_cpu(r->s_raid_stripe_width));
	if (sb->first_meta_bg)
		ek_out_text(o, "%-26s%u\n", "First meta block group:", sb->first_meta_bg);
	if (sb->log_groups_per_flex && sb->log_groups_per_flex < 32)
		ek_out_text(o, "%-26s%u\n", "Flex block group size:", 1u << sb->log_groups_per_flex);
	if (sb->mkfs_time)
		line_time(o, "Filesystem created:", sb->mkfs_time);
	if (sb->mtime)
		line_time(o, "Last mount time:", sb->mtime);
	else
		ek_out_text(o, "%-26s%s\n", "Last mount time:", "n/a");
	line_time(o, "Last write time:", sb->wtime);
	ek_out_text(o, "%-26s%u\n", "Mount count:", le16_to_cpu(r->s_mnt_count));
	ek_out_text(o, "%-26s%d\n", "Maximum mount count:", (int16_t)le16_to_cpu(r->s_max_mnt_count));
	line_time(o, "Last checked:", sb->lastcheck);
	ek_out_text(o, "%-26s%u (%s)\n", "Check interval:", interval,
		    interval_text(interval, buf, sizeof(buf)));
	if (interval)
		line_time(o, "Next check after:", sb->lastcheck + interval);
	if (kbw) {
		static const char *units[] = { "kB", "MB", "GB", "TB", "PB" };
		int u = 0;

		/* rounded to the nearest unit once past 8 of the one below */
		while (u < 4 && kbw >= 1ull << (13 + 10 * u))
			u++;
		ek_out_text(o, "%-26s%llu %s\n", "Lifetime writes:",
			    (unsigned long long)(u ? (kbw + (1ull << (10 * u - 1))) >> (10 * u) : kbw),
			    units[u]);
	}
	owner_line(o, "Reserved blocks uid:", le16_to_cpu(r->s_def_resuid), false);
	owner_line(o, "Reserved blocks gid:", le16_to_cpu(r->s_def_resgid), true);
	if (sb->rev_level) {
		ek_out_text(o, "%-26s%u\n", "First inode:", sb->first_ino);
		ek_out_text(o, "%-26s%u\n", "Inode size:", sb->inode_size);
		if (sb->min_extra_isize)
			ek_out_text(o, "%-26s%u\n", "Required extra isize:", sb->min_extra_isize);
		if (sb->want_extra_isize)
			ek_out_text(o, "%-26s%u\n", "Desired extra isize:", sb->want_extra_isize);
	}
	fmt_uuid(r->s_journal_uuid, buf);
	if (strcmp(buf, "<none>"))
		ek_out_text(o, "%-26s%s\n", "Journal UUID:", buf);
	if (sb->journal_inum)
		ek_out_text(o, "%-26s%u\n", "Journal inode:", sb->journal_inum);
	if (le32_to_cpu(r->s_journal_dev))
		ek_out_text(o, "%-26s0x%04x\n", "Journal device:", le32_to_cpu(r->s_journal_dev));
	if (sb->last_orphan)
		ek_out_text(o, "%-26s%u\n", "First orphan inode:", sb->last_orphan);
	if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX) || sb->def_hash_version)
		ek_out_text(o, "%-26s%s\n", "Default directory hash:", hash_name(sb->def_hash_version));
	fmt_uuid((const uint8_t *)r->s_hash_seed, buf);
	if (strcmp(buf, "<none>"))
		ek_out_text(o, "%-26s%s\n", "Directory Hash Seed:", buf);
	if (r->s_jnl_backup_type == 1)
		ek_out_text(o, "%-26s%s\n", "Journal backup:", "inode blocks");
	else if (r->s_jnl_backup_type)
		ek_out_text(o, "%-26stype %u\n", "Journal backup:", r->s_jnl_backup_type);
	if (r->s_backup_bgs[0] || r->s_backup_bgs[1]) {
		ek_out_text(o, "%-26s", "Backup block groups:");
		for (int i = 0; i < 2; i++)
			if (r->s_backup_bgs[i])
				ek_out_text(o, "%u ", le32_to_cpu(r->s_backup_bgs[i]));
		ek_out_text(o, "\n");
	}
	if (r->s_snapshot_inum) {
		ek_out_text(o, "%-26s%u\n", "Snapshot inode:", le32_to_cpu(r->s_snapshot_inum));
		ek_out_text(o, "%-26s%u\n", "Snapshot ID:", le32_to_cpu(r->s_snapshot_id));
		ek_out_text(o, "%-26s%llu\n", "Snapshot reserved blocks:",
			    (unsigned long long)le64_to_cpu(r->s_snapshot_r_blocks_count));
	}
	if (r->s_snapshot_list)
		ek_out_text(o, "%-26s%u\n", "Snapshot list head:", le32_to_cpu(r->s_snapshot_list));
	if (r->s_error_count)
		ek_out_text(o, "%-26s%u\n", "FS Error count:", le32_to_cpu(r->s_error_count));
	if (r->s_first_error_time || r->s_first_error_time_hi)
		error_lines(o, "First", le32_to_cpu(r->s_first_error_time) |
			    (int64_t)r->s_first_error_time_hi << 32, r->s_first_error_func,
			    le32_to_cpu(r->s_first_error_line), le32_to_cpu(r->s_first_error_ino),
			    le64_to_cpu(r->s_first_error_block), r->s_first_error_errcode);
	if (r->s_last_error_time || r->s_last_error_time_hi)
		error_lines(o, "Last", le32_to_cpu(r->s_last_error_time) |
			    (int64_t)r->s_last_error_time_hi << 32, r->s_last_error_func,
			    le32_to_cpu(r->s_last_error_line), le32_to_cpu(r->s_last_error_ino),
			    le64_to_cpu(r->s_last_error_block), r->s_last_error_errcode);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP)) {
		ek_out_text(o, "%-26s%llu\n", "MMP block number:",
			    (unsigned long long)le64_to_cpu(r->s_mmp_block));
		ek_out_text(o, "%-26s%u\n", "MMP update interval:",
			    le16_to_cpu(r->s_mmp_update_interval));
	}
	if (r->s_usr_quota_inum)
		ek_out_text(o, "%-26s%u\n", "User quota inode:", le32_to_cpu(r->s_usr_quota_inum));
	if (r->s_grp_quota_inum)
		ek_out_text(o, "%-26s%u\n", "Group quota inode:", le32_to_cpu(r->s_grp_quota_inum));
	if (r->s_prj_quota_inum)
		ek_out_text(o, "%-26s%u\n", "Project quota inode:", le32_to_cpu(r->s_prj_quota_inum));
	if (fs->has_csum) {
		ek_out_text(o, "%-26s%s\n", "Checksum type:",
			    r->s_checksum_type == EXT4_CRC32C_CHKSUM ? "crc32c" : "unknown");
		ek_out_text(o, "%-26s0x%08x\n", "Checksum:", sb->checksum);
	}
	fmt_uuid(r->s_encrypt_pw_salt, buf);
	if (strcmp(buf, "<none>"))
		ek_out_text(o, "%-26s%s\n", "Encryption PW Salt:", buf);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		ek_out_text(o, "%-26s0x%08x\n", "Checksum seed:", sb->checksum_seed);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CASEFOLD)) {
		const char *enc = ek_encoding_name(le16_to_cpu(r->s_encoding));

		if (enc)
			ek_out_text(o, "%-26s%s\n", "Character encoding:", enc);
		else
			ek_out_text(o, "%-26sUNKNOWN_ENCODING_%u\n", "Character encoding:",
				    le16_to_cpu(r->s_encoding));
	}
	if (sb->orphan_file_inum)
		ek_out_text(o, "%-26s%u\n", "Orphan file inode:", sb->orphan_file_inum);
}

struct bad_blocks {
	const struct ek_fs *fs;
	uint64_t *v;
	size_t n, cap;
};

#define BAD_BLOCKS_MAX	(1u << 20)	/* listed at most; a hostile map can be longer */

static int bad_block(void *arg, const struct ek_mapping *m)
{
	struct bad_blocks *bb = arg;

	if (m->kind != EK_MAP_DATA)
		return 0;
	for (uint64_t i = 0; i < m->len && bb->n < BAD_BLOCKS_MAX; i++) {
		uint64_t b = m->pblk + i;

		/* as e2fsprogs reads the list: blocks outside the filesystem are dropped */
		if (b < bb->fs->sb.first_data_block || b >= bb->fs->sb.blocks_count)
			continue;
		if (ek_grow(&bb->v, &bb->cap, bb->n + 1, sizeof(*bb->v)))
			return -ENOMEM;
		bb->v[bb->n++] = b;
	}
	return 0;
}


/* the bad block inode's blocks, sorted, as dumpe2fs lists them */
static void bad_blocks_info(struct dbg *d)
{
	struct bad_blocks bb = { .fs = d->fs };
	struct ek_inode ei = { 0 };
	int err = ek_inode_read(d->fs, EXT4_BAD_INO, &ei);

	if (!err || err == -EK_BADCRC)
		err = ek_map_walk(d->fs, &ei, bad_block, &bb);
	ek_inode_release(&ei);
	if (err)
		dbg_warn(d, "stats: warning: bad block inode: %s", ek_error_msg(err));
	if (bb.n)	/* qsort wants a non-NULL base even for none */
		qsort(bb.v, bb.n, sizeof(*bb.v), ek_cmp_u64);
	ek_out_arr_begin(d->out, "bad_blocks");
	for (size_t i = 0; i < bb.n; i++) {
		if (i && bb.v[i] == bb.v[i - 1])
			continue;
		ek_out_text(d->out, "%s%llu", i ? ", " : "Bad blocks: ", (unsigned long long)bb.v[i]);
		ek_out_u64(d->out, NULL, bb.v[i]);
	}
	ek_out_arr_end(d->out);
	if (bb.n)
		ek_out_text(d->out, "\n");
	free(bb.v);
}

/* the MMP block, as dumpe2fs -h shows it after the journal */
static void mmp_info(struct dbg *d)
{
	struct ek_mmp m;
	char buf[64];
	int err;

	if (!ek_has_incompat(d->fs, EXT4_FEATURE_INCOMPAT_MMP)) {
		ek_out_null(d->out, "mmp");
		return;
	}
	err = ek_mmp_read(d->fs, &m);
	if (err) {
		dbg_warn(d, "stats: warning: %s", ek_error_msg(err));
		ek_out_null(d->out, "mmp");
		return;
	}
	if (m.csum_bad)
		dbg_warn(d, "stats: warning: MMP block %llu: checksum 0x%08x does not match",
			 (unsigned long long)m.block, m.checksum);
	ek_out_text(d->out, "MMP_block:\n");
	ek_out_text(d->out, "    mmp_magic: 0x%x\n", m.magic);
	ek_out_text(d->out, "    mmp_check_interval: %u\n", m.check_interval);
	ek_out_text(d->out, "    mmp_sequence: %#08x\n", m.seq);
	ek_out_text(d->out, "    mmp_update_date: %s\n", ek_fmt_time(m.time, buf, sizeof(buf)));
	ek_out_text(d->out, "    mmp_update_time: %lld\n", (long long)m.time);
	ek_out_text(d->out, "    mmp_node_name: %s\n", m.nodename);
	ek_out_text(d->out, "    mmp_device_name: %s\n", m.bdevname);
	ek_out_obj_begin(d->out, "mmp");
	ek_out_u64(d->out, "block", m.block);
	ek_out_u64(d->out, "magic", m.magic);
	ek_out_u64(d->out, "sequence", m.seq);
	ek_out_str(d->out, "state", m.seq == EXT4_MMP_SEQ_CLEAN ? "clean" :
		   m.seq == EXT4_MMP_SEQ_FSCK ? "fsck" :
		   m.seq <= EXT4_MMP_SEQ_MAX ? "in_use" : "unknown");
	ek_out_time(d->out, "update_time", m.time, 0);
	ek_out_u64(d->out, "check_interval", m.check_interval);
	ek_out_name(d->out, "node_name", m.nodename, strlen(m.nodename));
	ek_out_name(d->out, "device_name", m.bdevname, strlen(m.bdevname));
	ek_out_u64(d->out, "checksum", m.checksum);
	ek_out_bool(d->out, "checksum_ok", !m.csum_bad);
	ek_out_obj_end(d->out);
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

	if (!ek_has_compat(d->fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) || !d->fs->sb.journal_inum) {
		ek_out_null(d->out, "journal");
		return;
	}
	err = ek_journal_open(d->fs, d->fs->flags & EK_OPEN_IGNORE_CSUM, &j);
	if (err == -EK_BADCRC) {
		/* inspection shows a journal superblock with a bad checksum */
		dbg_warn(d, "stats: warning: %s", ek_error_msg(err));
		err = ek_journal_open(d->fs, EK_OPEN_IGNORE_CSUM, &j);
	}
	dbg_flush_warnings(d);
	if (err) {
		dbg_warn(d, "stats: warning: %s", ek_error_msg(err));
		ek_out_null(d->out, "journal");
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
	bad_blocks_info(d);
	journal_info(d);
	mmp_info(d);
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
