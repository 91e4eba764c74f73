#!/bin/bash
# cli.sh - the command line: help, params, config round trip, every error path
. "${srcdir:-.}/tests/lib.sh"

expect_status 0 "--help" "$IMPRINT" --help
grep -q 'usage: imprint' "$WORK/out" && pass "--help prints usage" || fail "--help prints usage"
expect_status 0 "--version" "$IMPRINT" --version
grep -q '^imprint [0-9]' "$WORK/out" && pass "--version prints a version" || fail "--version output"
expect_status 2 "no command" "$IMPRINT"
expect_status 2 "unknown command" "$IMPRINT" frobnicate
expect_err "unknown command 'frobnicate'" "unknown command is named"
expect_status 2 "unknown option" "$IMPRINT" plan --bogus
expect_err "unknown option '--bogus'" "unknown option is named"
expect_status 2 "missing option value" "$IMPRINT" plan --seed
expect_err "option '--seed' needs a value" "missing value is named"

# params: every parameter, and the table drives config too
expect_status 0 "params" "$IMPRINT" params
cp "$WORK/out" "$WORK/params.txt"
for key in seed size used files size_mu size_sigma size_tail_weight files_per_dir \
	fpd_offset depth_lambda special_dirs hardlink_share symlink_share time_ref; do
	grep -q "^$key " "$WORK/params.txt" && pass "params lists $key" || fail "params lists $key"
done
expect_status 0 "params --json" "$IMPRINT" params --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d) > 30' "$WORK/out" \
	&& pass "params --json parses" || fail "params --json parses"
"$IMPRINT" config >"$WORK/cfg0"
nkeys=$(grep -c '^[a-z0-9_]* = ' "$WORK/cfg0")
nparams=$(python3 -c 'import json,sys; print(len([p for p in json.load(open(sys.argv[1])) if p.get("group") != "tables"]))' "$WORK/out")
[ "$nkeys" -eq "$nparams" ] && pass "config prints every parameter ($nkeys)" \
	|| fail "config prints $nkeys keys, params has $nparams"

# config round trip: byte-identical manifests, and config is a fixed point
"$IMPRINT" config --files 4000 --seed 5 --set hardlink_share=0.02 >"$WORK/a.cfg"
"$IMPRINT" plan -c "$WORK/a.cfg" -o "$WORK/m1"
"$IMPRINT" plan --files 4000 --seed 5 --set hardlink_share=0.02 -o "$WORK/m2"
cmp -s "$WORK/m1" "$WORK/m2" && pass "config round trip gives the same manifest" \
	|| fail "config round trip gives the same manifest"
"$IMPRINT" config -c "$WORK/a.cfg" >"$WORK/b.cfg"
cmp -s "$WORK/a.cfg" "$WORK/b.cfg" && pass "config of its own output is identical" \
	|| fail "config of its own output is identical"
"$IMPRINT" config --used 300M --size 1G >"$WORK/c.cfg"
"$IMPRINT" plan -c "$WORK/c.cfg" -o "$WORK/m3"
"$IMPRINT" plan --used 300M --size 1G -o "$WORK/m4"
cmp -s "$WORK/m3" "$WORK/m4" && pass "round trip from --used" || fail "round trip from --used"
expect_status 0 "config --json" "$IMPRINT" config --json --seed 9
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["seed"] == 9' "$WORK/out" \
	&& pass "config --json parses, seed 9" || fail "config --json parses, seed 9"

# the manifest
"$IMPRINT" plan --files 2000 -o - >"$WORK/m5"
head -1 "$WORK/m5" | grep -q '^#path	type	size	ext	depth	target' && pass "manifest header" \
	|| fail "manifest header"
nfile=$(awk -F'\t' '$2 == "file"' "$WORK/m5" | wc -l)
[ "$nfile" -eq 2000 ] && pass "manifest has 2000 files" || fail "manifest has $nfile files"
awk -F'\t' 'NR > 1 && NF != 10 { bad = 1 } END { exit bad }' "$WORK/m5" \
	&& pass "every manifest line has 10 columns" || fail "manifest column count"
