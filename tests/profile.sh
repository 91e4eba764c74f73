#!/bin/bash
# profile.sh - imprint profile: a tree and an image profiled, clones planned and built from the
# profiles, compared with the sources themselves (tests/profile_compare.py walks the source with
# Python's os.lstat; e2fsck checks the clone image); privacy, scaling, --parametric, refusals.
. "${srcdir:-.}/tests/lib.sh"
PY="${srcdir:-.}/tests"
command -v python3 >/dev/null || { echo "1..0 # SKIP needs python3"; exit 77; }

# le A B: A <= B (decimals)
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
# within A B REL: |A - B| <= REL * B
within() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= r * b) }'; }
# near A B REL ABS: |A - B| <= max(REL * B, ABS)
near() {
	awk -v a="$1" -v b="$2" -v r="$3" -v f="$4" \
		'BEGIN { d = a - b; if (d < 0) d = -d; m = r * b; if (m < f) m = f; exit !(d <= m) }'
}
# fig FILE KEY: the value of KEY=VALUE in FILE
fig() { sed -n "s/^$2=//p" "$1"; }
# check FILE KEY MAX WHAT
check() {
	local v
	v=$(fig "$1" "$2")
	if [ -n "$v" ] && le "$v" "$3"; then pass "$4: $2 $v <= $3"; else fail "$4: $2 '$v' above $3"; fi
}
# shape FILE WHAT: the tree's shape and the names of a clone against its source
shape() {
	local k s c
	check "$1" subdir_diff 0.01 "$2 subdirectories per directory"
	check "$1" name_len_d 0.03 "$2 name lengths"
	# names are drawn one by one: small shares of small trees vary by a few names
	for k in empty:0.05:0.002 upper:0.15:0.005 caps:0.15:0.005 numeric:0.15:0.005 \
		versioned:0.15:0.005 space:0.15:0.005 utf8:0.15:0.005; do
		IFS=: read -r k rel abs <<<"$k"
		s=$(fig "$1" "src_$k") c=$(fig "$1" "clone_$k")
		if [ -n "$c" ] && near "$c" "$s" "$rel" "$abs"; then
			pass "$2 $k share $c (source $s)"
		else
			fail "$2 $k share $c, source $s (allowed: $rel relative or $abs)"
		fi
	done
}
# specials PROFILE MANIFEST WHAT: each special directory of the profile is in the clone, its files exact
specials() {
	python3 - "$1" "$2" <<'PYEOF' && pass "$3: the special directories' file counts, exact" ||
import collections, sys
want = []
for line in open(sys.argv[1]):
    if line.startswith("special_dir_table"):
        want += [int(e.split("@")[0]) for e in line.split("=", 1)[1].split()]
per = collections.Counter()
for raw in open(sys.argv[2], "rb"):
    c = raw.split(b"\t")
    if not raw.startswith(b"#") and c[1] == b"file":
        per[c[0].rsplit(b"/", 1)[0]] += 1
have = collections.Counter(per.values())
miss = [w for w in want if have[w] < want.count(w)]
print("special directories %s, missing in the clone: %s" % (want, miss), file=sys.stderr)
sys.exit(1 if miss or not want else 0)
PYEOF
		fail "$3: a special directory's file count is not in the clone"
}

N=10000
SRC="$WORK/src"
mkdir "$SRC"
python3 "$PY/profile_tree.py" "$SRC" $N 7 || { fail "making the source tree"; exit 1; }

# --- refusals
expect_status 2 "profile without SOURCE" "$IMPRINT" profile
expect_err "profile needs a SOURCE" "names what it needs"
expect_status 1 "profile of a missing path" "$IMPRINT" profile "$WORK/nothing"
expect_status 2 "--parametric is profile's" "$IMPRINT" plan --parametric
for opt in "-c /dev/null" "--set size_mu=3" "--seed 5" "--used 1M" "--profile impressions"; do
	# shellcheck disable=SC2086 # the option and its value are two words
	expect_status 2 "profile refuses $opt (it reads no configuration)" "$IMPRINT" profile $opt "$SRC"
	grep -q "means nothing to 'profile'" "$WORK/err" && pass "profile $opt: says why" ||
		fail "profile $opt: $(head -c 200 "$WORK/err")"
done
: >"$WORK/taken.conf"
expect_status 2 "-o over an existing file" "$IMPRINT" profile "$SRC" -o "$WORK/taken.conf"
expect_err "give --force" "says how to replace it"
[ ! -s "$WORK/taken.conf" ] && pass "the existing file is untouched" || fail "the existing file was written"

