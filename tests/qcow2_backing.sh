#!/bin/bash
# qcow2_backing.sh - create --backing FILE: a qcow2 overlay on the image of the generation before.
# Generation N on a backing that holds generation N-1 of the plan (ext2/3/4) is evolved from a copy
# of it, so the overlay stores only what changed: its tree (tests/ext_tree.py, debugfs) is the one of
# generation N made directly, e2fsck -fn clean, and its own data is near imprint's prediction of the
# changed bytes and a small part of what a fresh layout costs.  A backing that does not hold N-1 (or
# --partition) gives generation N laid out afresh, with a note.  FILE's name is recorded as qemu
# resolves it; refusals come before any work; an interrupted create leaves nothing.
. "${srcdir:-.}/tests/lib.sh"

command -v qemu-img >/dev/null || { echo "1..0 # SKIP qemu-img (qemu-utils) not installed"; exit 77; }
command -v debugfs >/dev/null || { echo "1..0 # SKIP no debugfs"; exit 77; }
TREE="$(cd "${srcdir:-.}" && pwd)/tests/ext_tree.py"
IMPRINT=$(cd "$(dirname "$IMPRINT")" && pwd)/$(basename "$IMPRINT")

D=$WORK/d
mkdir -p "$D/sub"
cd "$D" || exit 1
opts=(--size 128M --seed 5 -q)

