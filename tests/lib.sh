# lib.sh - shared helpers for the shell tests (sourced)
# Each check prints "ok N - what" or "not ok N - what"; finish() exits 1 on any failure.

: "${IMPRINT:=./imprint}"
TESTS_RUN=0
TESTS_FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/imprint-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

pass() { TESTS_RUN=$((TESTS_RUN + 1)); echo "ok $TESTS_RUN - $1"; }
fail() { TESTS_RUN=$((TESTS_RUN + 1)); TESTS_FAILED=$((TESTS_FAILED + 1)); echo "not ok $TESTS_RUN - $1"; }
# sha FILE: its sha256; leftovers DIR: how many temporary images imprint left in DIR
sha() { sha256sum "$1" | cut -d' ' -f1; }
leftovers() { find "$1" -maxdepth 1 -name '.*.imprint-*' | wc -l; }

# expect_status WANT WHAT CMD...: run CMD, stdout to $WORK/out, stderr to $WORK/err
expect_status() {
	local want=$1 what=$2 got
	shift 2
	"$@" >"$WORK/out" 2>"$WORK/err"
	got=$?
	if [ "$got" -eq "$want" ]; then
		pass "$what (exit $got)"
	else
		fail "$what: exit $got, wanted $want; stderr: $(head -c 400 "$WORK/err")"
	fi
}

# verify_ok WHAT ARGS...: `imprint verify ARGS` passes (WHAT: verify: its last line)
verify_ok() {
	local what=${1:+$1: }
	shift
	if "$IMPRINT" verify "$@" >"$WORK/out" 2>&1; then
		pass "${what}verify: $(tail -1 "$WORK/out")"
	else
		fail "${what}verify: $(head -5 "$WORK/out")"
	fi
}

# expect_err TEXT WHAT: stderr of the last expect_status holds TEXT exactly (fixed string)
expect_err() {
	if grep -qF -- "$1" "$WORK/err"; then
		pass "$2"
	else
		fail "$2: stderr lacks '$1', got: $(head -c 400 "$WORK/err")"
	fi
}

# loop_init: MNT (an empty directory under WORK) and LOOP (unset) for a loop
# mount, and an exit trap that unmounts and detaches them (loop_cleanup),
# then removes WORK.  Attach with LOOP=$(losetup -f --show -r IMG) only:
# loop_cleanup never touches a device it was not given.
loop_init() {
	LOOP=
	MNT="$WORK/mnt"
	mkdir -p "$MNT"
	trap 'loop_cleanup; rm -rf "$WORK"' EXIT
}

loop_cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	LOOP=
}

