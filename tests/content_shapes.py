#!/usr/bin/env python3
"""content_shapes.py - a tree's content figures as content-report defines them, read without imprint.

usage: content_shapes.py TREE REGISTRY_C [LISTING]

Shares no code with imprint: hashlib, zlib and the zstd CLI over the files
of TREE (an image's files read out with debugfs rdump).  The groups come
from REGISTRY_C (src/content/registry.c): an extension its table lists is
made by a typed or text generator, any other is "other binary"
(extensions compared without case; "" for none, none for a leading dot).
LISTING, debugfs' `ls -p` of every directory of the image (rdump writes
each name of a hard-linked file as a file of its own): a file's names
after its first are skipped, as names of one file are not copies.
Prints one JSON object:

  dup_file_share   (files - distinct contents) / files, all files
  over the distinct other-binary files (one per content):
  blocks           their full 4 KiB blocks
  zero_block_share all-zero blocks / blocks
  dup_block_share  blocks whose non-zero content occurs more than once
                   among them, every occurrence counted / blocks
  zlib, zstd       bytes / compressed bytes, each 1 MiB segment of a
                   file compressed on its own (zlib level 6; zstd -3, one
                   frame a segment, no checksum)
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zlib

SEG = 1 << 20
BLK = 4096
ZERO = bytes(BLK)


def typed_exts(registry):
    with open(registry, encoding="utf-8") as fh:
        src = fh.read()
    table = src[src.index("ext_ops[] = {"):src.index("content_ext_ops(")]
    return {m.lower() for m in re.findall(r'\{ "([^"]*)", &gen_\w+_ops \}', table)}


def ext_of(name):
    m = re.match(r"^(.*?)\.so(\.[0-9]+)+$", name)
    if m and m.group(1):
        return "so"
    i = name.rfind(".")
    return name[i + 1:].lower() if i > 0 else ""


def inodes(listing):
    """path -> inode number of the regular files of debugfs' `ls -p` runs"""
    ino, cur = {}, None
    for line in open(listing, encoding="utf-8", errors="surrogateescape"):
        line = line.rstrip("\n")
        if line.startswith("debugfs: ls -p "):
            cur = line[len("debugfs: ls -p "):].strip('"').rstrip("/")
            continue
        f = line.split("/")
        if cur is not None and len(f) >= 7 and f[2].startswith("10"):
            ino[cur + "/" + "/".join(f[5:-2])] = int(f[1])
    return ino


def zstd_total(paths):
    total = 0
    for i in range(0, len(paths), 400):
        r = subprocess.run(["zstd", "-3", "-q", "--no-check", "-c"] + paths[i:i + 400],
                           stdout=subprocess.PIPE, check=True)
        total += len(r.stdout)
    return total


def main():
    root, typed = sys.argv[1], typed_exts(sys.argv[2])
    ino = inodes(sys.argv[3]) if len(sys.argv) > 3 else {}
    files, seen, binary, names = 0, set(), [], set()
    for dp, dns, fns in os.walk(root):
        if dp == root:
            dns[:] = [x for x in dns if x != "lost+found"]
        for x in sorted(fns):
            p = os.path.join(dp, x)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            i = ino.get("/" + os.path.relpath(p, root))
            if i is not None and i in names:
                continue
            names.add(i)
            files += 1
            with open(p, "rb") as fh:
                data = fh.read()
            h = hashlib.sha256(data).digest()
            if h in seen:
                continue
            seen.add(h)
            if ext_of(x) not in typed:
                binary.append((p, data))
    count, nblk, zero, raw, gz, segs = {}, 0, 0, 0, 0, []
    tmp = tempfile.mkdtemp(prefix="shapes")
    try:
        for k, (p, data) in enumerate(binary):
            whole = [data[i:i + BLK] for i in range(0, len(data) // BLK * BLK, BLK)]
            nblk += len(whole)
            zero += whole.count(ZERO)
            for d in (hashlib.sha1(b).digest() for b in whole if b != ZERO):
                count[d] = count.get(d, 0) + 1
            pieces = [data[i:i + SEG] for i in range(0, len(data), SEG)]
            raw += len(data)
            gz += sum(len(zlib.compress(x, 6)) for x in pieces)
            if len(pieces) == 1:
                segs.append(p)
                continue
            for i, x in enumerate(pieces):
                segs.append(os.path.join(tmp, "%d.%d" % (k, i)))
                with open(segs[-1], "wb") as fh:
                    fh.write(x)
        zs = zstd_total(segs) if segs else 0
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    dup = sum(c for c in count.values() if c > 1)
    json.dump({
        "files": files, "binary_files": len(binary), "blocks": nblk,
        "dup_file_share": (files - len(seen)) / files if files else 0,
        "zero_block_share": zero / nblk if nblk else 0,
        "dup_block_share": dup / nblk if nblk else 0,
        "zlib": raw / gz if gz else 0, "zstd": raw / zs if zs else 0,
    }, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
