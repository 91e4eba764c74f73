#!/bin/bash
# shard_gluster.sh - one plan written in 4 shards into a GlusterFS volume (2 bricks on this
# machine, mounted through FUSE) by mpirun and by GNU parallel, then `--shard finish`: each
# tree is the one a plain create writes into a local directory, and the one the ext4 image
# of the plan holds; `imprint verify` finds no mismatch.  As root; skipped (77) without
# glusterd, gluster, the FUSE client, mpirun, parallel or /dev/fuse.  It starts glusterd
# only when none runs, and stops only what it started.
. "${srcdir:-.}/tests/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (glusterd, a FUSE mount)"
	exit 77
fi
for tool in glusterd gluster mount.glusterfs mpirun parallel python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP needs $tool (glusterfs-server, glusterfs-client, openmpi-bin, parallel)"
		exit 77
	fi
done
if [ ! -c /dev/fuse ] || ! grep -qw fuse /proc/filesystems; then
	echo "1..0 # SKIP needs FUSE (/dev/fuse)"
	exit 77
fi

PLAN=(--size 64M --used 12M --seed 7 --files 700)
VOL=imprint-shard-$$
MNT=$WORK/mnt
STARTED=
VOL_MADE=
LOOP=

cleanup() {
	if mountpoint -q "$MNT"; then
		umount "$MNT" || umount -l "$MNT"
	fi
	[ -n "$LOOP" ] && { umount "$WORK/img" 2>/dev/null; losetup -d "$LOOP"; }
	if [ -n "$VOL_MADE" ]; then
		gluster --mode=script volume stop "$VOL" force >/dev/null 2>&1
		gluster --mode=script volume delete "$VOL" >/dev/null 2>&1
	fi
	if [ -n "$STARTED" ]; then
		kill "$STARTED" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$STARTED" 2>/dev/null || break; sleep 0.1; done
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

# glusterd: the one running, or one of its own
if ! pgrep -x glusterd >/dev/null; then
	glusterd -p "$WORK/glusterd.pid" || { echo "1..0 # SKIP glusterd does not start"; exit 77; }
	for _ in $(seq 100); do [ -s "$WORK/glusterd.pid" ] && break; sleep 0.1; done
	STARTED=$(cat "$WORK/glusterd.pid" 2>/dev/null)
fi
for _ in $(seq 100); do gluster --mode=script volume list >/dev/null 2>&1 && break; sleep 0.2; done

mkdir -p "$WORK/b1" "$WORK/b2" "$MNT"
host=$(hostname)
if gluster --mode=script volume create "$VOL" "$host:$WORK/b1" "$host:$WORK/b2" force >"$WORK/err" 2>&1; then
	VOL_MADE=1
	pass "volume $VOL of 2 bricks made"
else
	fail "gluster volume create: $(head -c 300 "$WORK/err")"
	finish
fi
gluster --mode=script volume start "$VOL" >"$WORK/err" 2>&1 || fail "gluster volume start: $(cat "$WORK/err")"
if mount -t glusterfs "localhost:/$VOL" "$MNT" 2>"$WORK/err" &&
	[ "$(findmnt -n -o FSTYPE "$MNT")" = fuse.glusterfs ]; then
	pass "mounted through FUSE ($(findmnt -n -o FSTYPE,SOURCE "$MNT"))"
else
	fail "mount -t glusterfs: $(head -c 300 "$WORK/err"), type $(findmnt -n -o FSTYPE "$MNT")"
	finish
fi

# the references: a plain create into a local directory, the ext4 image of the plan
listing() { python3 "${srcdir:-.}/tests/tree_listing.py" "$1"; }
mkdir -p "$WORK/plain"
"$IMPRINT" create -q "${PLAN[@]}" "$WORK/plain" 2>"$WORK/err" || fail "plain create: $(cat "$WORK/err")"
listing "$WORK/plain" >"$WORK/ref"
"$IMPRINT" create -q "${PLAN[@]}" "$WORK/plan.ext4" 2>"$WORK/err" || fail "ext4 image: $(cat "$WORK/err")"
LOOP=$(losetup -f --show -r "$WORK/plan.ext4" 2>/dev/null)
mkdir -p "$WORK/img"
if [ -n "$LOOP" ] && mount -o ro "$LOOP" "$WORK/img"; then
	# the image's root also holds lost+found
	listing "$WORK/img" | grep -v -e '^lost+found' -e '^\.|' >"$WORK/ref_img"
else
	LOOP=
	fail "cannot mount the ext4 image read-only through a loop device"
fi

# same DIR WHAT: DIR holds the plain create's tree and the image's, and no leftovers
same() {
	listing "$1" >"$WORK/got"
	if cmp -s "$WORK/ref" "$WORK/got"; then
		pass "$2: the same tree as a plain create into a local directory ($(wc -l <"$WORK/got") entries)"
	else
		fail "$2: differs from the plain create: $(diff "$WORK/ref" "$WORK/got" | head -5)"
	fi
	if [ -n "$LOOP" ] && grep -v '^\.|' "$WORK/got" | cmp -s - "$WORK/ref_img"; then
		pass "$2: the same tree as the ext4 image of the plan"
	elif [ -n "$LOOP" ]; then
		fail "$2: differs from the ext4 image: $(grep -v '^\.|' "$WORK/got" | diff "$WORK/ref_img" - | head -5)"
	fi
	if [ -z "$(find "$1" -name '.imprint-*' | head -1)" ]; then
		pass "$2: no leftovers (.imprint-*)"
	else
		fail "$2: leftovers $(find "$1" -name '.imprint-*' | head -3)"
	fi
	verify_ok "$2" "${PLAN[@]}" "$1"
}

# 4 shards by mpirun, each told its share by Open MPI's environment
mkdir -p "$MNT/mpi"
if mpirun --allow-run-as-root --oversubscribe -np 4 \
	"$IMPRINT" create -q -j2 "${PLAN[@]}" --shard auto "$MNT/mpi" >"$WORK/out" 2>"$WORK/err"; then
	pass "mpirun -np 4 imprint create --shard auto"
else
	fail "mpirun: $(head -c 400 "$WORK/err")"
fi
for k in 0 1 2 3; do
	grep -qF "share $k of 4 from Open MPI" "$WORK/err" || fail "rank $k did not say its share: $(head -c 300 "$WORK/err")"
done
verify_ok "mpirun share 2 before the finish" "${PLAN[@]}" --shard 2/4 "$MNT/mpi"
"$IMPRINT" create -q "${PLAN[@]}" --shard finish "$MNT/mpi" 2>"$WORK/err" || fail "finish: $(cat "$WORK/err")"
same "$MNT/mpi" "mpirun, 4 shards on Gluster"

# 4 shards by GNU parallel
mkdir -p "$MNT/par"
if parallel -j4 "$IMPRINT" create -q -j2 "${PLAN[@]}" --shard '{}/4' "$MNT/par" ::: 3 2 1 0 2>"$WORK/err"; then
	pass "parallel -j4 imprint create --shard {}/4"
else
	fail "parallel: $(head -c 400 "$WORK/err")"
fi
"$IMPRINT" create -q "${PLAN[@]}" --shard finish "$MNT/par" 2>"$WORK/err" || fail "finish: $(cat "$WORK/err")"
same "$MNT/par" "GNU parallel, 4 shards on Gluster"

finish
