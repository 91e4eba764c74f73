#!/bin/bash
# profile_meta.sh - imprint profile's metadata and layout figures: modes, owners, ages and atimes,
# fragmentation, free space and holes of an ext4 image made with known targets come back in the
# profile; a clone built from the profile has them again (e2fsck, filefrag); --partition, --html.
. "${srcdir:-.}/tests/lib.sh"
command -v python3 >/dev/null || { echo "1..0 # SKIP needs python3"; exit 77; }
command -v e2fsck >/dev/null || { echo "1..0 # SKIP needs e2fsck"; exit 77; }

# val FILE KEY: a parameter of a profile
val() { sed -n "s/^$2 = //p" "$1"; }
# near WHAT GOT WANT ABS: |GOT - WANT| <= ABS
near() {
	if [ -n "$2" ] && awk -v a="$2" -v b="$3" -v t="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; then
		pass "$1: $2 (wanted $3 within $4)"
	else
		fail "$1: '$2', wanted $3 within $4"
	fi
}
# rel WHAT GOT WANT REL: |GOT - WANT| <= REL * WANT
rel() {
	if [ -n "$2" ] && awk -v a="$2" -v b="$3" -v r="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= r * b) }'; then
		pass "$1: $2 (wanted $3 within $4 relative)"
	else
		fail "$1: '$2', wanted $3 within $4 relative"
	fi
}
# mode_share FILE KEY MODE: the share of MODE in the mode table KEY
mode_share() { val "$1" "$2" | tr ' ' '\n' | sed -n "s/^$3://p"; }

# shares TSV: the shares of each mode among the manifest's files and directories, the root's share
shares() {
	python3 - "$1" <<'EOF'
import sys
n = {"file": 0, "dir": 0}
m, entries, root = {}, 0, 0
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if f[0].startswith("#") or f[0] == "/" or f[1] == "hardlink":
        continue
    entries += 1
    root += f[7] == "0"
    if f[1] in n:
        n[f[1]] += 1
        m[(f[1], f[6])] = m.get((f[1], f[6]), 0) + 1
for (t, mode), c in m.items():
    print("%s_%s=%.6f" % (t, mode, c / n[t]))
print("root=%.6f" % (root / entries))
EOF
}

# never in the build tree: an empty WORK (mktemp failed) would leave cd where it is
[ -n "$WORK" ] && [ -d "$WORK" ] && cd "$WORK" || { echo "no work directory"; exit 1; }
MODES='0644:0.6 0755:0.25 0600:0.1 0640:0.05'
DMODES='0755:0.7 0700:0.2 0750:0.1'
SRC=(--seed 11 --size 384M --files 5000 --set size_mu=8 --set layout_score=0.8
	--set frag_file_share=0.3 --set free_frag_share=0.2 --set sparse_file_share=0.3
	--set sparse_hole_share=0.4 --set "mode_files=$MODES" --set "mode_dirs=$DMODES"
	--set owner_root_share=0.3 --set owner_users=5 --set age_median_days=30 --set age_sigma=1)

# --- the mode and age tables: what the model does with them, in a plan
"$IMPRINT" plan --files 20000 --set "mode_files=$MODES" --set "mode_dirs=$DMODES" \
	--set 'age_quantiles=0 1 10 100 1000' --set 'atime_quantiles=0 0 1' -o plan.tsv ||
	fail "plan with the tables"
python3 - plan.tsv >plan.fig <<'EOF'
import sys
files = dirs = 0
fm, dm, ages, pos = {}, {}, [], []
now = 1767225600  # time_ref's default, 2026-01-01
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if f[0].startswith("#") or f[0] == "/":
        continue
    if f[1] == "file":
        files += 1
        fm[f[6]] = fm.get(f[6], 0) + 1
        ages.append((now - float(f[9])) / 86400)
    elif f[1] == "dir":
        dirs += 1
        dm[f[6]] = dm.get(f[6], 0) + 1
for k, v in fm.items():
    print("file_%s=%.4f" % (k, v / files))
for k, v in dm.items():
    print("dir_%s=%.4f" % (k, v / dirs))
for d in (1, 10, 100):
    print("age_below_%d=%.4f" % (d, sum(a < d for a in ages) / len(ages)))
EOF
for m in $MODES; do
	rel "plan: files of mode ${m%%:*}" "$(sed -n "s/^file_${m%%:*}=//p" plan.fig)" "${m#*:}" 0.1