dups=$(awk -F'\t' 'NR > 1 { print $1 }' "$WORK/m5" | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] && pass "manifest paths are unique" || fail "$dups duplicate paths"
sum=$(awk -F'\t' '$2 == "file" { s += $3 } END { printf "%d", s }' "$WORK/m5")
used=$("$IMPRINT" config --files 2000 | awk '$1 == "used" { print $3 }')
[ -n "$used" ] && pass "config shows used ($used)" || fail "config shows used"
"$IMPRINT" plan --files 2000 --report --json >"$WORK/r.json"
bytes=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes"])' "$WORK/r.json")
[ "$sum" = "$bytes" ] && pass "manifest bytes equal the report ($sum)" \
	|| fail "manifest bytes $sum, report $bytes"
"$IMPRINT" plan --files 2000 --report >"$WORK/r.txt"
grep -q 'size K-S D' "$WORK/r.txt" && pass "text report" || fail "text report"
"$IMPRINT" plan --files 2000 --report -o - >/dev/null 2>"$WORK/r2.txt"
grep -q 'size K-S D' "$WORK/r2.txt" && pass "with -o -, the report goes to stderr" \
	|| fail "with -o -, the report goes to stderr"

# parameter errors: exit 2, message names where, what and what is allowed
expect_status 2 "misspelt key" "$IMPRINT" plan --set size_sigm=1
expect_err "--set: unknown parameter 'size_sigm' (did you mean 'size_sigma'?)" "suggestion"
expect_status 2 "negative sigma" "$IMPRINT" plan --set size_sigma=-1
expect_err "'size_sigma' must be > 0 (got '-1')" "sigma range"
expect_status 2 "share above 1" "$IMPRINT" plan --set fpd_empty_share=1.5
expect_err "'fpd_empty_share'" "share range names the key"
expect_status 2 "bad fs" "$IMPRINT" config --fs vfat
expect_err "'fs' must be one of ext2, ext3, ext4, xfs, btrfs, f2fs (got 'vfat')" "fs choices"
expect_status 2 "bad size" "$IMPRINT" config --size 12Q
expect_err "'12Q'" "bad size is quoted"
expect_status 2 "used above size" "$IMPRINT" config --size 1G --used 2G
expect_err "'used'" "used > size names used"
printf 'seed = 3\n# comment\n\nsize_sigma = 0\n' >"$WORK/bad.cfg"
expect_status 2 "bad value in a file" "$IMPRINT" config -c "$WORK/bad.cfg"
expect_err "bad.cfg line 4: 'size_sigma' must be > 0 (got '0')" "file and line in message"
printf 'garbage\n' >"$WORK/bad2.cfg"
expect_status 2 "line without =" "$IMPRINT" config -c "$WORK/bad2.cfg"
expect_err "bad2.cfg line 1" "missing = names the line"
expect_status 2 "missing config file" "$IMPRINT" config -c "$WORK/nope.cfg"
expect_err "nope.cfg" "missing file is named"

# options only some commands take: each refusal, and the first wrong option is the one named
expect_status 2 "unknown command lists the commands" "$IMPRINT" frobnicate
expect_err "imprint: unknown command 'frobnicate' (expected create, plan, verify, content-report, measure, config, params, profile or evolve)" \
	"unknown command: the whole message"
expect_status 2 "-o on config" "$IMPRINT" config -o "$WORK/x"
expect_err "imprint: -o is only for 'plan'" "-o is only for plan"
expect_status 2 "--output on verify" "$IMPRINT" verify --output "$WORK/x" "$WORK"
expect_err "imprint: -o is only for 'plan'" "--output is refused as -o"
expect_status 2 "--report on create" "$IMPRINT" create --report "$WORK/x.img"
expect_err "imprint: '--report' is only for 'plan'" "--report is only for plan"
expect_status 2 "--force on plan" "$IMPRINT" plan --force
expect_err "imprint: '--force' is only for 'create'" "--force is only for create"
expect_status 2 "--keep-partial on plan" "$IMPRINT" plan --keep-partial
expect_err "imprint: '--keep-partial' is only for 'create'" "--keep-partial is only for create"
expect_status 2 "--allow-drop on plan" "$IMPRINT" plan --allow-drop
expect_err "imprint: '--allow-drop' is only for 'create'" "--allow-drop is only for create"
expect_status 2 "-q then --jobs on config" "$IMPRINT" config -q -j 2
expect_err "imprint: '--quiet' is only for 'create'" "of create's options, the first given is named"
expect_status 2 "--jobs then -q on config" "$IMPRINT" config -j 2 -q
expect_err "imprint: '--jobs' is only for 'create' and 'evolve'" "of create's options, the first given is named (2)"
expect_status 2 "--jobs on plan" "$IMPRINT" plan -j 2
expect_err "imprint: '--jobs' is only for 'create' and 'evolve'" "--jobs names evolve, which takes it too"
expect_status 2 "--keep-partial then --jobs on plan" "$IMPRINT" plan --keep-partial -j 2
expect_err "imprint: '--keep-partial' is only for 'create'" "--jobs stays in create's run of options"
expect_status 2 "verify takes create's options" "$IMPRINT" verify --keep-partial --force -q
expect_err "imprint: verify needs the directory where the image is mounted" \
	"verify with create's options: only the directory is missing"
