#!/bin/bash
# meta.sh - special files and extended attributes: e2fsck, determinism, measure, and (as root) the kernel's view
. "${srcdir:-.}/tests/lib.sh"

META=(--set special_file_share=0.03 --set xattr_selinux=targeted --set xattr_user_share=0.3
	--set acl_share=0.3)
ARGS=(--size 96M --seed 11 "${META[@]}")

# json FILE KEY...: the value at KEY.KEY... of a JSON file
json() {
	python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v[k]
print(v)' "$@"
}

# the plan: manifest types and the report agree
"$IMPRINT" plan "${ARGS[@]}" -o "$WORK/plan.tsv" 2>"$WORK/err" || fail "plan: $(cat "$WORK/err")"
"$IMPRINT" plan "${ARGS[@]}" --report --json >"$WORK/report.json" 2>"$WORK/err" ||
	fail "plan --report: $(cat "$WORK/err")"
declare -A want
for t in fifo socket chardev blockdev; do
	want[$t]=$(awk -F'\t' -v t="$t" '$2 == t' "$WORK/plan.tsv" | wc -l)
done
nspec=$((want[fifo] + want[socket] + want[chardev] + want[blockdev]))
if [ "${want[fifo]}" = "$(json "$WORK/report.json" fifos)" ] &&
	[ "${want[blockdev]}" = "$(json "$WORK/report.json" block_devices)" ] && [ $nspec -gt 3 ]; then
	pass "manifest and report agree on $nspec special files"
else
	fail "special files: manifest ${want[fifo]} ${want[socket]} ${want[chardev]} ${want[blockdev]}, report $(json "$WORK/report.json" fifos)"
fi
# device numbers are Linux's: sdXN is 8:16X+N, loopN 7:N, ttyN 4:N, null 1:3
bad=$(awk -F'\t' '$2 == "chardev" || $2 == "blockdev" {
	n = split($1, p, "/"); name = p[n]; split($6, d, ":")
	if (name ~ /^loop[0-9]+$/ && (d[1] != 7 || d[2] != substr(name, 5))) print name, $6
	if (name ~ /^sd[a-p][0-9]*$/ && (d[1] != 8 || d[2] != (index("abcdefghijklmnop", substr(name, 3, 1)) - 1) * 16 + substr(name, 4))) print name, $6
	if (name == "null" && $6 != "1:3") print name, $6
	if (name ~ /^tty[0-9]+$/ && (d[1] != 4 || d[2] != substr(name, 4))) print name, $6
}' "$WORK/plan.tsv")
[ -z "$bad" ] && pass "device nodes carry their names' major:minor" || fail "device numbers: $bad"

# images: e2fsck clean on ext2/3/4, 128- and 256-byte inodes; measure agrees with the plan
for fs in ext2 ext3 ext4; do
	for isz in 128 256; do
		img="$WORK/$fs-$isz.img"
		build_fsck "$fs, $isz-byte inodes" "$img" "${ARGS[@]}" --fs "$fs" \
			--mkfs-options "-I $isz" --json || continue
		cp "$WORK/out" "$WORK/sum.json"
		"$IMPRINT" measure --json "$img" >"$WORK/m.json" 2>"$WORK/err"
		# the summary's counts of what was written, against what measure reads back
		got=$(python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))["metadata"]
