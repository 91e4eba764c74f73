#!/bin/bash
# build_optional.sh - cmocka, libxml2 and Chart.js are optional: configure with them hidden says what is
# lost (a warning, not an error), the program builds and works, --html says why it is not there, make check
# builds no unit test; --with-cmocka when it is hidden is an error that says what to install
. "${srcdir:-.}/tests/lib.sh"

top=${top_srcdir:-.}
if [ ! -x "$top/configure" ] || [ ! -f "$top/Makefile.in" ] || ! command -v pkg-config >/dev/null; then
	echo "1..0 # SKIP needs a bootstrapped source tree (configure, Makefile.in) and pkg-config"
	exit 77
fi

# a copy of the sources (the tree itself may be configured in place, which forbids a VPATH build)
SRC="$WORK/src"
mkdir -p "$SRC"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$SRC")
else
	(cd "$top" && find . -path ./tests/fuzz -prune -o -type f ! -name '*.o' ! -name '*.a' -print0 |
		xargs -0 cp --parents -t "$SRC")
fi
for f in configure Makefile.in config.h.in aclocal.m4 build-aux; do
	cp -r "$top/$f" "$SRC/" 2>/dev/null
done
rm -f "$SRC/config.status" "$SRC/config.h" "$SRC/Makefile" "$SRC/src/report/html_assets.c"
# the generated files newer than their inputs, so that make does not remake them
(cd "$SRC" && touch aclocal.m4 && touch configure config.h.in && touch Makefile.in)

# pkg-config that knows no cmocka and no libxml2
cat >"$WORK/pkg-config" <<'PC'
#!/bin/sh
for a; do
	case $a in cmocka* | libxml-2.0*) exit 1 ;; esac
done
exec pkg-config "$@"
PC
chmod +x "$WORK/pkg-config"

cd "$SRC" || exit 1
if PKG_CONFIG="$WORK/pkg-config" ./configure --without-chartjs >"$WORK/conf" 2>&1; then
	pass "configure succeeds with cmocka and libxml2 hidden and --without-chartjs"
else
	fail "configure failed: $(tail -5 "$WORK/conf")"
	finish
fi
grep -qF "WARNING: cmocka (cmocka.pc) was not found: make check leaves the unit tests (tests/test_*) out; install the Debian package libcmocka-dev" "$WORK/conf" &&
	pass "configure says the unit tests are left out without cmocka, and what to install" ||
	fail "no cmocka warning: $(grep -i cmocka "$WORK/conf" | head -3)"
grep -qF "WARNING: libxml2 (libxml-2.0.pc) was not found: make check leaves tests/test_text out; install the Debian package libxml2-dev" "$WORK/conf" &&
	pass "configure says tests/test_text is left out without libxml2" ||
	fail "no libxml2 warning: $(grep -i libxml "$WORK/conf" | head -3)"
grep -qF "Chart.js left out (--without-chartjs): imprint is built without --html" "$WORK/conf" &&
	pass "configure says --html is left out without Chart.js" ||
	fail "no Chart.js notice: $(grep -i chart "$WORK/conf" | head -3)"
grep -q "unit tests (cmocka): no" "$WORK/conf" && pass "the summary says no unit tests" ||
	fail "summary: $(tail -5 "$WORK/conf")"

if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2 >"$WORK/make" 2>&1; then
	pass "make builds imprint without them"
else
	fail "make failed: $(grep -m3 -i error "$WORK/make")"
	finish
fi
expect_status 0 "the program plans" ./imprint plan --files 50 --seed 3 -o "$WORK/m.txt"
[ "$(sha "$WORK/m.txt")" = "$(sha <("$IMPRINT" plan --files 50 --seed 3 -o -))" ] &&
	pass "its manifest is the full build's, byte for byte" || fail "the manifest differs from the full build's"
expect_status 1 "plan --html is refused" ./imprint plan --files 50 --html "$WORK/p.html"
expect_err "this imprint was built without Chart.js" "the refusal says why"
expect_err "install the Debian package libjs-chart.js and rebuild" "the refusal says what to do"
[ ! -e "$WORK/p.html" ] && pass "no page written" || fail "a page was written"
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make check TESTS= >"$WORK/check" 2>&1; then
	pass "make check (no test named) works without cmocka"
else
	fail "make check: $(grep -m3 -i error "$WORK/check")"
fi
ls tests/test_* 2>/dev/null | grep -v '\.c$\|\.h$' >"$WORK/built"
[ ! -s "$WORK/built" ] && pass "no unit test program built" || fail "built: $(head -3 "$WORK/built")"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make check TESTS=tests/html.sh >"$WORK/check" 2>&1
grep -q "^SKIP: tests/html.sh" "$WORK/check" && pass "tests/html.sh skips without Chart.js" ||
	fail "tests/html.sh: $(grep -m2 'html.sh' "$WORK/check")"

# asked for, and missing: an error naming the package
make distclean >/dev/null 2>&1
if PKG_CONFIG="$WORK/pkg-config" ./configure --with-cmocka >"$WORK/conf" 2>&1; then
	fail "configure --with-cmocka succeeded with cmocka hidden"
else
	grep -qF "error: cmocka (cmocka.pc) was not found (--with-cmocka): install the Debian package libcmocka-dev" "$WORK/conf" &&
		pass "--with-cmocka without cmocka: an error naming the package" ||
		fail "--with-cmocka: $(tail -3 "$WORK/conf")"
fi
finish
