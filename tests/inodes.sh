#!/bin/bash
# inodes.sh - ext2/3/4 images get mke2fs's inode count for their size (room for new files), 'inodes' and 'inode_ratio' honoured or refused
. "${srcdir:-.}/tests/lib.sh"

# dumpe2fs -h field of an image: ino IMG 'Inode count'
field() { dumpe2fs -h "$1" 2>/dev/null | sed -n "s/^$2: *//p"; }
# the inode count plain mke2fs (the host's mke2fs.conf) gives a file of SIZE
mke2fs_inodes() {
	rm -f "$WORK/ref.img"
	truncate -s "$1" "$WORK/ref.img"
	mke2fs -n -F -t ext4 "$WORK/ref.img" 2>/dev/null | sed -n 's/.* and \([0-9]*\) inodes$/\1/p'
}
fsck_ok() {
	if e2fsck -fn "$1" >"$WORK/fsck" 2>&1; then
		pass "$2: e2fsck -fn clean"
	else
		fail "$2: e2fsck -fn: $(tail -3 "$WORK/fsck")"
	fi
}

# sizes of the small and default usage types, with little data so that they are quick
for case in "256M 0" "600M 4M" "1G 4M"; do
	set -- $case
	args=(--size "$1")
	[ "$2" != 0 ] && args+=(--used "$2")
	img="$WORK/d$1.img"
	expect_status 0 "create ${args[*]}" "$IMPRINT" create -j2 "${args[@]}" "$img"
	fsck_ok "$img" "$1"
	got=$(field "$img" 'Inode count')
	want=$(mke2fs_inodes "$1")
	[ -n "$want" ] && [ "$got" = "$want" ] &&
		pass "$1: $got inodes, as mke2fs -n gives for that size" ||
		fail "$1: $got inodes, mke2fs -n gives '$want'"
	free=$(field "$img" 'Free inodes')
	grep -qxF "  inodes: $got, free $free" "$WORK/out" &&
		pass "$1: the summary says 'inodes: $got, free $free'" ||
		fail "$1: summary lacks 'inodes: $got, free $free': $(head -4 "$WORK/out")"
	blocks=$(field "$img" 'Block count')
	rsv=$(field "$img" 'Reserved block count')
	[ "$rsv" = $((blocks * 5 / 100)) ] &&
		pass "$1: $rsv of $blocks blocks reserved (5%, as mke2fs)" ||
		fail "$1: $rsv of $blocks blocks reserved, not 5%"
done

img="$WORK/d256M.img"
free=$(field "$img" 'Free inodes')
[ "$free" -ge 20000 ] && pass "256M: $free inodes free, room for 20,000 new files" ||
	fail "256M: only $free inodes free"
# 20,000 new files through the kernel, when the test may loop-mount
if [ "$(id -u)" -eq 0 ] && losetup -f >/dev/null 2>&1; then
	loop_init
	LOOP=$(losetup -f --show "$img")
	if mount "$LOOP" "$MNT"; then
		mkdir "$MNT/new"
		n=0
		for ((i = 0; i < 20000; i++)); do
			: >"$MNT/new/f$i" 2>/dev/null || break
			n=$((n + 1))
		done
		[ "$n" = 20000 ] && pass "256M mounted: 20,000 new files made" ||
			fail "256M mounted: file $((n + 1)) of 20,000 failed"
		umount "$MNT"
		released "$LOOP" || fail "256M: still mounted in another namespace after 60 s"
	else
		fail "256M: cannot mount the image"
	fi
	losetup -d "$LOOP"
	LOOP=
	fsck_ok "$img" "256M with 20,000 more files"
else
	pass "# SKIP 20,000 files through the kernel: needs root and a loop device"
fi

# the plan's own needs win over the default: 50,000 small files in 600M (600M / 16K = 38,400)
expect_status 0 "600M with 50,000 files" "$IMPRINT" create -q -j2 --size 600M --files 50000 --used 24M "$WORK/many.img"
fsck_ok "$WORK/many.img" "600M, 50,000 files"
got=$(field "$WORK/many.img" 'Inode count')
[ "${got:-0}" -gt 50000 ] && pass "600M, 50,000 files: $got inodes, more than 600M / 16K" ||
	fail "600M, 50,000 files: '$got' inodes"
rm -f "$WORK/many.img"

# explicit counts are honoured
expect_status 0 "inodes=5000" "$IMPRINT" create -q -j2 --size 64M --set inodes=5000 "$WORK/n.img"
fsck_ok "$WORK/n.img" "inodes=5000"
got=$(field "$WORK/n.img" 'Inode count')
[ "$got" -ge 5000 ] && [ "$got" -lt 5100 ] && pass "inodes=5000: $got (mke2fs fills whole inode-table blocks)" ||
	fail "inodes=5000: $got inodes"
expect_status 0 "inode_ratio=64K" "$IMPRINT" create -q -j2 --size 64M --set inode_ratio=64K "$WORK/r.img"
fsck_ok "$WORK/r.img" "inode_ratio=64K"
got=$(field "$WORK/r.img" 'Inode count')
[ "$got" = 1024 ] && pass "inode_ratio=64K on 64M: 1024 inodes" || fail "inode_ratio=64K on 64M: $got inodes"
"$IMPRINT" config --set inode_ratio=64K | grep -qx 'inode_ratio = 64K' &&
	pass "config prints inode_ratio" || fail "config does not print inode_ratio = 64K"

# too few, or contradictory, or on a file system without an inode table: refused
expect_status 2 "inodes=50 is too few" "$IMPRINT" create -q --size 64M --set inodes=50 "$WORK/few.img"
expect_err "'inodes' gives 50 inodes but the plan needs" "inodes=50: the error says how many the plan needs"
[ -e "$WORK/few.img" ] && fail "inodes=50: an image was left" || pass "inodes=50: no image left"
expect_status 2 "inode_ratio=64M is too few" "$IMPRINT" create -q --size 64M --set inode_ratio=64M "$WORK/few.img"
expect_err "'inode_ratio' gives 1 inodes but the plan needs" "inode_ratio=64M: the error says how many the plan needs"
expect_status 2 "inode_ratio below 1K" "$IMPRINT" config --set inode_ratio=512
expect_err "'inode_ratio'" "inode_ratio=512: the error names the parameter"
expect_status 2 "inodes and inode_ratio both" "$IMPRINT" config --set inodes=5000 --set inode_ratio=8K
expect_err "'inodes' (5000) and 'inode_ratio' both size the inode table; set one of them" "both: said"
expect_status 2 "inodes with xfs" "$IMPRINT" config --fs xfs --set inodes=5000
expect_err "'inodes' applies to ext2, ext3 and ext4 only" "xfs: said"
finish