print(*(s[k] for k in ("xattr_inodes", "xattr_user", "xattr_security", "acl_access", "acl_default",
	"xattr_block_inodes", "xattr_blocks", "fifos", "sockets", "char_devices", "block_devices")))' "$WORK/sum.json")
		exp=$(python3 -c 'import json,sys
m = json.load(open(sys.argv[1])); x = m["xattrs"]
print(*(x[k] for k in ("inodes", "user", "security", "acl_access", "acl_default", "block_refs", "blocks")),
	*(m[k] for k in ("fifos", "sockets", "char_devices", "block_devices")))' "$WORK/m.json")
		[ "$got" = "$exp" ] && pass "$fs/$isz: the summary counts what measure reads back ($got)" ||
			fail "$fs/$isz: summary '$got', measure '$exp'"
		got="$(json "$WORK/m.json" xattrs inodes) $(json "$WORK/m.json" xattrs user) $(json "$WORK/m.json" xattrs security) $(json "$WORK/m.json" fifos) $(json "$WORK/m.json" sockets)"
		exp="$(json "$WORK/report.json" xattr_inodes) $(json "$WORK/report.json" xattr_user) $(json "$WORK/report.json" xattr_security) ${want[fifo]} ${want[socket]}"
		if [ "$got" = "$exp" ]; then
			pass "$fs/$isz: measure finds the planned labelled inodes, attributes and special files ($got)"
		else
			fail "$fs/$isz: measure '$got', plan '$exp'"
		fi
		blocks=$(json "$WORK/m.json" xattrs blocks)
		refs=$(json "$WORK/m.json" xattrs block_refs)
		if [ "$isz" = 128 ] && [ "$blocks" -lt "$refs" ] && [ "$refs" = "$(json "$WORK/m.json" xattrs inodes)" ]; then
			pass "$fs/128: every labelled inode has an xattr block; $refs of them share $blocks"
		elif [ "$isz" = 256 ] && [ "$(json "$WORK/m.json" xattrs in_inode)" -gt 0 ] && [ "$refs" -gt 0 ]; then
			pass "$fs/256: attributes in inodes, $refs inodes with blocks (too large for the inode), $blocks blocks"
		else
			fail "$fs/$isz: xattr blocks $blocks for $refs inodes"
		fi
		[ "$fs-$isz" = ext4-256 ] || rm -f "$img"
	done
done

# determinism: the same image with one writer thread and two
build_fsck "ext4 -j1" "$WORK/j1.img" -j1 "${ARGS[@]}" &&
	build_fsck "ext4 -j2" "$WORK/j2.img" -j2 "${ARGS[@]}" &&
	if cmp -s "$WORK/j1.img" "$WORK/j2.img" && cmp -s "$WORK/j1.img" "$WORK/ext4-256.img"; then
		pass "same seed, same image bytes with -j1 and -j2"
	else
		fail "-j1 and -j2 images differ"
	fi
rm -f "$WORK/j1.img" "$WORK/j2.img"

# preallocated space: ext4 only, unwritten extents and blocks beyond the end, as planned
PRE=(--size 256M --seed 7 --set prealloc_file_share=0.5)
"$IMPRINT" plan "${PRE[@]}" --report --json >"$WORK/pre.json"
for isz in 128 256; do
	build_fsck "preallocated, ext4, $isz-byte inodes" "$WORK/pre$isz.img" "${PRE[@]}" \
		--mkfs-options "-I $isz" || continue
	"$IMPRINT" measure --json "$WORK/pre$isz.img" >"$WORK/m.json"
	got="$(json "$WORK/m.json" prealloc_files) $(($(json "$WORK/m.json" unwritten_blocks) * 4096)) $(($(json "$WORK/m.json" beyond_blocks) * 4096))"
	exp="$(json "$WORK/pre.json" prealloc_files) $(json "$WORK/pre.json" unwritten_bytes) $(json "$WORK/pre.json" beyond_bytes)"
	if [ "$got" = "$exp" ] && [ "${exp%% *}" -gt 0 ]; then
		pass "ext4/$isz: measure finds the planned preallocated files, unwritten and beyond-the-end bytes ($got)"
	else
		fail "ext4/$isz: preallocation measured '$got', planned '$exp'"
	fi
done
rm -f "$WORK/pre128.img"
for fs in ext2 ext3; do
	expect_status 2 "$fs refuses preallocation before anything is written" "$IMPRINT" create -q --fs $fs "${PRE[@]}" "$WORK/pre-$fs.img"
	expect_err "needs unwritten extents, which $fs does not have; use fs = ext4 or prealloc_file_share = 0" "$fs: the error says why and what to do"
	[ -e "$WORK/pre-$fs.img" ] && fail "$fs: a partial image was left" || pass "$fs: no image left"
done
# ext4 made without extents is found only once mke2fs has run: refused then, nothing left
expect_status 1 "ext4 without extents refuses preallocation" "$IMPRINT" create -q --mkfs-options '-O ^extent,^64bit' "${PRE[@]}" "$WORK/pre-noext.img"
expect_err "has no unwritten extents; use --fs ext4 or prealloc_file_share=0" "ext4 without extents: the error says why"
[ -e "$WORK/pre-noext.img" ] && fail "ext4 without extents: a partial image was left" || pass "ext4 without extents: no image left"

# inode order: e2fsck, and measure's spread of a directory's inode numbers grows from dir order
declare -A spread
for o in dir creation shuffled; do
	build_fsck "inode_order=$o, ext4" "$WORK/io-$o.img" --size 128M --seed 5 --set inode_order=$o || continue
	"$IMPRINT" measure --json "$WORK/io-$o.img" >"$WORK/m.json"
	spread[$o]=$(json "$WORK/m.json" inode_spread_median)
done
if python3 -c 'import sys; d, c, s = map(float, sys.argv[1:]); sys.exit(not (c > 3 * d and s > 3 * d))' \
	"${spread[dir]}" "${spread[creation]}" "${spread[shuffled]}"; then
	pass "inode spread (median): dir ${spread[dir]}, creation ${spread[creation]}, shuffled ${spread[shuffled]}"
else
	fail "inode spread: dir ${spread[dir]}, creation ${spread[creation]}, shuffled ${spread[shuffled]}"
fi
build_fsck "inode_order=shuffled, ext2" "$WORK/io-ext2.img" --fs ext2 --size 128M --seed 5 --set inode_order=shuffled
build_fsck "inode_order=shuffled -j1" "$WORK/io-j1.img" -j1 --size 128M --seed 5 --set inode_order=shuffled &&
	cmp -s "$WORK/io-j1.img" "$WORK/io-shuffled.img" && pass "shuffled inodes: same bytes with -j1 and -j2" ||
	fail "shuffled inodes: -j1 and -j2 images differ"
rm -f "$WORK/io-dir.img" "$WORK/io-ext2.img" "$WORK/io-j1.img"

# aged directories: slack left by deleted entries lowers the fill of multi-block directories
DS=(--size 256M --seed 5 --files 20000 --used 100M --set special_dirs=1 --set special_dir_files=5000)
declare -A fill
for sl in 0 0.4; do
	build_fsck "dir_slack=$sl" "$WORK/ds.img" "${DS[@]}" --set dir_slack=$sl || continue
	"$IMPRINT" measure --json "$WORK/ds.img" >"$WORK/m.json"
	fill[$sl]=$(json "$WORK/m.json" dir_fill)
done
if python3 -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(not (0.5 * a < b < 0.8 * a))' \
	"${fill[0]}" "${fill[0.4]}"; then
	pass "directory fill ${fill[0]} without slack, ${fill[0.4]} with dir_slack=0.4"
else
	fail "directory fill ${fill[0]} without slack, ${fill[0.4]} with dir_slack=0.4"
fi

# aged directories: blocks split apart by the layout, ext2/3/4, 1 and 4 KiB blocks; the exact
# share of the directories of two blocks or more, found by measure
DF=("${DS[@]}" --set dir_frag_share=0.5)
for fs in ext2 ext3 ext4; do
	for bs in 1024 4096; do
		img="$WORK/df-$fs-$bs.img"
		isz=256
		[ $fs = ext2 ] && isz=128
		build_fsck "dir_frag_share=0.5, $fs, $bs-byte blocks, $isz-byte inodes" "$img" "${DF[@]}" \
			--fs $fs --mkfs-options "-b $bs -I $isz" --json || continue
		cp "$WORK/out" "$WORK/sum.json"
		"$IMPRINT" measure --json "$img" >"$WORK/m.json"
		n=$(json "$WORK/m.json" dir_multiblock)
		k=$(json "$WORK/m.json" dir_fragmented)
		[ "$(json "$WORK/sum.json" metadata dir_multiblock) $(json "$WORK/sum.json" metadata dir_fragmented)" = "$n $k" ] &&
			pass "$fs/$bs: the summary's split directories are measure's ($k of $n)" ||
			fail "$fs/$bs: summary $(json "$WORK/sum.json" metadata dir_fragmented) of $(json "$WORK/sum.json" metadata dir_multiblock), measure $k of $n"
		sc=$(json "$WORK/m.json" dir_layout_score)
		if [ "$n" -ge 10 ] && [ "$k" = "$(python3 -c "print(round(0.5 * $n))")" ] &&
			python3 -c "import sys; sys.exit(not 0 < $sc < 1)"; then
			pass "$fs/$bs: $k of $n directories of two blocks or more split, as asked (directory layout score $sc)"
		else
			fail "$fs/$bs: $k of $n directories split (score $sc), asked 0.5"
		fi
		[ "$fs-$bs" = ext4-1024 ] || [ "$fs-$bs" = ext3-4096 ] || rm -f "$img"
	done
done
# linear directories of several blocks: without dir_index
build_fsck "dir_frag_share=0.5, ext4 without dir_index" "$WORK/df-linear.img" "${DF[@]}" \
	--mkfs-options "-b 1024 -O ^dir_index" &&
	"$IMPRINT" measure --json "$WORK/df-linear.img" >"$WORK/m.json" &&
	n=$(json "$WORK/m.json" dir_multiblock) && k=$(json "$WORK/m.json" dir_fragmented) &&
	if [ "$n" -ge 10 ] && [ "$k" = "$(python3 -c "print(round(0.5 * $n))")" ]; then
		pass "linear directories: $k of $n split, as asked"
	else
		fail "linear directories: $k of $n split, asked 0.5"
	fi
build_fsck "dir_frag_share=0.5 -j1" "$WORK/df-j1.img" -j1 "${DF[@]}" --mkfs-options "-b 1024" &&
	build_fsck "dir_frag_share=0.5 -j2" "$WORK/df-j2.img" -j2 "${DF[@]}" --mkfs-options "-b 1024" &&
	if cmp -s "$WORK/df-j1.img" "$WORK/df-j2.img" && cmp -s "$WORK/df-j1.img" "$WORK/df-ext4-1024.img"; then
		pass "split directories: same seed, same image bytes with -j1 and -j2"
	else
		fail "split directories: -j1 and -j2 images differ"
	fi
rm -f "$WORK/df-j1.img" "$WORK/df-j2.img"
"$IMPRINT" measure --json "$WORK/ds.img" >"$WORK/m.json"
[ "$(json "$WORK/m.json" dir_fragmented)" = 0 ] && [ "$(json "$WORK/m.json" dir_layout_score)" = 1.0 ] &&
	pass "without dir_frag_share every directory is one run" ||
	fail "directories split without dir_frag_share: $(json "$WORK/m.json" dir_fragmented)"

# the /dev-like directory: a static /dev's nodes with their real numbers, modes and groups
DEVD=(--size 96M --seed 11 --set dev_dir=linux)
"$IMPRINT" plan "${DEVD[@]}" -o "$WORK/devd.tsv" 2>"$WORK/err" || fail "plan dev_dir: $(cat "$WORK/err")"
bad=$(awk -F'\t' '$1 ~ /^\/dev\// {
	n = $1; sub("^/dev/", "", n); want[n] = 1
	if (n == "null" && ($2 != "chardev" || $6 != "1:3" || $7 != "0666" || $8 != 0)) print
	if (n == "urandom" && $6 != "1:9") print
	if (n == "tty0" && ($6 != "4:0" || $7 != "0620" || $9 != 5)) print
	if (n == "ttyS1" && $6 != "4:65") print
	if (n == "sda1" && ($2 != "blockdev" || $6 != "8:1" || $7 != "0660" || $9 != 6)) print
	if (n == "sdb" && $6 != "8:16") print
	if (n == "loop7" && $6 != "7:7") print
	if (n == "nvme0n1p2" && $6 != "259:2") print
	if (n == "log" && $2 != "socket") print
	if (n == "initctl" && $2 != "fifo") print
} $1 == "/dev" && ($2 != "dir" || $7 != "0755" || $8 != 0) { print }
END { for (k in req) if (!(k in want)) print "missing " k }
BEGIN { split("null zero random urandom tty console ptmx tty0 ttyS0 sda sda1 loop0 sr0 nvme0n1 log initctl", r, " "); for (i in r) req[r[i]] = 1 }' "$WORK/devd.tsv")
ndev=$(grep -c '^/dev/' "$WORK/devd.tsv")
[ -z "$bad" ] && [ "$ndev" -gt 40 ] && pass "dev_dir=linux: /dev holds $ndev nodes with Linux's numbers, modes and groups" ||
	fail "dev_dir=linux: $ndev nodes; wrong: $bad"
"$IMPRINT" plan --size 96M --seed 11 -o "$WORK/nodev.tsv"
grep -v '^/dev' "$WORK/devd.tsv" | cmp -s - "$WORK/nodev.tsv" &&
	pass "dev_dir adds /dev and changes nothing else in the plan" || fail "dev_dir changes the rest of the plan"
declare -A dwant
for t in fifo socket chardev blockdev; do dwant[$t]=$(awk -F'\t' -v t="$t" '$2 == t' "$WORK/devd.tsv" | wc -l); done
for fs in ext2 ext3 ext4; do
	isz=256
	[ $fs = ext2 ] && isz=128
	build_fsck "dev_dir=linux, $fs, $isz-byte inodes" "$WORK/devd-$fs.img" "${DEVD[@]}" --fs $fs \
		--mkfs-options "-I $isz" || continue
	"$IMPRINT" measure --json "$WORK/devd-$fs.img" >"$WORK/m.json"
	got="$(json "$WORK/m.json" fifos) $(json "$WORK/m.json" sockets) $(json "$WORK/m.json" char_devices) $(json "$WORK/m.json" block_devices)"
	[ "$got" = "${dwant[fifo]} ${dwant[socket]} ${dwant[chardev]} ${dwant[blockdev]}" ] &&
		pass "$fs: measure counts the planned FIFOs, sockets, character and block devices ($got)" ||
		fail "$fs: measure '$got', planned ${dwant[fifo]} ${dwant[socket]} ${dwant[chardev]} ${dwant[blockdev]}"
	[ $fs = ext4 ] || rm -f "$WORK/devd-$fs.img"
done

# off by default: a plan without them has none
"$IMPRINT" plan --size 96M --seed 11 -o "$WORK/plain.tsv"
if ! awk -F'\t' '$2 ~ /fifo|socket|chardev|blockdev/' "$WORK/plain.tsv" | grep -q .; then
	pass "no special files by default"
else
	fail "special files without special_file_share"
fi

if [ "$(id -u)" -ne 0 ] || ! losetup -f >/dev/null 2>&1 || ! command -v getfattr >/dev/null; then
	echo "# the kernel's view skipped: needs root, a free loop device and getfattr (attr)"
	finish
fi
need_loops

# attrs DIR: getfattr of every inode the plan makes (hard links aside), in manifest order;
# xfs shows its own copy of an ACL to root as trusted.SGI_ACL_*: left out
attrs() {
	awk -F'\t' 'NR > 1 && $2 != "hardlink" { print "." $1 }' "$WORK/plan.tsv" |
		(cd "$1" && xargs -d '\n' getfattr -h -d -m - -e hex 2>/dev/null) | grep -v '^trusted\.SGI_ACL_'
}

# acls DIR: getfacl of every entry with more than the base ACL, in manifest order
acls() {
	awk -F'\t' 'NR > 1 && $2 != "hardlink" && $2 != "symlink" { print "." $1 }' "$WORK/plan.tsv" |
		(cd "$1" && xargs -d '\n' getfacl -s -p 2>/dev/null)
}

# the kernel's view of the ext4 image: find -type, getfattr, verify
attach_dev "$WORK/ext4-256.img" ro && mount_at "$WORK/ref" -o ro "$DEV" ||
	fail "mount the ext4 image"
got=""
for t in p s c b; do got="$got $(find "$WORK/ref" -type $t | wc -l)"; done
exp=" ${want[fifo]} ${want[socket]} ${want[chardev]} ${want[blockdev]}"
[ "$got" = "$exp" ] && pass "find -type p/s/c/b:$got, as planned" || fail "find -type:$got, planned$exp"
attrs "$WORK/ref" >"$WORK/ref.attrs"
nsel=$(grep -c '^security.selinux=' "$WORK/ref.attrs")
nuser=$(grep -c '^user\.' "$WORK/ref.attrs")
ninodes=$(awk -F'\t' 'NR > 1 && $2 != "hardlink"' "$WORK/plan.tsv" | wc -l)
if [ "$nsel" = "$ninodes" ] && [ "$nsel" = "$(json "$WORK/report.json" xattr_security)" ] &&
	[ "$nuser" = "$(json "$WORK/report.json" xattr_user)" ]; then
	pass "getfattr: every one of $ninodes inodes labelled, $nuser user attributes, as planned"
else
	fail "getfattr: $nsel labels, $nuser user attributes for $ninodes inodes; planned $(json "$WORK/report.json" xattr_security), $(json "$WORK/report.json" xattr_user)"
fi
# getfacl: entries with more than the base ACL, default ACLs
acls "$WORK/ref" >"$WORK/ref.acl"
nacl=$(grep -c '^# file:' "$WORK/ref.acl")
ndef=$(grep -c '^default:user::' "$WORK/ref.acl")
if [ "$nacl" = "$(json "$WORK/report.json" acl_access)" ] && [ "$ndef" = "$(json "$WORK/report.json" acl_default)" ] &&
	[ "$ndef" -gt 0 ]; then
	pass "getfacl: $nacl entries with ACLs, $ndef with default ACLs, as planned"
else
	fail "getfacl: $nacl ACLs, $ndef default; planned $(json "$WORK/report.json" acl_access), $(json "$WORK/report.json" acl_default)"
fi
verify_ok "" "${ARGS[@]}" "$WORK/ref"
# the check can fail: the plan of other labels does not match
if "$IMPRINT" verify "${ARGS[@]}" --set xattr_user_share=0.5 "$WORK/ref" >"$WORK/out" 2>&1; then
	fail "verify accepts another user-attribute plan"
else
	pass "verify rejects another user-attribute plan ($(grep -c attribute "$WORK/out") attribute mismatches shown)"
fi

# the kernel's view of inode order: every entry where planned, and inode numbers in birth order
for o in creation shuffled; do
	[ -e "$WORK/io-$o.img" ] || continue
	attach_dev "$WORK/io-$o.img" ro && mount_at "$WORK/io-$o" -o ro "$DEV" || { fail "mount io-$o"; continue; }
	verify_ok "inode_order=$o" --size 128M --seed 5 --set inode_order=$o "$WORK/io-$o"
done
# birth order: sorting regular files by inode number sorts them by birth time (statx btime)
if [ -d "$WORK/io-creation" ] &&
	find "$WORK/io-creation" -path '*/lost+found' -prune -o -type f -printf '%i\n' | sort -n >/dev/null; then
	inv=$(cd "$WORK/io-creation" && find . -path ./lost+found -prune -o -type f -print0 |
		xargs -0 stat -c '%i %W' | sort -n | awk 'NR > 1 && $2 < last { n++ } { last = $2 } END { print n + 0 }')
	[ "$inv" = 0 ] && pass "inode_order=creation: inode numbers follow birth times (stat %W)" ||
		fail "inode_order=creation: $inv files born before the file numbered before them"
fi

# the kernel reads the slack directories: every entry found (the last image is dir_slack=0.4)
if [ -e "$WORK/ds.img" ] && attach_dev "$WORK/ds.img" ro && mount_at "$WORK/ds" -o ro "$DEV"; then
	verify_ok "dir_slack=0.4" "${DS[@]}" --set dir_slack=0.4 "$WORK/ds"
fi

# the kernel's view of split directories: filefrag finds them in several extents, htree
# (lsattr's I) and linear; measure through the kernel agrees; verify finds every entry
for v in ext4-1024 ext3-4096 linear; do
	img="$WORK/df-$v.img"
	[ -e "$img" ] || continue
	attach_dev "$img" ro && mount_at "$WORK/df-$v" -o ro "$DEV" || { fail "mount df-$v"; continue; }
	"$IMPRINT" measure --json "$img" >"$WORK/m.json"
	fs=ext4
	[ $v = ext3-4096 ] && fs=ext3
	verify_ok "$v, split directories" "${DF[@]}" --fs $fs "$WORK/df-$v"
	[ $fs = ext4 ] || continue
	"$IMPRINT" measure --json "$WORK/df-$v" >"$WORK/mk.json"
	read -r nfr nidx < <(find "$WORK/df-$v" -path '*/lost+found' -prune -o -type d -print0 |
		xargs -0 sh -c 'for d; do n=$(filefrag "$d" | sed "s/.*: \([0-9]*\) extent.*/\1/"); \
			[ "$n" -gt 1 ] || continue; echo "$(lsattr -d "$d" | cut -c1-22)"; done' sh |
		awk '{ n++; if ($1 ~ /I/) i++ } END { print n + 0, i + 0 }')
	if [ $v = linear ]; then want_idx=0; else want_idx=$nfr; fi
	if [ "$nfr" = "$(json "$WORK/m.json" dir_fragmented)" ] && [ "$nfr" -gt 0 ] && [ "$nidx" = "$want_idx" ] &&
		[ "$(json "$WORK/mk.json" dir_fragmented)" = "$nfr" ]; then
		pass "$v: filefrag finds $nfr directories in several extents ($nidx of them htree), as measure does on the image and through the kernel"
	else
		fail "$v: filefrag $nfr split directories ($nidx htree), measure $(json "$WORK/m.json" dir_fragmented) on the image, $(json "$WORK/mk.json" dir_fragmented) mounted"
	fi
done

# the kernel's view of preallocation: filefrag -v's unwritten extents, verify
attach_dev "$WORK/pre256.img" ro && mount_at "$WORK/pre" -o ro "$DEV" || fail "mount the preallocated image"
unw=0
while IFS= read -r path; do
	n=$(filefrag -v "$WORK/pre$path" | awk '/unwritten/ { gsub(":", "", $0); split($0, a, " "); s += a[6] } END { print s + 0 }')
	unw=$((unw + n))
done < <("$IMPRINT" plan "${PRE[@]}" -o - | awk -F'\t' '$2 == "file" { print $1 }')
want_unw=$((($(json "$WORK/pre.json" unwritten_bytes) + $(json "$WORK/pre.json" beyond_bytes)) / 4096))
# stat: the preallocated files, and only they, have more blocks than their size needs: the
# planned bytes beyond the end, plus at most two blocks of extent tree each
read -r beyond nover < <("$IMPRINT" plan "${PRE[@]}" -o - | awk -F'\t' '$2 == "file" { print substr($1, 2) }' |
	(cd "$WORK/pre" && xargs -d '\n' stat -c '%b %B %s') |
	awk '{ over = $1 * $2 - int(($3 + 4095) / 4096) * 4096; if (over > 0) { s += over; n++ } } END { print s + 0, n + 0 }')
want_b=$(json "$WORK/pre.json" beyond_bytes)
if [ "$nover" = "$(json "$WORK/pre.json" prealloc_files)" ] && [ "$beyond" -ge "$want_b" ] &&
	[ "$beyond" -le $((want_b + nover * 8192)) ] && [ "$want_b" -gt 0 ]; then
	pass "stat: $nover files hold $beyond bytes beyond what their size needs ($want_b planned beyond the end, the rest extent tree blocks)"
else
	fail "stat: $nover files with $beyond bytes beyond their size; planned $(json "$WORK/pre.json" prealloc_files) files, $want_b bytes"
fi
[ "$unw" = "$want_unw" ] && pass "filefrag -v: $unw unwritten blocks, as planned (inside and beyond the end)" ||
	fail "filefrag -v: $unw unwritten blocks, planned $want_unw"
if "$IMPRINT" verify "${PRE[@]}" "$WORK/pre" >"$WORK/out" 2>&1; then
	pass "verify of the preallocated image: $(tail -1 "$WORK/out")"
else
	fail "verify of the preallocated image: $(head -5 "$WORK/out")"
fi
"$IMPRINT" create -q --size 256M --seed 7 "$WORK/nopre.img" && attach_dev "$WORK/nopre.img" ro &&
	mount_at "$WORK/nopre" -o ro "$DEV"
if "$IMPRINT" verify "${PRE[@]}" "$WORK/nopre" >"$WORK/out" 2>&1; then
	fail "verify accepts an image without the planned preallocation"
else
	pass "verify finds the planned preallocation missing ($(grep -c 'unwritten\|beyond' "$WORK/out") files)"
fi

# the kernel's view of /dev: every node's type, device number, mode and owner as planned
if [ -e "$WORK/devd-ext4.img" ] && attach_dev "$WORK/devd-ext4.img" ro && mount_at "$WORK/devd" -o ro "$DEV"; then
	awk -F'\t' '$1 ~ /^\/dev\// { t = $2 == "chardev" ? "character special file" : $2 == "blockdev" ? "block special file" : $2
		printf "%s %s %s %d %d %d\n", $1, t, $6 == "-" ? "0:0" : $6, $7 + 0, $8, $9 }' "$WORK/devd.tsv" |
		sort >"$WORK/devd.want"
	(cd "$WORK/devd" && find dev -mindepth 1 | sort | xargs stat -c '/%n %F %Hr:%Lr %a %u %g') | sort >"$WORK/devd.got"
	if diff "$WORK/devd.want" "$WORK/devd.got" >"$WORK/diff"; then
		pass "the kernel's stat of every /dev node equals the plan ($(wc -l <"$WORK/devd.got") nodes: type, major:minor, mode, owner)"
	else
		fail "/dev through the kernel differs: $(head -4 "$WORK/diff" | tr '\n' ' ')"
	fi
	verify_ok "dev_dir=linux" "${DEVD[@]}" "$WORK/devd"
