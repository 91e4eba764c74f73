#!/bin/bash
# deps.sh - no include or call cycle between files, no folder using a later stage (scripts/deps)
. "${srcdir:-.}/tests/lib.sh"

if python3 "${top_srcdir:-.}/scripts/deps" --quiet --build "${top_builddir:-.}" 2>"$WORK/err"; then
	pass "no cycle between files or folders; every folder uses only earlier stages"
else
	fail "scripts/deps: $(cat "$WORK/err")"
fi
# the check must be able to fail: a file calling up the pipeline is found
mkdir -p "$WORK/tree/src/util" "$WORK/tree/src/cli" "$WORK/tree/scripts"
cp "${top_srcdir:-.}/scripts/deps" "$WORK/tree/scripts/deps"
printf '#include "cli/up.h"\n' >"$WORK/tree/src/util/low.c"
printf '#include "util/low.h"\n' >"$WORK/tree/src/cli/up.h"
: >"$WORK/tree/src/util/low.h"
if python3 "$WORK/tree/scripts/deps" --quiet 2>"$WORK/err2"; then
	fail "a planted call up the pipeline went unseen"
else
	grep -q "depends on a later stage" "$WORK/err2" && pass "a planted call up the pipeline is found" ||
		fail "planted call up the pipeline: $(cat "$WORK/err2")"
fi
# the create pipeline is a core stage: the backend seam's test links it without the CLI
if grep -n '#include "cli/' "${top_srcdir:-.}/tests/test_backend.c" >"$WORK/cli"; then
	fail "tests/test_backend.c includes the CLI: $(cat "$WORK/cli")"
else
	pass "tests/test_backend.c reaches the pipeline without cli/ headers"
fi
finish
