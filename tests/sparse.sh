#!/bin/bash
# sparse.sh - sparse files: holes never allocated (e2fsck), read back through the kernel (SEEK_HOLE, FIEMAP, verify)
. "${srcdir:-.}/tests/lib.sh"

# json KEY FILE: a top-level number of a JSON object
json() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[2]))[sys.argv[1]])' "$1" "$2"
}

# --- parameters: bad values are refused with what is allowed
expect_status 2 "sparse_hole_share 1 is refused" "$IMPRINT" config --set sparse_hole_share=1
expect_err "sparse_hole_share" "the error names sparse_hole_share"
expect_status 2 "sparse_file_share 1.5 is refused" "$IMPRINT" config --set sparse_file_share=1.5
expect_err "sparse_file_share" "the error names sparse_file_share"

# build NAME CREATE-ARGS...: create $WORK/img with --json, e2fsck it; sets SPARSE, HOLES, BS
build() {
	local what=$1
	shift
	rm -f "$WORK/img" "$WORK/ext"
	if ! "$IMPRINT" create -q --json --size 256M "$@" --extents "$WORK/ext" "$WORK/img" \
		>"$WORK/create.json" 2>"$WORK/err"; then
		fail "$what: create failed: $(head -c 300 "$WORK/err")"
		return 1
	fi
	SPARSE=$(json sparse_files "$WORK/create.json")
	HOLES=$(json hole_blocks "$WORK/create.json")
	BS=$(json block_size "$WORK/create.json")
	if e2fsck -fn "$WORK/img" >"$WORK/fsck" 2>&1; then
		pass "$what: e2fsck -fn clean with $SPARSE sparse files, $HOLES hole blocks of $BS bytes"
	else
		fail "$what: e2fsck: $(grep -v '^Pass' "$WORK/fsck" | head -5)"
	fi
}

SET=(--seed 7 --set sparse_file_share=0.6 --set sparse_hole_share=0.5)
for fs in ext4 ext3 ext2; do
	build "$fs" --fs "$fs" "${SET[@]}" || continue
	if [ "$SPARSE" -ge 5 ] && [ "$HOLES" -gt 0 ]; then
		pass "$fs: the plan made files sparse ($SPARSE files, $HOLES blocks)"
	else
		fail "$fs: only $SPARSE sparse files, $HOLES hole blocks"
	fi
	cp "$WORK/create.json" "$WORK/$fs.json"
	cp "$WORK/img" "$WORK/$fs.img"
	cp "$WORK/ext" "$WORK/$fs.ext"
done

# the plan report says beforehand what create leaves unwritten
if "$IMPRINT" plan --report --json --size 256M "${SET[@]}" >"$WORK/plan.json" \
	2>"$WORK/err"; then
	pf=$(json sparse_files "$WORK/plan.json")
	pb=$(json sparse_hole_bytes "$WORK/plan.json")
	cf=$(json sparse_files "$WORK/ext4.json")
	cb=$(($(json hole_blocks "$WORK/ext4.json") * $(json block_size "$WORK/ext4.json")))
	[ "$pf $pb" = "$cf $cb" ] && pass "plan --report: $pf sparse files, $pb hole bytes, as created" ||
		fail "plan --report: $pf sparse files, $pb hole bytes; create: $cf, $cb"
else
	fail "plan --report failed: $(head -c 300 "$WORK/err")"
fi

# fewer blocks than the same plan without holes: the holes are not allocated
build "ext4 without holes" --seed 7 || true
dense=$(json blocks_used "$WORK/create.json")
sparse=$(json blocks_used "$WORK/ext4.json")
holes=$(json hole_blocks "$WORK/ext4.json")
if [ "$sparse" -lt "$dense" ] && [ $((dense - sparse)) -le "$holes" ] &&
	[ $((dense - sparse)) -ge $((holes - 64)) ]; then
	pass "blocks used $sparse with holes, $dense without: $((dense - sparse)) fewer for $holes hole blocks"
else
	fail "blocks used $sparse with holes, $dense without, $holes hole blocks"
fi

# 1 KiB blocks: holes are still whole blocks
build "ext4, 1 KiB blocks" "${SET[@]}" --mkfs-options "-b 1024" || true

# with fragmentation on target, and aged: still clean, the score still met
for lay in "ext4:--set layout_score=0.6" "ext2:--set layout_score=0.6" "ext4:--set age_rounds=20"; do
	build "${lay%%:*}, sparse, ${lay#*:}" --fs "${lay%%:*}" "${SET[@]}" ${lay#*:} || continue
	score=$(json layout_score "$WORK/create.json")
	case $lay in
	*layout_score*)
		if python3 -c "import sys; sys.exit(abs($score - 0.6) > 0.005)"; then
			pass "${lay%%:*}: layout score $score for a target of 0.6 with holes"
		else
			fail "${lay%%:*}: layout score $score for a target of 0.6 with holes"
		fi ;;
	esac
