#!/bin/bash
# help.sh - each command's own help, 'imprint help COMMAND', typo suggestions, size-unit notes, duplicated config keys, the man page's options
. "${srcdir:-.}/tests/lib.sh"

commands=$(sed -n '/^static const struct command commands\[/,/^};/s/.*\.name = "\([^"]*\)".*/\1/p' \
	"${srcdir:-.}/src/cli/main.c")
[ "$(echo "$commands" | wc -l)" -ge 8 ] && pass "read the commands from main.c" || fail "no commands read"

"$IMPRINT" --help >"$WORK/global"
global_lines=$(wc -l <"$WORK/global")
for cmd in $commands; do
	expect_status 0 "$cmd --help" "$IMPRINT" "$cmd" --help
	cp "$WORK/out" "$WORK/help.$cmd"
	lines=$(wc -l <"$WORK/help.$cmd")
	head -1 "$WORK/help.$cmd" | grep -q "^usage: imprint $cmd " &&
		grep -q '^options:$' "$WORK/help.$cmd" && grep -q '^examples\?:$' "$WORK/help.$cmd" &&
		[ "$lines" -lt "$global_lines" ] &&
		pass "$cmd --help: its synopsis, options and example ($lines lines, the global help $global_lines)" ||
		fail "$cmd --help is not its own: $(head -3 "$WORK/help.$cmd")"
	expect_status 0 "help $cmd" "$IMPRINT" help "$cmd"
	cmp -s "$WORK/out" "$WORK/help.$cmd" && pass "'help $cmd' is '$cmd --help'" ||
		fail "'help $cmd' differs from '$cmd --help'"
	expect_status 0 "$cmd -h" "$IMPRINT" "$cmd" -h
	cmp -s "$WORK/out" "$WORK/help.$cmd" && pass "'$cmd -h' is '$cmd --help'" || fail "'$cmd -h' differs"
done

# Every option a command's help shows is one the command takes: the help
# and the dispatch come from the same tables.
value_for() {
	case $1 in
	FILE | CONFIG) echo /nonexistent/file ;; N) echo 1 ;; SIZE) echo 8M ;; SHARE) echo 0.5 ;;
	KEY=VALUE) echo seed=1 ;; FS) echo ext4 ;; FMT) echo raw ;; S) echo "-q" ;;
	gpt\|mbr) echo gpt ;; NAME) [ "$2" = --backend ] && echo null || echo impressions ;;
	*) echo x ;;
	esac
}
bad=0 n=0
for cmd in $commands; do
	while read -r opt arg; do
		args=("$cmd" "$opt")
		[ -n "$arg" ] && args+=("$(value_for "$arg" "$opt")")
		n=$((n + 1))
		"$IMPRINT" "${args[@]}" "$WORK/none/operand" >/dev/null 2>"$WORK/err" </dev/null
		if grep -qE "is only for|means nothing to|unknown option" "$WORK/err"; then
			fail "'$cmd --help' shows $opt, which $cmd refuses: $(head -c 200 "$WORK/err")"
			bad=1
		fi
	done < <(sed -n '/^options:$/,/^$/p' "$WORK/help.$cmd" |
		sed -n 's/^  \(-[a-z], \)\?  \?\(--[a-z-]*\)\( \([^ ]*\)\)\?  .*/\2 \4/p')
done
[ "$bad" -eq 0 ] && [ "$n" -ge 60 ] && pass "every option of every command's help ($n) is taken by it"
grep -q -- '--backend' "$WORK/help.plan" && fail "plan's help shows --backend" ||
	pass "plan's help does not show create's --backend"
grep -q -- '--sample' "$WORK/help.content-report" && ! grep -q -- '--sample' "$WORK/help.measure" &&
	pass "--sample in content-report's help, not in measure's" || fail "--sample misplaced"

# help for an unknown command, with the nearest
expect_status 2 "help crate" "$IMPRINT" help crate
expect_err "did you mean 'create'?" "'help crate' suggests create"

# typos: the nearest command and option (Damerau-Levenshtein: a swap is one edit)
expect_status 2 "imprint crate" "$IMPRINT" crate --size 1G x.img
expect_err "unknown command 'crate'" "crate is unknown"
expect_err "did you mean 'create'?" "crate suggests create"
expect_status 2 "imprint mesaure" "$IMPRINT" mesaure x
expect_err "did you mean 'measure'?" "a swapped pair: mesaure suggests measure"
expect_status 2 "imprint xyzzy" "$IMPRINT" xyzzy
grep -q "did you mean" "$WORK/err" && fail "xyzzy got a far-fetched suggestion: $(cat "$WORK/err")" ||
	pass "nothing near xyzzy: no suggestion"
