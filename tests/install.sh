#!/bin/bash
# install.sh - make install and uninstall with DESTDIR: the program, the manual page, the bash completion, the docs
. "${srcdir:-.}/tests/lib.sh"

# The make of the build tree, as a user runs it (not the one running this test).
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top_builddir" "$@" >"$WORK/make.out" 2>&1; }
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
bcdir=$(sed -n 's/^bashcompletiondir = //p' "$top_builddir/Makefile")
D="$WORK/dest"

if mk install DESTDIR="$D"; then pass "make install DESTDIR"; else fail "make install: $(tail -5 "$WORK/make.out")"; fi
for f in "$prefix/bin/imprint" "$prefix/share/man/man1/imprint.1" "$prefix/share/doc/imprint/README" \
	"$prefix/share/doc/imprint/ci.md" "$prefix/share/doc/imprint/examples/ci-recipe" \
	"$prefix/share/doc/imprint/examples/github-actions.yml"; do
	[ -f "$D$f" ] && pass "installs $f" || fail "does not install $f"
done
if [ -n "$bcdir" ]; then
	f=$(find "$D" -path '*/bash-completion/completions/imprint')
	[ -n "$f" ] && pass "installs the bash completion (${f#"$D"})" || fail "no bash completion under $D"
	case ${f#"$D"} in "$prefix"/*) pass "the completion stays under the prefix" ;;
	*) fail "the completion is outside the prefix: ${f#"$D"}" ;; esac
fi
"$D$prefix/bin/imprint" --version | grep -q '^imprint ' && pass "the installed program runs" ||
	fail "the installed program does not run"
if mk uninstall DESTDIR="$D"; then pass "make uninstall DESTDIR"; else fail "make uninstall: $(tail -5 "$WORK/make.out")"; fi
left=$(find "$D" -type f)
[ -z "$left" ] && pass "uninstall removes every file" || fail "left after uninstall: $left"

# The manual page documents every long option and command of main.c.
MAIN="$top_srcdir/src/cli/main.c"
missing=
for o in $(sed -n '/^static const struct option long_opts\[\]/,/^};/s/.*{ "\([^"]*\)",.*/\1/p' "$MAIN"); do
	grep -qF -- "\\-\\-${o//-/\\-}" "$top_builddir/doc/imprint.1" || missing="$missing --$o"
done
for c in $(sed -n '/^static const struct command commands\[/,/^};/s/.*\.name = "\([^"]*\)".*/\1/p' "$MAIN"); do
	grep -qxF -- ".B ${c//-/\\-}" "$top_builddir/doc/imprint.1" || missing="$missing $c"
done
[ -z "$missing" ] && pass "doc/imprint.1 documents every option and command of main.c" ||
	fail "doc/imprint.1 lacks$missing"

echo "1..$TESTS_RUN"
[ "$TESTS_FAILED" -eq 0 ]
