#!/bin/bash
# create_refuse.sh - imprint create's safety rules: signatures, busy targets, fit, bad paths, interrupts
. "${srcdir:-.}/tests/lib.sh"

# Loop devices and mounts this script made, undone on any exit; nothing else is touched.
LOOPS=()
MOUNTS=()
cleanup() {
	local m l
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

# attach FILE: $loop is a loop device of our own over FILE; fails when that cannot be done here
attach() {
	loop=
	[ "$(id -u)" -eq 0 ] || return 1
	loop=$(losetup -f --show "$1" 2>/dev/null) || return 1
	LOOPS+=("$loop")
}

# --- an image holding a file system: refused, untouched; --force works
img=$WORK/fs.img
truncate -s 32M "$img"
mkfs.ext4 -q -F -L keepme "$img"
before=$(sha "$img")
"$IMPRINT" create --files 50 "$img" >"$WORK/out" 2>"$WORK/err"
st=$?
[ "$st" -eq 1 ] || [ "$st" -eq 2 ] && pass "ext4 image refused (exit $st)" \
	|| fail "ext4 image: exit $st, wanted 1 or 2"
expect_err "'$img' holds an ext4 file system (label 'keepme'); use --force to overwrite it" \
	"the refusal names ext4 and its label"
[ "$(sha "$img")" = "$before" ] && pass "refused image is unchanged" \
	|| fail "refused image changed"
[ "$(leftovers "$WORK")" -eq 0 ] && pass "no temporary file after a refusal" \
	|| fail "temporary file left after a refusal"
expect_status 0 "--force overwrites it" "$IMPRINT" create --force --quiet --files 50 "$img"
[ "$(sha "$img")" != "$before" ] && pass "forced image is new" || fail "forced image unchanged"
expect_fsck "$img" "e2fsck -fn accepts the forced image"
expect_status 0 "create --json" "$IMPRINT" create --force --json --files 50 "$img"
python3 - "$WORK/out" "$img" <<'PY' && pass "--json summary has every key" || fail "--json summary"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("files", "dirs", "links", "bytes", "seconds", "mb_per_s", "layout_score",
	  "block_size", "blocks_used", "target", "seed"):
    assert k in d, k
assert d["files"] == 50 and d["target"] == sys.argv[2] and d["seed"] == 1
PY
expect_status 0 "--quiet prints nothing" "$IMPRINT" create --force --quiet --files 50 "$img"
[ ! -s "$WORK/out" ] && [ ! -s "$WORK/err" ] && pass "--quiet: stdout and stderr empty" \
	|| fail "--quiet printed: $(head -c 200 "$WORK/out" "$WORK/err")"

# --- other signatures: swap, a partition table
truncate -s 16M "$WORK/swap.img"
mkswap "$WORK/swap.img" >/dev/null 2>&1
expect_status 1 "swap image refused" "$IMPRINT" create "$WORK/swap.img"
expect_err "holds a swap signature; use --force" "the refusal names swap"
truncate -s 64M "$WORK/pt.img"
if command -v sfdisk >/dev/null; then
	echo 'start=2048, type=83' | sfdisk -q "$WORK/pt.img" >/dev/null 2>&1
elif command -v parted >/dev/null; then
	parted -s "$WORK/pt.img" mklabel msdos mkpart primary 1MiB 100% >/dev/null 2>&1
else
	# no partitioning tool: a one-entry DOS label written by hand
	python3 - "$WORK/pt.img" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    entry = struct.pack("<B3sB3sII", 0, b"\x20\x21\x00", 0x83, b"\xfe\xff\xff", 2048, 129024)
    f.seek(446); f.write(entry); f.seek(510); f.write(b"\x55\xaa")
PY
fi
if blkid -p -o value -s PTTYPE "$WORK/pt.img" 2>/dev/null | grep -q dos; then
	before=$(sha "$WORK/pt.img")
	expect_status 1 "partitioned image refused" "$IMPRINT" create "$WORK/pt.img"
	expect_err "holds a dos partition table; use --force to overwrite it" \
		"the refusal names the partition table"
	[ "$(sha "$WORK/pt.img")" = "$before" ] && pass "partitioned image is unchanged" \
		|| fail "partitioned image changed"
else
	echo "# skip: could not write a partition table here"
fi

# --- --no-format: needs an ext file system there
expect_status 1 "--no-format on a missing target" "$IMPRINT" create --no-format "$WORK/none.img"
expect_err "--no-format needs an existing ext2, ext3 or ext4 file system" "says what is needed"
expect_status 1 "--no-format on swap" "$IMPRINT" create --no-format "$WORK/swap.img"
expect_err "holds a swap signature; --no-format needs an ext2, ext3 or ext4" "names what is there"

# populating an existing, empty ext4 image works; a second time it is not empty
truncate -s 64M "$WORK/nf.img"
mkfs.ext4 -q -F "$WORK/nf.img"
expect_status 0 "--no-format fills an empty ext4 image" \
	"$IMPRINT" create --no-format --quiet --used 10M "$WORK/nf.img"
expect_fsck "$WORK/nf.img" "e2fsck -fn accepts it after --no-format"
before=$(sha "$WORK/nf.img")
expect_status 1 "--no-format on a non-empty file system" \
	"$IMPRINT" create --no-format --used 10M "$WORK/nf.img"
expect_err "is not empty" "says it is not empty"
[ "$(sha "$WORK/nf.img")" = "$before" ] && [ "$(leftovers "$WORK")" -eq 0 ] \
	&& pass "the non-empty image is unchanged, no temporary file" \
	|| fail "the non-empty image changed or a temporary file was left"

# --- a plan that cannot fit: refused before anything is written
expect_status 2 "--used above --size" "$IMPRINT" create --size 8M --used 100M "$WORK/small.img"
expect_err "'used' (100 MiB) must not exceed 'size' (8 MiB)" "says how much is needed"
[ ! -e "$WORK/small.img" ] && [ "$(leftovers "$WORK")" -eq 0 ] && pass "no file left" \
	|| fail "a file was left"
expect_status 1 "data plus metadata above --size" \
	"$IMPRINT" create --size 100M --used 99M "$WORK/small.img"
expect_err "the plan does not fit in '$WORK/small.img': it needs about" "names what it needs"
[ ! -e "$WORK/small.img" ] && [ "$(leftovers "$WORK")" -eq 0 ] && pass "no file left either" \
	|| fail "a file was left"

# --- the content, built while the target is opened and laid out, fails (IMPRINT_TEST_FAIL_AT,
# test-only): its message as when it came first, no image, no --extents file, no temporary
IMPRINT_TEST_FAIL_AT=content-source expect_status 1 "the content source fails" \
	"$IMPRINT" create --files 50 --extents "$WORK/cf.ext" "$WORK/cf.img"
expect_err "imprint: cannot build the content source: Cannot allocate memory" "says the content source failed"
[ ! -e "$WORK/cf.img" ] && [ ! -e "$WORK/cf.ext" ] && [ "$(leftovers "$WORK")" -eq 0 ] \
	&& pass "no image, no extents file, no temporary file" || fail "a file was left"
IMPRINT_TEST_FAIL_AT=content-model expect_status 1 "the content model fails, and mke2fs beside it" \
	"$IMPRINT" create --files 50 --mkfs-options "-I 100" "$WORK/cf.img"
expect_err "imprint: cannot build the content model: Cannot allocate memory" "the content's message"
! grep -q mke2fs "$WORK/err" && pass "not mke2fs's" || fail "mke2fs's message told: $(cat "$WORK/err")"
[ ! -e "$WORK/cf.img" ] && [ "$(leftovers "$WORK")" -eq 0 ] && pass "no file left after both failed" \
	|| fail "a file was left after both failed"
# --no-format on a device: a failed content leaves the file system there as it was (not wiped)
if truncate -s 64M "$WORK/cfdev.img" && mkfs.ext4 -q -F "$WORK/cfdev.img" && attach "$WORK/cfdev.img"; then
	before=$(sha "$loop")
	IMPRINT_TEST_FAIL_AT=content-source expect_status 1 "--no-format on a device, the content fails" \
		"$IMPRINT" create --no-format --used 10M "$loop"
	expect_err "imprint: cannot build the content source: Cannot allocate memory" "says so"
	[ "$(sha "$loop")" = "$before" ] && pass "the device's file system is untouched" \
		|| fail "the device changed"
	losetup -d "$loop"
else
	echo "# skip: --no-format device with a failed content (needs root and losetup)"
fi

# --- bad targets
expect_status 1 "unwritable path" "$IMPRINT" create --files 10 /proc/nope/img
expect_err "cannot create '/proc/nope/img': directory '/proc/nope' does not exist" "names the path and its missing directory"
# a directory goes to the mounted backend, which refuses one that is not empty
expect_status 1 "a directory that is not empty" "$IMPRINT" create "$WORK"
expect_err "is not empty; give an empty directory" "says what is allowed"
expect_status 2 "a directory with the ext4 backend" "$IMPRINT" create --backend ext4 "$WORK"
expect_err "is a directory; the ext4 backend takes image files and block devices (directories: the mounted backend)" "says which backend takes directories"
expect_status 2 "an image file with the mounted backend" "$IMPRINT" create --backend mounted "$WORK/new.img"
expect_err "the mounted backend takes directories (image files: the ext4 backend)" "says which backend takes image files"
expect_status 2 "an ext4 option with the mounted backend" "$IMPRINT" create --mkfs-options "-b 1024" "$WORK"
expect_err "'--mkfs-options' is not an option of the mounted backend" "names the option and the backend"
expect_status 2 "a mounted option with the ext4 backend" "$IMPRINT" create --allow-drop --files 10 "$WORK/drop.img"
expect_err "'--allow-drop' is not an option of the ext4 backend" "names --allow-drop and the backend"
expect_status 2 "no target" "$IMPRINT" create
expect_err "create needs a TARGET" "missing target is named"
if [ "$(id -u)" -ne 0 ]; then
	mkdir "$WORK/ro" && chmod 555 "$WORK/ro"
	expect_status 1 "read-only directory" "$IMPRINT" create --files 10 "$WORK/ro/img"
	expect_err "cannot create '$WORK/ro/img': Permission denied" "names the path and its missing directory"
	chmod 755 "$WORK/ro"
elif mkdir "$WORK/ro" && mount -t tmpfs -o ro,size=1M tmpfs "$WORK/ro" 2>/dev/null; then
	# root writes anywhere, except on a read-only file system
	MOUNTS+=("$WORK/ro")
	expect_status 1 "read-only file system" "$IMPRINT" create --files 10 "$WORK/ro/img"
	expect_err "cannot create '$WORK/ro/img': Read-only file system" "names the path and its missing directory"
	umount "$WORK/ro" && MOUNTS=()
else
	echo "# skip: read-only directory (root, and no read-only mount possible)"
fi

# a target that fills up while the image is written (20,000 small files need about 80 MiB, and the
# free-space check counts only --used): the host's ENOSPC is named, not a mapping or an I/O error
if [ "$(id -u)" -eq 0 ] && mkdir "$WORK/full" && mount -t tmpfs -o size=40M tmpfs "$WORK/full" 2>/dev/null; then
	MOUNTS+=("$WORK/full")
	expect_status 1 "target fills up during the write" "$IMPRINT" create -q --size 256M --files 20000 \
		--used 20M --set size_tail_weight=0 --set size_mu=6.9 --set size_sigma=1.2 "$WORK/full/img"
	expect_err "No space left on device" "names the full target"
	[ -z "$(ls -A "$WORK/full")" ] && pass "nothing left on the full target" ||
		fail "left on the full target: $(ls -A "$WORK/full")"
	umount "$WORK/full" && MOUNTS=()
else
	echo "# skip: a full target (root and a tmpfs mount only)"
fi

# --- busy targets: a mounted loop device, a mounted image (root and losetup only)
truncate -s 64M "$WORK/dev.img"
mkfs.ext4 -q -F "$WORK/dev.img"
mkdir -p "$WORK/mnt"
if attach "$WORK/dev.img" && mount "$loop" "$WORK/mnt" 2>/dev/null; then
	MOUNTS+=("$WORK/mnt")
	# the mount itself rewrites the superblock: watch for a replaced file instead
	before=$(stat -c %i.%s.%Y "$WORK/dev.img")
	expect_status 1 "mounted device refused, even with --force" \
		"$IMPRINT" create --force "$loop"
	expect_err "'$loop' is mounted on '$WORK/mnt'" "names the mount point"
	expect_status 1 "mounted image refused, even with --force" \
		"$IMPRINT" create --force "$WORK/dev.img"
	expect_err "is attached to $loop, which is mounted on '$WORK/mnt'" "names the loop device"
	[ "$(stat -c %i.%s.%Y "$WORK/dev.img")" = "$before" ] && [ "$(leftovers "$WORK")" -eq 0 ] \
		&& pass "mounted image is not replaced" || fail "mounted image was replaced"
	umount "$WORK/mnt" && MOUNTS=()

	# the same device, free now: refused without --force, built with it
	expect_status 1 "device holding ext4 refused" "$IMPRINT" create "$loop"
	expect_err "'$loop' holds an ext4 file system" "names ext4"
	expect_status 1 "--size above the device" "$IMPRINT" create --force --size 1G "$loop"
	expect_err "is larger than the device '$loop' (64.0 MiB)" "names the device size"
	expect_status 0 "--force builds on the device" "$IMPRINT" create --force --quiet "$loop"
	expect_fsck "$loop" "e2fsck -fn accepts the device"
	# a refused --no-format leaves the device's file system alone
	before=$(sha "$loop")
	expect_status 1 "--no-format on the non-empty device" \
		"$IMPRINT" create --no-format --used 1M "$loop"
	expect_err "is not empty" "says it is not empty"
	[ "$(sha "$loop")" = "$before" ] && pass "the refused device is unchanged" \
		|| fail "the refused device was changed"
	losetup -d "$loop" && LOOPS=()
else
	echo "# skip: mounted loop device and mounted image (needs root, losetup and mount)"
fi

# --- SIGINT mid-build: no TARGET, no temporary file, non-zero exit
# interrupt SIG PID: signal PID until it exits (a signal that lands while the
# backend waits for mke2fs may be ignored; the first one that lands counts)
interrupt() {
	local _
	for _ in $(seq 1 100); do
		kill -"$1" "$2" 2>/dev/null || break
		sleep 0.05
	done
}

# holds_fds PID PATH N: whether PID has PATH open N times or more; is_ext4 DEV: whether DEV holds an ext4 superblock
holds_fds() { [ "$(ls -l "/proc/$1/fd" 2>/dev/null | grep -c -- "-> $2\$")" -ge "$3" ]; }
is_ext4() { [ "$(blkid -p -o value -s TYPE "$1" 2>/dev/null)" = ext4 ]; }

big=$WORK/big.img
"$IMPRINT" create --quiet --size 2G --used 1500M "$big" >"$WORK/out" 2>"$WORK/err" &
pid=$!
# wait until file data is being written (past mke2fs's journal and tables)
wait_until "$pid" open_over "$pid" $((200 << 20))
interrupt INT "$pid"
wait "$pid"
st=$?
[ "$st" -ne 0 ] && pass "interrupted build fails (exit $st)" \
	|| fail "interrupted build exited 0 (did it finish first?)"
expect_err "interrupted (SIGINT): removed the partial image" "says what it removed"
[ ! -e "$big" ] && pass "no TARGET after SIGINT" || fail "TARGET exists after SIGINT"
[ "$(leftovers "$WORK")" -eq 0 ] && pass "no temporary file after SIGINT" \
	|| fail "temporary file left after SIGINT"

# --- SIGTERM on a device: the half-built file system is invalidated
truncate -s 2G "$WORK/dev2.img"
if attach "$WORK/dev2.img"; then
	"$IMPRINT" create --quiet --used 1500M "$loop" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	# open the device only once imprint holds it: it refuses a device another process has open
	# and probe it only once imprint has passed its check for other openers, which follows
	# its second (O_EXCL) descriptor at once: a blkid polled before is such an opener, and
	# on a loaded machine polling made it look like one that stays
	wait_until "$pid" holds_fds "$pid" "$loop" 2
	sleep 0.5
	wait_until "$pid" is_ext4 "$loop"
	sleep 0.2
	interrupt TERM "$pid"
	wait "$pid"
	st=$?
	[ "$st" -ne 0 ] && pass "interrupted device build fails (exit $st)" \
		|| fail "interrupted device build exited 0 (did it finish first?)"
	expect_err "interrupted (SIGTERM): invalidated the partial file system on '$loop'" \
		"says what it did to the device"
	[ -z "$(blkid -p -o value -s TYPE "$loop" 2>/dev/null)" ] \
		&& pass "libblkid finds nothing on the interrupted device" \
		|| fail "libblkid still finds $(blkid -p -o value -s TYPE "$loop")"
	losetup -d "$loop" && LOOPS=()
else
	echo "# skip: interrupted device build (needs root and losetup)"
fi

finish
