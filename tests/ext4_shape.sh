#!/bin/bash
# ext4_shape.sh - ext4 create: directories collected and shaped on several threads (-j) give the
# bytes of one thread, with the entries kept for write_dir cut off early, midway or at the default
# budget (IMPRINT_TEST_EXT4_KEEP, test-only), and none kept (IMPRINT_TEST_EXT4_PLAIN), the names
# made unique on -j threads as well; and a directory too large for the htree without large_dir is
# named the same at -j1 and -j4 (the lowest-numbered of two such directories)
. "${srcdir:-.}/tests/lib.sh"

# many small directories in many chunks, with slack, links and symlinks among the entries, and
# one of 10,000 files whose names collide (variants); names made unique on -j threads too
many=(--size 256M --files 30000 --used 16M --set files_per_dir=3 --set dir_slack=0.3
	--set symlink_share=0.2 --set hardlink_share=0.05 --set special_dirs=1
	--set special_dir_files=10000 --seed 5)

# jobs_same WHAT ENV...: images at -j1, -j2 and -j4 under ENV (VAR=VALUE, or none) are one
jobs_same() {
	local what=$1 j
	shift
	rm -f "$WORK"/j?.img
	for j in 1 2 4; do
		env "$@" "$IMPRINT" create -q -j$j "${many[@]}" "$WORK/j$j.img" >"$WORK/out" 2>"$WORK/err" ||
			{ fail "$what: -j$j: create failed: $(head -c 400 "$WORK/err")"; return; }
	done
	if cmp -s "$WORK/j1.img" "$WORK/j2.img" && cmp -s "$WORK/j1.img" "$WORK/j4.img"; then
		pass "$what: -j1, -j2 and -j4 give the same bytes"
	else
		fail "$what: -j1/-j2/-j4 differ: $(cmp "$WORK/j1.img" "$WORK/j2.img" 2>&1 | head -1) $(cmp "$WORK/j1.img" "$WORK/j4.img" 2>&1 | head -1)"
	fi
}

build_fsck "many directories" "$WORK/ref.img" -j4 "${many[@]}"
dirs=$(debugfs -R stats "$WORK/ref.img" 2>/dev/null | awk '/^Directories:/ { print $2 }')
if [ "${dirs:-0}" -ge 5000 ]; then
	pass "the plan has $dirs directories"
else
	fail "the plan has ${dirs:-no} directories, wanted 5000 or more"
fi
jobs_same "default budget"
cmp -s "$WORK/ref.img" "$WORK/j1.img" && pass "-j4 run again: the same bytes" ||
	fail "-j4 run twice: bytes differ"
jobs_same "3000 bytes of entries kept" IMPRINT_TEST_EXT4_KEEP=3000
cmp -s "$WORK/ref.img" "$WORK/j1.img" && pass "3000 bytes kept: the bytes of the default budget" ||
	fail "3000 bytes kept: bytes differ from the default budget"
jobs_same "200,000 bytes of entries kept" IMPRINT_TEST_EXT4_KEEP=200000
cmp -s "$WORK/ref.img" "$WORK/j1.img" && pass "200,000 bytes kept: the bytes of the default budget" ||
	fail "200,000 bytes kept: bytes differ from the default budget"
jobs_same "none kept" IMPRINT_TEST_EXT4_PLAIN=1
cmp -s "$WORK/ref.img" "$WORK/j1.img" && pass "none kept: the bytes of the default budget" ||
	fail "none kept: bytes differ from the default budget"

# two directories of 280,000 files each: with 1 KiB blocks and every entry followed by a deleted
# one's record, neither fits a two-level htree
big=(--size 2G --files 600000 --used 1M --set special_dirs=2 --set special_dir_files=280000
	--set dir_slack=0.8 --mkfs-options '-b 1024 -N 700000')
expect_status 1 "two directories too large for the htree, -j1" \
	"$IMPRINT" create -q -j1 "${big[@]}" "$WORK/big.img"
expect_err "has 284274 entries, more than an htree of this file system holds (try -O large_dir)" \
	"-j1: the directory, its entries and what to try"
grep -F "more than an htree" "$WORK/err" >"$WORK/err1"
expect_status 1 "two directories too large for the htree, -j4" \
	"$IMPRINT" create -q -j4 "${big[@]}" "$WORK/big.img"
if grep -F "more than an htree" "$WORK/err" | cmp -s - "$WORK/err1"; then
	pass "-j4 names the directory -j1 does: $(head -c 200 "$WORK/err1")"
else
	fail "-j4 names another directory: $(head -c 200 "$WORK/err"), -j1: $(head -c 200 "$WORK/err1")"
fi
[ ! -e "$WORK/big.img" ] && pass "no image left" || fail "an image was left"
finish
