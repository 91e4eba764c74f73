#!/bin/bash
# read_loop.sh - the loop reader: measure, verify, profile and content-report of xfs and btrfs images
# imprint made, against the same tree mounted by hand; nothing left mounted or attached; not root: a clear error
. "${srcdir:-.}/tests/lib.sh"

need_loops
if ! command -v mkfs.xfs >/dev/null || ! grep -qw xfs /proc/filesystems; then
	echo "1..0 # SKIP needs mkfs.xfs and the kernel's xfs"
	exit 77
fi

# imprint's private mount points go here, so that a leftover shows
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"

# no_leftovers WHAT IMG: nothing in TMPDIR, no mount under WORK, no loop device on IMG
no_leftovers() {
	local left
	left=$(ls -A "$TMPDIR")
	left+=$(grep -F "$WORK/" /proc/self/mountinfo)
	left+=$(losetup -j "$2")
	if [ -z "$left" ]; then
		pass "$1: no mount point, mount or loop device left"
	else
		fail "$1: left behind: $(echo "$left" | head -3)"
	fi
}

# same_but_first WHAT A B: files A and B are the same after their first N lines (N: $4, 1 by default)
same_but_first() {
	local n=$(($4 + 1))
	[ -n "$4" ] || n=2
	if diff <(tail -n +"$n" "$2") <(tail -n +"$n" "$3") >"$WORK/diff"; then
		pass "$1: the same as of the tree mounted by hand ($(wc -l <"$2") lines)"
	else
		fail "$1: differs from the tree mounted by hand: $(head -6 "$WORK/diff" | tr '\n' ' ')"
	fi
}

# check FS SIZE: an image of FS, read by imprint and compared with the same tree mounted by hand
check() {
	local fs=$1 img="$WORK/$1.img" mnt="$WORK/m-$1" args=(--fs "$1" --size "$2" --used 20M --seed 7
		--set hardlink_share=0.05 --set symlink_share=0.1)
	if ! "$IMPRINT" create -q "${args[@]}" "$img" 2>"$WORK/err"; then
		fail "$fs: create failed: $(head -c 400 "$WORK/err")"
		return
	fi
	[ "$(blkid -p -o value -s TYPE "$img")" = "$fs" ] && pass "$fs: blkid reads $fs in the image" ||
		fail "$fs: blkid: $(blkid -p "$img")"

	expect_status 0 "$fs: measure of the image" "$IMPRINT" measure --json "$img"
	cp "$WORK/out" "$WORK/$fs.measure"
	grep -q '"reader": *"loop"' "$WORK/$fs.measure" && pass "$fs: measure --json names the loop reader" ||
		fail "$fs: measure --json reader: $(grep -o '"reader":[^,]*' "$WORK/$fs.measure")"
	expect_status 0 "$fs: measure of the image (text)" "$IMPRINT" measure "$img"
	grep -q "^imprint measure: '$img' (an $fs image or device, mounted read-only" "$WORK/out" &&
		pass "$fs: measure's first line says what it read and how" ||
		fail "$fs: measure's first line: $(head -1 "$WORK/out")"
	verify_ok "$fs: the image" "${args[@]}" "$img"
	expect_status 0 "$fs: profile of the image" "$IMPRINT" profile "$img"
	grep -v '^# .*made 20' "$WORK/out" >"$WORK/$fs.profile"
	grep -q "^# imprint profile of an $fs image or device, mounted read-only" "$WORK/out" &&
		pass "$fs: the profile says what it read" || fail "$fs: profile header: $(head -1 "$WORK/out")"
	expect_status 0 "$fs: content-report of the image" "$IMPRINT" content-report "$img"
	cp "$WORK/out" "$WORK/$fs.content"
	no_leftovers "$fs: after four commands on the image" "$img"

	# the same tree mounted by hand, read as a mounted tree
	if ! attach_dev "$img" ro || ! mount_at "$mnt" -o ro "$DEV"; then
		fail "$fs: cannot mount the image by hand"
		return
	fi
	"$IMPRINT" measure --json "$mnt" >"$WORK/m.measure" 2>"$WORK/err" ||
		fail "$fs: measure of the mount point: $(head -c 300 "$WORK/err")"
	# the JSON differs in the target's name and the reader only
	sed -e "s|$mnt|IMG|g; s|$img|IMG|g; /\"reader\"/d" "$WORK/$fs.measure" >"$WORK/a"
	sed -e "s|$mnt|IMG|g; s|$img|IMG|g; /\"reader\"/d" "$WORK/m.measure" >"$WORK/b"
	same_but_first "$fs: measure --json" "$WORK/a" "$WORK/b" 0
	files=$(find "$mnt" -type f -printf '%i\n' | sort -u | wc -l)
	grep -q "\"files\": *$files," "$WORK/$fs.measure" && pass "$fs: measure counts the $files files (inodes) find counts" ||
		fail "$fs: measure's files vs find's $files: $(grep -o '"files":[^,]*' "$WORK/$fs.measure" | head -1)"
	"$IMPRINT" profile "$mnt" 2>"$WORK/err" | grep -v '^# .*made 20' >"$WORK/m.profile"
	same_but_first "$fs: profile" "$WORK/$fs.profile" "$WORK/m.profile" 0
	"$IMPRINT" content-report "$mnt" >"$WORK/m.content" 2>"$WORK/err"
	same_but_first "$fs: content-report" "$WORK/$fs.content" "$WORK/m.content"
	umount "$mnt" && unset "MOUNTS[$((${#MOUNTS[@]} - 1))]"
	losetup -d "$DEV" && unset "LOOPS[$((${#LOOPS[@]} - 1))]"

	# not root: the loop reader cannot mount; it says so and how to mount by hand
	chmod 755 "$WORK"
	chmod 644 "$img"
	if command -v setpriv >/dev/null; then
		expect_status 1 "$fs: measure as nobody fails" setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$IMPRINT" measure "$img"
		expect_err "imprint reads $fs through the kernel, which needs root to mount it" "$fs: the error says root is needed"
		expect_err "mount -o ro,loop '$img' DIR" "$fs: the error says how to mount it by hand"
	fi
}

check xfs 300M
if command -v mkfs.btrfs >/dev/null && grep -qw btrfs /proc/filesystems; then
	check btrfs 300M
else
	echo "# btrfs: mkfs.btrfs or the kernel's btrfs missing: skipped"
fi

# a file libblkid finds nothing in still gets the ext2 reader's word
head -c 1M /dev/zero >"$WORK/zero.img"
expect_status 1 "zeros: measure fails" "$IMPRINT" measure "$WORK/zero.img"
expect_err "not an ext2/3/4 file system (bad magic)" "zeros: the ext2 reader says bad magic"
finish
