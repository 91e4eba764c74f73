#!/usr/bin/env python3
"""profile_meta_compare.py - the metadata figures of a source tree, walked here with os.lstat
(sharing no code with imprint), against a plan's manifest: modes, owners and ages.

usage: profile_meta_compare.py SRC_DIR MANIFEST [TIME_REF]
Prints key=value lines: mode_rel (largest relative difference of the share of a mode among
files, or directories, over the modes holding at least 1% of them), mode_abs (largest absolute
difference over every mode), root_src, root_clone (the share of entries owned by root),
users_src, users_clone (distinct other owners), age_d (two-sample K-S D of the file ages:
days before the newest mtime of the source, before TIME_REF of the manifest (default: its
newest mtime)), and the median ages."""

import os
import sys
from bisect import bisect_right


def walk(top):
    modes = {"file": {}, "dir": {}}
    seen, ages, owners = set(), [], []
    stack = [top]
    while stack:
        d = stack.pop()
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            st = os.lstat(p)
            if os.path.islink(p):
                owners.append(st.st_uid)
                continue
            if os.path.isdir(p):
                stack.append(p)
                kind = "dir"
            elif (st.st_dev, st.st_ino) in seen:
                continue
            else:
                seen.add((st.st_dev, st.st_ino))
                if not os.path.isfile(p):
                    continue
                kind = "file"
                ages.append(int(st.st_mtime))
            owners.append(st.st_uid)
            m = "%04o" % (st.st_mode & 0o7777)
            modes[kind][m] = modes[kind].get(m, 0) + 1
    ref = max(ages)
    return modes, [(ref - a) / 86400 for a in ages], owners


def manifest(path, ref):
    modes = {"file": {}, "dir": {}}
    ages, owners, mtimes = [], [], []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0].startswith("#") or f[0] == "/" or f[1] == "hardlink" or len(f) < 10:
            continue
        owners.append(int(f[7]))
        if f[1] in modes:
            modes[f[1]][f[6]] = modes[f[1]].get(f[6], 0) + 1
        if f[1] == "file":
            mtimes.append(float(f[9]))
    ref = ref if ref is not None else max(mtimes)
    ages = [(ref - t) / 86400 for t in mtimes]
    return modes, ages, owners


def ks2(a, b):
    a, b = sorted(a), sorted(b)
    d = 0.0
    for x in sorted(set(a + b)):
        d = max(d, abs(bisect_right(a, x) / len(a) - bisect_right(b, x) / len(b)))
    return d


def main():
    src, mani = sys.argv[1], sys.argv[2]
    ref = float(sys.argv[3]) if len(sys.argv) > 3 else None
    ms, ages_s, own_s = walk(src)
    mc, ages_c, own_c = manifest(mani, ref)
    rel = absd = 0.0
    for kind in ("file", "dir"):
        ns, nc = sum(ms[kind].values()), sum(mc[kind].values())
        if not ns or not nc:
            continue
        for m in set(ms[kind]) | set(mc[kind]):
            a, b = ms[kind].get(m, 0) / ns, mc[kind].get(m, 0) / nc
            absd = max(absd, abs(a - b))
            if a >= 0.01:
                rel = max(rel, abs(a - b) / a)
    print("mode_rel=%.4f" % rel)
    print("mode_abs=%.4f" % absd)
    print("root_src=%.4f" % (own_s.count(0) / len(own_s)))
    print("root_clone=%.4f" % (own_c.count(0) / len(own_c)))
    print("users_src=%d" % len(set(own_s) - {0}))
    print("users_clone=%d" % len(set(own_c) - {0}))
    print("age_d=%.4f" % ks2(ages_s, ages_c))
    print("age_median_src=%.2f" % sorted(ages_s)[len(ages_s) // 2])
    print("age_median_clone=%.2f" % sorted(ages_c)[len(ages_c) // 2])


main()
