#!/bin/bash
# ci_recipe_root.sh - scripts/ci-recipe's loop step: loop device, mount, verify, workload, clean up
. "${srcdir:-.}/tests/lib.sh"
need_loops

export IMPRINT SIZE=64M TMPDIR="$WORK"
before=$(losetup -a | grep -c "$WORK" || true)
expect_status 0 "ci-recipe loop" "$top_srcdir/scripts/ci-recipe" loop
grep -q "loop: verified through the kernel" "$WORK/err" && pass "verified, ran the workload, e2fsck clean" ||
	fail "loop step: $(cat "$WORK/err")"
[ "$(losetup -a | grep -c "$WORK" || true)" -eq "$before" ] && pass "no loop device left attached" ||
	fail "loop devices left: $(losetup -a | grep "$WORK")"
grep -q "$WORK" /proc/mounts && fail "a mount left: $(grep "$WORK" /proc/mounts)" || pass "no mount left"

# doc/ci.md's loop recipe as written (imprint: the binary under test), in a directory of its own
sed -n '/^## With root: loop device/,/^[^ ]/p' "$top_srcdir/doc/ci.md" | sed -n 's/^    //p' >"$WORK/recipe"
grep -q '^set -e' "$WORK/recipe" && pass "the recipe stops at the first failure (set -e)" ||
	fail "the recipe has no set -e"
grep -q 'needs .*fio' "$WORK/recipe" && pass "the recipe lists fio" || fail "the recipe does not list fio"
abs=$(cd "$(dirname "$IMPRINT")" && pwd)/$(basename "$IMPRINT")
# run_recipe DIR [PRELUDE]: the recipe in DIR, after PRELUDE (a function standing in for a tool)
run_recipe() {
	mkdir -p "$1/tmp"
	(cd "$1" && export TMPDIR="$1/tmp" && imprint() { "$abs" "$@"; } && eval "${2:-}" &&
		. "$WORK/recipe") >"$1/out" 2>"$1/err"
}
if command -v fio >/dev/null; then
	run_recipe "$WORK/r1"
	st=$?
	[ "$st" -eq 0 ] && pass "the recipe runs as written (exit 0)" ||
		fail "the recipe failed (exit $st): $(tail -c 300 "$WORK/r1/err")"
	[ -z "$(ls -A "$WORK/r1/tmp")" ] && pass "its mount point is removed" ||
		fail "left behind: $(ls "$WORK/r1/tmp")"
else
	echo "# skipped the recipe's run: no fio"
fi
# without fio it must fail, not print 'command not found' and exit 0
run_recipe "$WORK/r2" 'fio() { echo "fio: command not found" >&2; return 127; }'
st=$?
[ "$st" -ne 0 ] && pass "without fio the recipe fails (exit $st)" ||
	fail "without fio the recipe exits 0: $(tail -c 300 "$WORK/r2/err")"
[ -z "$(ls -A "$WORK/r2/tmp")" ] && pass "and still removes its mount point" ||
	fail "left behind after a failure: $(ls "$WORK/r2/tmp")"
[ "$(losetup -a | grep -c "$WORK" || true)" -eq "$before" ] && pass "no loop device left by the recipe" ||
	fail "loop devices left: $(losetup -a | grep "$WORK")"
grep -q "$WORK" /proc/mounts && fail "a mount left: $(grep "$WORK" /proc/mounts)" || pass "no mount left by the recipe"

echo "1..$TESTS_RUN"
[ "$TESTS_FAILED" -eq 0 ]
