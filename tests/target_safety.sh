#!/bin/bash
# target_safety.sh - create never loses what is in an image file's place, and says why it fails
. "${srcdir:-.}/tests/lib.sh"

sha() { sha256sum "$1" | cut -d' ' -f1; }
leftovers() { find "$1" -maxdepth 1 -name '.*.imprint-*' | wc -l; }

# --- mke2fs's own error, not its warning about usage types (issue 16, finding 8)
expect_status 1 "mke2fs refuses -O ^extent with 64bit" \
	"$IMPRINT" create -q --size 64M --mkfs-options "-O ^extent" "$WORK/e8.img"
expect_err "mke2fs failed on" "says mke2fs failed"
expect_err "Extents MUST be enabled for a 64-bit filesystem" "shows mke2fs's real error"
if grep -q "Warning: the fs_type" "$WORK/err"; then
	fail "the usage-type warning is still shown: $(head -c 300 "$WORK/err")"
else
	pass "no usage-type warning"
fi
