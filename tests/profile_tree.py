#!/usr/bin/env python3
"""profile_tree.py - a deterministic source tree for tests/profile.sh, drawn by Python's own
random module (not imprint's model): lognormal sizes with a Pareto tail and empty files,
a skewed extension mix whose sizes depend on the extension, a preferential-attachment tree,
links, private modes, and a unique marker in every name and file; names of many lengths,
some in capitals, with spaces, versions or a non-ASCII letter, some of digits only.

usage: profile_tree.py DIR FILES SEED
Files are made sparse (truncate) so the tree costs little disk."""

import os
import random
import sys

EXTS = [("c", 0.20, 7.5), ("h", 0.15, 6.5), ("txt", 0.10, 8.0), ("", 0.08, 9.0),
        ("py", 0.07, 8.2), ("png", 0.05, 10.0), ("so", 0.04, 12.0), ("iso", 0.01, 18.0),
        ("json", 0.05, 7.0), ("md", 0.05, 7.8), ("o", 0.04, 10.5), ("html", 0.04, 9.5)]
# the rest of the files: many rare extensions (each a few files)
RARE = ["r%02d" % i for i in range(60)]


def size_for(rng, mu):
    u = rng.random()
    if u < 0.02:
        return 0
    if u < 0.05:
        return min(int((1 << 20) * (1 - rng.random()) ** (-1 / 1.2)), 1 << 34)
    return int(rng.lognormvariate(mu, 1.6))


def dir_name(rng, j):
    u, pad = rng.random(), "x" * rng.randrange(0, 12)
    if u < 0.1:
        return "ZQDIRMARK%06d%s" % (j, pad.upper())
    if u < 0.15:
        return "zqdirmark%06d%s-%d.%d" % (j, pad, rng.randrange(4), rng.randrange(20))
    return "zqdirmark%06d%s" % (j, pad)


def file_name(rng, k, ext):
    u, pad = rng.random(), "y" * rng.randrange(0, 25)
    tail = "." + ext if ext else ""
    if u < 0.04:
        return "9%07d%s" % (k, tail)  # digits only: no marker fits
    if u < 0.12:
        return "ZQFILEMARK%07d%s%s" % (k, pad.upper(), tail)
    if u < 0.17:
        return "zqfile mark%07d%s%s" % (k, pad, tail)
    if u < 0.20:
        return "zqfil\u00e9mark%07d%s%s" % (k, pad, tail)
    if u < 0.26:
        return "zqfilemark%07d%s%s" % (k, pad, "-1.%d%s" % (rng.randrange(10), tail) if ext
                                        else "~")
    return "zqfilemark%07d%s%s" % (k, pad, tail)


def main():
    top, nfiles, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    ndirs = max(2, nfiles // 9)
    parent, depth, nsub = [0], [0], [0]
    urn = [0, 0]
    for j in range(1, ndirs):
        p = urn[rng.randrange(len(urn))]
        if depth[p] >= 12:
            p = 0
        parent.append(p)
        depth.append(depth[p] + 1)
        nsub.append(0)
        nsub[p] += 1
        urn += [p, j, j]
    shapes = random.Random(seed + 1)  # the names' shapes: their own draws
    paths = [top]
    for j in range(1, ndirs):
        paths.append(os.path.join(paths[parent[j]], dir_name(shapes, j)))
        os.mkdir(paths[j])
    # files per directory: a heavy tail, a fifth of the directories empty
    weights = [0.0 if rng.random() < 0.2 else rng.paretovariate(1.3) for _ in range(ndirs)]
    total = sum(weights)
    cum, acc = [], 0.0
    for w in weights:
        acc += w / total
        cum.append(acc)
    files = []
    for k in range(nfiles):
        u = rng.random()
        lo, hi = 0, ndirs - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cum[mid] < u:
                lo = mid + 1
            else:
                hi = mid
        v = rng.random()
        if v < 0.9:
            acc = 0.0
            for ext, share, mu in EXTS:
                acc += share
                if v < acc:
                    break
        else:
            ext, mu = RARE[rng.randrange(len(RARE))], 8.5
        name = file_name(shapes, k, ext)
        path = os.path.join(paths[lo], name)
        with open(path, "w") as f:
            f.write("zqcontentmark%07d\n" % k)
        os.truncate(path, size_for(rng, mu))
        if rng.random() < 0.05:
            os.chmod(path, 0o600)
        files.append(path)
    # links: hard links, symbolic links to files and directories, relative, dangling
    for k in range(nfiles // 100):
        src = files[rng.randrange(nfiles)]
        os.link(src, os.path.join(os.path.dirname(src), "zqhardmark%06d" % k))
    for k in range(nfiles // 50):
        d = paths[rng.randrange(ndirs)]
        link = os.path.join(d, "zqsymmark%06d" % k)
        r = rng.random()
        if r < 0.2:
            target = "zqnowheremark%06d" % k
        elif r < 0.5:
            target = os.path.relpath(paths[rng.randrange(ndirs)], d)
        else:
            target = os.path.relpath(files[rng.randrange(nfiles)], d)
        os.symlink(target, link)


if __name__ == "__main__":
    main()
