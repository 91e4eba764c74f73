#!/usr/bin/env python3
"""content_by_ext.py - a tree's content by extension, read with zlib, hashlib and the zstd CLI.

Shares no code with imprint.  For each extension (as imprint names it: what
follows the last dot, case kept, none for a leading dot, "so" for
libz.so.1.2; "" for none) prints one line of key=value figures:

  ext files bytes gzip zstd dup_file dup_block zero_block text words

gzip and zstd: bytes / compressed bytes, each 1 MiB segment of a distinct
file compressed on its own (zlib level 6; zstd -3, one frame a segment);
(--json also gives raw and gz: the bytes compressed and their zlib size, for
totals over extensions, and median: the files' median size.)
dup_file: (files - distinct contents) / files; dup_block: of the full 4 KiB
blocks of the distinct files of the extension, those whose (non-zero)
content occurs more than once among them, every occurrence counted;
zero_block: all-zero blocks / blocks; text: distinct files whose first
8 KiB hold no NUL byte and decode as UTF-8 (a cut character at the end
aside).
words: distinct words per KiB of the distinct text files, each file's first
128 KiB (a word: a run of ASCII letters and digits, case folded, as a search
indexer makes terms), the files' figures averaged by their sizes.

usage: content_by_ext.py TREE [--json] [--no-zstd]   (--no-zstd: zstd 0, much faster)
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
WORDS_HEAD = 128 << 10
WORD = re.compile(rb"[A-Za-z0-9]+")


def words_per_kib(data):
    head = data[:WORDS_HEAD]
    return 1024 * len({m.lower() for m in WORD.findall(head)}) / len(head) if head else 0


def ext_of(name):
    i = name.rfind(".")
    if i > 0 and name[i + 1:].isdigit():
        m = re.match(r"^(.*?)\.so(\.[0-9]+)+$", name)
        if m and m.group(1):
            return "so"
    if i <= 0:
        return ""
    e = name[i + 1:]
    return e if len(e) < 16 else ""


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[(n - 1) // 2] + v[n // 2]) / 2 if n else 0


def is_text(head):
    if b"\0" in head:
        return False
    for cut in range(4):
        try:
            head[:len(head) - cut].decode("utf-8")
            return True
        except UnicodeDecodeError:
            continue
    return False


def zstd_sizes(paths):
    """compressed size of each file by one zstd -3 run over all of them"""
    out = {}
    for i in range(0, len(paths), 500):
        chunk = paths[i:i + 500]
        for p in chunk:
            r = subprocess.run(["zstd", "-3", "-q", "-c", p], stdout=subprocess.PIPE, check=True)
            out[p] = len(r.stdout)
    return out


def measure(root):
    by = {}
    for dp, dns, fns in os.walk(root):
        if dp == root:
            dns[:] = [x for x in dns if x != "lost+found"]
        for x in fns:
            p = os.path.join(dp, x)
            if not os.path.isfile(p) or os.path.islink(p):
                continue
            by.setdefault(ext_of(x), []).append(p)
    res = {}
    tmp = tempfile.mkdtemp(prefix="cbe")
    try:
        for ext, paths in by.items():
            seen = set()
            distinct = []
            nbytes = 0
            sizes = []
            for p in sorted(paths):
                with open(p, "rb") as fh:
                    data = fh.read()
                nbytes += len(data)
                sizes.append(len(data))
                h = hashlib.sha256(data).digest()
                if h in seen:
                    continue
                seen.add(h)
                distinct.append((p, data))
            blocks = {}
            nblk = zero = text = 0
            raw = gz = 0
            wsum = wbytes = 0
            segs = []
            for k, (p, data) in enumerate(distinct):
                if is_text(data[:8192]):
                    text += 1
                    wsum += len(data) * words_per_kib(data)
                    wbytes += len(data)
                for off in range(0, len(data) - BLK + 1, BLK):
                    b = data[off:off + BLK]
                    nblk += 1
                    if b == ZERO:
                        zero += 1
                    else:
                        d = hashlib.sha1(b).digest()
                        blocks[d] = blocks.get(d, 0) + 1
                for off in range(0, len(data), SEG):
                    s = data[off:off + SEG]
                    raw += len(s)
                    gz += len(zlib.compress(s, 6))
                    if len(data) <= SEG:
                        segs.append(p)
                    else:
                        sp = os.path.join(tmp, "%d.%d" % (k, off // SEG))
                        with open(sp, "wb") as fh:
                            fh.write(s)
                        segs.append(sp)
            zs = sum(zstd_sizes(segs).values()) if segs and ZSTD else 0
            dupb = sum(c for c in blocks.values() if c > 1)
            res[ext] = {
                "files": len(paths), "bytes": nbytes, "median": median(sizes),
                "gzip": raw / gz if gz else 0, "zstd": raw / zs if zs else 0,
                "dup_file": (len(paths) - len(distinct)) / len(paths),
                "dup_block": dupb / nblk if nblk else 0,
                "zero_block": zero / nblk if nblk else 0,
                "text": text / len(distinct) if distinct else 0,
                "words": wsum / wbytes if wbytes else 0,
                "raw": raw, "gz": gz,
            }
            for f in os.listdir(tmp):
                os.unlink(os.path.join(tmp, f))
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    return res


ZSTD = True


def main():
    global ZSTD
    ZSTD = "--no-zstd" not in sys.argv[2:]
    res = measure(sys.argv[1])
    if "--json" in sys.argv[2:]:
        json.dump(res, sys.stdout, indent=1, sort_keys=True)
        print()
        return
    for ext, r in sorted(res.items(), key=lambda kv: -kv[1]["files"]):
        print("%-12s files=%d bytes=%d gzip=%.3f zstd=%.3f dup_file=%.4f dup_block=%.4f "
              "zero_block=%.4f text=%.3f words=%.1f" % (ext or '""', r["files"], r["bytes"], r["gzip"],
                                                      r["zstd"], r["dup_file"], r["dup_block"],
                                                      r["zero_block"], r["text"], r["words"]))


if __name__ == "__main__":
    main()
