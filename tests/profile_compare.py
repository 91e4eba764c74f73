#!/usr/bin/env python3
"""profile_compare.py - the figures tests/profile.sh checks: a source tree, walked here with
os.lstat (sharing no code with imprint), against a plan's manifest.

usage: profile_compare.py SRC_DIR MANIFEST
Prints key=value lines: size_d (two-sample K-S D of file sizes), depth_d (K-S D of files by
depth), fpd_diff (largest difference of the shares of directories holding 0..28 files and
more), ext_diff (largest difference of extension shares), and the link shares (per file) and
the private mode share (per file and directory but the root) of both (src_*, clone_*)."""

import os
import sys
from bisect import bisect_right


def ext_of(name):
    dot = name.rfind(".")
    if dot <= 0:
        return ""
    return name[dot + 1:].lower()


def walk(top):
    sizes, depths, exts, fpd = [], [], {}, []
    seen, hard, sym, private = set(), 0, 0, 0
    stack = [(top, 0)]
    while stack:
        d, depth = stack.pop()
        nfiles = 0
        if d != top:
            private += (os.lstat(d).st_mode & 0o777) == 0o700
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            st = os.lstat(p)
            if os.path.islink(p):
                sym += 1
            elif os.path.isdir(p):
                stack.append((p, depth + 1))
            elif (st.st_dev, st.st_ino) in seen:
                hard += 1
            else:
                seen.add((st.st_dev, st.st_ino))
                sizes.append(st.st_size)
                depths.append(depth)
                e = ext_of(name)
                exts[e] = exts.get(e, 0) + 1
                private += (st.st_mode & 0o777) in (0o600, 0o700)
                nfiles += 1
        fpd.append(nfiles)
    return sizes, depths, exts, fpd, hard, sym, private


def manifest(path):
    sizes, depths, exts, per_dir = [], [], {}, {}
    hard = sym = private = 0
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            c = line.rstrip("\n").split("\t")
            kind = c[1]
            if kind == "dir":
                per_dir.setdefault(c[0], 0)
                private += c[0] != "/" and c[6] == "0700"
            elif kind == "file":
                sizes.append(int(c[2]))
                depths.append(int(c[4]))
                e = "" if c[3] == "-" else c[3]
                exts[e] = exts.get(e, 0) + 1
                parent = c[0].rsplit("/", 1)[0] or "/"
                per_dir[parent] = per_dir.get(parent, 0) + 1
                private += c[6] in ("0600", "0700")
            elif kind == "hardlink":
                hard += 1
            elif kind == "symlink":
                sym += 1
    return sizes, depths, exts, list(per_dir.values()), hard, sym, private


def ks2(a, b):
    a, b = sorted(a), sorted(b)
    d = 0.0
    for v in set(a) | set(b):
        d = max(d, abs(bisect_right(a, v) / len(a) - bisect_right(b, v) / len(b)))
    return d


def fpd_shares(counts):
    bins = [0] * 30
    for n in counts:
        bins[min(n, 29)] += 1
    return [x / len(counts) for x in bins]


def main():
    s = walk(sys.argv[1])
    c = manifest(sys.argv[2])
    print("size_d=%.6f" % ks2(s[0], c[0]))
    print("depth_d=%.6f" % ks2(s[1], c[1]))
    fs, fc = fpd_shares(s[3]), fpd_shares(c[3])
    print("fpd_diff=%.6f" % max(abs(x - y) for x, y in zip(fs, fc)))
    ns, nc = len(s[0]), len(c[0])
    print("ext_diff=%.6f" % max(abs(s[2].get(e, 0) / ns - c[2].get(e, 0) / nc)
                                for e in set(s[2]) | set(c[2])))
    for tag, v in (("src", s), ("clone", c)):
        n = len(v[0])
        print("%s_hard=%.6f" % (tag, v[4] / n))
        print("%s_sym=%.6f" % (tag, v[5] / n))
        print("%s_private=%.6f" % (tag, v[6] / (n + len(v[3]) - 1)))
        print("%s_files=%d" % (tag, n))


if __name__ == "__main__":
    main()
