#!/bin/bash
# profile_since.sh - imprint profile --since OLD SOURCE: two trees this test makes with known changes
# (deleted, appended, truncated, edited in place, rewritten, renamed, moved, touched, chmodded,
# created; directories made and removed) give exactly those counts and the gen_* rates they imply;
# a plan and an evolved image from the profile change at about those rates (the defaults are far lower);
# --json gives the same counts and rates as figures
. "${srcdir:-.}/tests/lib.sh"

cd "$WORK" || exit 1
python3 - <<'PY' || { fail "the two trees"; finish; }
import os, random, shutil
r = random.Random(1)
dirs = ['A/d%d' % i for i in range(10)]
for d in dirs + ['A/empty']:
    os.makedirs(d)
files = []
for i in range(300):
    p = '%s/f%03d.bin' % (dirs[i % 10], i)
    with open(p, 'wb') as f:
        f.write(r.randbytes(8192 + (i % 7) * 1000 + 7))
    os.utime(p, (1700000000, 1700000000 + i))
    files.append(p)
shutil.copytree('A', 'B', copy_function=shutil.copy2)
B = [p.replace('A/', 'B/', 1) for p in files]
idx = list(range(300))
r.shuffle(idx)
take = lambda n: [idx.pop() for _ in range(n)]
T = 1700000000 + 2 * 86400
for i in take(30):
    os.unlink(B[i])
for i in take(20):          # appended: 500 bytes each
    with open(B[i], 'ab') as f:
        f.write(r.randbytes(500))
    os.utime(B[i], (T, T))
for i in take(5):           # truncated (a whole 4 KiB block kept)
    os.truncate(B[i], 5000)
    os.utime(B[i], (T, T))
for i in take(10):          # one 4 KiB block of 3 or 4 rewritten in place
    with open(B[i], 'r+b') as f:
        f.seek(4096)
        f.write(r.randbytes(4096))
    os.utime(B[i], (T, T))
for i in take(15):          # rewritten whole, same size
    n = os.path.getsize(B[i])
    with open(B[i], 'wb') as f:
        f.write(r.randbytes(n))
    os.utime(B[i], (T, T))
for i in take(6):
    os.rename(B[i], B[i][:-4] + '.renamed')
for k, i in enumerate(take(9)):
    os.rename(B[i], 'B/d%d/moved%d.bin' % ((int(B[i][3]) + 1) % 10, k))
for k, i in enumerate(take(12)):   # touched; 3 chmodded too
    os.utime(B[i], (T, T))
    if k < 3:
        os.chmod(B[i], 0o600)
os.rmdir('B/empty')
for k in range(24):
    d = 'B/new%d' % (1 + k % 2)
    os.makedirs(d, exist_ok=True)
    with open('%s/c%d.bin' % (d, k), 'wb') as f:
        f.write(r.randbytes(3000 + k))
    os.utime('%s/c%d.bin' % (d, k), (T, T))
PY

expect_status 0 "profile --since A B" "$IMPRINT" profile --since A B -o p.conf
want='# of 300 files: 193 unchanged, 12 metadata only (3 with the mode), 50 modified (20 appended, 5 truncated, 10 edited in place, 15 rewritten), 6 renamed, 9 moved, 30 deleted; 24 created'
grep -qxF "$want" p.conf && pass "every file classified as the test changed it" ||
	fail "counts: $(grep '^# of' p.conf)"
grep -qxF '# of 11 directories: 2 created, 1 removed' p.conf && pass "directories: 2 created, 1 removed" ||
	fail "directories: $(grep '^# of' p.conf | tail -1)"