expect_status 2 "--sise" "$IMPRINT" create --sise 1G "$WORK/x.img"
expect_err "unknown option '--sise' (did you mean '--size'?)" "--sise suggests --size"
expect_err "Try 'imprint create --help'." "the hint names the command's own help"
expect_status 2 "--szie=1G" "$IMPRINT" plan --szie=1G
expect_err "did you mean '--size'?" "--szie=1G suggests --size"
expect_status 2 "--extnets" "$IMPRINT" measure --extnets f x
expect_err "did you mean '--extents'?" "--extnets suggests --extents"
expect_status 2 "--p" "$IMPRINT" create --p x
expect_err "option '--p' is ambiguous: it could be" "an ambiguous abbreviation names the candidates"
[ ! -e x.img ] && [ ! -e "$WORK/x.img" ] && pass "no typo built anything" || fail "a typo built an image"

# sizes: no unit, and how MB is read
expect_status 0 "--size 256" "$IMPRINT" config --size 256
expect_err "note: --size: '256' has no unit, so 'size' is 256 bytes; sizes take K, M, G or T (binary: 256M is 256 MiB)" \
	"--size 256 hints at the unit"
expect_status 0 "--size 256MB" "$IMPRINT" config --size 256MB
expect_err "'256MB' is read as 256 MiB (268435456 bytes): K, M, G and T are binary" \
	"256MB is said to be read as MiB"
grep -q '^size = 256M$' "$WORK/out" && pass "and it is 256 MiB" || fail "256MB is not 256M: $(grep '^size =' "$WORK/out")"
expect_status 0 "--size 256M" "$IMPRINT" config --size 1G --used 256M
[ ! -s "$WORK/err" ] && pass "1G and 256M: no note" || fail "a note for a plain size: $(cat "$WORK/err")"
expect_status 0 "free_gap_min = 512" "$IMPRINT" config --set free_gap_min=512
[ ! -s "$WORK/err" ] && pass "a small file-size parameter in bytes: no note" || fail "note: $(cat "$WORK/err")"

# a key given twice in a configuration file: both lines named
printf 'size = 64M\nused = 8M\n# a comment\nSize = 128M\nused=8M\n' >"$WORK/dup.conf"
expect_status 0 "config with duplicated keys" "$IMPRINT" config -c "$WORK/dup.conf"
expect_err "$WORK/dup.conf: 'size' is set twice, on lines 1 and 4: line 4 wins" "the duplicated size is named with both lines"
expect_err "$WORK/dup.conf: 'used' is set twice, on lines 2 and 5: line 5 wins" "the duplicated used too"
grep -q '^size = 128M$' "$WORK/out" && pass "the last value wins" || fail "size: $(grep '^size =' "$WORK/out")"
printf 'size = 64M\nused = 8M\n' >"$WORK/ok.conf"
expect_status 0 "config without duplicates" "$IMPRINT" config -c "$WORK/ok.conf" --set size=128M
[ ! -s "$WORK/err" ] && pass "no warning when --set overrides the file" || fail "warned: $(cat "$WORK/err")"

# the man page: each option described once in each section
man=${top_builddir:-.}/doc/imprint.1
for sec in "Options of create" "Other options"; do
	dups=$(sed -n "/^\.SS $sec/,/^\.S[SH]/p" "$man" | grep -A1 '^\.TP' |
		sed -n 's/^\.B[IR]\? \(\\-\\-[a-z\\-]*\).*/\1/p' | sort | uniq -d)
	[ -z "$dups" ] && pass "man page '$sec': no option twice" || fail "man page '$sec' lists twice: $dups"
done
[ "$(grep -c '^\.B \\-\\-keep\\-partial$' "$man")" -eq 1 ] && pass "--keep-partial described once" ||
	fail "--keep-partial described $(grep -c '^\.B \\-\\-keep\\-partial$' "$man") times"

# verify's summary: a count of 0 says what was not checked
mkdir "$WORK/tree"
"$IMPRINT" create --backend mounted --used 2M --size 64M -q "$WORK/tree" 2>"$WORK/err"
expect_status 0 "verify a mounted-backend tree" "$IMPRINT" verify --used 2M --size 64M "$WORK/tree"
line=$(tail -1 "$WORK/out")
case $line in
*"extents not checked (no --extents)"*"no sparse files: 0 mismatches") pass "verify says what it did not check: $line" ;;
*) fail "verify's summary: $line" ;;
esac
case $line in *" 0 files' extents checked"* | *" 0 sparse files' holes checked"*) fail "a 0 count reads as a check: $line" ;; esac

finish
