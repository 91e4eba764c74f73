#!/bin/bash
# ext4_fsck.sh - the ext2/3/4 backend: e2fsck -fn clean across features, sizes and layouts; same bytes for the same seed
. "${srcdir:-.}/tests/lib.sh"

command -v e2fsck >/dev/null 2>&1 || { echo "1..0 # SKIP e2fsck not found"; exit 77; }
command -v mke2fs >/dev/null 2>&1 || { echo "1..0 # SKIP mke2fs not found"; exit 77; }

img=$WORK/img
small="--size 64M --files 150"

# --- the three file systems, then ext4 with features turned off and on
build_fsck "ext4" "$img" $small --seed 1
build_fsck "ext3" "$img" $small --seed 2 --fs ext3
build_fsck "ext2" "$img" $small --seed 3 --fs ext2
build_fsck "ext4 ^metadata_csum" "$img" $small --seed 4 --mkfs-options "-O ^metadata_csum"
build_fsck "ext4 ^64bit" "$img" $small --seed 5 --mkfs-options "-O ^64bit"
build_fsck "ext4 ^flex_bg" "$img" $small --seed 6 --mkfs-options "-O ^flex_bg"
build_fsck "ext4 inline_data" "$img" $small --seed 7 --mkfs-options "-O inline_data"
build_fsck "ext4 ^dir_index" "$img" $small --seed 8 --mkfs-options "-O ^dir_index"
build_fsck "ext4 ^extent,^64bit (block maps)" "$img" $small --seed 9 --mkfs-options "-O ^extent,^64bit"
build_fsck "ext4 -b 1024" "$img" $small --seed 10 --mkfs-options "-b 1024"
build_fsck "ext4 -b 4096" "$img" $small --seed 11 --mkfs-options "-b 4096"
build_fsck "ext3 -b 4096" "$img" $small --seed 12 --fs ext3 --mkfs-options "-b 4096"
build_fsck "ext4 -I 128" "$img" $small --seed 13 --mkfs-options "-I 128"

# --- fragmented layouts: extent trees with index blocks, indirect blocks
build_fsck "ext4 layout_score 0.8" "$img" $small --seed 14 --set layout_score=0.8
build_fsck "ext2 layout_score 0.8" "$img" $small --seed 14 --fs ext2 --set layout_score=0.8
build_fsck "ext4 -b 4096 layout_score 0.5" "$img" $small --seed 15 --set layout_score=0.5 \
	--mkfs-options "-b 4096"

# --- a special directory of 20,000 files: with 1 KiB blocks a two-level htree
# (small files keep the image small)
special="--size 128M --files 20100 --set special_dirs=1 --set special_dir_files=20000
	--set size_mu=6 --set size_sigma=1.2 --set size_tail_weight=0"
