/* ext2_ahead.h - an ext2/3/4 file system's inode tables and directory blocks asked of the disk at once, ahead of a walk that reads them one at a time */
#ifndef IMPRINT_READ_EXT2_AHEAD_H
#define IMPRINT_READ_EXT2_AHEAD_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

/*
 * Warm the page cache of fs, at byte base of fd (the image or device fs
 * was opened from): one sequential pass over the inode tables in use
 * (through fs's channel), then one readahead request
 * (posix_fadvise WILLNEED, not waited for) for every run of directory
 * blocks found there, in disk order.  Later reads of inodes and
 * directories, in any order, then come from memory instead of waiting on
 * one small random read each.  Best effort: any trouble just stops it
 * (the reads after report real errors).  Reads only: nothing is written.
 * cold: nothing at all when the inode tables in use are all in the page
 * cache already (the directories, read as often, likely are too: the
 * pass and the requests would cost more than they save).
 */
void ext2_ahead_dirs(ext2_filsys fs, int fd, uint64_t base, int cold);

#endif
