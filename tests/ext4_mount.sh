#!/bin/bash
# ext4_mount.sh - images read back through the kernel: every entry, its metadata, bytes and extents
. "${srcdir:-.}/tests/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null || ! command -v filefrag >/dev/null; then
	echo "1..0 # SKIP needs root, losetup and filefrag"
	exit 77
fi
losetup -f >/dev/null 2>&1 || { echo "1..0 # SKIP no free loop device"; exit 77; }

loop_init

# check NAME CREATE-ARGS...: build, attach read-only, mount, verify, filefrag, detach
check() {
	local what=$1 img="$WORK/img"
	shift
	rm -f "$img" "$WORK/ext"
	if ! "$IMPRINT" create --quiet "$@" --extents "$WORK/ext" "$img" 2>"$WORK/err"; then
		fail "$what: create failed: $(head -c 300 "$WORK/err")"
		return
	fi
	LOOP=$(losetup -f --show -r "$img") || { fail "$what: losetup"; return; }
	if ! mount -o ro "$LOOP" "$MNT" 2>"$WORK/err"; then
		fail "$what: the kernel refuses to mount it: $(head -c 300 "$WORK/err")"
		loop_cleanup
		return
	fi
	if "$IMPRINT" verify "$@" --extents "$WORK/ext" "$MNT" >"$WORK/out" 2>&1; then
		pass "$what: every entry, its metadata, bytes and extents as planned ($(tail -1 "$WORK/out"))"
	else
		fail "$what: $(head -5 "$WORK/out")"
	fi
	# the check can fail: another seed's plan must not match this image
	if "$IMPRINT" verify "$@" --seed 999 "$MNT" >"$WORK/out" 2>&1; then
		fail "$what: verify accepts the plan of another seed"
	else
		pass "$what: verify rejects the plan of another seed"
	fi
	# filefrag (e2fsprogs, FIEMAP) agrees on the number of extents of a sample
	local bad=0 n=0
	while IFS=$'\t' read -r id path runs; do
		[ "$runs" = "-" ] && continue
		n=$((n + 1))
		[ $n -gt 200 ] && break
		want=$(awk -F, '{ print NF }' <<<"$runs")
		got=$(filefrag "$MNT$path" | sed -n 's/.*: \([0-9]*\) extents\? found/\1/p')
		# filefrag counts extents split at 32768 blocks separately: allow that
		[ -n "$got" ] && [ "$got" -ge "$want" ] || bad=$((bad + 1))
	done < <(tail -n +2 "$WORK/ext")
	[ $bad -eq 0 ] && pass "$what: filefrag sees at least the planned runs ($n files)" \
		|| fail "$what: filefrag disagrees on $bad of $n files"
	loop_cleanup
}

check "ext4 default" --size 256M --seed 3
check "ext4 fragmented" --size 256M --seed 4 --set layout_score=0.7
check "ext4 links" --size 128M --seed 5 --set hardlink_share=0.05 --set symlink_share=0.1
check "ext4 special dir" --size 256M --seed 6 --files 30000 --set special_dirs=1 \
	--set special_dir_files=20000 --used 100M
check "ext4 inline_data, 1 KiB blocks" --size 128M --seed 7 --mkfs-options "-b 1024 -O inline_data"
check "ext3" --size 128M --seed 8 --fs ext3
check "ext2" --size 128M --seed 9 --fs ext2
finish
