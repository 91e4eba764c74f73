#!/bin/bash
# impressions.sh - Impressions' input files (issue 23 item 17) and the bounded text reader (item 13)
. "${srcdir:-.}/tests/lib.sh"

DATA="${top_srcdir:-.}/tests/data"

# within A B R: |A - B| <= R * B
within() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= r * b) }'; }

# has FILE LINE...: FILE holds each LINE exactly
has() {
	local f=$1 kv miss=
	shift
	for kv in "$@"; do
		grep -qxF -- "$kv" "$f" || miss="$miss '$kv'"
	done
	[ -z "$miss" ] || echo "$miss"
}

# fsck_ok WHAT IMAGE: e2fsck -fn finds nothing
fsck_ok() {
	if e2fsck -fn "$2" >"$WORK/fsck" 2>&1; then
		pass "$1: e2fsck -fn clean"
	else
		fail "$1: e2fsck -fn: $(tail -n 5 "$WORK/fsck")"
	fi
}

# --- the sample Impressions ships (tests/data/inputfile.sample, unchanged)
expect_status 0 "config --from-impressions inputfile.sample" \
	"$IMPRINT" config --from-impressions "$DATA/inputfile.sample"
cp "$WORK/out" "$WORK/sample.conf"
miss=$(has "$WORK/sample.conf" "seed = 100000" "size = 100G" "used = 45G" "size_mu = 9.48" \
	"size_sigma = 2.45663283" "size_tail_xm = 512M" "size_tail_shape = 0.91" \
	"files_per_dir = 10.2" "fpd_degree = 2" "fpd_offset = 2.36" "depth_model = poisson" \
	"depth_lambda = 10" "layout_score = 1")
[ -z "$miss" ] && pass "the sample: Randseeds, FScapacity, FSused, FilesizeDistr, FilecountDistr, Filesperdir, Dircountfiles, Fileswithdepth, Layoutscore mapped" ||
	fail "the sample: no$miss"
w=$(sed -n 's/^size_tail_weight = //p' "$WORK/sample.conf")
within "$w" 0.00006 0.001 && pass "the sample: tail weight $w (1 - 99994/100000)" ||
	fail "the sample: tail weight $w, wanted 6e-05"
# with FSused and "Numfiles: NO", the file count is derived from the size model
# (imprint's mean counts the Pareto tail's own mean; Impressions took xm for it)
files=$(sed -n 's/^files = //p' "$WORK/sample.conf")
[ "${files:-0}" -gt 100000 ] && [ "$files" -lt 200000 ] &&
	pass "the sample: Numfiles NO: $files files derived from FSused" || fail "the sample: files '$files'"
for why in "line 1: 'Parent_Path' is not used" "line 2: 'Actuallogfile' is not used" \
	"line 12: 'DirsizesubdirDistr' is not used" "line 20: 'Wordfreq 0'" \
	"line 25: 'Dircountfiles 0'" "line 27: 'Printwhat' and the 10 print flags" \
	"line 38: 'SpecialDirBias' is not used: Impressions reads nothing after the Printwhat list"; do
	grep -q "^#   $why" "$WORK/sample.conf" || fail "the sample: no comment '$why'"
done
pass "the sample: what is not used is listed, with why, as comments of the output"
expect_status 0 "the converted sample reads back as a config" "$IMPRINT" config -c "$WORK/sample.conf"
grep -v '^#' "$WORK/sample.conf" | grep -v '^$' >"$WORK/a"
grep -v '^#' "$WORK/out" | grep -v '^$' >"$WORK/b"
cmp -s "$WORK/a" "$WORK/b" && pass "... to the same configuration" || fail "read back differs: $(diff "$WORK/a" "$WORK/b" | head -5)"
# 45 GiB is too much for a test: the sample's model at 48 MiB of data, its file count derived again
expect_status 0 "create from the converted sample (--size 256M --used 48M --set files=0)" \
	"$IMPRINT" create -q -c "$WORK/sample.conf" --size 256M --used 48M --set files=0 "$WORK/sample.img"
fsck_ok "the sample's image" "$WORK/sample.img"
rm -f "$WORK/sample.img"

# --- every line form, by hand (tests/data/impressions.in): created as converted
IMP="$DATA/impressions.in"
expect_status 0 "config --from-impressions, every line form" "$IMPRINT" config --from-impressions "$IMP"
cp "$WORK/out" "$WORK/imp.conf"
miss=$(has "$WORK/imp.conf" "seed = 44" "size = 128M" "files = 600" "files_per_dir = 15" \
	"size_mu = 8.5" "size_sigma = 1.9" "size_tail_xm = 1M" "size_tail_shape = 1.1" \
	"fpd_degree = 2.5" "fpd_offset = 3" "depth_lambda = 4.5" "layout_score = 0.8" \
	"text_mode = wordlen")
