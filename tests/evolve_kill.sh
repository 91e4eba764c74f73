#!/bin/bash
# evolve_kill.sh - an evolve of an ext2/3/4 image killed with SIGKILL half-way is never a silent
# mix of two generations: the image carries a mark (its first 1 KiB, text naming the undo file),
# every command that reads it (evolve, measure, measure --generation, content-report, verify,
# profile) refuses it naming 'imprint evolve --rollback TARGET', which gives generation N-1 back
# byte for byte (cmp, e2fsck -fn clean); evolving again gives the bytes of an uninterrupted
# evolve.  While evolve runs, its target is said to be in use and --rollback refused.  A
# completed evolve leaves no mark and no undo file; --undo FILE too.  Then a loop device (root)
. "${srcdir:-.}/tests/lib.sh"

export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
A=(--fs ext4 --files 2000 --used 30M --size 100M --seed 7 --set gen_modify_share=0.1
	--set gen_dir_create_share=0.05 --set gen_dir_remove_share=0.05)
MARK="imprint evolve: half-done unless running"
stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }
# unmarked WHAT T: T's first KiB is no mark
unmarked() {
	if head -c 1024 "$2" | grep -qaF "$MARK"; then fail "$1: the mark is left"
	else pass "$1: no mark"; fi
}
no_undo() {
	if [ -z "$(ls -A "$TMPDIR")" ]; then pass "$1: no undo file left"
	else fail "$1: left $(ls -A "$TMPDIR" | tr '\n' ' ')"; fi
}

# kill_at T [ARGS...]: evolve T to generation 1, SIGKILLed at 'evolve-moved'
kill_at() {
	local t=$1 pid
	shift
	IMPRINT_TEST_PAUSE_AT=evolve-moved "$IMPRINT" evolve "${A[@]}" "$@" --generation 1 "$t" \
		>/dev/null 2>&1 &
	pid=$!
	wait_until "$pid" stopped "$pid"
	stopped "$pid" && pass "evolve of $t stopped at 'evolve-moved'" ||
		fail "evolve of $t never reached 'evolve-moved'"
	# while it runs (stopped), the image is said to be in use, and no rollback is made under it
	expect_status 1 "$t: measure of a running evolve's target refused" "$IMPRINT" measure "$t"
	expect_err "is being evolved from generation 0 to 1 by an imprint still running" \
		"$t: measure says an evolve runs"
	expect_status 1 "$t: --rollback under a running evolve refused" \
		"$IMPRINT" evolve --rollback "$t"
	expect_err "still runs" "$t: the refusal says an evolve runs"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
}

# check_killed T T0 T1 WHAT: T, an evolve of T0 killed half-way, is refused, rolled back to T0,
# and evolved again to T1's bytes
check_killed() {
	local t=$1 t0=$2 t1=$3 what=$4 undo
	head -c 1024 "$t" | grep -qaF "$MARK" && pass "$what: the killed evolve left the mark" ||
		fail "$what: no mark after SIGKILL"
	undo=$(head -c 1024 "$t" | sed -n 's/^undo //p' | tr -d '\0')
	[ -s "$undo" ] && pass "$what: the mark names the undo file, kept ($(stat -c %s "$undo") bytes)" ||
		fail "$what: the undo file '$undo' is gone"
	# writes had reached the image: without the rollback it would be part generation 1
	cmp -s -i 1024 "$t" "$t0" && fail "$what: nothing but the mark was written before the kill" ||
		pass "$what: the image differs from generation 0 beyond the mark"
	expect_status 1 "$what: evolve of the half-evolved image refused" \
		"$IMPRINT" evolve "${A[@]}" --generation 1 "$t"
	expect_err "is half-evolved: an 'imprint evolve' from generation 0 to 1 was interrupted" \
		"$what: evolve says it is half-evolved"
	expect_err "'imprint evolve --rollback $t' puts the earlier generation back" \
		"$what: evolve names the recovery"
	expect_status 1 "$what: measure refused" "$IMPRINT" measure "$t"
	expect_err "'imprint evolve --rollback $t'" "$what: measure names the recovery"
	expect_status 1 "$what: measure --generation refused" \
		"$IMPRINT" measure "${A[@]}" --generation 1 "$t"
	expect_err "is half-evolved" "$what: measure --generation says it is half-evolved"
	expect_status 1 "$what: content-report refused" "$IMPRINT" content-report "$t"
	expect_err "is half-evolved" "$what: content-report says it is half-evolved"
	expect_status 1 "$what: verify refused" "$IMPRINT" verify "${A[@]}" --generation 1 "$t"
	expect_err "is half-evolved" "$what: verify says it is half-evolved"
	expect_status 1 "$what: profile refused" "$IMPRINT" profile "$t"
	expect_err "is half-evolved" "$what: profile says it is half-evolved"
	expect_status 0 "$what: evolve --rollback" "$IMPRINT" evolve --rollback "$t"
	grep -qF "rolled '$t' back to generation 0" "$WORK/out" && pass "$what: the rollback says so" ||
		fail "$what: rollback output: $(head -c 300 "$WORK/out")"
	if cmp -s "$t" "$t0"; then pass "$what: rolled back byte for byte to generation 0"
	else fail "$what: differs from generation 0 in $(cmp -l "$t" "$t0" | wc -l) bytes"; fi
	expect_fsck "$t" "$what: e2fsck -fn clean after the rollback"
	[ ! -e "$undo" ] && pass "$what: the rollback removed the undo file" || fail "$what: undo file kept"
	expect_status 0 "$what: a second --rollback has nothing to do" "$IMPRINT" evolve --rollback "$t"
	grep -qF "nothing to roll back" "$WORK/out" && pass "$what: it says so" ||
		fail "$what: second rollback: $(head -c 300 "$WORK/out")"
	expect_status 0 "$what: evolve again" "$IMPRINT" evolve "${A[@]}" --generation 1 "$t"
	if cmp -s "$t" "$t1"; then pass "$what: the same generation 1 as an uninterrupted evolve"
	else fail "$what: generation 1 differs from an uninterrupted evolve's"; fi
	unmarked "$what: evolved again" "$t"
}