expect_status 2 "--extents on plan" "$IMPRINT" plan --extents "$WORK/x"
expect_err "imprint: '--extents' is only for 'create', 'verify' and 'measure'" \
	"--extents is only for create, verify and measure"
expect_status 2 "--sample on measure" "$IMPRINT" measure --sample 0.5 "$WORK"
expect_err "imprint: '--sample' is only for 'content-report'" "--sample is only for content-report"
expect_status 2 "--against on config" "$IMPRINT" config --against "$WORK/x.cfg"
expect_err "imprint: '--against' is only for 'measure'" "--against is only for measure"
expect_status 2 "--against with -c" "$IMPRINT" measure -c "$WORK/x.cfg" --against "$WORK/x.cfg" "$WORK"
expect_err "imprint: give the configuration once: '--against' or '-c'" "--against and -c clash"
expect_status 2 "content-report without a target" "$IMPRINT" content-report
expect_err "imprint: content-report needs a TARGET: an image, a device or a directory" \
	"content-report without a target: message"
expect_status 2 "two wrong options, --sample first" "$IMPRINT" config --sample 0.5 -o "$WORK/x"
expect_err "imprint: -o is only for 'plan'" "-o is checked before --sample"
expect_status 2 "create without a target, --sample" "$IMPRINT" create --sample 0.5
expect_err "imprint: create needs a TARGET" "the missing target is named before --sample"
expect_status 2 "create without a target, --report" "$IMPRINT" create --report
expect_err "imprint: '--report' is only for 'plan'" "--report is named before the missing target"
expect_status 2 "measure: -o before the --against clash" "$IMPRINT" measure -c "$WORK/x.cfg" \
	--against "$WORK/x.cfg" -o "$WORK/x" "$WORK"
expect_err "imprint: -o is only for 'plan'" "-o is checked before the --against clash"
expect_status 0 "params takes any option" "$IMPRINT" params --force --sample 0.5 -o "$WORK/x"
[ -e "$WORK/x" ] && fail "params wrote '$WORK/x'" || pass "params ignores -o"

# runtime errors: exit 1, nothing left behind
expect_status 1 "unwritable manifest" "$IMPRINT" plan --files 100 -o "$WORK/no/such/dir/m"
expect_err "cannot" "unwritable path explained"
if [ -e /dev/full ]; then
	expect_status 1 "full disk on stdout" sh -c "'$IMPRINT' plan --files 20000 -o - >/dev/full"
fi
# a FIFO is not an output file (issue 23 item 10): refused at once, left as it is; '-' pipes
mkfifo "$WORK/fifo"
expect_status 1 "a FIFO output is refused" timeout 20 "$IMPRINT" plan --files 300 -o "$WORK/fifo"
expect_err "is a FIFO: -o writes a regular file" "the FIFO refusal says why and what is allowed"
[ -p "$WORK/fifo" ] && pass "a FIFO target stays a FIFO" || fail "the FIFO was replaced"
"$IMPRINT" plan --files 300 -o - | cat >"$WORK/fifo.out"
[ "$(grep -c '	file	' "$WORK/fifo.out")" -eq 300 ] && pass "the manifest went through a pipe (-o -)" \
	|| fail "the manifest did not go through the pipe"
echo keep >"$WORK/keep"
chmod 0500 "$WORK" 2>/dev/null
if [ "$(id -u)" -ne 0 ]; then
	expect_status 1 "unwritable dir keeps the old manifest" "$IMPRINT" plan --files 10 -o "$WORK/keep"