fi

# dir_state DIR: its attributes, ACL, owner, mode, atime and mtime
dir_state() {
	(cd "$1" && getfattr -h -d -m - . 2>/dev/null | grep -v '^trusted\.SGI_ACL_'
		getfacl -p . 2>/dev/null; stat -c '%u %g %a %X %Y' .)
}

# undo_root FS MNT: a mounted-backend run that fails after its last step (the probe's test
# hook) leaves DIR as it was: its own attributes, ACL, label, owner, mode and times; a run
# that succeeds does change them (so the check can fail)
undo_root() {
	local d="$2/undo" before after
	mkdir -p "$d" && chown 1234:1234 "$d" && chmod 0750 "$d" &&
		setfattr -n user.keep -v 1 "$d" && setfattr -n user.DOSATTRIB -v orig "$d" &&
		setfattr -n security.selinux -v system_u:object_r:etc_t:s0 "$d" &&
		setfacl -m u:4321:r "$d" && touch -d '2020-01-02 03:04:05' "$d" ||
		{ fail "$1: set up DIR for the undo"; return; }
	before=$(dir_state "$d")
	if IMPRINT_MOUNTED_DENY=fail_last "$IMPRINT" create -q "${ARGS[@]}" --used 20M \
		--set xattr_user_share=1 "$d" 2>"$WORK/err"; then
		fail "$1: the test hook did not make the run fail"
		return
	fi
	after=$(dir_state "$d")
	if [ "$before" = "$after" ] && [ -z "$(ls -A "$d")" ] && grep -q "removed the" "$WORK/err"; then
		pass "$1: a failed run leaves DIR as it was (attributes, ACL, label, owner, mode, times; empty)"
	else
		fail "$1: after a failed run DIR differs: $(diff <(echo "$before") <(echo "$after") | head -6 | tr '\n' ' ') $(ls -A "$d" | head -3)"
	fi
	if "$IMPRINT" create -q "${ARGS[@]}" --used 20M --set xattr_user_share=1 "$d" 2>"$WORK/err" &&
		[ "$(dir_state "$d")" != "$before" ]; then
		pass "$1: a run that succeeds sets DIR's own metadata"
	else
		fail "$1: a successful run left DIR's metadata as it was, or failed: $(head -c 200 "$WORK/err")"
	fi
	rm -rf "$d"
}

