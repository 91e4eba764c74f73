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

echo "1..$TESTS_RUN"
[ "$TESTS_FAILED" -eq 0 ]
