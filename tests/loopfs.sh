#!/bin/bash
# loopfs.sh - the loopfs backend: xfs and btrfs images checked by their own tools, verified, compared with ext4, and cleaned up after failures
. "${srcdir:-.}/tests/lib.sh"

need_loops

# mount_ro IMG DIR: attach IMG read-only and mount it on DIR
mount_ro() {
	attach_dev "$1" ro && mount_at "$2" -o ro "$DEV"
}

# unmount_last: undo the last mount_ro
unmount_last() {
	local n=$((${#MOUNTS[@]} - 1)) l=$((${#LOOPS[@]} - 1))
	umount "${MOUNTS[n]}" && unset "MOUNTS[n]"
	losetup -d "${LOOPS[l]}" && unset "LOOPS[l]"
}

# imprint's private mount points go here, so that a leftover shows
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR" "$WORK/fail"

# no_leftovers WHAT: nothing in fail/ and tmp/, no mount of ours, no loop device on an image of ours
no_leftovers() {
	local left
	left=$(ls -A "$WORK/fail" "$TMPDIR" | grep -v ':$' | grep -v '^$')
	left+=$(grep -F "$WORK/" /proc/self/mountinfo | grep -v -F "$WORK/ref")
	for f in "$WORK"/fail/.* "$WORK"/fail/*; do
		[ -f "$f" ] && left+=$(losetup -j "$f")
	done
	left+=$(losetup -a | grep -F "$WORK/fail")
	if [ -z "$left" ]; then
		pass "$1: no image, mount point, mount or loop device left"
	else
		fail "$1: left behind: $(echo "$left" | head -5)"
	fi
}

ARGS=(--size 300M --used 40M --seed 11 --set hardlink_share=0.05 --set symlink_share=0.1
	--set sparse_file_share=0.5 --set sparse_hole_share=0.5)

# the reference: the ext4 backend's image of the same plan, mounted read-only
ref_mount "${ARGS[@]}"

# fsck_ro FS IMG: the file system's own read-only check
fsck_ro() {
	case $1 in
	xfs) xfs_repair -n "$2" ;;
	btrfs) btrfs check --readonly "$2" ;;
	esac
}

# check FS: create IMG with --fs FS, check it, mount it read-only, verify, diff -r, metadata
check() {
	local fs=$1 img="$WORK/$1.img" t0 t1
	t0=$(date +%s.%N)
	if ! "$IMPRINT" create --json --fs "$fs" "${ARGS[@]}" "$img" >"$WORK/create.json" 2>"$WORK/err"; then
		fail "$fs: create failed: $(head -c 400 "$WORK/err")"
		return
	fi
	t1=$(date +%s.%N)
	pass "$fs: created in $(python3 -c "print(round($t1 - $t0, 2))") s, $(du -k "$img" | cut -f1) KiB allocated of $(stat -c %s "$img") bytes ($(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("fs", j.get("fs"), "layout score", j["layout_score"], "files", j["files"])' "$WORK/create.json"))"
	no_leftovers "$fs: after a successful create"
	if fsck_ro "$fs" "$img" >"$WORK/fsck" 2>&1; then
		pass "$fs: ${fs}'s own check (read-only) is clean"
	else
		fail "$fs: check: $(tail -5 "$WORK/fsck")"
	fi
	if ! mount_ro "$img" "$WORK/$fs"; then
		fail "$fs: cannot mount the image read-only"
		return
	fi
	verify_ok "$fs" "${ARGS[@]}" "$WORK/$fs"
	same_as_ref "$fs" "$WORK/$fs"
	unmount_last
}

HAVE=()
for fs in xfs btrfs; do
	if ! command -v "mkfs.$fs" >/dev/null; then
		pass "# SKIP $fs: mkfs.$fs missing (apt-get install xfsprogs btrfs-progs)"
		continue
	fi
	HAVE+=("$fs")
	check "$fs"
done

# a block device holding no signature: formatted and mounted as it is (a loop device of the test's own)
if [[ " ${HAVE[*]} " = *" xfs "* ]]; then
	truncate -s 300M "$WORK/blank.img"
	DEV=$(losetup -f --show "$WORK/blank.img") && LOOPS+=("$DEV")
	if "$IMPRINT" create -q --fs xfs --used 40M --seed 11 "$DEV" 2>"$WORK/err" &&
		xfs_repair -n "$DEV" >"$WORK/fsck" 2>&1; then
		pass "xfs on a blank block device: created, xfs_repair -n clean"
	else
		fail "xfs on a blank block device: $(head -c 300 "$WORK/err") $(tail -3 "$WORK/fsck")"
	fi
	# a loop device imprint detached while it was still busy is cleared by the
	# kernel a moment later (autoclear): give it up to 5 s before calling it left
	for try in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(losetup -a | grep -c -F "$WORK/")" -eq "${#LOOPS[@]}" ] && break
		sleep 0.5
	done
	[ "$(losetup -a | grep -c -F "$WORK/")" -eq "${#LOOPS[@]}" ] &&
		pass "xfs on a block device: no loop device besides the test's own" ||
		fail "xfs on a block device: loop devices: $(losetup -a | grep -F "$WORK/")"
	losetup -d "$DEV" && unset "LOOPS[$((${#LOOPS[@]} - 1))]"
fi

# --- refusals and failures: each leaves nothing behind
F="$WORK/fail"
expect_status 2 "the ext4 backend refuses --fs xfs" "$IMPRINT" create --backend ext4 --fs xfs "${ARGS[@]}" "$F/x.img"
expect_err "the ext4 backend makes ext2, ext3 or ext4, not xfs" "the error says what the ext4 backend makes"
expect_status 2 "the loopfs backend refuses the default ext4" "$IMPRINT" create --backend loopfs "${ARGS[@]}" "$F/x.img"
expect_err "the loopfs backend makes xfs, btrfs or f2fs, not ext4 (the default)" "the error says what the loopfs backend makes"
no_leftovers "refused options"

for fs in "${HAVE[@]}"; do
	expect_status 1 "$fs: a plan larger than the image is refused up front" \
		"$IMPRINT" create --fs "$fs" --size 300M --used 290M --seed 3 "$F/big.img"
	expect_err "it needs about" "$fs: the error says how much it needs"
	no_leftovers "$fs: refused plan"
done

if [[ " ${HAVE[*]} " = *" btrfs "* ]]; then
	# a 200 MiB btrfs inside a 300 MiB image, its free space lied about (the mounted backend's test hook): ENOSPC mid-way
	IMPRINT_MOUNTED_ASSUME_FREE=$((1 << 30)) expect_status 1 "btrfs: ENOSPC mid-way fails" \
		"$IMPRINT" create -j 2 --fs btrfs --mkfs-options "-b 200M" --size 300M --used 150M --seed 5 "$F/nospc.img"
	expect_err "No space left on device" "btrfs: the error says no space left"
	expect_err "removed the partial image" "btrfs: the error says the image was removed"
	no_leftovers "btrfs: ENOSPC mid-way"
	IMPRINT_MOUNTED_ASSUME_FREE=$((1 << 30)) expect_status 1 "btrfs: ENOSPC mid-way with --keep-partial fails" \
		"$IMPRINT" create -j 2 --keep-partial --fs btrfs --mkfs-options "-b 200M" --size 300M --used 150M --seed 5 "$F/nospc.img"
	expect_err "kept the partial image" "btrfs: the error says the partial image was kept"
	kept=$(ls -A "$F" | grep '^\.nospc\.img\.imprint-')
	if [ -n "$kept" ] && btrfs check --readonly "$F/$kept" >/dev/null 2>&1 && [ -z "$(losetup -j "$F/$kept")" ]; then
		pass "btrfs: the kept partial image '$kept' is detached and checks clean"
	else
		fail "btrfs: kept partial image: '$kept'"
	fi
	rm -f "$F/$kept"
	no_leftovers "btrfs: --keep-partial"
fi

if [[ " ${HAVE[*]} " = *" xfs "* ]]; then
	# SIGINT once populate has started (the mkfs and mount take well under a second)
	"$IMPRINT" create -q --fs xfs --size 1G --used 700M --seed 5 "$F/int.img" 2>"$WORK/err" &
	pid=$!
	sleep 1.5
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc -eq 1 ] && grep -q "interrupted (SIGINT)" "$WORK/err" &&
		pass "xfs: SIGINT stops the run (exit 1): $(head -c 200 "$WORK/err")" ||
		fail "xfs: SIGINT: exit $rc, $(head -c 300 "$WORK/err")"
	no_leftovers "xfs: SIGINT"
fi

# not root: refused before anything is made, with what it needs
if command -v setpriv >/dev/null; then
	mkdir -m 777 "$WORK/nobody"
	chmod 711 "$WORK"
	expect_status 1 "not root: refused" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$IMPRINT" create --fs xfs "${ARGS[@]}" "$WORK/nobody/x.img"
	expect_err "making an xfs image needs root (mkfs, a loop device and a mount); run as root or make an ext2/3/4 image" \
		"not root: the error says what is needed"
	[ -z "$(ls -A "$WORK/nobody")" ] && pass "not root: no image left" ||
		fail "not root: left $(ls -A "$WORK/nobody")"
else
	pass "# SKIP not root: setpriv missing"
fi
finish
