#!/bin/bash
# evolve_ext4.sh - imprint evolve of an ext4 (and ext2) image, offline through libext2fs:
# generation 0 evolved to 1, 2 and 3 is the tree create makes of generation 3 directly
# (type, permissions, owner, size, links, atime, mtime, ctime, bytes, read by debugfs in
# tests/ext_tree.py, no root), e2fsck -fn clean after every step; an image of another
# generation or plan is refused with the image byte-identical
. "${srcdir:-.}/tests/lib.sh"

command -v debugfs >/dev/null || { echo "1..0 # SKIP no debugfs"; exit 77; }
TREE="${srcdir:-.}/tests/ext_tree.py"
# same_tree WHAT A B: listings A and B (ext_tree.py) are equal and not empty
same_tree() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then pass "$1 ($(wc -l <"$2") entries)"
	else fail "$1: they differ: $(diff "$2" "$3" | head -6)"; fi
}

ARGS=(--fs ext4 --files 2000 --used 30M --size 100M --seed 7 --set gen_modify_share=0.1
	--set gen_dir_create_share=0.05 --set gen_dir_remove_share=0.05 --set gen_truncate_share=0.3)

build_fsck "ext4 generation 0" "$WORK/e.img" "${ARGS[@]}"
for g in 1 2 3; do
	expect_status 0 "evolve the image to generation $g" \
		"$IMPRINT" evolve "${ARGS[@]}" --generation "$g" "$WORK/e.img"
	expect_fsck "$WORK/e.img" "after generation $g: e2fsck -fn clean"
done
build_fsck "ext4 generation 3 made directly" "$WORK/d.img" "${ARGS[@]}" --generation 3
build_fsck "ext4 generation 0 again" "$WORK/g0.img" "${ARGS[@]}"
python3 "$TREE" "$WORK/e.img" >"$WORK/te" || fail "ext_tree.py of the evolved image"
python3 "$TREE" "$WORK/d.img" >"$WORK/td" || fail "ext_tree.py of generation 3"
python3 "$TREE" "$WORK/g0.img" >"$WORK/t0" || fail "ext_tree.py of generation 0"
same_tree "evolved 0 -> 1 -> 2 -> 3 is generation 3 made directly" "$WORK/te" "$WORK/td"
# the comparison sees change: generation 0's listing is not generation 3's
n=$(diff "$WORK/t0" "$WORK/td" | grep -c '^[<>]')
if [ "$n" -gt 100 ]; then pass "generations 0 and 3 differ in $n listing lines"
else fail "generations 0 and 3 differ in only $n listing lines"; fi
verify_ok "evolved to 3" "${ARGS[@]}" --generation 3 "$WORK/e.img"

# measure --generation: how much of generation 3's change each image holds
expect_status 0 "measure the evolved image against generation 3" \
	"$IMPRINT" measure "${ARGS[@]}" --generation 3 "$WORK/e.img"