fi
chmod 0700 "$WORK"
grep -q keep "$WORK/keep" && pass "old manifest untouched" || fail "old manifest clobbered"
ls "$WORK" | grep -q '\.tmp\.' && fail "temporary manifest left behind" \
	|| pass "no temporary manifest left behind"


# the progress line on a terminal (script(1) gives one): files and bytes of file data
# written; a file counts once its bytes are; the last line shows the plan's totals
if command -v script >/dev/null; then
	nf=$("$IMPRINT" plan --size 200M --seed 5 | awk -F'\t' '$2 == "file"' | wc -l)
	mkdir "$WORK/pdir"
	for t in "$WORK/p.img" "$WORK/pdir"; do
		script -qec "$(printf '%q ' "$IMPRINT" create --size 200M --seed 5 -j2 "$t")" /dev/null \
			>"$WORK/tty" 2>&1
		tr '\r' '\n' <"$WORK/tty" | sed 's/\x1b\[K//g' |
			grep -E '^imprint: [0-9]+/[0-9]+ files, ' >"$WORK/lines"
		last=$(tail -1 "$WORK/lines")
		if [ -n "$last" ] && [[ $last =~ ^imprint:\ ([0-9]+)/([0-9]+)\ files,\ (.*)\ /\ (.*)\ \(([0-9]+)%\) ]] &&
			[ "${BASH_REMATCH[1]}" = "$nf" ] && [ "${BASH_REMATCH[2]}" = "$nf" ] &&
			[ "${BASH_REMATCH[3]}" = "${BASH_REMATCH[4]}" ] && [ "${BASH_REMATCH[5]}" = 100 ]; then
			pass "progress into ${t##*/} ends at the totals: $last"
		else
			fail "progress into ${t##*/}: last line '$last' ($(wc -l <"$WORK/lines") lines, $nf files planned)"
		fi
		early=$(awk -v n="$nf" '{ split($2, f, "/"); if (f[1] == n && $0 !~ /\(100%\)/) print }' "$WORK/lines" | head -1)
		[ -z "$early" ] && pass "progress into ${t##*/}: no line counts every file before every byte" ||
			fail "progress into ${t##*/}: '$early'"
	done
	# --shard 0/2: the line counts the share, not the plan: its last line's total is
	# the regular files the share made (distinct inodes, the shards' own markers aside)
	mkdir "$WORK/sdir"
	script -qec "$(printf '%q ' "$IMPRINT" create --size 200M --seed 5 -j2 --shard 0/2 "$WORK/sdir")" \
		/dev/null >"$WORK/tty" 2>&1
	made=$(find "$WORK/sdir" -type f ! -name '.imprint-*' -printf '%i\n' | sort -u | wc -l)
	last=$(tr '\r' '\n' <"$WORK/tty" | sed 's/\x1b\[K//g' | grep -E '^imprint: [0-9]+/[0-9]+ files, ' | tail -1)
	if [[ $last =~ ^imprint:\ ([0-9]+)/([0-9]+)\ files,.*\(100%\) ]] && [ "${BASH_REMATCH[1]}" = "$made" ] &&
		[ "${BASH_REMATCH[2]}" = "$made" ] && [ "$made" -lt "$nf" ] && [ "$made" -gt 0 ]; then
		pass "progress of shard 0/2 counts its share: $made of the plan's $nf files"
	else
		fail "progress of shard 0/2: last line '$last', the share made $made of $nf files"
	fi
fi


# closed standard descriptors: imprint's own files must not take their numbers (the cleanup
# watcher's pipe on 0 and 1 made the summary a write into that pipe, and imprint died of SIGPIPE)
"$IMPRINT" create --size 64M --seed 3 "$WORK/fd.img" <&- >&-
st=$?
"$IMPRINT" create --size 64M --seed 3 "$WORK/fd2.img" >/dev/null 2>&1
[ "$st" = 0 ] && cmp -s "$WORK/fd.img" "$WORK/fd2.img" &&
	pass "create with stdin and stdout closed: exit 0, the same image" ||
	fail "create with stdin and stdout closed: exit $st, or another image"
"$IMPRINT" create --size 64M --seed 3 "$WORK/fd.img" <&- >&- 2>&-
st=$?
[ "$st" = 1 ] && pass "a refused create with 0-2 closed exits 1" || fail "a refused create with 0-2 closed exits $st, not 1"
rm -f "$WORK/fd.img" "$WORK/fd2.img"

finish
