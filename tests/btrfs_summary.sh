#!/bin/bash
# btrfs_summary.sh - issue 23 item 9: a directory on btrfs is named btrfs in
# the summary, its blocks used are df's (statvfs after writeback), and the
# fragmentation note gives the figures of the summary's fragmentation line.
. "${srcdir:-.}/tests/lib.sh"
need_loops
command -v mkfs.btrfs >/dev/null || { echo "1..0 # SKIP no mkfs.btrfs"; exit 77; }

truncate -s 1G "$WORK/b.img"
mkfs.btrfs -q "$WORK/b.img" >/dev/null 2>&1 || { fail "mkfs.btrfs"; exit 1; }
attach_dev "$WORK/b.img" && mount_at "$WORK/m" "$DEV" || { fail "mount"; exit 1; }
mkdir "$WORK/m/t"
expect_status 0 "create in a directory on btrfs" "$IMPRINT" create --size 256M \
	--set layout_score=0.8 --set frag_extents=4 --set frag_file_share=0.5 "$WORK/m/t"
cp "$WORK/out" "$WORK/sum"
grep -q "^created '$WORK/m/t': btrfs, " "$WORK/sum" && pass "the summary names btrfs" ||
	fail "the summary does not name btrfs: $(head -1 "$WORK/sum")"
sync
used=$(sed -n 's/.*, \([0-9]*\) blocks of 4096 bytes used$/\1/p' "$WORK/sum")
df_used=$(df -B4096 --output=used "$WORK/m" | tail -1 | tr -d ' ')
[ -n "$used" ] && [ "$used" = "$df_used" ] && pass "blocks used $used, df says $df_used" ||
	fail "blocks used '$used', df says $df_used"
# note_agrees WHAT: the fragmentation note of $WORK/sum gives the figures of its line
note_agrees() {
	local line files ext
	line=$(sed -n 's/.*fragmented files \([0-9]*\) of .*, \([0-9.]*\) extents each$/\1 \2/p' "$WORK/sum")
	files=$(sed -n "s/.*'frag_file_share' gave way to 'layout_score' (\([0-9]*\) files fragmented).*/\1/p" "$WORK/sum")
	ext=$(sed -n "s/.*'frag_extents' gave way to 'layout_score' (\([0-9.]*\) extents per fragmented file).*/\1/p" "$WORK/sum")
	[ -n "$files$ext" ] && [ "${files:-${line% *}} ${ext:-${line#* }}" = "$line" ] &&
		pass "$1: the note's figures ($files files, $ext extents) are the line's ($line)" ||
		fail "$1: the note says '$files' files / '$ext' extents, the line '$line'"
}
note_agrees "directory"

# the loopfs backend: a btrfs image, its summary against df of the image mounted afterwards
expect_status 0 "create a btrfs image" "$IMPRINT" create --fs btrfs --size 1G --used 400M \
	--set layout_score=0.8 --set frag_extents=4 --set frag_file_share=0.5 "$WORK/i.img"
cp "$WORK/out" "$WORK/sum"
note_agrees "image"
used=$(sed -n 's/.*, \([0-9]*\) blocks of 4096 bytes used$/\1/p' "$WORK/sum")
attach_dev "$WORK/i.img" ro && mount_at "$WORK/mi" -o ro "$DEV" || fail "mount the image"
df_used=$(df -B4096 --output=used "$WORK/mi" | tail -1 | tr -d ' ')
[ -n "$used" ] && [ "$used" = "$df_used" ] && pass "image: blocks used $used, df says $df_used" ||
	fail "image: blocks used '$used', df says $df_used"
echo "1..$TESTS_RUN"
[ "$TESTS_FAILED" -eq 0 ]