# released DEV: wait (up to 60 s) until the kernel has shut down every file system of DEV.
# A root imprint run (this test's or another's) works in a private copy of the host's mounts
# (imprint(1)); what this shell unmounts stays active in a copy until the namespace is freed,
# which the kernel does after imprint ends, not before umount returns: e2fsck would see the file
# system unflushed.  ext4 and xfs list a live one under /sys/fs/TYPE/NAME.
released() {
	local name=${1##*/} mm _
	mm=$(lsblk -dno MAJ:MIN "$1" 2>/dev/null | tr -d ' ')
	for _ in $(seq 1 600); do
		if [ ! -e "/sys/fs/ext4/$name" ] && [ ! -e "/sys/fs/xfs/$name" ] &&
			! grep -qs "^[0-9]* [0-9]* $mm " /proc/[0-9]*/mountinfo; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# need_loops: skip the test (exit 77) unless root with a free loop device;
# then MOUNTS and LOOPS, the mount points and loop devices the test makes,
# are undone in reverse on exit (loops_cleanup), and WORK removed.
need_loops() {
	if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null || ! losetup -f >/dev/null 2>&1; then
		echo "1..0 # SKIP needs root and a free loop device"
		exit 77
	fi
	MOUNTS=()
	LOOPS=()
	trap loops_cleanup EXIT
}

loops_cleanup() {
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		mountpoint -q "${MOUNTS[i]}" && umount "${MOUNTS[i]}"
	done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$WORK"
}

# attach_dev IMG [ro]: a loop device of our own into DEV, in LOOPS (need_loops)
attach_dev() {
	DEV=$(losetup -f --show ${2:+-r} "$1") || return 1
	LOOPS+=("$DEV")
}

# mount_at DIR ARGS...: mount ARGS on DIR (made if needed), in MOUNTS (need_loops)
mount_at() {
	local dir=$1
	shift
	mkdir -p "$dir"
	mount "$@" "$dir" || return 1
	MOUNTS+=("$dir")
}

# ref_mount ARGS...: the ext4 backend's image of ARGS at $WORK/ref.img, mounted read-only on
# $WORK/ref (need_loops): the tree the other backends' are compared with (same_as_ref)
ref_mount() {
	if "$IMPRINT" create -q "$@" "$WORK/ref.img" 2>"$WORK/err" && attach_dev "$WORK/ref.img" ro &&
		mount_at "$WORK/ref" -o ro "$DEV"; then
		pass "the ext4 backend's image of the plan, mounted read-only"
	else
		fail "reference image: $(head -c 300 "$WORK/err")"
	fi
}

# tree_meta DIR: path, type and mode, owner, mtime of every entry (lost+found aside)
tree_meta() {
	(cd "$1" && find . -path ./lost+found -prune -o -printf '%p %M %U %G %T@\n' | sort)
}

# tree_listing DIR: the test's own walk of DIR, one line an entry: path, mode, owner, size,
# mtime, link count and bytes (sha256; a symbolic link's target)
tree_listing() {
	python3 - "$1" <<'PY'
import hashlib, os, stat, sys
top = sys.argv[1]
for d, ds, fs in os.walk(top):
    ds.sort()
    for n in sorted(ds + fs):
        p = os.path.join(d, n); st = os.lstat(p)
        if stat.S_ISREG(st.st_mode):
            what = hashlib.sha256(open(p, 'rb').read()).hexdigest()
        elif stat.S_ISLNK(st.st_mode):
            what = os.readlink(p)
        else:
            what = '-'
        print(os.path.relpath(p, top), oct(st.st_mode), st.st_uid, st.st_gid, st.st_size if not stat.S_ISDIR(st.st_mode) else 0,
              st.st_mtime_ns, st.st_nlink if not stat.S_ISDIR(st.st_mode) else 0, what)
PY
}

# same_as_ref WHAT DIR: diff -r and the metadata of DIR against $WORK/ref (ref_mount)
same_as_ref() {
	local what=$1 d=$2
	if diff -r --no-dereference -x lost+found "$WORK/ref" "$d" >"$WORK/diff" 2>&1; then
		pass "$what: diff -r against the ext4 backend's image finds nothing"
	else
		fail "$what: diff -r: $(head -5 "$WORK/diff")"
	fi
	if diff <(tree_meta "$WORK/ref") <(tree_meta "$d") >"$WORK/diff"; then
		pass "$what: modes, owners and mtimes are the ext4 image's ($(tree_meta "$d" | wc -l) entries)"
	else
		fail "$what: metadata differs: $(head -4 "$WORK/diff")"
	fi
}

# expect_fsck IMG WHAT: e2fsck -fn IMG finds nothing (its output in $WORK/fsck)
expect_fsck() {
	if e2fsck -fn "$1" >"$WORK/fsck" 2>&1; then
		pass "$2"
	else
		fail "$2: e2fsck -fn: $(head -c 400 "$WORK/fsck")"
	fi
}

# build_fsck WHAT IMG ARGS...: imprint create -q ARGS IMG (stdout in $WORK/out), then
# e2fsck -fn IMG; both must succeed
build_fsck() {
	local what=$1 img=$2 out
	shift 2
	rm -f "$img"
	if ! "$IMPRINT" create -q "$@" "$img" >"$WORK/out" 2>"$WORK/err"; then
		fail "$what: create failed: $(head -c 400 "$WORK/err")"
		return 1
	fi
	if out=$(e2fsck -fn "$img" 2>&1); then
		pass "$what: e2fsck -fn clean"
	else
		fail "$what: e2fsck -fn: $(echo "$out" | grep -v '^Pass\|^e2fsck' | head -5 | tr '\n' ' ')"
		return 1
	fi
}

# tap_from CMD...: run CMD; each line it prints, "ok WHAT" or "fail WHAT", passes or fails
tap_from() {
	local line
	while IFS= read -r line; do
		case $line in
		ok\ *) pass "${line#ok }" ;;
		*) fail "${line#fail }" ;;
		esac
	done < <("$@" 2>&1)
}

