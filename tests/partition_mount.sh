#!/bin/bash
# partition_mount.sh - partitioned disks through the kernel: losetup -P, e2fsck and mount on the partition, verify, whole block devices, xfs through loopfs
. "${srcdir:-.}/tests/lib.sh"

need_loops
command -v sfdisk >/dev/null || { echo "1..0 # SKIP needs sfdisk (fdisk)"; exit 77; }

ARGS=(--size 64M --used 12M --seed 5)
MiB=1048576

# part_node DEV: a node of DEV's first partition once the kernel knows it (from
# losetup -P's scan; where the kernel did not scan, partx -a tells it from the
# table, which is said on stderr); made in WORK where no udev makes /dev's
part_node() {
	local name=${1#/dev/} sys
	sys=/sys/block/$name/${name}p1
	for i in $(seq 40); do
		[ -b "${1}p1" ] && { echo "${1}p1"; return 0; }
		if [ -r "$sys/dev" ]; then
			mknod "$WORK/${name}p1" b $(tr : ' ' <"$sys/dev") 2>/dev/null || [ -b "$WORK/${name}p1" ] || return 1
			echo "$WORK/${name}p1"
			return 0
		fi
		if [ "$i" = 20 ]; then
			echo "# $1: the kernel did not scan the table; partx -a adds its partitions" >&2
			partx -a "$1" 2>/dev/null
		fi
		sleep 0.1
	done
	return 1
}

# image files: the kernel's partition scan finds the partition, e2fsck and the kernel read it
for label in gpt mbr; do
	img="$WORK/$label.img"
	"$IMPRINT" create -q "${ARGS[@]}" --partition "$label" "$img" 2>"$WORK/err" ||
		fail "$label: create: $(head -c 300 "$WORK/err")"
	DEV=$(losetup -f --show -r -P "$img") && LOOPS+=("$DEV")
	if P=$(part_node "$DEV"); then
		pass "$label: the kernel exposes the partition (${P##*/})"
		expect_fsck "$P" "$label: e2fsck -fn on the partition device is clean"
		if mount_at "$WORK/m-$label" -o ro "$P" 2>"$WORK/err"; then
			pass "$label: the kernel mounts the partition"
			expect_status 0 "$label: verify through the kernel: the plan, byte for byte" \
				"$IMPRINT" verify "${ARGS[@]}" "$WORK/m-$label"
		else
			fail "$label: the kernel refuses to mount ${P}: $(head -c 300 "$WORK/err")"
		fi
	else
		fail "$label: no partition device after losetup -P"
	fi
	# verify takes the disk itself too: it mounts the partition read-only on its own
	expect_status 0 "$label: verify of the disk image" "$IMPRINT" verify "${ARGS[@]}" "$img"
	expect_status 1 "$label: verify of the disk image finds another seed's plan wrong" \
		"$IMPRINT" verify --size 64M --used 12M --seed 6 "$img"
done
expect_status 0 "the disk images are untouched by the read-only mounts" \
	"$IMPRINT" create -q "${ARGS[@]}" --partition gpt "$WORK/again.img"
cmp -s "$WORK/gpt.img" "$WORK/again.img" && pass "gpt: the image after mounts and verify is the one a new run makes" ||
	fail "gpt: the image changed under the read-only mounts"
rm -f "$WORK/again.img"

# a whole block device (a loop device with partition scanning): the table and the file system in place
truncate -s 80M "$WORK/dev.img"
DEV=$(losetup -f --show -P "$WORK/dev.img") && LOOPS+=("$DEV")
expect_status 0 "device: create --partition gpt on the whole device" "$IMPRINT" create -q --used 12M --seed 5 --partition gpt "$DEV"
if [ "$(sfdisk --json "$DEV" | python3 -c 'import json,sys; p = json.load(sys.stdin)["partitiontable"]["partitions"]; print(len(p), p[0]["start"], p[0]["size"])')" = "1 2048 $((78 * MiB / 512))" ]; then
	pass "device: sfdisk reads one partition from 1 MiB to 1 MiB before the end (78 MiB)"
else
	fail "device: $(sfdisk -d "$DEV" 2>&1 | tail -2)"
fi
if P=$(part_node "$DEV"); then
	pass "device: the kernel knows the new partition (${P##*/})"
	expect_fsck "$P" "device: e2fsck -fn on the partition is clean"
	expect_status 0 "device: measure finds the file system through the table" "$IMPRINT" measure "$DEV"
	# refusals on the whole disk: its table without --force; busy (a mounted partition) even with it
	expect_status 1 "device: a second create without --force" "$IMPRINT" create -q --partition gpt "$DEV"
	expect_err "gpt partition table" "device: refused for its partition table"
	mount_at "$WORK/m-dev" -o ro "$P"
	expect_status 1 "device: create --force with a partition mounted" "$IMPRINT" create -q --force --partition gpt "$DEV"
	grep -qiE "mounted|busy|in use" "$WORK/err" && pass "device: refused as busy" ||
		fail "device: refused, but not as busy: $(head -c 300 "$WORK/err")"
	umount "$WORK/m-dev"
else
	fail "device: no partition node after create (the kernel did not read the table)"
fi

# the mounted backend's image path: xfs through loopfs in a partition
if command -v mkfs.xfs >/dev/null && command -v xfs_repair >/dev/null && grep -qw xfs /proc/filesystems; then
	export TMPDIR="$WORK/tmp"
	mkdir -p "$TMPDIR"
	XARGS=(--fs xfs --size 320M --used 12M --seed 5)
	expect_status 0 "xfs: create --fs xfs --partition gpt" "$IMPRINT" create -q "${XARGS[@]}" --partition gpt "$WORK/xfs.img"
	[ "$(blkid -p -O $MiB -o value -s TYPE "$WORK/xfs.img")" = xfs ] && pass "xfs: blkid finds xfs at 1 MiB" ||
		fail "xfs: blkid at 1 MiB: $(blkid -p -O $MiB "$WORK/xfs.img")"
	DEV=$(losetup -f --show -r -P "$WORK/xfs.img") && LOOPS+=("$DEV")
	if P=$(part_node "$DEV"); then
		xfs_repair -n "$P" >"$WORK/rep" 2>&1 && pass "xfs: xfs_repair -n on the partition is clean" ||
			fail "xfs: xfs_repair -n: $(tail -3 "$WORK/rep")"
		mount_at "$WORK/m-xfs" -o ro "$P" && expect_status 0 "xfs: verify through the kernel" \
			"$IMPRINT" verify "${XARGS[@]}" "$WORK/m-xfs"
	else
		fail "xfs: no partition device after losetup -P"
	fi
	expect_status 0 "xfs: measure reads the partition's xfs through the loop reader" "$IMPRINT" measure "$WORK/xfs.img"
	grep -q "^imprint measure: '$WORK/xfs.img, partition 1' (an xfs image or device, mounted read-only" "$WORK/out" &&
		pass "xfs: measure names the partition and the loop reader" ||
		fail "xfs: measure's first line: $(head -1 "$WORK/out")"
	[ -z "$(ls -A "$TMPDIR")" ] && pass "xfs: no mount point left" || fail "xfs: left in TMPDIR: $(ls -A "$TMPDIR")"
else
	echo "# xfs: mkfs.xfs, xfs_repair or the kernel's xfs missing: skipped"
fi

loops_cleanup
trap 'rm -rf "$WORK"' EXIT # the loop devices are gone: only the work folder is left to remove
if losetup -a | grep -qF "$WORK/"; then
	fail "a loop device of this test is still attached"
else
	pass "no loop device left attached"
fi
finish
