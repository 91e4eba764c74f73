#!/usr/bin/env python3
"""profile_compare.py - the figures tests/profile.sh checks: a source tree, walked here with
os.lstat (sharing no code with imprint), against a plan's manifest.

usage: profile_compare.py SRC_DIR MANIFEST
Prints key=value lines: size_d (two-sample K-S D of file sizes), depth_d (K-S D of files by
depth), fpd_diff (largest difference of the shares of directories holding 0..28 files and
more), subdir_diff (the same for subdirectories per directory), ext_diff (largest difference
of extension shares), name_len_d (K-S D of name lengths in bytes, every entry but the root),
and of both (src_*, clone_*): the link shares (per file), the private mode share (per file and
directory but the root), the empty directory share (no file, no subdirectory, of all
directories), and the shares of names with a capital (upper), with a stem in capitals only
(caps), of digits only (numeric), with a version (versioned: digit.digit, or a final ~), a
space, a byte beyond ASCII (utf8)."""

import os
import sys
from bisect import bisect_right


def ext_of(name):
    dot = name.rfind(".")
    if dot <= 0:
        return ""
    return name[dot + 1:].lower()


def name_shape(name):
    """What tally_name() in imprint's profile counts of a name (bytes)."""
    b = name
    dot = b.rfind(b".")
    stem = b[:dot] if dot > 0 else b
    upper = any(65 <= c <= 90 for c in b)
    caps = any(65 <= c <= 90 for c in stem) and not any(97 <= c <= 122 for c in stem)
    numeric = len(stem) > 0 and all(48 <= c <= 57 for c in stem)
    ver = b.endswith(b"~") or any(b[i] == 46 and 48 <= b[i - 1] <= 57 and 48 <= b[i + 1] <= 57
                                 for i in range(1, len(b) - 1))
    return (len(b), upper, caps, numeric, ver, b" " in b, any(c >= 128 for c in b))


def walk(top):
    sizes, depths, exts, fpd = [], [], {}, []
    seen, hard, sym, private = set(), 0, 0, 0
    names, subdirs = [], []
    stack = [(os.fsencode(top), 0)]
    while stack:
        d, depth = stack.pop()
        nfiles = nsub = 0
        if d != os.fsencode(top):
            private += (os.lstat(d).st_mode & 0o777) == 0o700
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            st = os.lstat(p)
            names.append(name_shape(name))
            if os.path.islink(p):
                sym += 1
            elif os.path.isdir(p):
                nsub += 1
                stack.append((p, depth + 1))
            elif (st.st_dev, st.st_ino) in seen:
                hard += 1
            else:
                seen.add((st.st_dev, st.st_ino))
                sizes.append(st.st_size)
                depths.append(depth)
                e = ext_of(os.fsdecode(name))
                exts[e] = exts.get(e, 0) + 1
                private += (st.st_mode & 0o777) in (0o600, 0o700)
                nfiles += 1
        fpd.append(nfiles)
        subdirs.append(nsub)
    empty = sum(1 for f, n in zip(fpd, subdirs) if f == 0 and n == 0)
    return sizes, depths, exts, fpd, hard, sym, private, subdirs, empty, names


def manifest(path):
    sizes, depths, exts, per_dir, sub = [], [], {}, {}, {}
    hard = sym = private = 0
    names = []
    with open(path, "rb") as f:
        for raw in f:
            if raw.startswith(b"#"):
                continue
            c = raw.rstrip(b"\n").split(b"\t")
            if c[0] != b"/":
                names.append(name_shape(c[0].rsplit(b"/", 1)[1]))
            c = [os.fsdecode(x) for x in c]
            kind = c[1]
            if kind == "dir":
                per_dir.setdefault(c[0], 0)
                sub.setdefault(c[0], 0)
                if c[0] != "/":
                    up = c[0].rsplit("/", 1)[0] or "/"
                    sub[up] = sub.get(up, 0) + 1
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
    empty = sum(1 for d, n in per_dir.items() if n == 0 and sub.get(d, 0) == 0)
    return (sizes, depths, exts, list(per_dir.values()), hard, sym, private,
            [sub.get(d, 0) for d in per_dir], empty, names)


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
    ss, sc = fpd_shares(s[7]), fpd_shares(c[7])
    print("subdir_diff=%.6f" % max(abs(x - y) for x, y in zip(ss, sc)))
    print("name_len_d=%.6f" % ks2([n[0] for n in s[9]], [n[0] for n in c[9]]))
    ns, nc = len(s[0]), len(c[0])
    print("ext_diff=%.6f" % max(abs(s[2].get(e, 0) / ns - c[2].get(e, 0) / nc)
                                for e in set(s[2]) | set(c[2])))
    for tag, v in (("src", s), ("clone", c)):
        n = len(v[0])
        print("%s_hard=%.6f" % (tag, v[4] / n))
        print("%s_sym=%.6f" % (tag, v[5] / n))
        print("%s_private=%.6f" % (tag, v[6] / (n + len(v[3]) - 1)))
        print("%s_files=%d" % (tag, n))
        print("%s_empty=%.6f" % (tag, v[8] / len(v[3])))
        for i, k in enumerate(("upper", "caps", "numeric", "versioned", "space", "utf8")):
            print("%s_%s=%.6f" % (tag, k, sum(1 for x in v[9] if x[i + 1]) / max(1, len(v[9]))))


if __name__ == "__main__":
    main()