# open_bytes PID: allocated bytes of the largest file PID has open under $WORK (an
# unnamed O_TMPFILE image too, which only its descriptors reach)
open_bytes() {
	local f b max=0
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in "$WORK"/*) ;; *) continue ;; esac
		b=$(stat -L -c %b "$f" 2>/dev/null || echo 0)
		[ $((b * 512)) -gt "$max" ] && max=$((b * 512))
	done
	echo "$max"
}

# open_over PID BYTES: whether PID has more than BYTES allocated in a file open under $WORK
open_over() { [ "$(open_bytes "$1")" -gt "$2" ]; }

# wait_until PID CMD [ARG...]: wait (10 s at most) until CMD ARG... succeeds or PID has exited
wait_until() {
	local pid=$1 _
	shift
	for _ in $(seq 1 1000); do
		"$@" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
}

# need_html: skip the test (exit 77) when imprint was built without Chart.js (no --html)
need_html() {
	if [ "${IMPRINT_HAVE_CHARTJS:-yes}" = no ]; then
		echo "1..0 # SKIP imprint was built without Chart.js (configure --without-chartjs): no --html"
		exit 77
	fi
}

# near S C TOL: C lies within TOL (a fraction, e.g. 0.15) of S, and S is above 0
near() {
	awk -v s="$1" -v c="$2" -v t="$3" 'BEGIN { if (s <= 0) exit 1; d = c / s - 1; exit !(d <= t && d >= -t) }'
}

# ext_fig FILE EXT KEY: the figure KEY of extension EXT in tests/content_by_ext.py's output FILE
ext_fig() {
	awk -v e="$2" -v k="$3" '$1 == e { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$1"
}

# images_valid DIR EXT LEAST NAME DECODER: every .EXT of DIR of at least the format's least size
# LEAST is named NAME by file(1) and decoded by DECODER without a word; sets n to how many were
# checked and appends each refusal to bad
images_valid() {
	local f
	n=0
	for f in "$1"/*."$2"; do
		[ "$(stat -c %s "$f")" -ge "$3" ] || continue
		n=$((n + 1))
		file -b "$f" | grep -q "^$4" || bad="$bad $(basename "$f"):file"
		"$5" "$f" >/dev/null 2>"$WORK/img.err" && [ ! -s "$WORK/img.err" ] ||
			bad="$bad $(basename "$f"):$(head -c 100 "$WORK/img.err")"
	done
}

# same_jobs CONF WHAT: images of profile CONF made with -j1 and -j2 are the same bytes
same_jobs() {
	if "$IMPRINT" create -c "$1" -j1 "$WORK/j1.img" >/dev/null 2>"$WORK/err" &&
		"$IMPRINT" create -c "$1" -j2 "$WORK/j2.img" >/dev/null 2>"$WORK/err" &&
		cmp -s "$WORK/j1.img" "$WORK/j2.img"; then
		pass "-j1 and -j2 images of $2 are the same bytes"
	else
		fail "-j1 and -j2 images of $2 differ or failed: $(head -c 300 "$WORK/err")"
	fi
	rm -f "$WORK/j1.img" "$WORK/j2.img"
}

finish() {
	echo "1..$TESTS_RUN"
	[ "$TESTS_FAILED" -eq 0 ] || exit 1
	exit 0
}