done

# the same seed and parameters give the same image, byte for byte
build "ext4 again" "${SET[@]}" || true
if cmp -s "$WORK/img" "$WORK/ext4.img"; then
	pass "the same seed gives the same sparse image"
else
	fail "the same seed gave another image"
fi

# --- through the kernel (root only)
if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null || ! losetup -f >/dev/null 2>&1; then
	pass "# SKIP kernel checks: need root and a free loop device"
	finish
fi
loop_init

for fs in ext4 ext3 ext2; do
	[ -f "$WORK/$fs.img" ] || continue
	LOOP=$(losetup -f --show -r "$WORK/$fs.img") || { fail "$fs: losetup"; continue; }
	if ! mount -t "$fs" -o ro "$LOOP" "$MNT" 2>"$WORK/err"; then
		fail "$fs: the kernel refuses to mount it: $(head -c 300 "$WORK/err")"
		loop_cleanup
		continue
	fi
	# imprint verify: bytes (zeros in holes), holes by SEEK_HOLE/SEEK_DATA, physical runs
	if "$IMPRINT" verify --fs "$fs" --size 256M "${SET[@]}" --extents "$WORK/$fs.ext" "$MNT" \
		>"$WORK/out" 2>&1; then
		pass "$fs: verify: $(tail -1 "$WORK/out")"
	else
		fail "$fs: verify: $(head -5 "$WORK/out")"
	fi
	# the plan without holes does not match: verify can fail on holes
	if "$IMPRINT" verify --fs "$fs" --size 256M --seed 7 "$MNT" >"$WORK/out" 2>&1; then
		fail "$fs: verify accepts the plan without holes"
	elif grep -q "a hole at byte" "$WORK/out"; then
		pass "$fs: verify of the plan without holes finds the holes"
	else
		fail "$fs: verify of the plan without holes fails, but not on holes: $(head -3 "$WORK/out")"
	fi
	# the kernel's own view: files with holes and hole bytes, by SEEK_DATA/SEEK_HOLE
	got=$(python3 - "$MNT" <<'EOF'
import os, sys
files = holes = 0
for root, dirs, names in os.walk(sys.argv[1]):
    for n in names:
        p = os.path.join(root, n)
        if os.path.islink(p) or not os.path.isfile(p):
            continue
        size = os.path.getsize(p)
        fd = os.open(p, os.O_RDONLY)
        pos = h = 0
        while pos < size:
            hs = os.lseek(fd, pos, os.SEEK_HOLE)
            if hs >= size:
                break
            try:
                ds = os.lseek(fd, hs, os.SEEK_DATA)
            except OSError:
                ds = size
            h += ds - hs
            pos = ds
        os.close(fd)
        if h:
            files += 1
            holes += h
print(files, holes)
EOF
)
	want="$(json sparse_files "$WORK/$fs.json") $(($(json hole_blocks "$WORK/$fs.json") * $(json block_size "$WORK/$fs.json")))"
	if [ "$got" = "$want" ]; then
		pass "$fs: the kernel sees $got (sparse files, hole bytes) as created"
	else
		fail "$fs: the kernel sees '$got' (sparse files, hole bytes), create said '$want'"
	fi
	# filefrag -v shows a logical gap in a sparse file
	f=$(python3 - "$MNT" <<'EOF'
import os, sys
for root, dirs, names in os.walk(sys.argv[1]):
    for n in sorted(names):
        p = os.path.join(root, n)
        if os.path.isfile(p) and not os.path.islink(p) and os.stat(p).st_blocks * 512 < os.path.getsize(p) - 65536:
            print(p)
            sys.exit(0)
EOF
)
	if [ -n "$f" ] && filefrag -v "$f" >"$WORK/ff" 2>&1; then
		gaps=$(awk '/^ *[0-9]+:/ { gsub(/[:.]/, " "); l = $2; if (n++ && l != end + 1) g++; end = $3 } END { print g + 0 }' "$WORK/ff")
		[ "$gaps" -ge 1 ] && pass "$fs: filefrag -v shows $gaps logical gaps in a sparse file" \
			|| fail "$fs: filefrag -v shows no gap in $f: $(head -8 "$WORK/ff")"
	else
		fail "$fs: no sparse file to look at with filefrag"
	fi
	loop_cleanup
done
finish