# --- the tree
expect_status 0 "profile a tree" "$IMPRINT" profile "$SRC" -o "$WORK/p.conf"
PROF="$WORK/p.conf"
grep -q "^# source: $N files" "$PROF" && pass "header counts the files" || fail "header: $(head -3 "$PROF")"
if grep -qi "zq" "$PROF"; then
	fail "privacy: the profile holds a marker: $(grep -i -m1 zq "$PROF" | head -c 200)"
else
	pass "privacy: no name, path or content marker of the source in the profile"
fi
# the tree's shape and the names are in it (so the privacy check covers them)
for k in subdirs_table depth_leaves depth_fileless special_dir_table name_lengths \
	name_ext_lengths empty_dir_share name_caps_share name_numeric_share name_version_share; do
	grep -q "^$k = " "$PROF" || fail "the profile has no $k"
done
pass "the profile holds the tree's shape and the names' figures"
expect_status 0 "the profile is a loadable configuration" "$IMPRINT" config -c "$PROF"
"$IMPRINT" config -c "$PROF" >"$WORK/again.conf"
"$IMPRINT" plan -c "$PROF" >"$WORK/m1"
"$IMPRINT" plan -c "$WORK/again.conf" >"$WORK/m2"
cmp -s "$WORK/m1" "$WORK/m2" && pass "config output fed back gives the same manifest" ||
	fail "config round trip changed the manifest"

# read only: no atime moves (O_NOATIME), while ordinary reads do move them here
mkdir -p "$WORK/at/d"
echo x >"$WORK/at/d/f"
echo y >"$WORK/at/d/g"
touch -a -d 2020-01-01 "$WORK/at/d/f" "$WORK/at/d/g" "$WORK/at/d"
before=$(stat -c %X "$WORK/at/d" "$WORK/at/d/f" "$WORK/at/d/g")
"$IMPRINT" profile --content "$WORK/at" >/dev/null
after=$(stat -c %X "$WORK/at/d" "$WORK/at/d/f" "$WORK/at/d/g")
[ "$before" = "$after" ] && pass "profile --content leaves every atime as it was" ||
	fail "profile moved atimes: $before -> $after"
cat "$WORK/at/d/f" "$WORK/at/d/g" >/dev/null
ls "$WORK/at/d" >/dev/null
[ "$(stat -c %X "$WORK/at/d" "$WORK/at/d/f" "$WORK/at/d/g")" != "$before" ] ||
	echo "# reads do not move atimes on this file system: the atime check proves nothing here"

# a clone of the same size, against the source itself
"$IMPRINT" plan -c "$PROF" --files $N -o "$WORK/clone.tsv" >/dev/null
python3 "$PY/profile_compare.py" "$SRC" "$WORK/clone.tsv" >"$WORK/f"
check "$WORK/f" size_d 0.02 "empirical sizes"
check "$WORK/f" depth_d 0.02 "files by depth"
check "$WORK/f" fpd_diff 0.01 "files per directory"
check "$WORK/f" ext_diff 0.005 "extension shares"
shape "$WORK/f" "clone"
specials "$PROF" "$WORK/clone.tsv" "clone"
for k in hard sym private; do
	if within "$(fig "$WORK/f" clone_$k)" "$(fig "$WORK/f" src_$k)" 0.1; then
		pass "$k share within 10%: $(fig "$WORK/f" clone_$k) against $(fig "$WORK/f" src_$k)"
	else
		fail "$k share: $(fig "$WORK/f" clone_$k) against $(fig "$WORK/f" src_$k)"
	fi
done

# real trees the setup installs (libc6-dev's headers, Python's standard library), when here
for tree in /usr/include $(ls -d /usr/lib/python3.[0-9]* 2>/dev/null | sort -V | tail -1); do
	[ -d "$tree" ] || continue
	"$IMPRINT" profile -q "$tree" -o "$WORK/real.conf" --force 2>"$WORK/err" ||
		{ fail "profile $tree: $(head -c 300 "$WORK/err")"; continue; }
	"$IMPRINT" plan -c "$WORK/real.conf" -o "$WORK/real.tsv" >/dev/null
	python3 "$PY/profile_compare.py" "$tree" "$WORK/real.tsv" >"$WORK/fr"
	check "$WORK/fr" size_d 0.02 "$tree clone sizes"
	check "$WORK/fr" depth_d 0.02 "$tree clone depths"
	check "$WORK/fr" fpd_diff 0.01 "$tree clone files per directory"
	check "$WORK/fr" ext_diff 0.005 "$tree clone extensions"
	shape "$WORK/fr" "$tree clone"
done