# the mounted backend on xfs and btrfs: the same attributes and special files as the ext4 image
for fs in xfs btrfs; do
	command -v "mkfs.$fs" >/dev/null || { echo "# $fs skipped: no mkfs.$fs"; continue; }
	truncate -s 400M "$WORK/$fs.img"
	if [ $fs = xfs ]; then mkfs.xfs -q -f "$WORK/$fs.img"; else mkfs.btrfs -q -f "$WORK/$fs.img" >/dev/null; fi
	attach_dev "$WORK/$fs.img" && mount_at "$WORK/$fs" "$DEV" || { fail "$fs: mount"; continue; }
	if ! "$IMPRINT" create -q "${ARGS[@]}" "$WORK/$fs" 2>"$WORK/err"; then
		fail "$fs: create: $(head -c 300 "$WORK/err")"
		continue
	fi
	attrs "$WORK/$fs" >"$WORK/$fs.attrs"
	if diff "$WORK/ref.attrs" "$WORK/$fs.attrs" >"$WORK/diff"; then
		pass "$fs: getfattr of every entry equals the ext4 image's ($(grep -c '^# file' "$WORK/$fs.attrs") entries)"
	else
		fail "$fs: getfattr differs: $(head -4 "$WORK/diff")"
	fi
	if acls "$WORK/$fs" | diff "$WORK/ref.acl" - >"$WORK/diff"; then
		pass "$fs: getfacl of every entry equals the ext4 image's"
	else
		fail "$fs: getfacl differs: $(head -4 "$WORK/diff")"
	fi
	verify_ok "$fs" "${ARGS[@]}" "$WORK/$fs"
	got=""
	for t in p s c b; do got="$got $(find "$WORK/$fs" -type $t | wc -l)"; done
	[ "$got" = "$exp" ] && pass "$fs: find -type p/s/c/b:$got" || fail "$fs: find -type:$got, planned$exp"
	mkdir -p "$WORK/$fs/pre"
	if "$IMPRINT" create -q "${PRE[@]}" --used 100M "$WORK/$fs/pre" 2>"$WORK/err" &&
		"$IMPRINT" verify "${PRE[@]}" --used 100M "$WORK/$fs/pre" >"$WORK/out" 2>&1 &&
		grep -q "[1-9][0-9]* preallocated files" "$WORK/out"; then
		pass "$fs: preallocated files through fallocate, verified by FIEMAP: $(tail -1 "$WORK/out")"
	else
		fail "$fs: preallocation: $(head -c 300 "$WORK/err") $(head -3 "$WORK/out")"
	fi
	undo_root "$fs" "$WORK/$fs"
	mkdir -p "$WORK/$fs/devd"
	if "$IMPRINT" create -q "${DEVD[@]}" --used 20M "$WORK/$fs/devd" 2>"$WORK/err" &&
		"$IMPRINT" verify "${DEVD[@]}" --used 20M "$WORK/$fs/devd" >"$WORK/out" 2>&1 &&
		[ "$(find "$WORK/$fs/devd/dev" -type c | wc -l)" = "${dwant[chardev]}" ] &&
		[ "$(find "$WORK/$fs/devd/dev" -type b | wc -l)" = "${dwant[blockdev]}" ]; then
		pass "$fs: dev_dir=linux through mknod as root: $(tail -1 "$WORK/out")"
	else
		fail "$fs: dev_dir=linux: $(head -c 300 "$WORK/err") $(head -3 "$WORK/out")"
	fi
	rm -rf "$WORK/$fs/devd"
	mkdir -p "$WORK/$fs/nr" && chmod 1777 "$WORK/$fs/nr" && chmod o+x "$WORK" "$WORK/$fs"
	if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null &&
		setpriv --reuid=65534 --regid=65534 --clear-groups test -w "$WORK/$fs/nr"; then
		expect_status 1 "$fs: not root, dev_dir=linux is refused" setpriv --reuid=65534 --regid=65534 \
			--clear-groups "$IMPRINT" create -q "${DEVD[@]}" --used 20M "$WORK/$fs/nr"
		expect_err "device nodes (mknod needs root)" "$fs: the refusal says why"
		[ -z "$(ls -A "$WORK/$fs/nr")" ] && pass "$fs: nothing left after the refusal" ||
			fail "$fs: the refusal left $(ls -A "$WORK/$fs/nr" | head -3)"
	else
		echo "# $fs: the non-root refusal skipped: setpriv cannot reach $WORK/$fs/nr as nobody"
	fi
	# fragmented files are written by another path: preallocated all the same
	mkdir -p "$WORK/$fs/pre2"
	if "$IMPRINT" create -q "${PRE[@]}" --used 100M --set layout_score=0.8 "$WORK/$fs/pre2" 2>"$WORK/err" &&
		"$IMPRINT" verify "${PRE[@]}" --used 100M --set layout_score=0.8 "$WORK/$fs/pre2" >"$WORK/out" 2>&1; then
		pass "$fs: preallocated and fragmented: $(tail -1 "$WORK/out")"
	else
		fail "$fs: preallocated and fragmented: $(head -c 300 "$WORK/err") $(head -3 "$WORK/out")"
	fi
done
finish