[ -z "$miss" ] && pass "every line form mapped (NO, Direct N, Direct v, Indir, units N/MB, flags)" ||
	fail "every line form: no$miss"
grep -q "^#   line 38: 'SpecialDirBias' and the lines after it are not used" "$WORK/imp.conf" &&
	pass "lines after the Printwhat list are not read (the FSused there is not used)" ||
	fail "after the Printwhat list: $(grep '^#' "$WORK/imp.conf" | tail -3)"
expect_status 0 "create -c the converted file" "$IMPRINT" create -q -c "$WORK/imp.conf" "$WORK/imp.img"
fsck_ok "the converted file's image" "$WORK/imp.img"
rm -f "$WORK/imp.img"

# variants: imp_variant WHAT SED-SCRIPT: convert the hand file edited by SED-SCRIPT into $WORK/v.conf
imp_variant() {
	sed "$2" "$IMP" >"$WORK/v.in"
	expect_status 0 "$1" "$IMPRINT" config --from-impressions "$WORK/v.in"
	cp "$WORK/out" "$WORK/v.conf"
}
imp_variant "Large2Small 1" 's/^Large2Small 0/Large2Small 1/; s/^FScapacity: 128 MB/FScapacity: 64 GB/'
miss=$(has "$WORK/v.conf" "size_mu = 12.37" "size_sigma = 3.35" "ext_table = large")
[ -z "$miss" ] && pass "Large2Small 1: the large file systems' lognormal and extensions" || fail "Large2Small: no$miss"
imp_variant "Filedepthpoisson 0" 's/^Filedepthpoisson 1/Filedepthpoisson 0/'
grep -qx "depth_model = care" "$WORK/v.conf" && pass "Filedepthpoisson 0: depth with care" ||
	fail "Filedepthpoisson 0: $(grep depth_ "$WORK/v.conf")"
imp_variant "Depthwithcare 0" 's/^Depthwithcare 1/Depthwithcare 0/'
grep -q "'Depthwithcare 0'" "$WORK/v.conf" && grep -qx "depth_lambda = 6.49" "$WORK/v.conf" &&
	pass "Depthwithcare 0: said, the depth law kept" || fail "Depthwithcare 0: $(grep depth_ "$WORK/v.conf")"
imp_variant "FSused given" 's/^FSused: NO MB/FSused: 20 MB/'
grep -qx "used = 20M" "$WORK/v.conf" && ! grep -qx "files = 600" "$WORK/v.conf" &&
	grep -q "'Numfiles' is not used: with 'FSused'" "$WORK/v.conf" &&
	pass "FSused given: Numfiles and Numdirs derived, as Impressions does" ||
	fail "FSused given: $(grep -E '^(used|files) ' "$WORK/v.conf")"
imp_variant "Numfiles 2 K" 's/^Numfiles: 600 N/Numfiles: 2 K/'
grep -qx "files = 2000" "$WORK/v.conf" && pass "K is 1000, as Impressions scales" || fail "2 K: $(grep '^files ' "$WORK/v.conf")"
imp_variant "Wordfreq 2, Ext txt" 's/^Wordfreq 1/Wordfreq 2/; s/^Ext -1/Ext txt/'
grep -qx "text_mode = words" "$WORK/v.conf" && grep -q "'Ext txt'" "$WORK/v.conf" &&
	pass "Wordfreq 2: word popularity; Ext txt: said" || fail "Wordfreq 2 / Ext: $(grep text_mode "$WORK/v.conf")"
sed 's/^Randseeds: Direct 4 11 22 33 44/Randseeds: Direct 5 11 22 33 44/' "$IMP" >"$WORK/v.in"
expect_status 2 "Direct 5 with 4 numbers" "$IMPRINT" config --from-impressions "$WORK/v.in"
expect_err "v.in line 3: 'Randseeds' says 'Direct 5' but gives 4 numbers" "names the line and the count"
sed 's/^FScapacity: 128 MB/FScapacity: 128 furlongs/' "$IMP" >"$WORK/v.in"
expect_status 2 "an unknown unit" "$IMPRINT" config --from-impressions "$WORK/v.in"
expect_err "line 4: 'FScapacity' takes numbers, each with an optional unit" "says which units"
printf 'FSused: lots\n' >"$WORK/bad.in"
expect_status 2 "a bad Impressions value" "$IMPRINT" config --from-impressions "$WORK/bad.in"
expect_err "bad.in line 1: 'FSused' takes numbers" "names the line and what it takes"
expect_status 2 "--from-impressions is config's" "$IMPRINT" plan --from-impressions "$IMP"
sed 's/^Flat 0/Curly 0/' "$IMP" >"$WORK/v.in"
expect_status 2 "an unknown special flag" "$IMPRINT" config --from-impressions "$WORK/v.in"
expect_err "line 17: 'Curly' is not one of Impressions' special flags" "names the flag"

