#!/bin/bash
# profile_clone.sh - a clone keeps its source's extension case, byte total, and the lengths of
# directory names and extension-less names (issue 22 item 4); read back from the image with
# debugfs rdump (no root) and walked by Python, which shares no code with imprint.
. "${srcdir:-.}/tests/lib.sh"
command -v python3 >/dev/null || { echo "1..0 # SKIP needs python3"; exit 77; }
command -v debugfs >/dev/null || { echo "1..0 # SKIP needs debugfs"; exit 77; }

# the source: long directory names, short extension-less names (each of many lengths: their
# tables, not one length, must come back), README.Debian everywhere, and a heavy tail of sizes
# (the size table's interpolation overshoots such a tail)
python3 - "$WORK/src" <<'PY'
import os, random, sys
r = random.Random(7)
root = sys.argv[1]
for d in range(120):
    p = os.path.join(root, "directory-%03d-%s" % (d, "x" * r.randint(0, 40)))
    os.makedirs(p)
    open(os.path.join(p, "README.Debian"), "w").write("x" * r.randint(100, 3000))
    for f in range(6):
        n = "%c%d%s" % (97 + f, d % 10, "z" * r.randint(0, 12))
        size = int(min(r.paretovariate(0.9) * 300, 30 << 20))
        with open(os.path.join(p, n), "wb") as fh:
            fh.write(os.urandom(64) * (size // 64 + 1))
    for f in range(4):
        open(os.path.join(p, "notes%d.txt" % f), "w").write("y" * r.randint(10, 9000))
PY

if "$IMPRINT" profile "$WORK/src" -o "$WORK/p.conf" 2>"$WORK/err"; then
	pass "profile of the tree"
else
	fail "profile: $(head -c 300 "$WORK/err")"
fi
grep -q '^ext_shares.* Debian:' "$WORK/p.conf" && pass "the profile keeps 'Debian' in its case" ||
	fail "no 'Debian' in ext_shares: $(grep '^ext_shares' "$WORK/p.conf" | head -c 200)"
grep -q '^name_dir_lengths = ' "$WORK/p.conf" && pass "directories have their own length table" ||
	fail "no name_dir_lengths"
# the file count as the source has it, and room for the clone (a size alone would scale the tree)
build_fsck "clone" "$WORK/c.img" -c "$WORK/p.conf" --files 1320 --size 64M || { finish; }
mkdir -p "$WORK/c"
debugfs -R "rdump / $WORK/c" "$WORK/c.img" >/dev/null 2>&1
python3 - "$WORK/src" "$WORK/c" <<'PY' >"$WORK/cmp"
import bisect, os, sys
def walk(root):
    d, f, ext, nbytes, n = [], [], {}, 0, 0
    for dp, dns, fns in os.walk(root):
        if dp == root:
            dns[:] = [x for x in dns if x != "lost+found"]
        d += [len(x.encode()) for x in dns]
        for x in fns:
            st = os.lstat(os.path.join(dp, x))
            n += 1
            nbytes += st.st_size
            i = x.rfind(".")
            if i <= 0:
                f.append(len(x.encode()))
            else:
                ext[x[i + 1:]] = ext.get(x[i + 1:], 0) + 1
    return d, f, ext, nbytes, n
def ks(a, b):
    a, b = sorted(a), sorted(b)
    return max(abs(bisect.bisect_right(a, x) / len(a) - bisect.bisect_right(b, x) / len(b))
               for x in set(a) | set(b))
sd, sf, se, sb, sn = walk(sys.argv[1])
cd, cf, ce, cb, cn = walk(sys.argv[2])
# two-sample K-S at alpha = 0.01: c sqrt((n + m) / (n m)), c = 1.63 (the clone draws its
# lengths from the source's tables: a D above this says they follow another law)
crit = lambda a, b: 1.63 * ((len(a) + len(b)) / (len(a) * len(b))) ** 0.5
print("dir_d=%.4f" % ks(sd, cd))
print("dir_crit=%.4f" % crit(sd, cd))
print("plain_d=%.4f" % ks(sf, cf))
print("plain_crit=%.4f" % crit(sf, cf))
print("debian_diff=%.4f" % abs(se.get("Debian", 0) / sn - ce.get("Debian", 0) / cn))
print("lower_debian=%d" % ce.get("debian", 0))
print("bytes_rel=%.5f" % abs(cb / sb - 1))
PY
fig() { sed -n "s/^$1=//p" "$WORK/cmp"; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
chk() {
	local v
	v=$(fig "$1")
	if [ -n "$v" ] && le "$v" "$2"; then pass "$3: $1 $v <= $2"; else fail "$3: $1 '$v' above $2"; fi
}
chk debian_diff 0.01 "the .Debian share of the clone"
chk lower_debian 0 "no .debian in the clone"
chk bytes_rel 0.01 "the clone's bytes against the source's"
chk dir_d "$(fig dir_crit)" "directory name lengths, K-S"
chk plain_d "$(fig plain_crit)" "extension-less name lengths, K-S"
# a profile made before the directory table and the byte count (name_dir_lengths, source_files,
# source_bytes dropped) loads and behaves as then: its directories draw their lengths from the
# extension-less names' table (name_lengths), not from the source's directories
sed -E '/^(name_dir_lengths|source_files|source_bytes) /d' "$WORK/p.conf" >"$WORK/old.conf"
grep -q '^name_lengths = ' "$WORK/old.conf" && ! grep -q '^name_dir_lengths\|^source_bytes' "$WORK/old.conf" ||
	fail "the old-format profile still has the new keys"
build_fsck "clone of the old-format profile" "$WORK/o.img" -c "$WORK/old.conf" --files 1320 --size 64M ||
	{ finish; }
mkdir -p "$WORK/o"
debugfs -R "rdump / $WORK/o" "$WORK/o.img" >/dev/null 2>&1
python3 - "$WORK/src" "$WORK/o" "$WORK/old.conf" <<'PY' >"$WORK/cmp"
import bisect, os, sys
def dirs(root):
    d = []
    for dp, dns, fns in os.walk(root):
        if dp == root:
            dns[:] = [x for x in dns if x != "lost+found"]
        d += [len(x.encode()) for x in dns]
    return d
def ks_cdf(a, cdf):
    a = sorted(a)
    return max(abs(bisect.bisect_right(a, x) / len(a) - cdf(x)) for x in set(a))
share = []
for line in open(sys.argv[3]):
    if line.startswith("name_lengths "):
        share += [float(x) for x in line.split("=", 1)[1].split()]
tot = sum(share)
cdf = lambda x: sum(share[:x + 1]) / tot
src, old = dirs(sys.argv[1]), dirs(sys.argv[2])
print("old_vs_table=%.4f" % ks_cdf(old, cdf))
print("old_crit=%.4f" % (1.63 / len(old) ** 0.5))  # one-sample K-S at alpha = 0.01
print("old_vs_src=%.4f" % ks_cdf(old, lambda x: sum(1 for y in src if y <= x) / len(src)))
PY
chk old_vs_table "$(fig old_crit)" "old-format profile: directory name lengths from name_lengths, K-S"
v=$(fig old_vs_src)
awk -v v="$v" 'BEGIN { exit !(v > 0.5) }' && pass "old-format profile: directories not from the source's table (K-S D $v)" ||
	fail "old-format profile: directory names follow the source's directories (K-S D '$v')"
# a rare extension of big files among many small ones (issue 22: /usr/share/doc's two .amd64
# files, 1 KB and 413 KiB, came back as 1.3 and 6.8 KB): the clone's files of that extension
# take its own sizes, the others stay small, and the bytes stay the source's
python3 - "$WORK/rare" <<'PY'
import os, random, sys
r = random.Random(22)
root = sys.argv[1]
for d in range(40):
    p = os.path.join(root, "d%02d" % d)
    os.makedirs(p)
    for f in range(15):
        e = ("txt", "c", "h", "")[f % 4]
        with open(os.path.join(p, "f%d%s" % (f, "." + e if e else "")), "w") as fh:
            fh.write("w" * int(r.lognormvariate(7, 1)))
for k in range(30):
    for f in range(3):
        with open(os.path.join(root, "d%02d" % f, "r%d.x%02d" % (f, k)), "w") as fh:
            fh.write("s" * r.randint(100, 3000))
for f, size in enumerate((300000, 420000, 560000)):
    with open(os.path.join(root, "d%02d" % (f + 7), "big%d.amd64" % f), "w") as fh:
        fh.write("b" * size)
PY
"$IMPRINT" profile "$WORK/rare" -o "$WORK/rare.conf" 2>"$WORK/err" || fail "profile of the rare tree: $(head -c 300 "$WORK/err")"
mkdir -p "$WORK/rc"
if "$IMPRINT" create -c "$WORK/rare.conf" "$WORK/rc" >/dev/null 2>"$WORK/err"; then
	pass "clone of the rare tree into a directory"
else
	fail "clone of the rare tree: $(head -c 300 "$WORK/err")"
fi
python3 - "$WORK/rare" "$WORK/rc" <<'PY' >"$WORK/cmp"
import os, sys
def walk(root):
    by = {}
    for dp, dns, fns in os.walk(root):
        for x in fns:
            i = x.rfind(".")
            by.setdefault(x[i + 1:] if i > 0 else "", []).append(os.lstat(os.path.join(dp, x)).st_size)
    return by
s, c = walk(sys.argv[1]), walk(sys.argv[2])
big = sorted(c.get("amd64", []))
print("big_files=%d" % len(big))
print("big_smallest=%d" % (big[0] if big else 0))
print("big_bytes_rel=%.4f" % abs(sum(big) / sum(s["amd64"]) - 1))
small = [v for e, l in c.items() if e.startswith("x") for v in l]
print("rare_small_largest=%d" % max(small or [0]))
print("files_diff=%d" % abs(sum(map(len, c.values())) - sum(map(len, s.values()))))
print("bytes_rel=%.5f" % abs(sum(map(sum, c.values())) / sum(map(sum, s.values())) - 1))
PY
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
[ "$(fig big_files)" = 3 ] && pass "rare extension: 3 .amd64 files in the clone" ||
	fail "rare extension: '$(fig big_files)' .amd64 files in the clone, not 3"
ge "$(fig big_smallest)" 150000 && pass "rare extension: the smallest .amd64 has $(fig big_smallest) bytes (source 300000)" ||
	fail "rare extension: the smallest .amd64 has '$(fig big_smallest)' bytes (source 300000)"
chk big_bytes_rel 0.25 "rare extension: .amd64 bytes against the source's"
chk rare_small_largest 150000 "rare extension: the small rare extensions stay small"
chk files_diff 0 "rare extension: the clone's file count"
chk bytes_rel 0.01 "rare extension: the clone's bytes against the source's"
finish
