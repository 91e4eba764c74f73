#!/usr/bin/env python3
# create_render.py TEXT JSON - every figure of `imprint create`'s summary text agrees with its --json
#
# Each line of the text is matched by one pattern below (a line matching none
# fails: a figure printed without its JSON counterpart is found), and each
# figure it shows is compared with the JSON's value formatted as the text
# formats it.  The free-extent histogram is compared bucket by bucket; a
# generation's change table (gen_report's) is checked by its header only;
# the times (seconds, MB/s, the conversion's), by their form only.
# Prints one line a mismatch and the count of figures checked on stderr;
# exit 1 if there is any mismatch, 0 otherwise.
import json
import re
import sys

text_path, json_path = sys.argv[1:3]
J = json.load(open(json_path))
lines = open(text_path).read().rstrip("\n").split("\n")
bad = []
checked = 0


def human(v):
    """fmt_bytes(v, FMT_BYTES_ADAPTIVE): "895 B", "1.50 GiB", "15.0 GiB", "150 GiB"."""
    u = min(6, (int(v).bit_length() - 1) // 10) if v >= 1024 else 0
    x = int(v) / 1024 ** u  # a power of two: the same as dividing u times by 1024
    if not u:
        return "%d B" % v
    return "%.*f %s" % (2 if x < 10 else 1 if x < 100 else 0, x, ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"][u - 1])


def bucket(b):
    """A bucket's lower bound as e2freefrag labels it: "4K", "1M"."""
    unit, u = "BKMGTPE", 0
    while b >= 1024 and b % 1024 == 0 and u < 5:
        b //= 1024
        u += 1
    return "%d%s" % (b, unit[u])


# the text and the JSON come from two runs: their times differ (the rest must not)
TIME = object()


def get(path):
    o = J
    for k in path.split("."):
        o = o[int(k)] if isinstance(o, list) else o[k]
    return o


def same(what, text, want):
    """The text's figure against the JSON's, formatted as the text does."""
    global checked
    checked += 1
    if text != want:
        bad.append("%s: text %r, JSON gives %r" % (what, text, want))


def num(path, fmt="%d", scale=1):
    return fmt % (get(path) * scale)


def pct(share):
    return "%.1f" % (100 * share)


# (pattern, [(group, expected value as a function of the match)])
R = [
    (r"created '(.*)': (\S+), (.+), seed (\d+)$",
     [(1, lambda m: J["target"]), (2, lambda m: J["fs"]), (3, lambda m: human(J["size"])),
      (4, lambda m: num("seed"))]),
    (r"planned '(.*)' \(the \S+ backend writes nothing: left as it was\): (\S+), (.+), seed (\d+)$",
     [(1, lambda m: J["target"]), (2, lambda m: J["fs"]), (3, lambda m: human(J["size"])),
      (4, lambda m: num("seed")), (0, lambda m: m.group(0) if J.get("written") is False else "written")]),
    (r"  disk of (.+), (GPT|MBR) table: partition 1 at (.+), (.+)$",
     [(1, lambda m: human(get("disk.disk_size"))), (2, lambda m: get("disk.table").upper()),
      (3, lambda m: human(get("disk.start"))), (4, lambda m: human(get("disk.length")))]),
    (r"  converted to (\S+) by qemu-img in ([\d.]+) s \(a (.+?) file(?:, an overlay on (.+))?\)$",
     [(1, lambda m: J["format"]), (2, lambda m: TIME),
      (3, lambda m: human(J["file_size"])), (4, lambda m: J.get("backing"))]),
    (r"  evolved from generation (\d+) in (.+): its layout kept, only what changed written$",
     [(1, lambda m: "%d" % (get("generation.generation") - 1)),
      (2, lambda m: J["backing"]), (0, lambda m: m.group(0) if J["evolved_from_backing"] else "not evolved")]),
    (r"  (\d+) files, (\d+) directories, (\d+) links$",
     [(1, lambda m: num("files")), (2, lambda m: num("dirs")), (3, lambda m: num("links"))]),
    (r"  inodes: (\d+), free (\d+)$",
     [(1, lambda m: num("inodes")), (2, lambda m: num("inodes_free"))]),
    (r"  (.+) \((\d+) bytes\) of file data in ([\d.]+) s, ([\d.]+) MB/s$",
     [(1, lambda m: human(J["bytes"])), (2, lambda m: num("bytes")),
      (3, lambda m: TIME), (4, lambda m: TIME)]),
    (r"  included \(--include(, normalised)?\): (\d+) files, (\d+) directories, (\d+) symbolic and "
     r"(\d+) hard links, (.+) \((\d+) bytes\), (\d+) xattrs$",
     [(1, lambda m: ", normalised" if get("included.normalized") else None),
      (2, lambda m: num("included.files")), (3, lambda m: num("included.dirs")),
      (4, lambda m: num("included.symlinks")), (5, lambda m: num("included.hardlinks")),
      (6, lambda m: human(get("included.bytes"))), (7, lambda m: num("included.bytes")),
      (8, lambda m: num("included.xattrs"))]),
    (r"  file data (around \(direct I/O\)|through) the page cache "
     r"\((?:measured at the target: direct (\d+) MB/s, page cache (\d+) MB/s|(.+))\)$",
     [(1, lambda m: "around (direct I/O)" if get("data_io.way") == "direct" else "through"),
      (2, lambda m: TIME), (3, lambda m: TIME),
      (4, lambda m: {"forced": "as --direct-io asked", "small": "too little data to measure: the default",
                     "refused": "the target refused direct I/O"}.get(get("data_io.why"))),
      (0, lambda m: m.group(0) if (m.group(2) is not None) == (get("data_io.why") == "measured")
       else "data_io.why %s" % get("data_io.why"))]),
    (r"  sparse files (\d+), holes of (.+) never written$",
     [(1, lambda m: num("sparse_files")), (2, lambda m: human(J["hole_blocks"] * J["block_size"]))]),
    (r"  layout score (unavailable|[\d.]+)(?: \(aged (\d+) rounds: no target\)| \(target ([\d.]+)\))?"
     r", (\d+) blocks of (\d+) bytes used$",
     [(1, lambda m: "unavailable" if J["layout_score"] is None else num("layout_score", "%.4f")),
      (2, lambda m: None if J.get("layout_score_target", 0) is not None else m.group(2)),
      (3, lambda m: None if J.get("layout_score_target") is None else num("layout_score_target", "%.4f")),
      (4, lambda m: num("blocks_used")), (5, lambda m: num("block_size"))]),
    (r"  fragmented files (\d+) of (\d+) with two or more blocks \(([\d.]+) %\), ([\d.]+) extents each$",
     [(1, lambda m: num("fragmented_files")), (2, lambda m: num("multi_block_files")),
      (3, lambda m: pct(J["fragmented_share"])), (4, lambda m: num("mean_extents_fragmented", "%.2f"))]),
    (r"  free space (.+) in (\d+) extents, ([\d.]+) % below (.+?)(?: \(target ([\d.]+) %\))?, "
     r"(\d+) free chunks of (.+)$",
     [(1, lambda m: human(J["free_blocks"] * J["block_size"])), (2, lambda m: num("free_extents")),
      (3, lambda m: pct(J["free_small_share"])), (4, lambda m: human(J["chunk_bytes"])),
      (5, lambda m: pct(J["free_small_target"]) if J["free_small_target"] > 0 else None),
      (6, lambda m: num("free_chunks")), (7, lambda m: human(J["chunk_bytes"]))]),
    (r"  special files (\d+) FIFOs, (\d+) sockets, (\d+) character and (\d+) block devices$",
     [(i + 1, (lambda k: lambda m: num("metadata." + k))(k))
      for i, k in enumerate(["fifos", "sockets", "char_devices", "block_devices"])]),
    (r"  xattrs on (\d+) inodes \((\d+) user, (\d+) security\); ACLs: (\d+) access, (\d+) default"
     r"(?:; (\d+) inodes with an xattr block \((\d+) distinct\), the others all in the inode)?$",
     [(i + 1, (lambda k: lambda m: num("metadata." + k))(k))
      for i, k in enumerate(["xattr_inodes", "xattr_user", "xattr_security", "acl_access", "acl_default"])]
     + [(6, lambda m: num("metadata.xattr_block_inodes")
         if get("metadata.xattr_block_inodes") is not None and get("metadata.xattr_inodes") else None),
        (7, lambda m: num("metadata.xattr_blocks")
         if get("metadata.xattr_blocks") is not None and get("metadata.xattr_inodes") else None)]),
    (r"  preallocated (\d+) files: (.+) unwritten inside, (.+) beyond the end$",
     [(1, lambda m: num("metadata.prealloc_files")), (2, lambda m: human(get("metadata.unwritten_bytes"))),
      (3, lambda m: human(get("metadata.beyond_bytes")))]),
    (r"  split directories (\d+) of (\d+) with two or more blocks \(([\d.]+) %, target ([\d.]+) %\), "
     r"directory layout score ([\d.]+)$",
     [(1, lambda m: num("metadata.dir_fragmented")), (2, lambda m: num("metadata.dir_multiblock")),
      (3, lambda m: pct(get("metadata.dir_frag_share"))), (4, lambda m: pct(get("metadata.dir_frag_target"))),
      (5, lambda m: num("metadata.dir_layout_score", "%.4f"))]),
    (r"  note: (.*)$", [(1, lambda m: J.get("notes") or J.get("layout_notes"))]),
    (r"  dropped \(--allow-drop\): (\d+) hard links, (\d+) symbolic links, (\d+) owners kept as the caller's, "
     r"(\d+) modes as the file system's, (\d+) times rounded, (\d+) sparse files written whole; "
     r"(\d+) names shortened or renamed$",
     [(i + 1, (lambda k: lambda m: "%d" % J.get(k, 0))(k))
      for i, k in enumerate(["dropped_hardlinks", "dropped_symlinks", "owners_dropped", "modes_dropped",
                             "times_rounded", "holes_filled", "renamed"])]),
]

k = 0
hist_text = None
while k < len(lines):
    line = lines[k]
    k += 1
    if line.startswith("  free extents"):
        # the buckets, eight to a line
        hist_text = line[len("  free extents"):]
        while k < len(lines) and lines[k].startswith(" " * 14 + " "):
            hist_text += "," + lines[k].strip()
            k += 1
        got = [t.strip() for t in hist_text.split(",") if t.strip()]
        want = ["%s+ %d" % (bucket(b["min_bytes"]), b["extents"]) for b in J["free_extent_histogram"]]
        same("free_extent_histogram", got, want)
        continue
    if line == "  aged through the kernel: round, layout score, fragmented files, free %":
        rows = []
        while k < len(lines) and re.match(r"    +\d+  ", lines[k]):
            rows.append(lines[k].split())
            k += 1
        want = [["%d" % r["round"], "%.6f" % r["layout_score"] if r["layout_score"] is not None else rows[i][1],
                 "%d" % r["fragmented_files"], "of", "%d" % r["multi_block_files"],
                 pct(r["free_blocks"] / r["total_blocks"] if r["total_blocks"] else 0), "%"]
                for i, r in enumerate(J["age_series"][:len(rows)])]
        same("age_series", rows, want)
        same("age_series rounds", len(rows), len(J["age_series"]))
        continue
    m = re.match(r"  generation (\d+) against (\d+): ", line)
    if m:
        same("generation", m.group(1), num("generation.generation"))
        while k < len(lines) and lines[k].startswith("    "):
            k += 1
        continue
    for pat, checks in R:
        m = re.match(pat, line)
        if m:
            for g, want in checks:
                try:
                    w = want(m)
                except (KeyError, TypeError, IndexError) as e:
                    w = "(no JSON figure %s)" % e
                if w is not TIME:
                    same("%r group %d" % (pat[:30], g), m.group(g), w)
            break
    else:
        bad.append("a text line no JSON figure matches: %r" % line)

if J.get("free_extent_histogram") and hist_text is None:
    bad.append("free_extent_histogram: in the JSON, not in the text")
for b in bad:
    print(b)
print("%d figures" % checked, file=sys.stderr)
sys.exit(1 if bad else 0)
