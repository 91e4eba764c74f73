#!/bin/bash
# device_safety.sh - create on block devices: claimed for the whole run, other openers refused, data kept
. "${srcdir:-.}/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "# skip: needs root (loop devices, mounts)"; exit 77; }

# Loop devices, mounts and processes this script made, undone on any exit; nothing else is touched.
LOOPS=()
MOUNTS=()
PIDS=()
cleanup() {
	local x
	for x in "${PIDS[@]}"; do kill "$x" 2>/dev/null; wait "$x" 2>/dev/null; done
	for x in "${MOUNTS[@]}"; do umount "$x" 2>/dev/null; done
	for x in "${LOOPS[@]}"; do losetup -d "$x" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

# attach FILE: $loop is a loop device of our own over FILE
attach() {
	loop=$(losetup -f --show "$1" 2>/dev/null) || return 1
	LOOPS+=("$loop")
}
detach() { losetup -d "$loop" && LOOPS=("${LOOPS[@]/$loop/}"); }

truncate -s 256M "$WORK/dev.img"
attach "$WORK/dev.img" || { echo "# skip: cannot attach a loop device here"; exit 77; }

# --- two --force runs at once on one device: one builds, the other is refused, nothing wiped (finding 1)
for i in 1 2 3 4 5; do
	"$IMPRINT" create -q --force --seed 1 "$loop" 2>"$WORK/r1" & p1=$!
	"$IMPRINT" create -q --force --seed 2 "$loop" 2>"$WORK/r2" & p2=$!
	wait $p1; s1=$?
	wait $p2; s2=$?
	if [ $s1 -ne 0 ] && [ $s2 -ne 0 ]; then
		fail "pair $i: both failed: $(cat "$WORK/r1" "$WORK/r2" | head -c 300)"
	elif grep -qF "invalidated" "$WORK/r1" "$WORK/r2"; then
		fail "pair $i: a run invalidated the device: $(cat "$WORK/r1" "$WORK/r2" | head -c 300)"
	elif e2fsck -fn "$loop" >"$WORK/fsck" 2>&1; then
		pass "pair $i: exit $s1/$s2, the device holds a clean file system"
	else
		fail "pair $i: exit $s1/$s2, e2fsck: $(head -c 200 "$WORK/fsck"); $(cat "$WORK/r1" "$WORK/r2" | head -c 300)"
	fi
	if [ $((s1 + s2)) -ne 0 ]; then
		grep -qE "is locked by another program|is busy|is open in process" "$WORK/r1" "$WORK/r2" \
			&& pass "pair $i: the refused run says the device is taken" \
			|| fail "pair $i: refusal: $(cat "$WORK/r1" "$WORK/r2" | head -c 300)"
	fi
done

# --- a device another process holds open (not exclusively): refused even with --force (finding 3)
sleep 300 <"$loop" &
holder=$!
PIDS+=("$holder")
sleep 0.2
before=$(sha256sum <"$loop")
expect_status 1 "a device open in another process is refused with --force" \
	"$IMPRINT" create -q --force "$loop"
expect_err "'$loop' is open in process $holder ('sleep'); close it there first (--force does not override this)" \
	"names the process"
[ "$(sha256sum <"$loop")" = "$before" ] && pass "the held device is unchanged" \
	|| fail "the held device was changed"
kill "$holder"; wait "$holder" 2>/dev/null; PIDS=()

# --- data without a signature at either end of a device: refused without --force (finding 2)
detach
truncate -s 0 "$WORK/dev.img" && truncate -s 64M "$WORK/dev.img"
head -c 4096 /dev/urandom | dd of="$WORK/dev.img" bs=4096 seek=100 conv=notrunc status=none
attach "$WORK/dev.img"
expect_status 1 "data in the first MiB refused" "$IMPRINT" create -q "$loop"
expect_err "'$loop' holds data (non-zero bytes) in its first MiB but no known signature; use --force to overwrite it" \
	"says where the data is"
detach
truncate -s 0 "$WORK/dev.img" && truncate -s 64M "$WORK/dev.img"
head -c 4096 /dev/urandom | dd of="$WORK/dev.img" bs=4096 seek=$((16384 - 10)) conv=notrunc status=none
attach "$WORK/dev.img"
before=$(sha256sum <"$loop")
expect_status 1 "data in the last MiB refused" "$IMPRINT" create -q "$loop"
expect_err "holds data (non-zero bytes) in its last MiB but no known signature" "names the last MiB"
[ "$(sha256sum <"$loop")" = "$before" ] && pass "the refused device is unchanged" \
	|| fail "the refused device was changed"
expect_status 0 "--force overwrites it" "$IMPRINT" create -q --force "$loop"
detach
truncate -s 0 "$WORK/dev.img" && truncate -s 64M "$WORK/dev.img"
attach "$WORK/dev.img"
expect_status 0 "an all-zero device is used without --force" "$IMPRINT" create -q "$loop"
detach

# --- free space of the host for the data, before planning (finding 10)
mkdir "$WORK/small"
if mount -t tmpfs -o size=32M tmpfs "$WORK/small" 2>/dev/null; then
	MOUNTS+=("$WORK/small")
	expect_status 1 "more data than the host has free" \
		"$IMPRINT" create -q --size 1G --used 200M "$WORK/small/x.img"
	expect_err "the file system of '$WORK/small' has" "names the directory"
	expect_err "but the image needs about 209715200 bytes written; free space there or lower --used" \
		"says how much is needed"
	[ -z "$(ls -A "$WORK/small")" ] && pass "nothing left there" || fail "left: $(ls -A "$WORK/small")"
else
	echo "# skip: cannot mount a tmpfs here"
fi

finish