done
for m in $DMODES; do
	rel "plan: directories of mode ${m%%:*}" "$(sed -n "s/^dir_${m%%:*}=//p" plan.fig)" "${m#*:}" 0.1
done
# the table's quartiles: a quarter of the files below 1 day, half below 10, three quarters below 100
near "plan: ages below 1 day" "$(sed -n 's/^age_below_1=//p' plan.fig)" 0.25 0.02
near "plan: ages below 10 days" "$(sed -n 's/^age_below_10=//p' plan.fig)" 0.5 0.02
near "plan: ages below 100 days" "$(sed -n 's/^age_below_100=//p' plan.fig)" 0.75 0.02
expect_status 2 "a mode table refuses mode 9999" "$IMPRINT" config --set 'mode_files=0644:0.5 9999:0.5'
expect_err "'mode_files' entry 2 must be MODE:SHARE" "says which entry and what is allowed"
expect_status 2 "atime_quantiles stay within 0..1" "$IMPRINT" config --set 'atime_quantiles=0 1.5'
expect_status 2 "age_quantiles never decrease" "$IMPRINT" config --set 'age_quantiles=5 2'
"$IMPRINT" plan --files 3000 -o default.tsv
"$IMPRINT" plan --files 3000 --set 'mode_files=none' --set 'age_quantiles=none' -o none.tsv
cmp -s default.tsv none.tsv && pass "empty tables leave the default plan as it was" ||
	fail "'none' tables changed the default plan"

# --- a tree made here: modes, owners (as root), mtimes with point masses (a package's files)
# and atimes; the profile's plan against the tree itself (tests/profile_meta_compare.py)
python3 - tree <<'EOF'
import os, random, sys
rnd = random.Random(5)
top = sys.argv[1]
modes = [(0o644, 0.55), (0o755, 0.2), (0o600, 0.1), (0o664, 0.1), (0o444, 0.05)]
dmodes = [(0o755, 0.8), (0o700, 0.15), (0o2775, 0.05)]
now = 1760000000
packages = [now - rnd.randrange(1, 2000) * 86400 for _ in range(8)]
def pick(table):
    u, acc = rnd.random(), 0
    for m, s in table:
        acc += s
        if u < acc:
            return m
    return table[-1][0]
dirs = [top]
os.mkdir(top)
for d in range(300):
    p = os.path.join(rnd.choice(dirs), "d%03d" % d)
    os.mkdir(p)
    dirs.append(p)
for f in range(4000):
    p = os.path.join(rnd.choice(dirs), "f%04d.dat" % f)
    with open(p, "w") as fh:
        fh.write("x" * rnd.randrange(0, 3000))
    os.chmod(p, pick(modes))
    # half the files in eight point masses, the rest spread over five years
    mt = rnd.choice(packages) if rnd.random() < 0.5 else now - int(rnd.expovariate(1 / 3e7))
    at = mt + int((now - mt) * rnd.random() ** 2)
    os.utime(p, (at, mt))
    if os.geteuid() == 0 and rnd.random() < 0.4:
        os.lchown(p, 1000 + int(rnd.random() ** 2 * 3), 1000)
for p in dirs[1:]:
    os.chmod(p, pick(dmodes))
    if os.geteuid() == 0 and rnd.random() < 0.3:
        os.lchown(p, 1001, 1000)
EOF
expect_status 0 "profile the tree" "$IMPRINT" profile tree -o tree.conf
"$IMPRINT" plan -c tree.conf -o tree.tsv
python3 "${srcdir:-.}/tests/profile_meta_compare.py" tree tree.tsv "$(val tree.conf time_ref)" >tree.fig
fig() { sed -n "s/^$2=//p" "$1"; }
near "tree: modes of files and directories, largest relative difference" "$(fig tree.fig mode_rel)" 0 0.1
near "tree: ages, two-sample K-S D of the tree and the plan" "$(fig tree.fig age_d)" 0 0.02
rel "tree: root's share of the entries" "$(fig tree.fig root_clone)" "$(fig tree.fig root_src)" 0.1
[ "$(fig tree.fig users_clone)" = "$(fig tree.fig users_src)" ] &&
	pass "tree: $(fig tree.fig users_src) owners besides root, in the plan too" ||
	fail "tree: owners besides root: $(fig tree.fig users_src) in the tree, $(fig tree.fig users_clone) planned"
