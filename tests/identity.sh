#!/bin/bash
# identity.sh - UUIDs, hash seeds and GPT GUIDs from the whole configuration and the seed, --uuid, duplicate-UUID mounts, SOURCE_DATE_EPOCH
. "${srcdir:-.}/tests/lib.sh"

field() { dumpe2fs -h "$1" 2>/dev/null | sed -n "s/^$2: *//p"; }
ids() { echo "$(field "$1" 'Filesystem UUID') $(field "$1" 'Directory Hash Seed')"; }
A=(--size 64M --used 4M)

# same configuration and seed: the same bytes
"$IMPRINT" create -q -j2 "${A[@]}" "$WORK/a1.img" && "$IMPRINT" create -q -j2 "${A[@]}" "$WORK/a2.img" ||
	fail "create a1/a2"
cmp -s "$WORK/a1.img" "$WORK/a2.img" && pass "same configuration and seed: identical images" ||
	fail "same configuration and seed: the images differ"
base=$(ids "$WORK/a1.img")

# any difference: another UUID and another hash seed (each against the base, and each other)
declare -A seen=(["$base"]=base)
for v in "--size 68M" "--seed 2" "--set owner_users=4" "--set time_ref=1767225601" "--fs ext2" "--set inode_ratio=8K"; do
	# shellcheck disable=SC2086
	if ! "$IMPRINT" create -q -j2 "${A[@]}" $v "$WORK/v.img" 2>"$WORK/err"; then
		fail "$v: $(head -c 300 "$WORK/err")"
		continue
	fi
	e2fsck -fn "$WORK/v.img" >/dev/null 2>&1 && pass "$v: e2fsck -fn clean" || fail "$v: e2fsck -fn"
	got=$(ids "$WORK/v.img")
	u=${got% *} h=${got#* }
	if [ -n "${seen[$got]-}" ] || [ "$u" = "${base% *}" ] || [ "$h" = "${base#* }" ]; then
		fail "$v: UUID and hash seed $got not new (${seen[$got]-base})"
	else
		pass "$v: another UUID ($u) and hash seed"
	fi
	seen[$got]=$v
	rm -f "$WORK/v.img"
done

# --uuid pins the file system's UUID; a malformed one is refused
U=0123abcd-4567-89ab-cdef-0123456789ab
expect_status 0 "--uuid $U" "$IMPRINT" create -q -j2 "${A[@]}" --uuid "${U^^}" "$WORK/u.img"
[ "$(field "$WORK/u.img" 'Filesystem UUID')" = "$U" ] && pass "--uuid: dumpe2fs shows $U" ||
	fail "--uuid: dumpe2fs shows $(field "$WORK/u.img" 'Filesystem UUID')"
e2fsck -fn "$WORK/u.img" >/dev/null 2>&1 && pass "--uuid: e2fsck -fn clean" || fail "--uuid: e2fsck -fn"
"$IMPRINT" config --uuid "$U" | grep -qx "uuid = $U" && pass "--uuid: config prints it" ||
	fail "--uuid: config does not print 'uuid = $U'"
for bad in nope 0123abcd-4567-89ab-cdef-0123456789a 0123abcd+4567-89ab-cdef-0123456789ab 0123abcd-4567-89ab-cdef-0123456789xy; do
	expect_status 2 "--uuid '$bad' refused" "$IMPRINT" create -q "${A[@]}" --uuid "$bad" "$WORK/bad.img"
	expect_err "'uuid' must be 0 (derived) or a UUID of 32 hex digits as 8-4-4-4-12" "--uuid '$bad': said what is allowed"
done
[ -e "$WORK/bad.img" ] && fail "a refused --uuid left an image" || pass "a refused --uuid left no image"

# GPT: the disk and partition GUIDs follow the configuration too
guids() { sfdisk -d "$1" 2>/dev/null | sed -n 's/^label-id: //p; s/.*uuid=\([0-9A-Fa-f-]*\).*/\1/p' | tr '\n' ' '; }
for s in 1 2; do
	"$IMPRINT" create -q -j2 "${A[@]}" --partition gpt "$WORK/g$s.img" ||
		fail "GPT image $s"
done
"$IMPRINT" create -q -j2 "${A[@]}" --set owner_users=4 --partition gpt "$WORK/g3.img" || fail "GPT image 3"
cmp -s "$WORK/g1.img" "$WORK/g2.img" && pass "GPT: same configuration, identical disks" ||
	fail "GPT: same configuration, the disks differ"
g1=$(guids "$WORK/g1.img") g3=$(guids "$WORK/g3.img")
set -- $g1
d1=$1 p1=$2
set -- $g3
if [ -n "$d1" ] && [ -n "$p1" ] && [ "$d1" != "$1" ] && [ "$p1" != "$2" ]; then
	pass "GPT: another configuration, other disk and partition GUIDs ($d1 / $1)"
else
	fail "GPT: GUIDs '$g1' and '$g3'"
fi

# SOURCE_DATE_EPOCH: the time reference unless time_ref is set, said by config; invalid refused
SDE=1600000000
SOURCE_DATE_EPOCH=$SDE "$IMPRINT" config >"$WORK/c"
grep -qx "time_ref = $SDE" "$WORK/c" && grep -qx "# time_ref from SOURCE_DATE_EPOCH" "$WORK/c" &&
	pass "SOURCE_DATE_EPOCH: config prints time_ref = $SDE and says it came from it" ||
	fail "SOURCE_DATE_EPOCH: config: $(grep -A1 time_ref "$WORK/c")"
SOURCE_DATE_EPOCH=$SDE "$IMPRINT" config --set time_ref=1700000000 >"$WORK/c"
grep -qx "time_ref = 1700000000" "$WORK/c" && ! grep -q SOURCE_DATE_EPOCH "$WORK/c" &&
	pass "SOURCE_DATE_EPOCH: an explicit time_ref wins" ||
	fail "SOURCE_DATE_EPOCH: explicit time_ref: $(grep -A1 time_ref "$WORK/c")"
SOURCE_DATE_EPOCH=$SDE "$IMPRINT" create -q -j2 "${A[@]}" "$WORK/t.img" || fail "create with SOURCE_DATE_EPOCH"
got=$(debugfs -R 'stat /' "$WORK/t.img" 2>/dev/null | sed -n 's/^ *mtime: 0x\([0-9a-f]*\).*/\1/p')
mk=$(field "$WORK/t.img" 'Filesystem created')
[ "$mk" = "$(LC_ALL=C TZ=UTC date -d @$SDE)" ] || [ "$(date -d "$mk" +%s 2>/dev/null)" = "$SDE" ] &&
	pass "SOURCE_DATE_EPOCH: the file system was made at $SDE ($mk)" ||
	fail "SOURCE_DATE_EPOCH: made '$mk', root mtime 0x$got"
"$IMPRINT" plan "${A[@]}" -o "$WORK/m0" && SOURCE_DATE_EPOCH=$SDE "$IMPRINT" plan "${A[@]}" -o "$WORK/m1" &&
	! cmp -s "$WORK/m0" "$WORK/m1" && pass "SOURCE_DATE_EPOCH: the manifest's times follow it" ||
	fail "SOURCE_DATE_EPOCH: the manifest did not change"
for bad in x 12x -5 "" 99999999999999999999; do
	SOURCE_DATE_EPOCH=$bad expect_status 2 "SOURCE_DATE_EPOCH='$bad' refused" "$IMPRINT" config
	expect_err "SOURCE_DATE_EPOCH must be a whole number of seconds since 1970-01-01" "SOURCE_DATE_EPOCH='$bad': said"
done

# a second xfs of the same UUID: create refuses to mount it beside the first
# (the error says "duplicate UUID"); verify reads it (nouuid, read-only)
if [ "$(id -u)" -ne 0 ] || ! command -v mkfs.xfs >/dev/null || ! losetup -f >/dev/null 2>&1; then
	pass "# SKIP duplicate UUID: needs root, mkfs.xfs and a loop device"
	finish
fi
loop_init
X=(--fs xfs --size 320M --used 4M --uuid 11111111-2222-4333-8444-555555555555)
if "$IMPRINT" create -q -j2 "${X[@]}" "$WORK/x1.img" 2>"$WORK/err" &&
	"$IMPRINT" create -q -j2 "${X[@]}" --seed 2 "$WORK/x2.img" 2>"$WORK/err"; then
	LOOP=$(losetup -f --show -r "$WORK/x1.img")
	if mount -o ro "$LOOP" "$MNT" 2>"$WORK/err"; then
		# verify reads an xfs image through a read-only mount with nouuid
		# (the loop reader since issue 21): a copy mounted elsewhere is no
		# obstacle, and the second image is checked in full
		verify_ok "a second xfs of the same UUID beside the mounted first" --seed 2 "${X[@]}" "$WORK/x2.img"
		grep -q " 0 mismatches" "$WORK/out" && pass "verify: 0 mismatches on the second xfs" ||
			fail "verify's report on the second xfs: $(tail -3 "$WORK/out")"
		expect_status 2 "create of a third one beside it fails" "$IMPRINT" create -q "${X[@]}" --seed 3 "$WORK/x3.img"
		expect_err "duplicate UUID" "create: the error says duplicate UUID"
	else
		fail "cannot mount the first xfs image: $(cat "$WORK/err")"
	fi
else
	fail "xfs images: $(head -c 300 "$WORK/err")"
fi
finish
