#!/bin/bash
# split_files.sh - files of 16 MiB and more made in parts by every worker: -j1 and -j2 give the same bytes (mounted and ext4 backends)
. "${srcdir:-.}/tests/lib.sh"

# a plan with several files above 16 MiB (an xlsx, html, mp3, dll and others)
ARGS=(--backend mounted --size 4G --seed 7 -q)

# tree_sum DIR: sha256 of every file's path and bytes
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1); }

mkdir "$WORK/j1" "$WORK/j2"
big=$("$IMPRINT" plan "${ARGS[@]:2:4}" | awk -F'\t' '$2 == "file" && $3 > 16777216' | wc -l)
if [ "$big" -ge 3 ]; then pass "plan has $big files above 16 MiB"; else fail "plan has $big files above 16 MiB"; fi
# create_j WHAT J TARGET ARGS...: imprint create with -jJ, one check
create_j() {
	local what=$1 j=$2 target=$3
	shift 3
	if "$IMPRINT" create "$@" -j"$j" "$target" 2>"$WORK/err$j"; then
		pass "$what -j$j"
	else
		fail "$what -j$j: $(head -c 300 "$WORK/err$j")"
	fi
}
for j in 1 2; do create_j create $j "$WORK/j$j" "${ARGS[@]}"; done
s1=$(tree_sum "$WORK/j1") s2=$(tree_sum "$WORK/j2")
if [ "$s1" = "$s2" ]; then pass "-j1 and -j2 trees identical ($s1)"; else fail "-j1 $s1, -j2 $s2"; fi
# the largest file, a ZIP container, read back by unzip's CRC check
x=$(find "$WORK/j2" -type f -size +400M | head -1)
if [ -n "$x" ] && unzip -tqq "$x" >/dev/null 2>&1; then pass "unzip -t $(basename "$x")"; else fail "unzip -t of the largest file '$x'"; fi

# the ext4 backend: the same plan as images, -j1 and -j2 byte for byte
rm -rf "$WORK/j1" "$WORK/j2"
for j in 1 2; do create_j "ext4 create" $j "$WORK/e$j.img" "${ARGS[@]:2}"; done
s1=$(sha "$WORK/e1.img") s2=$(sha "$WORK/e2.img")
if [ "$s1" = "$s2" ]; then pass "ext4 -j1 and -j2 images identical ($s1)"; else fail "ext4 -j1 $s1, -j2 $s2"; fi
if e2fsck -fn "$WORK/e2.img" >"$WORK/fsck" 2>&1; then pass "e2fsck -fn clean"; else fail "e2fsck: $(tail -5 "$WORK/fsck")"; fi
# the xlsx (ZIP CRC-32s written by the fixup) read out of the image by debugfs
x=$("$IMPRINT" plan "${ARGS[@]:2:4}" | awk -F'\t' '$2 == "file" && $3 > 400000000 { print $1; exit }')
rm -f "$WORK/e1.img"
if [ -n "$x" ] && debugfs -R "dump \"$x\" $WORK/big" "$WORK/e2.img" >/dev/null 2>&1 &&
	[ "$(stat -c %s "$WORK/big")" -gt 400000000 ] && unzip -tqq "$WORK/big" >/dev/null 2>&1; then
	pass "unzip -t of $(basename "$x") from the -j2 image"
else
	fail "unzip -t of the largest file '$x' from the -j2 image"
fi
finish