build_fsck "ext4 20,000-file directory" "$img" $special --seed 16 --mkfs-options "-b 1024"
# the directory holding the most files (from the manifest) must be an htree
"$IMPRINT" plan $special --seed 16 -o "$WORK/manifest" 2>/dev/null
big=$(awk -F'\t' '$2 == "file" { d = $1; sub("/[^/]*$", "", d); n[d]++ }
	END { for (d in n) if (n[d] > m) { m = n[d]; b = d }; print b }' "$WORK/manifest")
if debugfs -R "htree \"$big\"" "$img" 2>/dev/null | grep -q "Indirect levels: 1"; then
	pass "the 20,000-file directory is a two-level htree"
else
	fail "the 20,000-file directory '$big' is not a two-level htree"
fi
build_fsck "ext2 20,000-file directory" "$img" $special --seed 16 --fs ext2
build_fsck "ext4 inline_data 20,000-file directory" "$img" $special --seed 16 \
	--mkfs-options "-O inline_data"
build_fsck "ext4 ^dir_index 20,000-file directory" "$img" $special --seed 16 \
	--mkfs-options "-O ^dir_index"

# --- the same seed twice gives the same bytes; so do -j1 and -j2
for fs in ext4 ext3 ext2; do
	"$IMPRINT" create -q $small --seed 21 --fs $fs -j1 "$WORK/a" 2>"$WORK/err" &&
		"$IMPRINT" create -q $small --seed 21 --fs $fs -j1 "$WORK/b" 2>>"$WORK/err" &&
		"$IMPRINT" create -q $small --seed 21 --fs $fs -j2 "$WORK/c" 2>>"$WORK/err"
	if [ ! -f "$WORK/c" ]; then
		fail "$fs determinism: create failed: $(head -c 400 "$WORK/err")"
	else
		a=$(sha "$WORK/a") b=$(sha "$WORK/b") c=$(sha "$WORK/c")
		[ "$a" = "$b" ] && pass "$fs: same seed twice, same sha256" \
			|| fail "$fs: same seed twice, sha256 $a and $b"
		[ "$a" = "$c" ] && pass "$fs: -j1 and -j2, same sha256" \
			|| fail "$fs: -j1 and -j2, sha256 $a and $c"
	fi
	rm -f "$WORK/a" "$WORK/b" "$WORK/c"
done
# --- file data around the page cache (O_DIRECT and AIO, 4 KiB blocks) or
# through it (IMPRINT_DIRECT_IO=0), small files and a large one: the same bytes
for shape in "--files 3000 --set size_mu=6.9 --set size_sigma=1.2 --set size_tail_weight=0" \
	"--files 4 --used 40M"; do
	"$IMPRINT" create -q --size 96M $shape --seed 27 -j2 --mkfs-options "-b 4096" "$WORK/a" \
		2>"$WORK/err" &&
		IMPRINT_DIRECT_IO=0 "$IMPRINT" create -q --size 96M $shape --seed 27 -j2 \
			--mkfs-options "-b 4096" "$WORK/b" 2>>"$WORK/err"
	if [ ! -f "$WORK/b" ]; then
		fail "direct and buffered data ($shape): create failed: $(head -c 400 "$WORK/err")"
	else
		[ "$(sha "$WORK/a")" = "$(sha "$WORK/b")" ] &&
			pass "direct and buffered data ($shape): same sha256" ||
			fail "direct and buffered data ($shape): the images differ"
		expect_fsck "$WORK/a" "direct data ($shape): e2fsck -fn clean"
	fi
	rm -f "$WORK/a" "$WORK/b"
done
# where the directory takes O_DIRECT, the data goes that way (io_submit seen)
if command -v strace >/dev/null 2>&1 &&
	dd if=/dev/zero of="$WORK/d" bs=4096 count=1 oflag=direct status=none 2>/dev/null; then
	strace -f -qq -e trace=io_submit -o "$WORK/strace" "$IMPRINT" create -q --size 96M \
		--files 300 --seed 28 --mkfs-options "-b 4096" "$WORK/a" 2>"$WORK/err"
	grep -q "io_submit" "$WORK/strace" && pass "file data written with O_DIRECT through AIO" ||
		fail "no io_submit in $WORK where O_DIRECT works: $(head -c 400 "$WORK/err")"
	IMPRINT_DIRECT_IO=0 strace -f -qq -e trace=io_submit -o "$WORK/strace" "$IMPRINT" create -q \
		--size 96M --files 300 --seed 28 --mkfs-options "-b 4096" "$WORK/b" 2>"$WORK/err"
	grep -q "io_submit" "$WORK/strace" && fail "IMPRINT_DIRECT_IO=0 still wrote with AIO" ||
		pass "IMPRINT_DIRECT_IO=0: file data through the page cache"
	rm -f "$WORK/a" "$WORK/b" "$WORK/d"
else
	pass "# SKIP O_DIRECT use: no strace, or O_DIRECT refused in $WORK"
fi
"$IMPRINT" create -q $small --seed 22 "$WORK/a" 2>/dev/null
"$IMPRINT" create -q $small --seed 23 "$WORK/b" 2>/dev/null
[ "$(sha "$WORK/a")" != "$(sha "$WORK/b")" ] && pass "another seed, other bytes" \
	|| fail "seeds 22 and 23 gave the same image"
rm -f "$WORK/a" "$WORK/b"

# --- an empty file system made by mke2fs is populated in place with --no-format
truncate -s 64M "$img.nf"
if mke2fs -q -F -t ext4 "$img.nf" >/dev/null 2>&1; then
	if "$IMPRINT" create -q --no-format --files 150 --seed 24 "$img.nf" 2>"$WORK/err"; then
		expect_fsck "$img.nf" "--no-format: e2fsck -fn clean"
	else
		fail "--no-format on an empty file system: $(head -c 400 "$WORK/err")"
	fi
	expect_status 1 "--no-format on a populated file system is refused" \
		"$IMPRINT" create -q --no-format --files 150 --seed 24 "$img.nf"
	expect_err "is not empty" "--no-format refusal says why"
fi
rm -f "$img.nf"

# --- what the backend cannot do is refused before anything is built
expect_status 1 "the quota feature is refused" \
	"$IMPRINT" create -q $small --seed 25 --mkfs-options "-O quota" "$WORK/refused"
expect_err "quota and project features are not supported" "the quota refusal says why"
expect_status 1 "a bad mke2fs option fails" \
	"$IMPRINT" create -q $small --seed 25 --mkfs-options "-O no_such_feature" "$WORK/refused"
expect_err "mke2fs failed" "the mke2fs failure is reported"

# --- a file over 4 GiB in a sparse 6 GiB image (5 GiB written: skipped without the room)
avail=$(df -Pk "$WORK" | awk 'NR == 2 { print $4 }')
if [ "${avail:-0}" -gt $((7 * 1024 * 1024)) ]; then
	build_fsck "ext4, one file over 4 GiB" "$img" --size 6G --files 2 --used 5G --seed 26 &&
		debugfs -R "ls -l /" "$img" 2>/dev/null | awk '$6 > 4294967296 { found = 1 } END { exit !found }' &&
		pass "the file over 4 GiB is there" || fail "no file over 4 GiB in the image"
	rm -f "$img"
	build_fsck "ext3, one file over 4 GiB (triple indirect)" "$img" --size 6G --files 2 --used 5G \
		--seed 26 --fs ext3
	rm -f "$img"
else
	pass "# SKIP a file over 4 GiB: less than 7 GiB free in $WORK"
fi

finish
