#!/bin/bash
# ext4_itable.sh - ext2/3/4 create: inodes put through a held window of inode-table blocks and
# directory entries kept from the shape pass give the same bytes as every inode through libext2fs and every
# name made again (IMPRINT_TEST_EXT4_PLAIN, test-only), with the entries' budget large, small or none
# (IMPRINT_TEST_EXT4_KEEP); shapes that use fs->io between inodes (directory, extent and symlink
# blocks, inline data, xattrs, shuffled inode numbers, 128-byte inodes, no checksums); and directory
# and symlink blocks written by the data workers with the file data around them, the directories
# by block, with the workers' pool for them at its default or 8 blocks (IMPRINT_TEST_EXT4_STAGE)
. "${srcdir:-.}/tests/lib.sh"

# same NAME ARGS...: the image of ARGS plain, as built, and with 3000 bytes of entries kept
same() {
	local name=$1
	shift
	rm -f "$WORK"/*.img
	IMPRINT_TEST_EXT4_PLAIN=1 build_fsck "$name: plain" "$WORK/plain.img" "$@" || return
	build_fsck "$name" "$WORK/new.img" "$@" || return
	if cmp -s "$WORK/plain.img" "$WORK/new.img"; then
		pass "$name: the same bytes as through libext2fs"
	else
		fail "$name: bytes differ from through libext2fs: $(cmp "$WORK/plain.img" "$WORK/new.img" 2>&1 | head -1)"
	fi
	IMPRINT_TEST_EXT4_KEEP=3000 build_fsck "$name: 3000 bytes of entries kept" "$WORK/keep.img" "$@" ||
		return
	if cmp -s "$WORK/plain.img" "$WORK/keep.img"; then
		pass "$name: the same bytes with the first directories' entries kept only"
	else
		fail "$name: bytes differ with 3000 bytes of entries kept: $(cmp "$WORK/plain.img" "$WORK/keep.img" 2>&1 | head -1)"
	fi
}

# staged NAME ARGS...: as same, with the directories out of id order on disk (written by
# block), and with the data workers' pool for directory blocks cut to 8 blocks
staged() {
	local name=$1
	shift
	same "$name" "$@"
	[ -f "$WORK/plain.img" ] || return
	IMPRINT_TEST_EXT4_STAGE=32768 build_fsck "$name: 8 blocks staged at most" "$WORK/stage.img" "$@" ||
		return
	if cmp -s "$WORK/plain.img" "$WORK/stage.img"; then
		pass "$name: the same bytes with 8 directory blocks staged at most"
	else
		fail "$name: bytes differ with 8 directory blocks staged at most: $(cmp "$WORK/plain.img" "$WORK/stage.img" 2>&1 | head -1)"
	fi
}

small=(--size 128M --files 3000 --used 16M)
staged "directories shuffled on disk" "${small[@]}" --set layout_order=shuffled \
	--set symlink_share=0.3 --set dir_frag_share=0.3
staged "directories in order" --size 256M --files 6000 --used 160M --set symlink_share=0.2
same symlinks "${small[@]}" --set symlink_share=1 --set symlink_dangling_share=0.9
same inline --size 64M --files 2000 --used 8M --mkfs-options '-O inline_data' \
	--set xattr_user_share=0.5 --set acl_share=0.2 --set symlink_share=0.1 \
	--set special_file_share=0.05 --set dir_slack=0.2 --set hardlink_share=0.05
same fragmented --size 256M --files 4000 --used 120M --set layout_score=0.5 \
	--set dir_frag_share=0.5 --set special_dirs=1 --set special_dir_files=3000
same shuffled "${small[@]}" --set inode_order=shuffled --set symlink_share=0.3 --mkfs-options '-I 128'
# xattrs written through libext2fs after the window wrote the root's table block in one write of
# more than four blocks: unix_io kept the clean copy it read when the image was opened, and the
# xattr of inode 12 put it back over the window's inodes (e2fsck: "deleted/unused inode")
same "xattrs after a wide window write" --size 64M --seed 12 --files 1500 --used 24M \
	--set xattr_user_share=0.2
same "ext3 without checksums" --fs ext3 "${small[@]}" --mkfs-options '-O ^metadata_csum' \
	--set xattr_user_share=0.3
finish