"$IMPRINT" config -c p.conf >cfg 2>err || fail "the profile does not load: $(head -3 err)"
[ ! -s err ] && pass "the profile loads without a warning" || fail "warnings: $(head -3 err)"
check=$(python3 - cfg <<'PY'
import sys
got = dict(l.split(' = ', 1) for l in open(sys.argv[1]).read().splitlines() if l.startswith('gen_'))
want = {'gen_modify_share': 50 / 300, 'gen_delete_share': 30 / 300, 'gen_create_share': 24 / 300,
        'gen_rename_share': 6 / 300, 'gen_move_share': 9 / 300, 'gen_meta_share': 12 / 300,
        'gen_mode_share': 3 / 12, 'gen_truncate_share': 5 / 25,
        'gen_dir_create_share': 2 / 11, 'gen_dir_remove_share': 1 / 11,
        'gen_interval_days': (2 * 86400 - 299) / 86400}
bad = [f"{k} {got.get(k)} != {v:.6f}" for k, v in want.items() if abs(float(got.get(k, 'nan')) - v) > 1e-6]
# appended 500 bytes to sizes 8199 + 1000 k: the mean share lies between 500/14199 and 500/8199
if not 500 / 14199 <= float(got['gen_append_share']) <= 500 / 8199:
    bad.append(f"gen_append_share {got['gen_append_share']}")
# one block of 3 or 4 edited
if not 0.25 <= float(got['gen_edit_block_share']) <= 1 / 3:
    bad.append(f"gen_edit_block_share {got['gen_edit_block_share']}")
print('; '.join(bad) if bad else 'ok')
PY
)
[ "$check" = ok ] && pass "the gen_* rates are the counts over 300 files and 11 directories" || fail "rates: $check"

# the same change as JSON (profile's figures): the counts the test made, the rates the
# configuration holds, and the profile's other figures beside them
expect_status 0 "profile --since A B --json" "$IMPRINT" profile --since A B --json
mv "$WORK/out" pj.json
check=$(python3 - pj.json cfg <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
cfg = dict(l.split(' = ', 1) for l in open(sys.argv[2]).read().splitlines() if l.startswith('gen_'))
c = j.get("change", {})
want = dict(old="A", new="B", files_before=300, unchanged=193, metadata_only=12, metadata_with_mode=3,
            modified=50, appended=20, truncated=5, edited_in_place=10, rewritten=15, renamed=6,
            moved=9, deleted=30, created=24, dirs_before=11, dirs_created=2, dirs_removed=1)
bad = [f"{k} {c.get(k)} != {v}" for k, v in want.items() if c.get(k) != v]
rates = c.get("rates", {})
bad += [f"rate {k} {rates.get(k)} != config {v}" for k, v in cfg.items()
        if k in rates and abs(rates[k] - float(v)) > 1e-6 * max(1, abs(float(v)))]
if len(rates) < 13 or abs(rates.get("gen_modify_share", 0) - 50 / 300) > 1e-9:
    bad.append(f"rates: {rates}")
if j.get("files") != 294 or "file_sizes" not in j:
    bad.append(f"the profile's own figures: files {j.get('files')}")
print('; '.join(bad) if bad else f'ok {len(want)} counts, {len(rates)} rates')
PY
)
[[ $check == ok* ]] && pass "--json: the change's counts and the configuration's rates ($check)" ||
	fail "--json: $check"

# what follows from the profile: a plan's generation 1 changes at about those rates
rates() {
	"$IMPRINT" plan "$@" --generation 1 --report --json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
g, n = j["generation"], j["files"]
before = n + g["deleted"]["files"] - g["created"]["files"]
mod = sum(g[k]["files"] for k in ("appended", "edited", "rewritten", "truncated"))
print("%.4f %.4f %.4f %.4f" % (g["deleted"]["files"] / before, g["created"]["files"] / before,
      mod / before, (g["files_renamed"] + g["files_moved"]) / before))'
}
read -r del cre mod mov <<<"$(rates -c p.conf)"
read -r del0 cre0 mod0 mov0 <<<"$(rates --files 300)"
echo "# generation 1 of the profile: deleted $del created $cre modified $mod renamed or moved $mov;" \
	"of the defaults: $del0 $cre0 $mod0 $mov0"
