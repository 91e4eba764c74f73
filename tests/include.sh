#!/bin/sh
# include.sh - --include SRC[:DEST]: what the plan shows, the budget it takes, and the refusals
# (what the backends write: tests/include_write.sh)
. "${srcdir:-.}/tests/lib.sh"

T=$WORK/tree
mkdir -p "$T/sub"
printf 'hello\n' >"$T/small"
: >"$T/empty"
head -c 3145728 /dev/urandom >"$T/big"
ln -s small "$T/link"
ln "$T/small" "$T/sub/hard"
chmod 0750 "$T/sub"
touch -d @1600000000 "$T/small"

# the manifest lists every entry, sorted, links kept as links
expect_status 0 "plan with an include" $IMPRINT plan --size 64M --include "$T:/opt/bench"
grep -A100 '^#included' "$WORK/out" | tail -n +2 | cut -f1,2,6 >"$WORK/inc"
printf '/opt\tdir\t-\n/opt/bench\tdir\t-\n/opt/bench/big\tfile\t-\n/opt/bench/empty\tfile\t-\n/opt/bench/link\tsymlink\tsmall\n/opt/bench/small\tfile\t-\n/opt/bench/sub\tdir\t-\n/opt/bench/sub/hard\thardlink\t/opt/bench/small\n' >"$WORK/want"
if cmp -s "$WORK/inc" "$WORK/want"; then pass "included entries in path order"; else fail "included entries: $(cat "$WORK/inc")"; fi
sz=$(awk -F'\t' '$1 == "/opt/bench/big" { print $3 }' "$WORK/out")
[ "$sz" = "$(stat -c %s "$T/big")" ] && pass "size of a multi-MiB file" || fail "size $sz"
mode=$(awk -F'\t' '$1 == "/opt/bench/sub" { print $7 }' "$WORK/out")
[ "$mode" = 0750 ] && pass "mode kept" || fail "mode $mode"
mt=$(awk -F'\t' '$1 == "/opt/bench/small" { print $10 }' "$WORK/out")
[ "${mt%%.*}" = 1600000000 ] && pass "mtime kept" || fail "mtime $mt"
if awk -F'\t' '/^\// && !/^\/opt/ { if ($1 == "/opt" || index($1, "/opt/") == 1) bad = 1 } END { exit bad }' "$WORK/out"; then
	pass "the plan leaves the include's root name free"; else fail "plan entry under /opt"; fi

# normalised
expect_status 0 "plan --include-normalize" $IMPRINT plan --size 64M --include "$T:/opt/bench" --include-normalize
if awk -F'\t' 'f && ($8 != 0 || $9 != 0 || ($2 == "dir" && $7 != "0755") || ($2 == "file" && $7 != "0644") || $10 != "1767225600.000000000") { bad = 1 } /^#included/ { f = 1 } END { exit bad }' "$WORK/out"; then
	pass "normalised: root:root, 0644/0755, time_ref"; else fail "normalised entries differ"; fi

# the budget: the included bytes come off 'used'
$IMPRINT plan --size 64M --report >"$WORK/r0" 2>&1
$IMPRINT plan --size 64M --report --include "$T:/opt/bench" >"$WORK/r1" 2>&1
b0=$(awk '$1 == "bytes" { print $2 }' "$WORK/r0")
b1=$(awk '$1 == "bytes" { print $2 }' "$WORK/r1")
if [ -n "$b0" ] && [ -n "$b1" ] && [ "$b1" -lt "$b0" ]; then pass "plan's bytes lowered by the include ($b0 -> $b1)"; else fail "bytes $b0 -> $b1"; fi
# same line, same manifest
$IMPRINT plan --size 64M --include "$T:/opt/bench" >"$WORK/m1"
$IMPRINT plan --size 64M --include "$T:/opt/bench" >"$WORK/m2"
cmp -s "$WORK/m1" "$WORK/m2" && pass "deterministic manifest" || fail "manifests differ"
# without --include: the manifest has no included part
$IMPRINT plan --size 64M >"$WORK/m0"
grep -q '^#included' "$WORK/m0" && fail "included header without --include" || pass "no included part without --include"

# refusals
expect_status 2 "includes larger than size" $IMPRINT plan --size 2M --include "$T:/big" -o "$WORK/m.txt"
expect_err "included files (--include) alone need" "names the includes that do not fit"
expect_status 2 "used and includes above size" $IMPRINT plan --size 4M --used 2M --include "$T:/big" -o "$WORK/m.txt"
expect_err "and the included files" "names used and the includes"
expect_status 2 "missing SRC" $IMPRINT plan --include "$WORK/nope:/x" -o "$WORK/m.txt"
expect_err "cannot read '$WORK/nope'" "names the missing SRC"
expect_status 2 "relative DEST" $IMPRINT plan --include "$T:opt" -o "$WORK/m.txt"
expect_err "must be an absolute path" "says DEST must be absolute"
expect_status 2 "DEST with .." $IMPRINT plan --include "$T:/a/../b" -o "$WORK/m.txt"
expect_err "'..'" "says '..' is refused"
expect_status 2 "DEST /" $IMPRINT plan --include "$T:/" -o "$WORK/m.txt"
expect_status 2 "colliding DESTs" $IMPRINT plan --include "$T:/x" --include "$T/sub:/x/sub" -o "$WORK/m.txt"
expect_err "overlaps" "names the overlap"
expect_status 2 "DEST in lost+found" $IMPRINT plan --include "$T:/lost+found/x" -o "$WORK/m.txt"
mkfifo "$WORK/fifo.d" 2>/dev/null || mkdir "$WORK/fifo.d"
mkdir -p "$WORK/sp" && mkfifo "$WORK/sp/f"
expect_status 2 "a FIFO inside SRC" $IMPRINT plan --include "$WORK/sp:/sp" -o "$WORK/m.txt"
expect_err "is a FIFO: special files" "says a FIFO is refused"
if [ "$(id -u)" -ne 0 ]; then
	mkdir -p "$WORK/un" && echo x >"$WORK/un/f" && chmod 000 "$WORK/un/f"
	expect_status 2 "unreadable file" $IMPRINT plan --include "$WORK/un:/un" -o "$WORK/m.txt"
	expect_err "Permission denied" "says it is unreadable"
fi
expect_status 2 "--include on measure" $IMPRINT measure --include "$T" "$T"
expect_err "only for 'create', 'plan' and 'verify'" "names the commands that take it"
# a refused include on create: nothing written
expect_status 2 "create with a missing SRC" $IMPRINT create --size 64M --include "$WORK/nope:/opt" "$WORK/x.img"
[ -e "$WORK/x.img" ] && fail "an image was written" || pass "no image written"

finish