# own_data QCOW2: the bytes of data the overlay holds itself (qemu-img map, depth 0)
own_data() {
	qemu-img map --output=json "$1" | python3 -c '
import json, sys
print(sum(e["length"] for e in json.load(sys.stdin) if e["depth"] == 0 and e["data"]))'
}
# json_get FILE EXPR: a figure of the JSON summary in FILE (EXPR in python, the object is j)
json_get() { python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print($2)" "$1"; }
# same_tree_as WHAT QCOW2 RAW: the disk QCOW2's chain reads as has RAW's tree and is e2fsck -fn clean
same_tree_as() {
	rm -f flat.raw
	if ! qemu-img convert -O raw "$2" flat.raw; then fail "$1: qemu-img convert"; return; fi
	python3 "$TREE" flat.raw >t.over && python3 "$TREE" "$3" >t.raw ||
		{ fail "$1: ext_tree.py"; return; }
	if [ -s t.raw ] && cmp -s t.over t.raw; then pass "$1: the tree of $3 ($(wc -l <t.raw) entries)"
	else fail "$1: the trees differ: $(diff t.over t.raw | head -4)"; fi
	if e2fsck -fn flat.raw >fsck.out 2>&1; then pass "$1: e2fsck -fn clean"
	else fail "$1: e2fsck -fn: $(tail -3 fsck.out)"; fi
}

"$IMPRINT" create "${opts[@]}" g0.qcow2 || { fail "generation 0 as qcow2"; finish; }
"$IMPRINT" create "${opts[@]}" --generation 1 g1.img || { fail "generation 1 raw"; finish; }
if "$IMPRINT" create "${opts[@]}" --json --generation 1 --backing g0.qcow2 g1.qcow2 >g1.json; then
	pass "generation 1 as an overlay on generation 0"
else
	fail "create --backing failed"
	finish
fi
info=$(qemu-img info g1.qcow2)
grep -q '^backing file: g0.qcow2$' <<<"$info" && pass "the overlay records g0.qcow2 by its name (same directory)" ||
	fail "backing: $(grep backing <<<"$info")"
grep -q '^backing file format: qcow2$' <<<"$info" && pass "and its format" || fail "no backing format"
[ "$(json_get g1.json 'j["evolved_from_backing"]')" = True ] &&
	pass "the summary says generation 1 was evolved from the backing" || fail "not evolved: $(cat g1.json)"
same_tree_as "the overlay on generation 0" g1.qcow2 g1.img
qemu-img check -q g1.qcow2 && pass "qemu-img check: clean" || fail "qemu-img check of the overlay"
"$IMPRINT" verify --size 128M --seed 5 --generation 1 flat.raw >/dev/null &&
	pass "imprint verify --generation 1 of the overlay's disk" || fail "verify of the overlay's disk"

# what the overlay costs: near the changed bytes imprint predicts, far under a fresh layout's overlay
# (the raw generation 1 rebased onto generation 0 the way --backing did before it evolved)
pred=$(json_get g1.json '(j["generation"]["blocks"] - j["generation"]["blocks_kept"]) * 4096')
own=$(own_data g1.qcow2)
qemu-img create -q -f qcow2 -b g1.img -F raw fresh.qcow2 &&
	qemu-img rebase -q -f qcow2 -b g0.qcow2 -F qcow2 fresh.qcow2 && fresh=$(own_data fresh.qcow2)
echo "# generation 1 over 0: overlay data $own bytes, predicted changed data $pred, fresh layout $fresh"
[ "$pred" -gt 0 ] && [ "$own" -ge "$pred" ] && pass "the overlay holds at least the changed data ($own >= $pred)" ||
	fail "overlay data $own against predicted $pred"
[ "$own" -le $((2 * pred + 2 * 1048576)) ] &&
	pass "and at most twice it plus 2 MiB of metadata clusters" || fail "overlay data $own against predicted $pred"
[ "$own" -lt $((fresh / 10)) ] && pass "under a tenth of a fresh layout's overlay ($fresh)" ||
	fail "overlay data $own against $fresh laid out afresh"

# a series: generation 2 on 1, 3 on 2, each read through the chain as the generation made directly
"$IMPRINT" create "${opts[@]}" --generation 2 --backing g1.qcow2 g2.qcow2 &&
	"$IMPRINT" create "${opts[@]}" --json --generation 3 --backing g2.qcow2 g3.qcow2 >g3.json ||
	fail "the chain 0 <- 1 <- 2 <- 3"
"$IMPRINT" create "${opts[@]}" --generation 3 g3.img || fail "generation 3 raw"
same_tree_as "the chain 0 <- 1 <- 2 <- 3" g3.qcow2 g3.img
pred=$(json_get g3.json '(j["generation"]["blocks"] - j["generation"]["blocks_kept"]) * 4096')
own=$(own_data g3.qcow2)
[ "$own" -ge "$pred" ] && [ "$own" -le $((2 * pred + 2 * 1048576)) ] &&
	pass "generation 3's overlay holds $own bytes for $pred predicted" || fail "generation 3: $own against $pred"

# a backing that is not generation N-1: a note, and generation 3 laid out afresh (the raw disk exactly)
expect_status 0 "generation 3 on generation 0" "$IMPRINT" create "${opts[@]}" --json --generation 3 \
	--backing g0.qcow2 g3x.qcow2
expect_err "does not hold generation 2 of this plan" "a note says the backing is not generation 2"
expect_err "laid out afresh" "and that generation 3 is laid out afresh"
[ "$(json_get "$WORK/out" 'j["evolved_from_backing"]')" = False ] && pass "the summary says so" ||
	fail "evolved_from_backing: $(cat "$WORK/out")"
qemu-img compare -q g3x.qcow2 g3.img && pass "qemu-img compare: that overlay is the raw generation-3 disk" ||
	fail "g3x.qcow2 differs from g3.img"
# --partition: the file system behind a table is not evolved (a note), the disk still right
"$IMPRINT" create "${opts[@]}" --partition gpt p0.qcow2 &&
	"$IMPRINT" create "${opts[@]}" --partition gpt --generation 1 p1.img || fail "gpt generations"
expect_status 0 "generation 1 with --partition on its generation 0" "$IMPRINT" create "${opts[@]}" \
	--partition gpt --generation 1 --backing p0.qcow2 p1.qcow2
expect_err "with '--partition' the file system sits behind a partition table" "a note says why it is laid out afresh"
qemu-img compare -q p1.qcow2 p1.img && pass "and the overlay is the raw gpt disk" || fail "p1.qcow2 differs"

"$IMPRINT" create "${opts[@]}" --generation 1 --backing g0.qcow2 g1b.qcow2
[ "$(sha256sum <g1.qcow2)" = "$(sha256sum <g1b.qcow2)" ] && pass "the same options give the same overlay bytes" ||
	fail "two overlays of the same options differ"

# an overlay on an identical disk holds (almost) nothing: only differing clusters are stored
"$IMPRINT" create "${opts[@]}" --backing g0.qcow2 same.qcow2
full=$(stat -c %s g0.qcow2) small=$(stat -c %s same.qcow2)
qemu-img compare -q same.qcow2 g0.qcow2 && pass "an overlay of generation 0 on itself is the same disk" ||
	fail "same.qcow2 differs from g0.qcow2"
[ "$small" -lt $((full / 20)) ] && pass "and stores almost nothing ($small bytes against $full)" ||
	fail "an overlay on an identical disk is $small bytes (the image is $full)"
used=$(qemu-img map --output=json same.qcow2 | python3 -c '
import json, sys
print(sum(e["length"] for e in json.load(sys.stdin) if e["depth"] == 0 and e["data"]))')
[ "$used" -eq 0 ] && pass "no data cluster of its own (qemu-img map)" || fail "$used bytes of data in the overlay"

# another directory: the absolute path, which qemu resolves from anywhere
"$IMPRINT" create "${opts[@]}" --generation 1 --backing g0.qcow2 sub/g1.qcow2
grep -q "^backing file: $D/g0.qcow2\$" <<<"$(qemu-img info sub/g1.qcow2)" &&
	pass "from another directory: the absolute path" || fail "sub/: $(qemu-img info sub/g1.qcow2 | grep backing)"
qemu-img compare -q sub/g1.qcow2 g1.qcow2 && pass "which reads as the same disk as g1.qcow2" ||
	fail "sub/g1.qcow2 differs"

# refusals, before any work, nothing written
rm -f flat.raw t.over t.raw fsck.out
before=$(ls -R "$D" | sort)
expect_status 2 "a raw TARGET is refused" "$IMPRINT" create "${opts[@]}" --backing g0.qcow2 new.img
expect_err "needs '--format qcow2'" "the refusal says what it needs"
expect_status 2 "a backing that is not qcow2 is refused" "$IMPRINT" create "${opts[@]}" --backing g1.img new.qcow2
expect_err "is not a qcow2 image" "the refusal says why"
expect_status 2 "the backing as TARGET is refused, even with --force" \
	"$IMPRINT" create "${opts[@]}" --force --backing g0.qcow2 g0.qcow2
expect_err "is the backing image itself" "the refusal says why"
expect_status 2 "a backing of another size is refused" "$IMPRINT" create --size 64M --seed 5 -q --backing g0.qcow2 new.qcow2
expect_err "is a disk of 134217728 bytes but this plan makes one of 67108864" "the refusal gives both sizes"
expect_status 1 "a missing backing is refused" "$IMPRINT" create "${opts[@]}" --backing nope.qcow2 new.qcow2
expect_err "cannot open the backing image 'nope.qcow2'" "the refusal names it"
expect_status 2 "--backing is only for create" "$IMPRINT" plan --backing g0.qcow2
[ "$(ls -R "$D" | sort)" = "$before" ] && pass "nothing was written by the refusals" || fail "files changed"
qemu-img compare -q g0.qcow2 g0.qcow2 && sha0=$(sha256sum <g0.qcow2) &&
	"$IMPRINT" create "${opts[@]}" --generation 1 --backing g0.qcow2 g1c.qcow2 &&
	[ "$(sha256sum <g0.qcow2)" = "$sha0" ] && pass "the backing is left as it was" || fail "g0.qcow2 changed"

# interrupted once the backing is copied, before it is evolved: nothing left, the backing untouched
WITH_SIGINT=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])')
stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }
for sig in INT TERM; do
	IMPRINT_TEST_PAUSE_AT=backing-copied "${WITH_SIGINT[@]}" "$IMPRINT" create "${opts[@]}" \
		--generation 1 --backing g0.qcow2 int.qcow2 >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	wait_until "$pid" stopped "$pid"
	if stopped "$pid"; then
		kill -"$sig" "$pid"
		kill -CONT "$pid"
		wait "$pid"
		rc=$?
		[ "$rc" -ne 0 ] && grep -q "interrupted (SIG$sig)" "$WORK/err" &&
			pass "SIG$sig after the backing is copied: exit $rc, says it was interrupted" ||
			fail "SIG$sig: exit $rc: $(head -c 300 "$WORK/err")"
		[ ! -e int.qcow2 ] && [ "$(leftovers "$D")" -eq 0 ] && pass "and leaves no image nor temporary file" ||
			fail "SIG$sig left: $(ls -A "$D" | grep -e int -e imprint)"
	else
		kill -KILL "$pid" 2>/dev/null
		wait "$pid"
		fail "SIG$sig: never stopped after copying the backing: $(head -c 300 "$WORK/err")"
	fi
done
[ "$(sha256sum <g0.qcow2)" = "$sha0" ] && pass "the backing is left as it was" || fail "g0.qcow2 changed"

finish
