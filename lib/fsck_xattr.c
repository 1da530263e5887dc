// SPDX-License-Identifier: MIT
/*
 * fsck_xattr.c - the checker's extended attribute and encryption rules
 * that repair (e2fsck's pass 1 check_ea_in_inode()/check_ext_attr() and
 * check_large_ea_inode(), pass 2's encrypted entries, pass 4's xattr
 * value inodes).
 *
 *   encrypted entries (pass 2): in an encrypted directory, a name shorter
 *           than the cipher block (EK_CRYPT_NAME_MIN) is cleared; then an
 *           entry naming a regular file, directory or symlink whose
 *           policy is not the directory's (none, or another) is cleared,
 *           as e2fsck's check_encrypted_dirent(): the kernel refuses the
 *           lookup.  Devices, fifos and sockets are never encrypted.  The
 *           inode stays: pass 3 or 4 connects it to /lost+found.
 */
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* clear entry @de of directory @dir after finding @id (pending): 0 done */
static int clear_entry(struct check *c, const struct ek_inode *dir, const struct ek_dirent *de)
{
	int err = ek_fix_dirent_clear(c->ws, dir, de);

	fsck_fix_done(c, err);
	if (!err)
		fsck_ref_drop(c, de->ino);
	return err;
}

int fsck_check_encrypted_entry(struct check *c, const struct ek_inode *dir, uint32_t policy,
			       const struct ek_dirent *de, const struct ek_finding *at,
			       const char *name, bool clearable)
{
	uint32_t p = c->crypt ? c->crypt[de->ino] : 0;
	uint16_t t = fsck_imode(c, de->ino);
	enum ek_problem_id id;

	if (de->name_len < EK_CRYPT_NAME_MIN &&
	    fsck_report_if(c, clearable, EK_PR_ENTRY_ENCRYPTED_SHORT, at, name, dir->ino,
			   de->name_len, EK_CRYPT_NAME_MIN) &&
	    !clear_entry(c, dir, de))
		return 0;
	if (p == policy)
		return 1;
	if (!p && (t == 0100000 || t == 0040000 || t == 0120000))
		id = EK_PR_ENTRY_UNENCRYPTED;
	else if (p)
		id = EK_PR_ENTRY_ENCRYPT_POLICY;
	else
		return 1;
	if (fsck_report_if(c, clearable, id, at, name, dir->ino, de->ino) && !clear_entry(c, dir, de))
		return 0;
	return 1;
}
