/* undo.h - a cheap undo for an evolve's rollback: what a block held before its first overwrite, a free block of zeros by its number only */
#ifndef IMPRINT_BACKENDS_EXT4_UNDO_H
#define IMPRINT_BACKENDS_EXT4_UNDO_H

#include <stddef.h>

#include <ext2fs/ext2fs.h>

/*
 * An I/O manager for ext2fs_open2(), over the manager ext4_undo_prepare()
 * named last (unix_io_manager, or libext2fs' undo_io_manager over it to
 * keep an e2undo file too): before a range is first written, what it held
 * goes to the undo file ext4_undo_prepare() named, read from the target
 * directly (the cache is left as without it).  Once ext4_undo_arm() has
 * seen the block bitmap, a block that was free and held only zeros is
 * recorded by its number alone: an evolve's new blocks cost no copy, only
 * a read (libext2fs' undo_io_manager, for e2undo, copies every one).
 *
 * With no undo file (NULL) it only passes through, and once armed counts
 * the blocks written.  It reports no I/O statistics: ext2fs_close2() then
 * adds nothing to s_kbytes_written (unix_io's count depends on its cache,
 * and so on the order and number of reads), which imprint sets itself.
 */
extern io_manager ext4_undo_io_manager;
void ext4_undo_prepare(const char *undo, io_manager inner);
errcode_t ext4_undo_arm(ext2_filsys fs);

/* The blocks written since ext4_undo_arm(), each counted once (0 on another manager). */
uint64_t ext4_undo_changed(ext2_filsys fs);

/* Save what bytes [off, off + len) hold now, and sync the undo file: before a write that must not outrun it. */
errcode_t ext4_undo_save(ext2_filsys fs, uint64_t off, uint64_t len);

/*
 * Put the undo file back into target (after the file system that wrote it
 * is closed, or after imprint died): every saved range as it was, last
 * saved first, and the free blocks of zeros zeroed again (a hole punched
 * in an image file); the ranges before byte first go last, after a sync
 * (the mark, so that it stays until the rest is back).  0, or a negative
 * errno with msg saying why (-EINVAL: not an undo file of imprint's).
 */
int ext4_undo_apply(const char *undo, const char *target, uint64_t first, char *msg, size_t len);

#endif