awk -v a="$del" -v b="$cre" -v c="$mod" -v d="$mov" 'BEGIN { exit !(a >= 0.05 && a <= 0.15 &&
	b >= 0.04 && b <= 0.12 && c >= 0.10 && c <= 0.23 && d >= 0.02 && d <= 0.08) }' &&
	pass "a plan from the profile deletes, creates, modifies and moves at about its rates" ||
	fail "generation 1 of the profile: $del $cre $mod $mov"
awk -v a="$del0" -v c="$mod0" 'BEGIN { exit !(a < 0.03 && c < 0.06) }' &&
	pass "the defaults change far less ($del0 deleted, $mod0 modified)" || fail "defaults: $del0 $mod0"

# and an image evolved with it achieves them (measure --generation 1 --json)
if command -v mke2fs >/dev/null; then
	expect_status 0 "an ext4 image from the profile" "$IMPRINT" create -q -c p.conf --fs ext4 --size 32M g.img
	expect_status 0 "evolved to generation 1" "$IMPRINT" evolve -c p.conf --fs ext4 --size 32M \
		--generation 1 g.img
	"$IMPRINT" measure -c p.conf --fs ext4 --size 32M --generation 1 --json g.img >m.json 2>err
	got=$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["generation_census"]
k = c["kinds"]
mod = sum(k[x]["rate_achieved"] for x in ("appended", "edited", "rewritten", "truncated"))
print("%.4f %.4f" % (mod, c["share_as_planned"]))' m.json)
	read -r emod eshare <<<"$got"
	# (a deleted file whose path a new one took counts as not gone: the share may miss a few)
	awk -v m="$emod" -v s="$eshare" 'BEGIN { exit !(m >= 0.10 && m <= 0.23 && s >= 0.99) }' &&
		pass "the evolved image modified $emod of its files (share as planned $eshare)" ||
		fail "evolved: $got $(head -3 err)"
fi

# two images of one plan, generations 0 and 1: the counts are the ones create reports for generation 1
GA=(--fs ext4 --files 600 --used 12M --size 48M --seed 7 --set gen_modify_share=0.1)
if "$IMPRINT" create -q "${GA[@]}" a.img && "$IMPRINT" create -q --json "${GA[@]}" --generation 1 b.img >b.json; then
	"$IMPRINT" profile --since a.img b.img >pi.conf 2>err || fail "profile --since of two images: $(head -3 err)"
	want=$(python3 -c 'import json, sys; g = json.load(open(sys.argv[1]))["generation"]
mod = sum(g[k]["files"] for k in ("appended", "edited", "rewritten", "truncated"))
before = g["files_unchanged"] + mod + g["files_meta"] + g["files_renamed"] + g["files_moved"] + g["deleted"]["files"]
print("# of %d files: %d unchanged, %d metadata only (%d with the mode), %d modified" % (before,
      g["files_unchanged"], g["files_meta"], g["files_mode"], mod),
      "renamed %d, moved %d, deleted %d; created %d" % (g["files_renamed"], g["files_moved"],
      g["deleted"]["files"], g["created"]["files"]))' b.json)
	got=$(grep '^# of [0-9]* files' pi.conf | sed -E 's/ \(([0-9]+ appended|[^)]*rewritten)[^)]*\)//; s/, ([0-9]+) renamed, ([0-9]+) moved, ([0-9]+) deleted; ([0-9]+) created/ renamed \1, moved \2, deleted \3; created \4/')
	[ "$got" = "$want" ] && pass "two images of generations 0 and 1: the counts create reported ($got)" ||
		fail "images: got '$got', create reported '$want'"
else
	fail "the two images"
fi

# refusals
expect_status 2 "--since with --html refused" "$IMPRINT" profile --html p.html --since A B
expect_err "not with '--html'" "the refusal says why"
expect_status 2 "a missing OLD refused" "$IMPRINT" profile --since nope B
expect_err "cannot access 'nope'" "the refusal names it"
expect_status 2 "--since is only for profile" "$IMPRINT" plan --since A
finish