build_fsck "generation 0" "$WORK/g0.img" "${A[@]}"
cp "$WORK/g0.img" "$WORK/g1.img"
expect_status 0 "an uninterrupted evolve" "$IMPRINT" evolve "${A[@]}" --generation 1 "$WORK/g1.img"
unmarked "the completed evolve" "$WORK/g1.img"
no_undo "the completed evolve"
expect_fsck "$WORK/g1.img" "the completed evolve: e2fsck -fn clean"
cmp -s -n 1024 "$WORK/g0.img" "$WORK/g1.img" && pass "the first KiB is put back as it was" ||
	fail "the first KiB differs from generation 0's"

cp "$WORK/g0.img" "$WORK/k.img"
kill_at "$WORK/k.img"
check_killed "$WORK/k.img" "$WORK/g0.img" "$WORK/g1.img" "image"
no_undo "image, after the rollback and the second evolve"

# --undo FILE (e2undo's too): the mark names it; the rollback removes it, a completed evolve keeps it
cp "$WORK/g0.img" "$WORK/u.img"
kill_at "$WORK/u.img" --undo "$WORK/u.undo"
head -c 1024 "$WORK/u.img" | grep -qaF "keep $WORK/u.undo" && pass "--undo: the mark names FILE" ||
	fail "--undo: FILE not in the mark"
expect_status 0 "--undo: evolve --rollback" "$IMPRINT" evolve --rollback "$WORK/u.img"
cmp -s "$WORK/u.img" "$WORK/g0.img" && pass "--undo: rolled back byte for byte" ||
	fail "--undo: differs from generation 0"
[ ! -e "$WORK/u.undo" ] && pass "--undo: the rollback removed FILE" || fail "--undo: FILE left"
no_undo "--undo, rolled back"
expect_status 0 "--undo: evolve completed" \
	"$IMPRINT" evolve "${A[@]}" --generation 1 --undo "$WORK/u.undo" "$WORK/u.img"
unmarked "--undo: completed" "$WORK/u.img"
no_undo "--undo: completed"
e2undo "$WORK/u.undo" "$WORK/u.img" >/dev/null 2>&1 && cmp -s "$WORK/u.img" "$WORK/g0.img" &&
	pass "--undo: e2undo FILE gives generation 0 back" || fail "--undo: e2undo FILE did not give generation 0"

# a mark whose undo file is gone: refused, saying it cannot be rolled back
cp "$WORK/g0.img" "$WORK/g.img"
kill_at "$WORK/g.img"
rm -f "$TMPDIR"/imprint-undo-*
expect_status 1 "no undo file: evolve refused" "$IMPRINT" evolve "${A[@]}" --generation 1 "$WORK/g.img"
expect_err "its undo file is gone" "no undo file: said"
expect_status 1 "no undo file: --rollback fails" "$IMPRINT" evolve --rollback "$WORK/g.img"
expect_err "cannot roll '$WORK/g.img' back" "no undo file: the rollback says it cannot"

# bad input: --rollback of a directory, of a missing path
mkdir "$WORK/dir"
expect_status 2 "--rollback of a directory refused" "$IMPRINT" evolve --rollback "$WORK/dir"
expect_err "'--rollback' is for an ext2/3/4 image or device" "the refusal says what it is for"
expect_status 2 "--rollback of a missing path refused" "$IMPRINT" evolve --rollback "$WORK/none"

# a 1 KiB-block file system: the mark is its boot block, before the bitmaps' first block
A1=("${A[@]}")
A=(--fs ext4 --files 800 --used 20M --size 48M --seed 4)
build_fsck "1 KiB blocks: generation 0" "$WORK/b0.img" "${A[@]}" --mkfs-options '-b 1024'
dumpe2fs -h "$WORK/b0.img" 2>/dev/null | grep -q '^Block size: *1024$' &&
	pass "1 KiB blocks: the image has them" || fail "1 KiB blocks: not so"
cp "$WORK/b0.img" "$WORK/b1.img"
expect_status 0 "1 KiB blocks: an uninterrupted evolve" \
	"$IMPRINT" evolve "${A[@]}" --generation 1 "$WORK/b1.img"
[ ! -s "$WORK/err" ] && pass "1 KiB blocks: nothing on stderr" || fail "1 KiB blocks: $(head -c 300 "$WORK/err")"
cp "$WORK/b0.img" "$WORK/bk.img"
kill_at "$WORK/bk.img"
check_killed "$WORK/bk.img" "$WORK/b0.img" "$WORK/b1.img" "1 KiB blocks"
A=("${A1[@]}")

# a loop device (root): the same
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null && losetup -f >/dev/null 2>&1; then
	cp "$WORK/g0.img" "$WORK/dev.img"
	DEV=$(losetup -f --show "$WORK/dev.img") || fail "losetup"
	trap 'losetup -d "$DEV"; rm -rf "$WORK"' EXIT
	cp "$WORK/g0.img" "$WORK/d1.img"
	kill_at "$DEV"
	check_killed "$DEV" "$WORK/g0.img" "$WORK/g1.img" "device"
	no_undo "device"
else
	echo "# SKIP the loop device part: needs root and a free loop device"
fi
finish
