#!/bin/bash
# evolve_root.sh - imprint evolve in a loop-mounted ext4 (as root): generations 1 and 2
# evolved in place verify and leave a clean file system; generation 2 built as an image
# verifies with its extents; on a file system that fills
# up, evolve fails with exit 1 and says the tree is part one generation, part the next
. "${srcdir:-.}/tests/lib.sh"
need_loops

# a tenth more bytes each generation: generation 3 needs blocks the filled file system lacks
ARGS=(--files 1500 --used 24M --size 48M --seed 5 --set gen_growth_share=0.1)

truncate -s 64M "$WORK/fs.img"
mkfs.ext4 -q -F "$WORK/fs.img"
attach_dev "$WORK/fs.img" || { fail "losetup"; finish; }
mount_at "$WORK/m" "$DEV" || { fail "mount"; finish; }
mkdir "$WORK/m/t"
"$IMPRINT" create -q "${ARGS[@]}" "$WORK/m/t" 2>"$WORK/err" || fail "create: $(head -c 300 "$WORK/err")"
for g in 1 2; do
	expect_status 0 "evolve to generation $g in a loop-mounted ext4" \
		"$IMPRINT" evolve "${ARGS[@]}" --generation "$g" "$WORK/m/t"
done
verify_ok "generation 2 evolved in ext4" "${ARGS[@]}" --generation 2 "$WORK/m/t"
umount "$WORK/m"
released "$DEV" || fail "still mounted in another namespace after 60 s"
if e2fsck -fn "$DEV" >"$WORK/fsck" 2>&1; then pass "e2fsck -fn clean after evolving"
else fail "e2fsck: $(tail -3 "$WORK/fsck")"; fi

# generation 2 as an ext4 image (libext2fs, blocks placed by the layout): verify mounts it
if "$IMPRINT" create -q "${ARGS[@]}" --generation 2 --extents "$WORK/ext" "$WORK/g2.img" 2>"$WORK/err"; then
	verify_ok "generation 2 image with its extents" "${ARGS[@]}" --generation 2 --extents "$WORK/ext" "$WORK/g2.img"
else
	fail "create --generation 2 image: $(head -c 300 "$WORK/err")"
fi
rm -f "$WORK/g2.img"

# a generation that does not fit: the file system filled beside the tree first
mount "$DEV" "$WORK/m"
dd if=/dev/zero of="$WORK/m/filler" bs=1M status=none 2>/dev/null
sync
expect_status 1 "evolve on a full file system fails" \
	"$IMPRINT" evolve "${ARGS[@]}" --generation 3 "$WORK/m/t"
expect_err "is now part generation 2 and part 3" "the failure says what state the tree is in"
expect_err "No space left on device" "the failure names the cause"
# the state it names, step by step, is the tree's: files deleted (measure's census of the
# tree), files set aside under temporary names (what the root holds)
state=$(grep -F "is now part generation" "$WORK/err")
if [[ $state =~ after\ ([0-9]+)\ files\ deleted,\ ([0-9]+)\ files\ set\ aside.*,\ ([0-9]+)\ moved\ files ]]; then
	deleted=${BASH_REMATCH[1]} aside=$((BASH_REMATCH[2] - BASH_REMATCH[3]))
	"$IMPRINT" measure "${ARGS[@]}" --generation 3 "$WORK/m/t" >"$WORK/census" 2>&1
	census=$(grep -E '^ +deleted ' "$WORK/census")
	if [[ $census =~ deleted\ +([0-9]+)\ of ]] && [ "${BASH_REMATCH[1]}" = "$deleted" ] &&
		[ "$deleted" -gt 0 ]; then
		pass "the failure's $deleted deleted files are the tree's ($census)"
	else
		fail "the failure says $deleted deleted; measure: '$census'"
	fi
	n=$(find "$WORK/m/t" -maxdepth 1 -name '.imprint-evolve-*' | wc -l)
	[ "$n" = "$aside" ] && pass "the failure's $aside files still set aside are in the root" ||
		fail "the failure says $aside set aside, the root holds $n"
	[[ $state == *"files written"*"the last '"* ]] && pass "the failure names the files written so far" ||
		fail "the failure does not say what was written: $state"
else
	fail "the failure does not list its steps: $state"
fi
umount "$WORK/m"
finish
