#!/bin/bash
# man_fs.sh - the manual page's --fs values and default are the backends' registry's (make fills them in from `imprint params`), and --help's --fs names each of them
. "${srcdir:-.}/tests/lib.sh"

MAN="${top_builddir:-.}/doc/imprint.1"
IN="${top_srcdir:-.}/doc/imprint.1.in"

"$IMPRINT" params --json >"$WORK/params.json" || fail "params --json"
want=$(python3 -c 'import json, sys
fs = [p for p in json.load(open(sys.argv[1])) if p["name"] == "fs"][0]
print("|".join(fs["values"]), fs["default"])' "$WORK/params.json")
read -r values default <<<"$want"
[ -n "$values" ] && pass "the registry's fs values: $values, default $default" ||
	fail "no fs values in params --json"

# the template lists none by hand
grep -qxF '.BR \-\-fs " @FS_VALUES@"' "$IN" && pass "doc/imprint.1.in leaves the --fs values to make" ||
	fail "doc/imprint.1.in: no '@FS_VALUES@' on the --fs line"

if [ ! -f "$MAN" ]; then
	fail "no $MAN: make builds it"
else
	got=$(sed -n 's/^\.BR \\-\\-fs " \(.*\)"$/\1/p' "$MAN")
	[ "$got" = "$values" ] && pass "the manual page's --fs values are the registry's ($got)" ||
		fail "the manual page's --fs values '$got', the registry's '$values'"
	grep -A3 -F '.BR \-\-fs "' "$MAN" | grep -qx "default $default)." &&
		pass "the manual page's --fs default is the registry's ($default)" ||
		fail "the manual page's --fs default is not '$default'"
	grep -n '@[A-Z_]*@' "$MAN" >"$WORK/left" && fail "placeholders left: $(head -3 "$WORK/left")" ||
		pass "no placeholder left in the manual page"
fi

# --help's --fs entry (up to the next option) names every value
"$IMPRINT" --help | sed -n '/^ *--fs FS/,/^ *-/p' | sed '$d' >"$WORK/help"
missing=
for v in ${values//|/ }; do
	grep -qw -- "$v" "$WORK/help" || missing="$missing $v"
done
[ -s "$WORK/help" ] && [ -z "$missing" ] && pass "--help's --fs names every value" ||
	fail "--help's --fs lacks$missing: $(cat "$WORK/help")"
finish