all=$(grep -E '^ +all ' "$WORK/out")
if [[ $all =~ all\ +([0-9]+)\ of\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] &&
	grep -qE '^ +deleted +[1-9][0-9]* of' "$WORK/out"; then
	pass "the evolved image holds all of generation 3's change ($all)"
else fail "the evolved image against generation 3: $(tail -11 "$WORK/out")"; fi
expect_status 0 "measure generation 0 against generation 3" \
	"$IMPRINT" measure "${ARGS[@]}" --generation 3 "$WORK/g0.img"
# (a file generation 3 deletes may have been made in 1 or 2: gone from generation 0 too)
all=$(grep -E '^ +all ' "$WORK/out")
if grep -qE '^ +created +0 of [1-9]' "$WORK/out" && grep -qE '^ +rewritten +0 of [1-9]' "$WORK/out" &&
	[[ $all =~ all\ +([0-9]+)\ of\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ]
then pass "generation 0 holds none of generation 3's new and rewritten files ($all)"
else fail "generation 0 against generation 3: $(tail -11 "$WORK/out")"; fi
# the same census in JSON: the text's counts, the achieved rates over generation 2's files
expect_status 0 "measure --generation 3 --json of generation 0" \
	"$IMPRINT" measure "${ARGS[@]}" --generation 3 --json "$WORK/g0.img"
mv "$WORK/out" "$WORK/g0.json"
"$IMPRINT" measure "${ARGS[@]}" --generation 3 "$WORK/g0.img" >"$WORK/g0.txt" 2>/dev/null
check=$(python3 - "$WORK/g0.json" "$WORK/g0.txt" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
c = j["generation_census"]
text = {}
for line in open(sys.argv[2]):
    m = re.match(r" +([a-z ]+?) +(\d+) of (\d+) as planned", line)
    if m:
        text[m.group(1).replace(" ", "_").replace("metadata_only", "metadata_only")] = (int(m.group(2)), int(m.group(3)))
bad = []
if "layout_score" not in j or c["generation"] != 3:
    bad.append("not measure's object with the census")
for k, v in c["kinds"].items():
    if v["planned"] and text.get(k) != (v["as_planned"], v["planned"]):
        bad.append(f"{k}: json {v['as_planned']} of {v['planned']}, text {text.get(k)}")
    if abs(v["rate_achieved"] * c["files_before"] - v["as_planned"]) > 1e-6 or \
       abs(v["rate_planned"] * c["files_before"] - v["planned"]) > 1e-6:
        bad.append(f"{k}: rates {v['rate_achieved']} {v['rate_planned']} of {c['files_before']}")
if text.get("all") != (c["files_as_planned"], c["files_planned"]):
    bad.append(f"all: {text.get('all')}")
if c["kinds"]["created"]["as_planned"] != 0 or c["kinds"]["created"]["planned"] == 0 or \
   c["share_as_planned"] >= 1:
    bad.append("generation 0 should hold none of generation 3's new files")
print("; ".join(bad) if bad else f"ok {len(text)} kinds")
PY
)
[[ $check == ok* ]] && pass "measure --json: the text's census, rates over generation 2's files ($check)" ||
	fail "measure --json census: $check"
expect_status 0 "measure --generation 3 --json of the evolved image" \
	"$IMPRINT" measure "${ARGS[@]}" --generation 3 --json "$WORK/e.img"
share=$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["generation_census"]
print(c["share_as_planned"], c["kinds"]["deleted"]["rate_achieved"] > 0)' "$WORK/out")
[ "$share" = "1.0 True" ] && pass "the evolved image achieved every planned rate" || fail "evolved: $share"
# content-report --generation: the prediction is generation 3's plan (its files, its duplicates)
expect_status 0 "content-report --generation 3 of the evolved image" \
	"$IMPRINT" content-report "${ARGS[@]}" --generation 3 --json "$WORK/e.img"
mv "$WORK/out" "$WORK/c3.json"
"$IMPRINT" content-report "${ARGS[@]}" --json "$WORK/e.img" >"$WORK/c0.json" 2>/dev/null
check=$(python3 - "$WORK/c3.json" "$WORK/c0.json" "$WORK/td" "$WORK/t0" <<'PY'
import json, sys
j3, j0 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
# regular files of generations 3 and 0 in the tests' own debugfs listings (hard links once)
def files(path):
    seen = set()
    for line in open(path):
        f = line.rstrip("\n").rsplit(None, 10)  # a path may hold blanks
        if f[1] == "regular":
            seen.add((f[1], f[5], f[6], f[8], f[10]) if int(f[6]) > 1 else f[0])
    return len(seen)
def dup(j):
    return next(x["predicted"] for x in j["predicted"]["figures"] if x["figure"] == "dup_file_share")
n3, n0 = files(sys.argv[3]), files(sys.argv[4])
bad = []
if j3.get("generation") != 3 or "generation" in j0:
    bad.append(f"generation keys {j3.get('generation')} {j0.get('generation')}")
if j3["predicted_files"] != n3 or j3["files"] != n3 or n3 == n0:
    bad.append(f"predicted {j3['predicted_files']}, measured {j3['files']}, listing {n3} (generation 0: {n0})")
if abs(dup(j3) - j3["dup_file_share"]) > abs(dup(j0) - j3["dup_file_share"]) + 1e-9:
    bad.append(f"dup_file_share: generation 3 predicts {dup(j3)}, 0 predicts {dup(j0)}, measured {j3['dup_file_share']}")
print("; ".join(bad) if bad else f"ok {n3} files (generation 0: {n0})")
PY
)
[[ $check == ok* ]] && pass "content-report --generation 3 predicts generation 3's plan ($check)" ||
	fail "content-report --generation 3: $check"
expect_status 2 "measure --generation --html refused" \
	"$IMPRINT" measure "${ARGS[@]}" --generation 3 --html "$WORK/m.html" "$WORK/e.img"

# refusals: the image is byte-identical after them
before=$(sha "$WORK/e.img")
expect_status 1 "evolve of a generation 3 image to generation 3 refused" \
	"$IMPRINT" evolve "${ARGS[@]}" --generation 3 "$WORK/e.img"
expect_err "is not generation 2 of this plan" "the refusal says which generation it wanted"
expect_err "it holds generation 3 already (nothing was changed)" "the refusal says it is generation 3 already"
expect_err "nothing was changed" "the refusal says nothing was changed"
expect_status 1 "evolve of another seed's image refused" \
	"$IMPRINT" evolve "${ARGS[@]}" --seed 8 --generation 4 "$WORK/e.img"
expect_err "give the options it was created with" "another seed's refusal asks for the options"
expect_status 1 "evolve of another plan's image refused" \
	"$IMPRINT" evolve "${ARGS[@]}" --files 1500 --generation 4 "$WORK/e.img"
if [ "$(sha "$WORK/e.img")" = "$before" ]; then pass "refused evolves left the image byte-identical"
else fail "a refused evolve changed the image"; fi
printf 'not a file system\n' >"$WORK/text"
expect_status 2 "evolve of a text file" "$IMPRINT" evolve "${ARGS[@]}" --generation 1 "$WORK/text"
expect_err "is not an ext2/3/4 file system" "the text file is named as not ext2/3/4"
expect_status 2 "evolve of a missing path" "$IMPRINT" evolve "${ARGS[@]}" --generation 1 "$WORK/none"

# ext2: block maps, no extents
A2=("${ARGS[@]}")
A2[1]=ext2
build_fsck "ext2 generation 1" "$WORK/e2.img" "${A2[@]}" --generation 1
expect_status 0 "evolve the ext2 image to generation 2" \
	"$IMPRINT" evolve "${A2[@]}" --generation 2 "$WORK/e2.img"
expect_fsck "$WORK/e2.img" "ext2 after generation 2: e2fsck -fn clean"
build_fsck "ext2 generation 2 made directly" "$WORK/d2.img" "${A2[@]}" --generation 2
python3 "$TREE" "$WORK/e2.img" >"$WORK/te2" || fail "ext_tree.py of the evolved ext2 image"
python3 "$TREE" "$WORK/d2.img" >"$WORK/td2" || fail "ext_tree.py of ext2 generation 2"
same_tree "ext2: evolved 1 -> 2 is generation 2 made directly" "$WORK/te2" "$WORK/td2"

# the same bytes whatever the heap held: libext2fs splits a full leaf of an indexed directory
# through a buffer it does not clear, and its leftovers reached the image (4,000 files in few
# directories split leaves at generation 1); MALLOC_PERTURB_ fills the heap otherwise
H=(--size 200M --used 60M --files 4000 --seed 4)
"$IMPRINT" create -q "${H[@]}" "$WORK/h0.img" 2>"$WORK/err" || fail "the leaf-split image: $(head -c 300 "$WORK/err")"
cp "$WORK/h0.img" "$WORK/h1.img"
"$IMPRINT" evolve "${H[@]}" --generation 1 "$WORK/h0.img" >/dev/null 2>"$WORK/err" ||
	fail "evolve of the leaf-split image: $(head -c 300 "$WORK/err")"
MALLOC_PERTURB_=165 "$IMPRINT" evolve "${H[@]}" --generation 1 "$WORK/h1.img" >/dev/null 2>"$WORK/err" ||
	fail "evolve under MALLOC_PERTURB_: $(head -c 300 "$WORK/err")"
n=$(cmp -l "$WORK/h0.img" "$WORK/h1.img" | wc -l)
[ "$n" = 0 ] && pass "evolve writes the same bytes under another heap (MALLOC_PERTURB_)" ||
	fail "evolve under MALLOC_PERTURB_ differs in $n bytes"
e2fsck -fn "$WORK/h0.img" >/dev/null 2>&1 && pass "the leaf-split image: e2fsck -fn clean" ||
	fail "the leaf-split image: e2fsck -fn finds errors"

# a name deleted and made again in one generation: generation 3 of this plan deletes
# /7e/logo.gif and creates another file by that name (the editor's table of the names it read
# must lose a name it unlinks; one that kept it refused the create: 'File exists')
R=(--fs ext4 --size 128M --used 60M --files 3000 --seed 2 --set gen_delete_share=0.3
	--set gen_create_share=0.3)
build_fsck "the name-reuse plan, generation 2" "$WORK/r.img" "${R[@]}" --generation 2
expect_status 0 "evolve it to generation 3" "$IMPRINT" evolve "${R[@]}" --generation 3 "$WORK/r.img"
build_fsck "the name-reuse plan, generation 3 made directly" "$WORK/r3.img" "${R[@]}" --generation 3
python3 "$TREE" "$WORK/r.img" >"$WORK/tr" || fail "ext_tree.py of the evolved name-reuse image"
python3 "$TREE" "$WORK/r3.img" >"$WORK/tr3" || fail "ext_tree.py of its generation 3"
same_tree "name reuse: evolved 2 -> 3 is generation 3 made directly" "$WORK/tr" "$WORK/tr3"
finish
