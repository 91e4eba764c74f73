#!/bin/bash
# partition.sh - create --partition and --format: the table read back by sfdisk and blkid, the file system inside byte for byte the bare one, measure through the table, qemu-img
. "${srcdir:-.}/tests/lib.sh"

for tool in sfdisk blkid qemu-img; do
	command -v "$tool" >/dev/null || { echo "1..0 # SKIP needs $tool (fdisk, util-linux, qemu-utils)"; exit 77; }
done

ARGS=(--size 64M --used 12M --seed 5)
MiB=1048576

"$IMPRINT" create -q "${ARGS[@]}" "$WORK/bare.img" 2>"$WORK/err" || fail "bare image: $(head -c 300 "$WORK/err")"

# tables: each label, read back by sfdisk (fdisk's library's reader) and blkid (libblkid)
for label in gpt mbr; do
	img="$WORK/$label.img"
	expect_status 0 "$label: create --partition $label" "$IMPRINT" create -q "${ARGS[@]}" --partition "$label" "$img"
	sfdisk --json "$img" >"$WORK/sf.json" 2>"$WORK/err" || fail "$label: sfdisk cannot read the table: $(head -c 300 "$WORK/err")"
	read -r want_label start size type < <(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["partitiontable"]
p = t["partitions"]
print(t["label"], len(p) == 1 and p[0]["start"], p[0]["size"], p[0]["type"])' "$WORK/sf.json")
	[ "$label" = gpt ] && lt=gpt wt=0FC63DAF-8483-4772-8E79-3D69D8477DE4 || { lt=dos; wt=83; }
	if [ "$want_label" = "$lt" ] && [ "$start" = 2048 ] && [ "$size" = $((64 * MiB / 512)) ] && [ "$type" = "$wt" ]; then
		pass "$label: sfdisk reads one Linux partition at sector 2048 (1 MiB) of 64 MiB"
	else
		fail "$label: sfdisk reads label $want_label, start $start, size $size, type $type"
	fi
	if [ "$(blkid -p -o value -s PTTYPE "$img")" = "$lt" ] &&
		[ "$(blkid -p -O $MiB -o value -s TYPE "$img")" = ext4 ]; then
		pass "$label: blkid finds the $lt table and ext4 at 1 MiB"
	else
		fail "$label: blkid: $(blkid -p "$img"; blkid -p -O $MiB "$img")"
	fi
	expect_fsck "$img?offset=$MiB" "$label: e2fsck -fn finds the file system at 1 MiB clean"
	if cmp -s <(dd if="$img" bs=$MiB skip=1 count=64 status=none) "$WORK/bare.img"; then
		pass "$label: the partition holds the bare image's bytes exactly"
	else
		fail "$label: the partition's bytes differ from the bare image of the same options"
	fi
	tail_mib=$([ "$label" = gpt ] && echo 1 || echo 0)
	if [ "$(stat -c %s "$img")" -eq $(((65 + tail_mib) * MiB)) ]; then
		pass "$label: the disk is 1 MiB + 64 MiB$([ "$tail_mib" = 1 ] && echo ' + 1 MiB for the backup table')"
	else
		fail "$label: the disk is $(stat -c %s "$img") bytes"
	fi
	# measure finds the file system through the table, and sees what it sees on the bare image
	"$IMPRINT" measure --json "$WORK/bare.img" | sed 's/"target":"[^"]*",//' >"$WORK/m.bare"
	"$IMPRINT" measure --json "$img" | sed 's/"target":"[^"]*",//' >"$WORK/m.disk"
	if [ -s "$WORK/m.bare" ] && cmp -s "$WORK/m.bare" "$WORK/m.disk"; then
		pass "$label: measure on the disk equals measure on the bare file system"
	else
		fail "$label: measure differs: $(diff "$WORK/m.bare" "$WORK/m.disk" | head -c 300)"
	fi
	expect_status 0 "$label: measure --partition 1" "$IMPRINT" measure --partition 1 "$img"
	grep -qF "partition 1" "$WORK/out" && pass "$label: measure names the partition" ||
		fail "$label: measure's report does not name the partition: $(head -1 "$WORK/out")"
done

# the same options give the same bytes (GUIDs and the MBR id from the seed); another seed others
"$IMPRINT" create -q "${ARGS[@]}" --partition gpt "$WORK/gpt2.img"
cmp -s "$WORK/gpt.img" "$WORK/gpt2.img" && pass "gpt: same options, same bytes" || fail "gpt: two runs differ"
"$IMPRINT" create -q "${ARGS[@]}" --partition mbr "$WORK/mbr2.img"
cmp -s "$WORK/mbr.img" "$WORK/mbr2.img" && pass "mbr: same options, same bytes" || fail "mbr: two runs differ"
"$IMPRINT" create -q --size 64M --used 12M --seed 6 --partition gpt "$WORK/gpt6.img"
if [ "$(sfdisk --disk-id "$WORK/gpt.img")" != "$(sfdisk --disk-id "$WORK/gpt6.img")" ] &&
	[ "$(sfdisk --part-uuid "$WORK/gpt.img" 1)" != "$(sfdisk --part-uuid "$WORK/gpt6.img" 1)" ]; then
	pass "gpt: another seed, another disk GUID and partition GUID"
else
	fail "gpt: seeds 5 and 6 share a GUID"
fi
rm -f "$WORK/gpt2.img" "$WORK/mbr2.img" "$WORK/gpt6.img"

# --partition-size: a larger partition, the file system still 'size'
expect_status 0 "--partition-size 80M" "$IMPRINT" create -q "${ARGS[@]}" --partition gpt --partition-size 80M "$WORK/ps.img"
if [ "$(sfdisk --json "$WORK/ps.img" | python3 -c 'import json,sys; print(json.load(sys.stdin)["partitiontable"]["partitions"][0]["size"])')" = $((80 * MiB / 512)) ] &&
	cmp -s <(dd if="$WORK/ps.img" bs=$MiB skip=1 count=64 status=none) "$WORK/bare.img"; then
	pass "--partition-size: an 80 MiB partition holding the 64 MiB file system"
else
	fail "--partition-size: $(sfdisk -d "$WORK/ps.img" | tail -1)"
fi
expect_status 0 "--partition-size alone sets 'size'" "$IMPRINT" create -q --used 12M --partition mbr --partition-size 72M "$WORK/ps2.img"
# e2fsck reads the file system in place through its offset (libext2fs' "file?offset=N")
expect_fsck "$WORK/ps2.img?offset=$MiB" "--partition-size alone: e2fsck -fn finds a clean file system at 1 MiB"
grep -q "/18432 blocks" "$WORK/fsck" && pass "--partition-size alone: the file system fills the 72 MiB partition" ||
	fail "--partition-size alone: $(tail -1 "$WORK/fsck")"
rm -f "$WORK/ps.img" "$WORK/ps2.img"

# what is refused, with a message, and nothing left behind
expect_status 2 "--partition xyz" "$IMPRINT" create -q --partition xyz "$WORK/x.img"
expect_err "'--partition' must be gpt, mbr or none (got 'xyz')" "names the allowed tables"
expect_status 2 "--partition-size without --partition" "$IMPRINT" create -q --partition-size 80M "$WORK/x.img"
expect_err "'--partition-size' needs" "says --partition-size needs --partition"
expect_status 2 "--partition-size 1000" "$IMPRINT" create -q --partition gpt --partition-size 1000 "$WORK/x.img"
expect_err "at least 1M in whole 4K units" "says what a partition size must be"
expect_status 1 "--partition-size below 'size'" "$IMPRINT" create -q "${ARGS[@]}" --partition gpt --partition-size 32M "$WORK/x.img"
expect_err "is larger than the partition on" "says 'size' is larger than the partition"
expect_status 2 "--format xyz" "$IMPRINT" create -q --format xyz "$WORK/x.img"
expect_err "'--format' must be raw, qcow2, vmdk or vhdx" "names the allowed formats"
expect_status 2 "--partition with --no-format" "$IMPRINT" create -q --partition gpt --no-format "$WORK/bare.img"
expect_err "cannot go with '--partition'" "refuses --no-format with --partition"
expect_status 2 "measure --partition 0" "$IMPRINT" measure --partition 0 "$WORK/gpt.img"
expect_err "partition number from 1 to 256" "measure: says what a partition number is"
expect_status 1 "measure --partition 2 of a one-partition disk" "$IMPRINT" measure --partition 2 "$WORK/gpt.img"
expect_err "has no partition 2 (its gpt table has partitions 1 (ext4))" "names the partitions there are"
expect_status 1 "measure --partition 1 of a bare image" "$IMPRINT" measure --partition 1 "$WORK/bare.img"
expect_err "holds no partition table" "says a bare image has no table"
expect_status 1 "content-report --partition 3" "$IMPRINT" content-report --partition 3 "$WORK/mbr.img"
expect_err "has no partition 3" "content-report: names the missing partition"
# a partition that holds no file system imprint reads
cp --sparse=always "$WORK/gpt.img" "$WORK/wiped.img"
dd if=/dev/zero of="$WORK/wiped.img" bs=4096 seek=256 count=1 conv=notrunc status=none
expect_status 1 "measure of a disk whose partition holds nothing" "$IMPRINT" measure "$WORK/wiped.img"
expect_err "holds no file system imprint knows" "says the partition holds no file system"
rm -f "$WORK/wiped.img"
ls -A "$WORK" | grep -q imprint- && fail "a temporary file was left in $WORK" || pass "no temporary file left behind"

# --format: qemu-img check passes, convert -O raw gives back the raw disk byte for byte
for fmt in qcow2 vmdk vhdx; do
	out="$WORK/d.$fmt"
	# the format from the extension, the summary says what it added
	expect_status 0 "$fmt: create --partition gpt d.$fmt" "$IMPRINT" create --json "${ARGS[@]}" --partition gpt "$out"
	if python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["format"] == sys.argv[2] and d["convert_seconds"] >= 0 and d["disk"]["start"] == 1048576))' "$WORK/out" "$fmt"; then
		pass "$fmt: the summary gives the format, the conversion's time and the partition"
	else
		fail "$fmt: summary: $(head -c 300 "$WORK/out")"
	fi
	if [ "$(qemu-img info --output=json "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["format"])')" = "$fmt" ]; then
		pass "$fmt: qemu-img info reads a $fmt image"
	else
		fail "$fmt: qemu-img info: $(qemu-img info "$out" 2>&1 | head -3)"
	fi
	if qemu-img check "$out" >"$WORK/chk" 2>&1; then
		pass "$fmt: qemu-img check passes"
	else
		fail "$fmt: qemu-img check: $(head -c 300 "$WORK/chk")"
	fi
	expect_status 1 "$fmt: measure of the $fmt file" "$IMPRINT" measure "$out"
	expect_err "is a $fmt image: imprint reads raw images" "$fmt: measure says to convert it first"
	qemu-img convert -f "$fmt" -O raw "$out" "$WORK/back.raw"
	cmp -s "$WORK/back.raw" "$WORK/gpt.img" && pass "$fmt: convert -O raw gives back the raw disk byte for byte" ||
		fail "$fmt: convert -O raw differs from the raw disk"
	rm -f "$WORK/back.raw"
