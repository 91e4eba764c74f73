#!/bin/bash
# readme.sh - the README's quick example sits in its first screen and runs as written
. "${srcdir:-.}/tests/lib.sh"

readme=${srcdir:-.}/README
# the indented lines after "Quick start", up to the first blank line after them
sed -n '/^Quick start/,$p' "$readme" | awk '/^    / { print; got = 1; next } got && /^$/ { exit }' |
	sed 's/^    //' >"$WORK/example"
n=$(wc -l <"$WORK/example")
[ "$n" -ge 2 ] && pass "the quick example has $n commands" || fail "no quick example in README"
first=$(grep -n '^Quick start' "$readme" | head -1 | cut -d: -f1)
last=$((first + 1 + $(sed -n "$first,\$p" "$readme" | grep -n '^    ' | tail -n +"$n" | head -1 | cut -d: -f1)))
[ -n "$first" ] && [ "$last" -le 25 ] && pass "it ends on line $last of the README (first screen: 25)" ||
	fail "the quick example is not in the first 25 lines (lines ${first:-?}..$last)"
grep -q '^imprint ' "$WORK/example" && pass "it runs imprint" || fail "it does not run imprint"
# as written, with imprint being the binary under test
abs=$(cd "$(dirname "$IMPRINT")" && pwd)/$(basename "$IMPRINT")
mkdir "$WORK/run"
(cd "$WORK/run" && imprint() { "$abs" "$@"; } && set -e && . "$WORK/example") >"$WORK/out" 2>"$WORK/err"
st=$?
[ "$st" -eq 0 ] && pass "the example runs (exit 0)" || fail "the example failed (exit $st): $(tail -c 300 "$WORK/err")"
[ -f "$WORK/run/disk.img" ] && pass "it made disk.img" || fail "no disk.img"
grep -q "files" "$WORK/out" && pass "measure printed its figures" || fail "no measure output"
finish