# the atimes: where each lies between its mtime and the newest mtime, as the tree has it (u^2)
q50=$(sed -n 's/^atime_quantiles +\{0,1\}= //p' tree.conf | tr '\n' ' ' | awk '{ print $51 }')
near "tree: atime_quantiles' median (u^2: 0.25)" "$q50" 0.25 0.03

# --- the source: an ext4 image with known targets
expect_status 0 "create the source image" "$IMPRINT" create -q "${SRC[@]}" src.img
expect_status 0 "profile the image, with --html" "$IMPRINT" profile src.img -o p.conf --html p.html
P=p.conf
near "profile: layout_score" "$(val $P layout_score)" 0.8 0.01
near "profile: frag_file_share" "$(val $P frag_file_share)" 0.3 0.01
near "profile: free_frag_share" "$(val $P free_frag_share)" 0.2 0.01
near "profile: free_gap_shape (1 by default)" "$(val $P free_gap_shape)" 1 0.2
near "profile: sparse_file_share" "$(val $P sparse_file_share)" 0.3 0.1
near "profile: sparse_hole_share" "$(val $P sparse_hole_share)" 0.4 0.03
rel "profile: owner_root_share" "$(val $P owner_root_share)" 0.3 0.1
[ "$(val $P owner_users)" = 5 ] && pass "profile: owner_users 5" || fail "profile: owner_users '$(val $P owner_users)'"
for m in $MODES; do
	rel "profile: files of mode ${m%%:*}" "$(mode_share $P mode_files "${m%%:*}")" "${m#*:}" 0.1
done
# what the image holds, entry for entry: its plan's manifest
"$IMPRINT" plan "${SRC[@]}" -o src.tsv
shares src.tsv >src.fig
for m in $MODES; do
	near "profile: files of mode ${m%%:*} as the image has them" \
		"$(mode_share $P mode_files "${m%%:*}")" "$(sed -n "s/^file_${m%%:*}=//p" src.fig)" 0.0001
done
for m in $DMODES; do
	near "profile: directories of mode ${m%%:*} as the image has them" \
		"$(mode_share $P mode_dirs "${m%%:*}")" "$(sed -n "s/^dir_${m%%:*}=//p" src.fig)" 0.0001
done
near "profile: owner_root_share as the image has it" "$(val $P owner_root_share)" \
	"$(sed -n 's/^root=//p' src.fig)" 0.0001
rel "profile: age_median_days of the fitted lognormal" "$(val $P age_median_days)" 30 0.1
near "profile: age_sigma" "$(val $P age_sigma)" 1 0.1
ks=$(sed -n 's/.*age table (101 points): K-S D \([0-9.]*\).*/\1/p' $P)
near "profile: the age table's K-S D against the source" "$ks" 0 0.02
[ "$(sed -n 's/^age_quantiles +\{0,1\}= //p' $P | wc -w)" -eq 101 ] && [ -n "$(val $P atime_quantiles)" ] &&
	pass "profile: age_quantiles and atime_quantiles written" || fail "profile: age or atime table missing"

# --- the clone: built from the profile, the same figures again
expect_status 0 "create a clone from the profile" "$IMPRINT" create -q -c $P clone.img
e2fsck -fn clone.img >/dev/null 2>&1 && pass "e2fsck -fn: the clone is clean" || fail "e2fsck: the clone"
expect_status 0 "profile the clone" "$IMPRINT" profile clone.img -o c.conf
C=c.conf
near "clone: layout_score" "$(val $C layout_score)" "$(val $P layout_score)" 0.01
near "clone: frag_file_share" "$(val $C frag_file_share)" "$(val $P frag_file_share)" 0.01
rel "clone: frag_extents" "$(val $C frag_extents)" "$(val $P frag_extents)" 0.1
near "clone: free_frag_share" "$(val $C free_frag_share)" "$(val $P free_frag_share)" 0.01
near "clone: fill_share" "$(val $C fill_share)" "$(val $P fill_share)" 0.02
near "clone: sparse_file_share" "$(val $C sparse_file_share)" "$(val $P sparse_file_share)" 0.1
near "clone: sparse_hole_share" "$(val $C sparse_hole_share)" "$(val $P sparse_hole_share)" 0.05
rel "clone: owner_root_share" "$(val $C owner_root_share)" "$(val $P owner_root_share)" 0.1
for m in $MODES; do
	rel "clone: files of mode ${m%%:*}" "$(mode_share $C mode_files "${m%%:*}")" \
		"$(mode_share $P mode_files "${m%%:*}")" 0.1