# --- item 13: one bounded reader for every text input
expect_status 2 "--from-impressions /dev/zero ends" timeout 60 "$IMPRINT" config --from-impressions /dev/zero
expect_err "/dev/zero line 1: a NUL byte at column 1: not an Impressions input file" "says why"
expect_status 2 "-c /dev/zero ends" timeout 60 "$IMPRINT" config -c /dev/zero
expect_err "/dev/zero line 1: a NUL byte" "says why"
# a line of more than 4,095 bytes is one line: its tail is never a setting of its own
{
	printf 'Parent_Path: %s' "$(head -c $((4095 - 13)) /dev/zero | tr '\0' a)"
	printf 'Layoutscore: 0.5\n'
} >"$WORK/long.in"
expect_status 0 "a 4,111-byte line" "$IMPRINT" config --from-impressions "$WORK/long.in"
grep -qx "layout_score = 1" "$WORK/out" && pass "its tail is not applied as a setting" ||
	fail "the tail of a long line was applied: $(grep layout_score "$WORK/out")"
{ printf 'Parent_Path: '; head -c 70000 /dev/zero | tr '\0' a; echo; } >"$WORK/long.in"
expect_status 2 "a line over 64 KiB" "$IMPRINT" config --from-impressions "$WORK/long.in"
expect_err "long.in line 1: longer than 64 KiB: not an Impressions input file" "is refused, saying so"
printf 'Numfiles: 5\0 junk\n' >"$WORK/nul.in"
expect_status 2 "a NUL byte in an Impressions file" "$IMPRINT" config --from-impressions "$WORK/nul.in"
expect_err "nul.in line 1: a NUL byte at column 12" "is refused at its column"
printf 'Fo\033]0;owned\007o: 1\nSe\033[31med: 2\n' >"$WORK/esc.in"
expect_status 0 "escape sequences in an Impressions file" "$IMPRINT" config --from-impressions "$WORK/esc.in"
if grep -q $'\033\|\007' "$WORK/out" "$WORK/err"; then
	fail "escape sequences echoed raw: $(grep -c $'\033' "$WORK/out")"
else
	grep -qF 'Fo\x1b]0;owned\x07o' "$WORK/out" && pass "echoed names are escaped (\\x1b)" ||
		fail "no escaped name in: $(grep '^#  ' "$WORK/out")"
fi
expect_status 2 "a directory as an Impressions file" "$IMPRINT" config --from-impressions "$WORK"
expect_err "is a directory, not an Impressions input file" "says it is a directory"
expect_status 2 "a directory as a config file" "$IMPRINT" config -c "$WORK"
expect_err "is a directory, not a config file" "says it is a directory"
expect_status 0 "a pipe as an Impressions file (process substitution)" \
	"$IMPRINT" config --from-impressions <(cat "$IMP")
grep -qx "seed = 44" "$WORK/out" && pass "... read like the file" || fail "the pipe: $(grep '^seed' "$WORK/out")"
# `yes` through a pipe: the size guard ends it
expect_status 2 "an endless pipe as a config file" timeout 60 "$IMPRINT" config -c <(yes '# y')
expect_err "larger than 16 MiB: not a config file" "the size guard ends it"
# params --profiles echoes each profile's first line: escaped
mkdir -p "$WORK/prof"
printf '# evil \033]0;title\007 profile\nseed = 1\n' >"$WORK/prof/evil.conf"
IMPRINT_PROFILE_DIR="$WORK/prof" "$IMPRINT" params --profiles >"$WORK/out" 2>&1
if grep -q $'\033' "$WORK/out"; then
	fail "params --profiles echoes escape sequences"
else
	grep -q '^evil  *evil \\x1b]0;title\\x07 profile' "$WORK/out" &&
		pass "params --profiles: a profile's first line escaped" || fail "params --profiles: $(grep evil "$WORK/out")"
fi
# the extents file verify reads (getline() read /dev/zero until memory ran out)
T="$WORK/tree"
mkdir "$T"
if "$IMPRINT" create -q --size 64M --used 2M --seed 3 "$T" >/dev/null 2>"$WORK/err"; then
	expect_status 1 "verify --extents /dev/zero ends" timeout 60 \
		"$IMPRINT" verify --size 64M --used 2M --seed 3 --extents /dev/zero "$T"
	expect_err "/dev/zero line 1: a NUL byte at column 1: not an extents file" "says why"
else
	echo "# verify --extents not checked: the tree could not be made: $(head -c 200 "$WORK/err")"
fi
finish