# sizes by extension: an .iso stays large and an .h small; without the table they mix
med() { awk -F'\t' -v e="$2" '$2 == "file" && $4 == e { print $3 }' "$1" | sort -n |
	awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }'; }
iso=$(med "$WORK/clone.tsv" iso) h=$(med "$WORK/clone.tsv" h)
le $((h * 1000)) "$iso" && pass "sizes by extension: median iso $iso, h $h" ||
	fail "sizes by extension: median iso $iso, h $h"
"$IMPRINT" plan -c "$PROF" --files $N --set size_by_ext=none >"$WORK/flat.tsv"
iso=$(med "$WORK/flat.tsv" iso) h=$(med "$WORK/flat.tsv" h)
le "$iso" $((h * 10)) && pass "without size_by_ext they mix: median iso $iso, h $h" ||
	fail "without size_by_ext: median iso $iso, h $h"

# scaled ten times: counts scale, the size law stays
"$IMPRINT" plan -c "$PROF" --files $((N * 10)) -o "$WORK/big.tsv" >/dev/null
python3 "$PY/profile_compare.py" "$SRC" "$WORK/big.tsv" >"$WORK/f10"
check "$WORK/f10" size_d 0.03 "10x clone sizes"
[ "$(fig "$WORK/f10" clone_files)" = $((N * 10)) ] && pass "10x clone has $((N * 10)) files" ||
	fail "10x clone has $(fig "$WORK/f10" clone_files) files"

# the parametric form
expect_status 0 "profile --parametric" "$IMPRINT" profile --parametric "$SRC" -o "$WORK/pp.conf"
grep -q "^size_quantiles" "$WORK/pp.conf" && fail "--parametric still writes the quantiles" ||
	pass "--parametric writes no quantile table"
"$IMPRINT" plan -c "$WORK/pp.conf" --files $N -o "$WORK/par.tsv" >/dev/null
python3 "$PY/profile_compare.py" "$SRC" "$WORK/par.tsv" >"$WORK/fp"
check "$WORK/fp" size_d 0.06 "parametric sizes"

# measure --against the profile reports the same figures on the source
json_fig() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$@"; }
# against_figs JSON WHAT: the fit figures of measure --against within the issue's bounds
against_figs() {
	local k v
	for k in size_ks_d:0.02 depth_ks_d:0.02 fpd_max_abs_diff:0.01 ext_max_abs_diff:0.005; do
		v=$(json_fig "$1" "${k%%:*}")
		le "$v" "${k#*:}" && pass "$2: ${k%%:*} $v" || fail "$2: ${k%%:*} $v above ${k#*:}"
	done
}
"$IMPRINT" measure --json --against "$PROF" "$SRC" >"$WORK/ms.json"
against_figs "$WORK/ms.json" "measure --against on the source"
expect_status 0 "profile --json" "$IMPRINT" profile --json "$SRC"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['files'] == $N" "$WORK/out" &&
	pass "--json gives the figures" || fail "--json: $(head -c 300 "$WORK/out")"

# --- an image: profile it, build a clone image from the profile, measure it against the profile
"$IMPRINT" create -q "$WORK/a.img" --files 5000 --set size_mu=8.5 --set size_sigma=1.9 \
	--set depth_lambda=4 --set ext_table=large --set fpd_offset=4 --set symlink_share=0.03 ||
	fail "making the source image"
expect_status 0 "profile an image" "$IMPRINT" profile "$WORK/a.img" -o "$WORK/a.conf"
expect_status 0 "create a clone image from the profile" "$IMPRINT" create -q "$WORK/b.img" -c "$WORK/a.conf"
if command -v e2fsck >/dev/null; then
	e2fsck -fn "$WORK/b.img" >"$WORK/fsck" 2>&1 && pass "e2fsck -fn: the clone image is clean" ||
		fail "e2fsck -fn: $(tail -5 "$WORK/fsck")"
fi
"$IMPRINT" measure --json --against "$WORK/a.conf" "$WORK/b.img" >"$WORK/mb.json"
against_figs "$WORK/mb.json" "clone image against the profile"
# --content: the figures content-report finds, as the content parameters
expect_status 0 "profile --content" "$IMPRINT" profile --content "$WORK/a.img" -o "$WORK/ac.conf"
"$IMPRINT" content-report --json "$WORK/a.img" >"$WORK/cr.json"
for k in dup_file_share:dup_file_share compress_ratio_zlib:compress_ratio; do
	want=$(json_fig "$WORK/cr.json" "${k%%:*}")
	got=$(sed -n "s/^${k#*:} = //p" "$WORK/ac.conf")
	within "$got" "$want" 0.001 && pass "--content ${k#*:} $got (content-report: $want)" ||
		fail "--content ${k#*:} $got, content-report $want"
