#!/bin/bash
# ci_recipe.sh - scripts/ci-recipe's unprivileged steps (image, tree, fleet), and the CI job files call real steps
. "${srcdir:-.}/tests/lib.sh"

RECIPE="$top_srcdir/scripts/ci-recipe"
export IMPRINT SIZE=64M SEEDS="1 2" JOBS=2 TMPDIR="$WORK"

expect_status 0 "ci-recipe image tree fleet" "$RECIPE" image tree fleet
for what in "image: .*e2fsck clean" "tree: .*holds what the image holds" \
	"fleet: 6 images .*one rebuilt alone byte-identical"; do
	grep -q "$what" "$WORK/err" && pass "says '$what'" || fail "no '$what' in: $(cat "$WORK/err")"
done
[ -z "$(find "$WORK" -maxdepth 1 -name 'imprint-ci.*')" ] && pass "its work directory is removed" ||
	fail "left $(find "$WORK" -maxdepth 1 -name 'imprint-ci.*')"

# It can fail: a configuration imprint refuses stops the run, with the step named.
"$IMPRINT" config >"$WORK/bad.cfg" && echo "size_sigma = -1" >>"$WORK/bad.cfg"
CONFIG="$WORK/bad.cfg" "$RECIPE" image >"$WORK/out" 2>"$WORK/err"
st=$?
[ $st -ne 0 ] && [ $st -ne 77 ] && pass "a bad CONFIG fails the recipe (exit $st)" ||
	fail "a bad CONFIG: exit $st"
expect_err "failed (line" "the failing command is named"
expect_status 2 "an unknown step" "$RECIPE" bogus
expect_err "unknown step 'bogus'" "the unknown step is named"

# The job files: valid YAML, and every ci-recipe step they run exists.
for f in "$top_srcdir"/doc/ci/*.yml; do
	if command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null; then
		python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$f" &&
			pass "${f##*/} is valid YAML" || fail "${f##*/} is not valid YAML"
	fi
	steps=$(grep -v '^ *#' "$f" | grep -o 'scripts/ci-recipe[ a-z]*' | sed 's|scripts/ci-recipe||' | tr ' ' '\n' | sort -u)
	[ -n "$steps" ] || fail "${f##*/} runs no ci-recipe step"
	for s in $steps; do
		grep -qE "^#   $s " "$RECIPE" && pass "${f##*/}: step '$s' exists" ||
			fail "${f##*/} runs step '$s', which scripts/ci-recipe lacks"
	done
done

echo "1..$TESTS_RUN"
[ "$TESTS_FAILED" -eq 0 ]
