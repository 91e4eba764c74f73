#!/bin/bash
# signals.sh - nothing outlives imprint (issue 23 item 12): verify of an xfs image, create --fs xfs
# and an ext4 create, stopped at a known point (IMPRINT_TEST_PAUSE_AT, test-only) and ended by
# SIGTERM, SIGINT, SIGHUP, SIGPIPE or SIGKILL, leave no mount, no loop device and no temporary
. "${srcdir:-.}/tests/lib.sh"

need_loops
if ! command -v mkfs.xfs >/dev/null || ! grep -qw xfs /proc/filesystems; then
	echo "1..0 # SKIP needs mkfs.xfs and the kernel's xfs"
	exit 77
fi
# a background job of a script ignores SIGINT, python SIGPIPE, and imprint keeps an ignored signal
# ignored: undo both for imprint, in the same process (job control would undo the first too, but
# then wait reports the stop as an end)
WITH_SIGINT=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])')

# imprint's mount points and mke2fs.conf go here, so that a leftover shows
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
OPTS=(--size 300M --files 300 --seed 5)

# our_mounts: mounts under WORK as this shell (the host's namespace) sees them
our_mounts() { grep -F "$WORK/" /proc/self/mountinfo; }
# our_loops: loop devices whose backing file is under WORK (a deleted temporary image included)
our_loops() { grep -lF "$WORK/" /sys/block/loop*/loop/backing_file 2>/dev/null; }
# leftovers_all: everything imprint may leave: TMPDIR's entries, mounts, loop devices, hidden images
leftovers_all() {
	ls -A "$TMPDIR"
	our_mounts
	our_loops
	find "$WORK" -maxdepth 1 -name '.*.imprint-*'
}
stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }
gone() { [ -z "$(leftovers_all)" ]; }

"$IMPRINT" create -q --fs xfs "${OPTS[@]}" "$WORK/x.img" 2>"$WORK/err" ||
	fail "the xfs image to verify: $(head -c 300 "$WORK/err")"

# interrupt POINT SIG WHAT CMD...: run CMD until it stops at POINT, send SIG, and check what is left
interrupt() {
	local point=$1 sig=$2 what=$3 pid rc want _
	shift 3
	IMPRINT_TEST_PAUSE_AT=$point "${WITH_SIGINT[@]}" "$@" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	wait_until "$pid" stopped "$pid"
	if ! stopped "$pid"; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid"
		fail "$what: never reached '$point' (exit $?): $(head -c 300 "$WORK/err")"
		return
	fi
	if [ "$point" = mounted ]; then
		# the mount is in imprint's own namespace: this shell does not see it
		if [ -z "$(our_mounts)" ] && grep -qF "$TMPDIR/imprint-" "/proc/$pid/mountinfo"; then
			pass "$what: mounted in imprint's namespace only"
		else
			fail "$what: host sees '$(our_mounts | head -1)'; imprint's: $(grep -cF "$TMPDIR/" "/proc/$pid/mountinfo")"
		fi
	fi
	kill "-$sig" "$pid"
	kill -CONT "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	# create stops its build on SIGINT, SIGTERM and SIGHUP, cleans up and says so (exit 1)
	if [ "$rc" -eq "$want" ] ||
		{ [ -n "$GRACEFUL" ] && [ "$rc" -eq 1 ] && grep -q "interrupted (SIG$sig)" "$WORK/err"; }; then
		:
	else
		fail "$what: SIG$sig: exit $rc, wanted $want${GRACEFUL:+ or 1 (interrupted)}: $(head -c 200 "$WORK/err")"
	fi
	# the watcher and the kernel's autoclear finish just after imprint is gone: wait for them
	for _ in $(seq 1 1000); do
		gone && break
		sleep 0.01
	done
	if gone; then
		pass "$what: SIG$sig at '$point' leaves no mount, loop device or temporary"
	else
		fail "$what: SIG$sig at '$point' left: $(leftovers_all | head -3 | tr '\n' ' ')"
		# undo it, so that the next case starts clean
		our_mounts | awk '{print $5}' | while read -r m; do umount -l "$m"; done
		for l in $(our_loops); do
			l=${l#/sys/block/}
			losetup -d "/dev/${l%%/*}"
		done
		rm -rf "${TMPDIR:?}"/* "$WORK"/.*.imprint-*
	fi
}

sum=$(sha "$WORK/x.img")
for sig in TERM INT HUP PIPE KILL; do
	interrupt mounted "$sig" "verify of an xfs image" \
		"$IMPRINT" verify --fs xfs "${OPTS[@]}" "$WORK/x.img"
done
[ "$(sha "$WORK/x.img")" = "$sum" ] && pass "verify left the image as it was" ||
	fail "verify changed the image"

GRACEFUL=yes
for sig in TERM INT HUP KILL; do
	interrupt mounted "$sig" "create --fs xfs" \
		"$IMPRINT" create -q --fs xfs "${OPTS[@]}" "$WORK/new.img"
	[ -e "$WORK/new.img" ] && fail "create --fs xfs: SIG$sig left a TARGET" && rm -f "$WORK/new.img"
	interrupt mke2fs "$sig" "create (ext4)" "$IMPRINT" create -q "${OPTS[@]}" "$WORK/e.img"
	[ -e "$WORK/e.img" ] && fail "create (ext4): SIG$sig left a TARGET" && rm -f "$WORK/e.img"
done

# not stopped: a whole verify still works and leaves nothing
if "$IMPRINT" verify --fs xfs "${OPTS[@]}" "$WORK/x.img" >"$WORK/out" 2>"$WORK/err" && gone; then
	pass "an uninterrupted verify passes and leaves nothing: $(tail -1 "$WORK/out")"
else
	fail "an uninterrupted verify: $(tail -c 300 "$WORK/err") $(leftovers_all | head -2)"
fi

finish