done
# reproducible byte for byte: qcow2 as qemu-img writes it, vmdk and vhdx with what qemu-img
# draws at random drawn from the seed (qemu-img check and convert -O raw above passed on them)
for fmt in qcow2 vmdk vhdx; do
	"$IMPRINT" create -q "${ARGS[@]}" --partition gpt "$WORK/e.$fmt"
	cmp -s "$WORK/d.$fmt" "$WORK/e.$fmt" && pass "$fmt: same options, same bytes" || fail "$fmt: two runs differ"
done
"$IMPRINT" create -q --size 64M --used 12M --seed 6 --partition gpt "$WORK/f.vmdk"
if [ "$(strings "$WORK/e.vmdk" | grep -m1 '^CID=')" != "$(strings "$WORK/f.vmdk" | grep -m1 '^CID=')" ] &&
	strings "$WORK/e.vmdk" | grep -qE '^CID=[0-9a-f]{8}$'; then
	pass "vmdk: the content ID comes from the seed (another seed, another CID)"
else
	fail "vmdk: CIDs $(strings "$WORK/e.vmdk" | grep -m1 '^CID=') and $(strings "$WORK/f.vmdk" | grep -m1 '^CID=')"
fi
"$IMPRINT" create -q --size 64M --used 12M --seed 6 --partition gpt "$WORK/f.vhdx"
# the first header's file write GUID (bytes 16 to 31 of the header at 64 KiB)
if [ "$(od -An -tx1 -j $((65536 + 16)) -N 16 "$WORK/e.vhdx")" != "$(od -An -tx1 -j $((65536 + 16)) -N 16 "$WORK/f.vhdx")" ] &&
	qemu-img check "$WORK/f.vhdx" >/dev/null 2>&1; then
	pass "vhdx: another seed, another file write GUID, and still a valid image"
else
	fail "vhdx: seeds 5 and 6 share the header's GUID, or qemu-img check fails"
fi
"$IMPRINT" create -q "${ARGS[@]}" --format qcow2 "$WORK/bare.qc"
qemu-img convert -f qcow2 -O raw "$WORK/bare.qc" "$WORK/back.raw"
cmp -s "$WORK/back.raw" "$WORK/bare.img" && pass "--format qcow2 without a table: the bare file system inside" ||
	fail "--format qcow2 of a bare file system differs from the raw one"
rm -f "$WORK"/*.qcow2 "$WORK"/*.vmdk "$WORK"/*.vhdx "$WORK/bare.qc" "$WORK/back.raw"

finish
