#!/bin/bash
# postmark.sh - Postmark's 20,000 files fit on a default 2 GiB imprint image at 75% full and run without errors
. "${srcdir:-.}/tests/lib.sh"

command -v postmark >/dev/null || { echo "1..0 # SKIP postmark is not installed"; exit 77; }
need_loops

img=$WORK/pm.img
# 75% of 2 GiB planned as file data: the state bench-thesis measures
if "$IMPRINT" create -q --seed 7 --size 2G --used 1536M "$img" 2>"$WORK/err"; then
	pass "a 2 GiB image with 1.5 GiB of file data"
else
	fail "create: $(head -c 300 "$WORK/err")"
	finish
fi
expect_fsck "$img" "the image"

# what the image leaves for a benchmark, read by dumpe2fs (not imprint)
free_inodes=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Free inodes: *//p')
if [ "${free_inodes:-0}" -ge 20000 ]; then
	pass "dumpe2fs: $free_inodes free inodes (Postmark needs 20,000)"
else
	fail "dumpe2fs: only ${free_inodes:-?} free inodes; Postmark needs 20,000"
fi

attach_dev "$img" || { fail "losetup"; finish; }
mount_at "$WORK/mnt" "$DEV" || { fail "mount"; finish; }
mkdir "$WORK/mnt/pm"
cat >"$WORK/pm.cfg" <<CFG
set location $WORK/mnt/pm
set number 20000
set transactions 2000
set size 500 10000
set buffering false
run
quit
CFG
if postmark "$WORK/pm.cfg" >"$WORK/pm.out" 2>&1 && grep -q '^Deleting files...Done' "$WORK/pm.out" &&
	! grep -qi 'error\|cannot' "$WORK/pm.out"; then
	pass "postmark: 20,000 files created, 2,000 transactions, all deleted"
else
	fail "postmark: $(grep -i 'error\|cannot' "$WORK/pm.out" | head -n 3)"
fi
finish