done
mkdir "$WORK/marks"
for i in $(seq 1 50); do echo "zqsecretcontent$i zqsecretcontent$i" >"$WORK/marks/zqname$i.txt"; done
"$IMPRINT" profile --content "$WORK/marks" >"$WORK/marks.conf" 2>"$WORK/err"
grep -qi zq "$WORK/marks.conf" && fail "--content: a name or content marker in the profile" ||
	pass "--content: no name or content marker in the profile"
fa=$(json_fig "$WORK/mb.json" files)
[ "$fa" = 5000 ] && pass "the clone image holds 5000 files" || fail "the clone image holds $fa files"

# --- the shipped profiles
export IMPRINT_PROFILE_DIR="${top_srcdir:-.}/profiles"
"$IMPRINT" params --profiles >"$WORK/list"
for name in impressions agrawal2007 douceur1999 meyer2011 tanenbaum2006 debian-usr-share \
	usr-include python-stdlib linux-source; do
	grep -q "^$name " "$WORK/list" || fail "params --profiles does not list $name"
	"$IMPRINT" plan --profile $name --files 2000 >/dev/null 2>"$WORK/err" ||
		fail "plan --profile $name: $(head -c 300 "$WORK/err")"
done
pass "params --profiles lists the shipped profiles and each one plans"
"$IMPRINT" plan >"$WORK/def.tsv"
"$IMPRINT" plan --profile impressions >"$WORK/imp.tsv"
cmp -s "$WORK/def.tsv" "$WORK/imp.tsv" && pass "--profile impressions is the default plan" ||
	fail "--profile impressions differs from the default plan"
printf 'profile = tanenbaum2006\nfiles = 20000\n' >"$WORK/t.conf"
"$IMPRINT" plan -c "$WORK/t.conf" >"$WORK/t.tsv"
m=$(awk -F'\t' '$2 == "file" { print $3 }' "$WORK/t.tsv" | sort -n | awk '{ v[NR] = $1 } END { print v[int(NR / 2)] }')
within "$m" 2475 0.05 && pass "'profile = tanenbaum2006': median $m (published 2,475)" ||
	fail "tanenbaum2006: median $m, published 2,475"
mean=$("$IMPRINT" plan --profile meyer2011 --files 100000 --report --json |
	python3 -c "import json,sys; print(json.load(sys.stdin)['mean_size'])")
within "$mean" $((318 * 1024)) 0.05 && pass "meyer2011: mean $mean (published 318 KB)" ||
	fail "meyer2011: mean $mean, published 318 KB"
expect_status 2 "an unknown profile" "$IMPRINT" plan --profile nosuch
expect_err "unknown profile 'nosuch'" "names the unknown profile"
expect_status 2 "a profile name with a bad character" "$IMPRINT" plan --profile 'a b'

# --- the shape tables refuse what they cannot mean, saying which entry
for bad in "subdirs_table=0:0.5 0:0.5" "subdirs_table=1:0.5 x:1" "special_dir_table=10@0" \
	"special_dir_table=0@2" "special_dir_table=10" "depth_leaves=0 1.5" "depth_fileless=0 2" \
	"name_lengths=0.5" "name_ext_lengths=1 0" "name_caps_share=1.5" "empty_dir_share=1"; do
	expect_status 2 "--set $bad refused" "$IMPRINT" plan --files 100 --set "$bad"
	grep -q "'${bad%%=*}'" "$WORK/err" && pass "--set $bad: names the key" ||
		fail "--set $bad: $(head -c 200 "$WORK/err")"
done
expect_status 2 "special directories holding more than the files" "$IMPRINT" plan --files 100 \
	--set source_files=100 --set "special_dir_table=80@1 30@2"

# (Impressions input files: tests/impressions.sh)

# a profile of a small tree ('size = 0': derived) builds: create grows the size to hold its plan
# (/usr/share/mime: 8 MiB derived, about 9 MiB needed)
if [ -d /usr/share/mime ]; then
expect_status 0 "profile of /usr/share/mime" "$IMPRINT" profile /usr/share/mime -o "$WORK/small.conf"
expect_status 0 "create from its profile" "$IMPRINT" create -q -c "$WORK/small.conf" "$WORK/small.img"
e2fsck -fn "$WORK/small.img" >/dev/null 2>&1 && pass "small profile image: e2fsck -fn clean" ||
	fail "small profile image: e2fsck -fn"
fi

echo "1..$TESTS_RUN"
[ "$TESTS_FAILED" -eq 0 ]