done
for m in $DMODES; do
	rel "clone: directories of mode ${m%%:*}" "$(mode_share $C mode_dirs "${m%%:*}")" \
		"$(mode_share $P mode_dirs "${m%%:*}")" 0.1
done
# ages and atimes: the clone's tables against the source's, as a K-S D of the two laws
python3 - $P $C >ages.fig <<'EOF'
import sys, bisect
def table(path, key):
    v = []
    for line in open(path):
        if line.startswith(key + " = ") or line.startswith(key + " += "):
            v += [float(x) for x in line.split("=", 1)[1].split()]
    return v
def cdf(q, x):
    n = len(q)
    if x < q[0]:
        return 0.0
    i = bisect.bisect_right(q, x) - 1
    if i >= n - 1:
        return 1.0
    return (i + (x - q[i]) / (q[i + 1] - q[i])) / (n - 1)
for key in ("age_quantiles", "atime_quantiles"):
    a, b = table(sys.argv[1], key), table(sys.argv[2], key)
    pts = sorted(set(a + b))
    print("%s=%.4f" % (key, max(abs(cdf(a, x) - cdf(b, x)) for x in pts)))
EOF
near "clone: ages, K-S D of the two age tables" "$(sed -n 's/^age_quantiles=//p' ages.fig)" 0 0.03
near "clone: atimes, K-S D of the two atime tables" "$(sed -n 's/^atime_quantiles=//p' ages.fig)" 0 0.03
# a reader no one here wrote: e2freefrag's histogram, the free blocks in extents below 1 MiB
if command -v e2freefrag >/dev/null; then
	small=$(e2freefrag clone.img 2>/dev/null | awk '
		/^Free blocks:/ { total = $3 }
		/\.\.\./ && $2 ~ /K-$/ { sub("K-", "", $2); if ($2 + 0 <= 1024) s += $5 }
		END { if (total) printf "%.6f", s / total }')
	near "e2freefrag: the clone's free space below 1 MiB" "$small" "$(val $P free_frag_share)" 0.01
fi
"$IMPRINT" measure --against $P --json clone.img >m.json
python3 - m.json >m.fig <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
print("score=%s" % m.get("layout_score"))
EOF
near "measure --against the profile: the clone's layout score" "$(sed -n 's/^score=//p' m.fig)" \
	"$(val $P layout_score)" 0.01

# --- privacy: none of the image's names (its plan's manifest holds them all; those with a
# digit, a blank or a dash, which no key or English word has) in the profile
awk -F'\t' 'NR > 1 { n = split($1, c, "/"); sub(/\.[^.]*$/, "", c[n]); if (length(c[n]) >= 6 && c[n] ~ /[- 0-9]/) print c[n] }' \
	src.tsv | sort -u >names.txt
leak=$(grep -oFf names.txt $P p.html | head -3)
if [ "$(wc -l <names.txt)" -lt 100 ]; then
	fail "privacy: too few names to look for ($(wc -l <names.txt))"
elif [ -z "$leak" ]; then
	pass "privacy: none of $(wc -l <names.txt) names of the image in the profile or its page"
else
	fail "privacy: the profile holds names of the image: $leak"
fi

# --- --html: an offline page, measure's figures of the source against the profile
tap_from python3 "${top_srcdir:-.}/tests/html_check.py" offline p.html
"$IMPRINT" measure --against p.conf --json src.img >against.json
tap_from python3 "${top_srcdir:-.}/tests/html_check.py" same p.html measure against.json
# --- measure --against the profile: its tables' fit lines, ~0 on the source itself
jfig() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"; }
for k in mode_files_max_abs_diff mode_dirs_max_abs_diff subdirs_max_abs_diff name_length_ks_d \
	name_ext_length_ks_d; do
	near "measure --against the profile, on its source: $k" "$(jfig against.json $k)" 0 0.000001
done
near "measure --against, on the source: age K-S D" "$(jfig against.json age_ks_d)" 0 0.01
for k in root_owned empty_dirs; do
	near "measure --against, on the source: $k share" "$(jfig against.json ${k}_achieved)" \
		"$(jfig against.json ${k}_target)" 0.000001
done
"$IMPRINT" measure --against p.conf src.img >against.txt
for l in 'file modes max |diff|' 'dir modes max |diff|' 'root-owned share' 'subdirs/dir max |diff|' \
	'empty dirs share' 'age K-S D' 'name length K-S D'; do
	grep -qF "  $l " against.txt && pass "measure --against: '$l' in the fit block" ||
		fail "measure --against: no '$l' line"
done
"$IMPRINT" config >plain.conf
"$IMPRINT" measure --against plain.conf src.img >against_default.txt
! grep -qF 'size K-S D' against_default.txt || grep -qE 'file modes|root-owned|age K-S' against_default.txt &&
	fail "measure --against a configuration without the tables prints their lines" ||
	pass "measure --against a configuration without the tables: no such line"
# a look-alike made with other modes and fewer empty directories: the figures see it
E=$(awk -v e="$(val $P empty_dir_share)" 'BEGIN { print e / 2 }')
expect_status 0 "create a clone with mode_files 0600 only, empty_dir_share $E" \
	"$IMPRINT" create -q -c $P --set 'mode_files=0600:1' --set "empty_dir_share=$E" other.img
"$IMPRINT" measure --against p.conf --json other.img >other.json
awk -v d="$(jfig other.json mode_files_max_abs_diff)" 'BEGIN { exit !(d > 0.3) }' &&
	pass "measure --against, other modes: file modes max |diff| $(jfig other.json mode_files_max_abs_diff)" ||
	fail "measure --against, other modes: file modes max |diff| '$(jfig other.json mode_files_max_abs_diff)'"
[ "$(jfig other.json mode_files_worst)" = 0600 ] && pass "measure --against: the worst file mode is 0600" ||
	fail "measure --against: worst file mode '$(jfig other.json mode_files_worst)'"
awk -v a="$(jfig other.json empty_dirs_achieved)" -v t="$(jfig other.json empty_dirs_target)" \
	'BEGIN { exit !(t - a > 0.005) }' &&
	pass "measure --against, fewer empty directories: $(jfig other.json empty_dirs_achieved) against $(jfig other.json empty_dirs_target)" ||
	fail "measure --against, fewer empty directories: '$(jfig other.json empty_dirs_achieved)' against '$(jfig other.json empty_dirs_target)'"
rm -f other.img

grep -q '"kind":"profile"' p.html && pass "--html: the page is a profile's" || fail "--html: kind"
grep -qF 'mode_files = ' p.html && pass "--html: the page holds the profile" || fail "--html: no profile"
expect_status 0 "profile --json --html" "$IMPRINT" profile --json --html pj.html src.img
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/out" && grep -qF 'mode_files = ' pj.html &&
	pass "--json --html: JSON on stdout, the profile itself on the page" || fail "--json --html"
expect_status 1 "--html over a file that is no imprint page is refused" \
	"$IMPRINT" profile src.img --html p.conf
[ "$(head -c 18 p.conf)" = "# imprint profile " ] && pass "--html left that file as it was" ||
	fail "--html replaced a file it should not"

# --- --partition: the same file system inside a GPT disk gives the same profile
ARGS=(--seed 4 --size 64M --used 20M --set layout_score=0.9)
"$IMPRINT" create -q "${ARGS[@]}" bare.img
"$IMPRINT" create -q "${ARGS[@]}" --partition gpt disk.img
expect_status 0 "profile --partition 1" "$IMPRINT" profile --partition 1 disk.img -o part.conf
"$IMPRINT" profile bare.img -o bare.conf
if [ -s part.conf ] && diff <(grep -v "^# imprint profile" part.conf) <(grep -v "^# imprint profile" bare.conf) >/dev/null; then
	pass "--partition 1: the profile of the bare image, line for line"
else
	fail "--partition 1: $(diff <(grep -v '^# imprint profile' part.conf) <(grep -v '^# imprint profile' bare.conf) | head -4)"
fi
expect_status 0 "profile finds the one partition itself" "$IMPRINT" profile disk.img -o found.conf
expect_status 1 "profile --partition 2 of a one-partition disk" "$IMPRINT" profile --partition 2 disk.img
expect_status 2 "profile --partition x" "$IMPRINT" profile --partition x disk.img
expect_err "'--partition' must be a partition number" "says what --partition takes"
finish
