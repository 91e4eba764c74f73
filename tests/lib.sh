# lib.sh - shared helpers for the shell tests (sourced)
# Each check prints "ok N - what" or "not ok N - what"; finish() exits 1 on any failure.

: "${IMPRINT:=./imprint}"
TESTS_RUN=0
TESTS_FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/imprint-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

pass() { TESTS_RUN=$((TESTS_RUN + 1)); echo "ok $TESTS_RUN - $1"; }
fail() { TESTS_RUN=$((TESTS_RUN + 1)); TESTS_FAILED=$((TESTS_FAILED + 1)); echo "not ok $TESTS_RUN - $1"; }

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

finish() {
	echo "1..$TESTS_RUN"
	[ "$TESTS_FAILED" -eq 0 ] || exit 1
	exit 0
}
