#!/bin/bash
# evolve_fs.sh - evolve finds the backend that edits an image in place by the plan's file system ('--fs'), and refuses one no backend evolves before anything is read or changed, saying which it takes
. "${srcdir:-.}/tests/lib.sh"

ARGS=(--size 64M --files 200 --used 8M --seed 3 --set gen_modify_share=0.2)
MSG="no backend evolves xfs in place on an image file (it takes ext2, ext3, ext4 there; a mounted xfs file system is evolved through its directory)"

# ext2 is the ext4 backend's too: its image evolves offline, e2fsck clean
if "$IMPRINT" create -q --fs ext2 "${ARGS[@]}" "$WORK/e2.img" 2>"$WORK/err"; then
	expect_status 0 "evolve --fs ext2 an ext2 image" \
		"$IMPRINT" evolve --fs ext2 "${ARGS[@]}" --generation 1 "$WORK/e2.img"
	e2fsck -fn "$WORK/e2.img" >"$WORK/fsck" 2>&1 && pass "e2fsck -fn clean after evolve" ||
		fail "e2fsck: $(tail -3 "$WORK/fsck")"
else
	fail "create --fs ext2: $(head -c 300 "$WORK/err")"
fi

# the plan says xfs: no backend edits it offline, whatever the image holds; nothing changes
"$IMPRINT" create -q "${ARGS[@]}" "$WORK/e4.img" 2>"$WORK/err" ||
	fail "create: $(head -c 300 "$WORK/err")"
before=$(sha "$WORK/e4.img")
expect_status 2 "evolve --fs xfs an image refused" \
	"$IMPRINT" evolve --fs xfs "${ARGS[@]}" --generation 1 "$WORK/e4.img"
expect_err "imprint: evolve: '$WORK/e4.img': $MSG" "the refusal says which file systems evolve offline"
[ "$(sha "$WORK/e4.img")" = "$before" ] && pass "the refused image is unchanged" ||
	fail "the refused image changed"
expect_status 0 "evolve --rollback --fs btrfs of an unmarked image: nothing to do" \
	"$IMPRINT" evolve --rollback --fs btrfs "$WORK/e4.img"

# an evolve killed half-way: --rollback is refused for a file system no backend evolves, the mark
# kept, and given back by the ext4 backend's editor ('fs' as the image was made)
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
cp "$WORK/e4.img" "$WORK/k.img"
stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }
marked() { head -c 1024 "$1" | grep -qaF "imprint evolve: half-done unless running"; }
IMPRINT_TEST_PAUSE_AT=evolve-moved "$IMPRINT" evolve "${ARGS[@]}" --generation 1 "$WORK/k.img" \
	>/dev/null 2>&1 &
pid=$!
wait_until "$pid" stopped "$pid"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
if marked "$WORK/k.img"; then
	expect_status 2 "--rollback --fs xfs of a half-evolved image refused" \
		"$IMPRINT" evolve --rollback --fs xfs "$WORK/k.img"
	expect_err "$MSG" "the refusal names what is supported"
	marked "$WORK/k.img" && pass "the mark is kept" || fail "the refused rollback took the mark"
	expect_status 0 "--rollback of the ext4 image" "$IMPRINT" evolve --rollback "$WORK/k.img"
	cmp -s "$WORK/k.img" "$WORK/e4.img" && pass "generation 0 back byte for byte" ||
		fail "the rolled-back image differs from generation 0"
else
	fail "the evolve killed at 'evolve-moved' left no mark"
fi

# an xfs image, as mkfs.xfs makes it
if command -v mkfs.xfs >/dev/null && truncate -s 300M "$WORK/x.img" &&
	mkfs.xfs -q "$WORK/x.img" 2>/dev/null; then
	expect_status 2 "evolve --fs xfs an xfs image refused" \
		"$IMPRINT" evolve --fs xfs "${ARGS[@]}" --generation 1 "$WORK/x.img"
	expect_err "$MSG" "the refusal names what is supported"
else
	pass "# SKIP an xfs image: mkfs.xfs missing or failed"
fi
finish
