#!/bin/bash
# qcow2_backing.sh - create --backing FILE: a qcow2 overlay on the image of the generation before that
# qemu-img reads as the same disk as a raw image of the same options, stores only clusters that differ,
# records FILE's name as qemu resolves it, and is refused before any work where it cannot be made
. "${srcdir:-.}/tests/lib.sh"

command -v qemu-img >/dev/null || { echo "1..0 # SKIP qemu-img (qemu-utils) not installed"; exit 77; }

D=$WORK/d
mkdir -p "$D/sub"
cd "$D" || exit 1
opts=(--size 128M --seed 5 -q)

"$IMPRINT" create "${opts[@]}" g0.qcow2 || { fail "generation 0 as qcow2"; finish; }
"$IMPRINT" create "${opts[@]}" --generation 1 g1.img || { fail "generation 1 raw"; finish; }
if "$IMPRINT" create "${opts[@]}" --generation 1 --backing g0.qcow2 g1.qcow2; then
	pass "generation 1 as an overlay on generation 0"
else
	fail "create --backing failed"
	finish
fi
info=$(qemu-img info g1.qcow2)
grep -q '^backing file: g0.qcow2$' <<<"$info" && pass "the overlay records g0.qcow2 by its name (same directory)" ||
	fail "backing: $(grep backing <<<"$info")"
grep -q '^backing file format: qcow2$' <<<"$info" && pass "and its format" || fail "no backing format"
qemu-img compare -q g1.qcow2 g1.img && pass "qemu-img compare: the overlay is the raw generation-1 disk" ||
	fail "qemu-img compare: the overlay differs from the raw image"
qemu-img check -q g1.qcow2 && pass "qemu-img check: clean" || fail "qemu-img check of the overlay"
"$IMPRINT" verify --size 128M --seed 5 --generation 1 g1.img >/dev/null && pass "imprint verify of the raw twin" ||
	fail "verify of the raw generation 1"

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
qemu-img compare -q sub/g1.qcow2 g1.img && pass "which reads as the same disk" || fail "sub/g1.qcow2 differs"

# refusals, before any work, nothing written
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

finish
