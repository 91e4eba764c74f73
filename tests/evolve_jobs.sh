#!/bin/bash
# evolve_jobs.sh - evolve -j N makes the files' bytes on N worker threads, the writes staying in
# order on one: an ext4 image evolved 0 -> 1 -> 2 -> 3 with -j 1, -j 2 and -j 5 is byte for
# byte the same image (cmp) at every generation, e2fsck -fn clean, and generation 3 made
# directly (the tree, by debugfs in tests/ext_tree.py); an ext2 image (no extents) too; a
# directory evolved through the kernel with -j 1 and -j 2 is the same tree (the test's own
# walk); a fill that fails on a worker rolls the image back to generation N-1 byte for byte
# (-j 1 and -j 2); -j out of range is refused
. "${srcdir:-.}/tests/lib.sh"

command -v debugfs >/dev/null || { echo "1..0 # SKIP no debugfs"; exit 77; }
TREE="${srcdir:-.}/tests/ext_tree.py"
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"

ARGS=(--fs ext4 --files 1500 --used 30M --size 100M --seed 7 --set gen_modify_share=0.1
	--set gen_dir_create_share=0.05 --set gen_dir_remove_share=0.05 --set gen_truncate_share=0.3
	--set gen_create_share=0.05)
# same_bytes WHAT A B: images A and B are byte-identical
same_bytes() {
	if cmp -s "$2" "$3"; then pass "$1"
	else fail "$1: they differ in $(cmp -l "$2" "$3" | wc -l) bytes"; fi
}

build_fsck "ext4 generation 0" "$WORK/g0.img" "${ARGS[@]}"
for j in 1 2 5; do cp "$WORK/g0.img" "$WORK/j$j.img"; done
for g in 1 2 3; do
	for j in 1 2 5; do
		expect_status 0 "evolve -j $j to generation $g" \
			"$IMPRINT" evolve -j "$j" "${ARGS[@]}" --generation "$g" "$WORK/j$j.img"
	done
	expect_fsck "$WORK/j2.img" "generation $g evolved with -j 2: e2fsck -fn clean"
	same_bytes "generation $g: -j 1 and -j 2 give the same image" "$WORK/j1.img" "$WORK/j2.img"
	same_bytes "generation $g: -j 1 and -j 5 give the same image" "$WORK/j1.img" "$WORK/j5.img"
done
# the comparison sees change: the evolved image is not generation 0's
if ! cmp -s "$WORK/g0.img" "$WORK/j2.img"; then pass "the evolves changed the image"
else fail "generation 3 is byte-identical to generation 0"; fi
build_fsck "ext4 generation 3 made directly" "$WORK/d.img" "${ARGS[@]}" --generation 3
python3 "$TREE" "$WORK/j2.img" >"$WORK/te" || fail "ext_tree.py of the image evolved with -j 2"
python3 "$TREE" "$WORK/d.img" >"$WORK/td" || fail "ext_tree.py of generation 3"
if [ -s "$WORK/te" ] && cmp -s "$WORK/te" "$WORK/td"; then
	pass "evolved with -j 2 0 -> 1 -> 2 -> 3 is generation 3 made directly ($(wc -l <"$WORK/te") entries)"
else fail "evolved with -j 2 and direct generation 3 differ: $(diff "$WORK/te" "$WORK/td" | head -6)"; fi

# ext2: no extents, every block written through libext2fs' file I/O
A2=("${ARGS[@]}")
A2[1]=ext2
build_fsck "ext2 generation 0" "$WORK/e0.img" "${A2[@]}"
cp "$WORK/e0.img" "$WORK/e1.img"
cp "$WORK/e0.img" "$WORK/e2.img"
expect_status 0 "ext2: evolve -j 1" "$IMPRINT" evolve -j 1 "${A2[@]}" --generation 1 "$WORK/e1.img"
expect_status 0 "ext2: evolve -j 2" "$IMPRINT" evolve -j 2 "${A2[@]}" --generation 1 "$WORK/e2.img"
same_bytes "ext2: -j 1 and -j 2 give the same image" "$WORK/e1.img" "$WORK/e2.img"
expect_fsck "$WORK/e2.img" "ext2 evolved with -j 2: e2fsck -fn clean"

# a worker's fill fails half-way through the writes: the image goes back to generation 0
for j in 1 2; do
	cp "$WORK/g0.img" "$WORK/f.img"
	IMPRINT_TEST_FAIL_AT=evolve-fill expect_status 1 "-j $j: a fill that fails on a worker fails the evolve" \
		"$IMPRINT" evolve -j "$j" "${ARGS[@]}" --generation 1 "$WORK/f.img"
	expect_err "cannot write" "-j $j: the failure names the file it was writing"
	expect_err "Input/output error" "-j $j: the failure names the cause"
	expect_err "rolled back: it is generation 0 as before" "-j $j: the failure says the image is generation 0"
	same_bytes "-j $j: after the failed fill the image is generation 0 byte for byte" "$WORK/f.img" "$WORK/g0.img"
	expect_fsck "$WORK/f.img" "-j $j: after the failed fill: e2fsck -fn clean"
	if [ -z "$(ls -A "$TMPDIR")" ]; then pass "-j $j: no undo file left"
	else fail "-j $j: left $(ls -A "$TMPDIR" | head -3 | tr '\n' ' ')"; fi
done
# the hook fails nothing unless asked: the same evolve without it succeeds
expect_status 0 "the same evolve without the failure succeeds" \
	"$IMPRINT" evolve -j 2 "${ARGS[@]}" --generation 1 "$WORK/f.img"

# a directory, through the kernel: streams in pieces interleaved with the other files
DA=("${ARGS[@]:2}")
mkdir "$WORK/d1" "$WORK/d2"
expect_status 0 "a directory: create generation 0" "$IMPRINT" create -q "${DA[@]}" "$WORK/d1"
expect_status 0 "a directory: create generation 0 again" "$IMPRINT" create -q "${DA[@]}" "$WORK/d2"
tree_listing "$WORK/d1" >"$WORK/t0"
for g in 1 2; do
	expect_status 0 "a directory: evolve -j 1 to generation $g" \
		"$IMPRINT" evolve -j 1 "${DA[@]}" --generation "$g" "$WORK/d1"
	expect_status 0 "a directory: evolve -j 2 to generation $g" \
		"$IMPRINT" evolve -j 2 "${DA[@]}" --generation "$g" "$WORK/d2"
done
tree_listing "$WORK/d1" >"$WORK/t1"
tree_listing "$WORK/d2" >"$WORK/t2"
if [ -s "$WORK/t1" ] && cmp -s "$WORK/t1" "$WORK/t2"; then
	pass "a directory evolved with -j 1 and -j 2 is the same tree ($(wc -l <"$WORK/t1") entries)"
else fail "a directory evolved with -j 1 and -j 2 differs: $(diff "$WORK/t1" "$WORK/t2" | head -6)"; fi
n=$(diff "$WORK/t0" "$WORK/t2" | grep -c '^[<>]')
if [ "$n" -gt 50 ]; then pass "generations 0 and 2 of the directory differ in $n lines"
else fail "generations 0 and 2 of the directory differ in only $n lines"; fi

# -j is checked as create's
expect_status 2 "evolve -j 0 refused" "$IMPRINT" evolve -j 0 "${ARGS[@]}" --generation 1 "$WORK/j1.img"
expect_err "'--jobs' must be a whole number from 1 to 1024 (got '0')" "the refusal says what -j takes"
finish
