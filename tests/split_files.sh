#!/bin/bash
# split_files.sh - files of 16 MiB and more made in parts by every worker: -j1 and -j2 give the same bytes
. "${srcdir:-.}/tests/lib.sh"

# a plan with several files above 16 MiB (an xlsx, html, mp3, dll and others)
ARGS=(--backend mounted --size 4G --seed 7 -q)

# tree_sum DIR: sha256 of every file's path and bytes
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1); }

mkdir "$WORK/j1" "$WORK/j2"
big=$("$IMPRINT" plan "${ARGS[@]:2:4}" | awk -F'\t' '$2 == "file" && $3 > 16777216' | wc -l)
if [ "$big" -ge 3 ]; then pass "plan has $big files above 16 MiB"; else fail "plan has $big files above 16 MiB"; fi
for j in 1 2; do
	if "$IMPRINT" create "${ARGS[@]}" -j$j "$WORK/j$j" 2>"$WORK/err$j"; then
		pass "create -j$j"
	else
		fail "create -j$j: $(head -c 300 "$WORK/err$j")"
	fi
done
s1=$(tree_sum "$WORK/j1") s2=$(tree_sum "$WORK/j2")
if [ "$s1" = "$s2" ]; then pass "-j1 and -j2 trees identical ($s1)"; else fail "-j1 $s1, -j2 $s2"; fi
# the largest file, a ZIP container, read back by unzip's CRC check
x=$(find "$WORK/j2" -type f -size +400M | head -1)
if [ -n "$x" ] && unzip -tqq "$x" >/dev/null 2>&1; then pass "unzip -t $(basename "$x")"; else fail "unzip -t of the largest file '$x'"; fi
finish
