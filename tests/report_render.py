#!/usr/bin/env python3
# report_render.py KIND TEXT JSON - every figure of a report's text agrees with its JSON
#
# KIND is measure or plan.  Each line of the text is matched by one pattern
# below (a line matching none fails: a figure printed without its JSON
# counterpart is found), and each figure it shows is compared with the
# JSON's value formatted as the text formats it.  Tables are compared row by
# row, and every non-zero entry of the JSON's arrays must have its row.
# Prints one line a mismatch; exit 1 if there is any, 0 otherwise.
import json
import re
import sys

kind, text_path, json_path = sys.argv[1:4]
J = json.load(open(json_path))
lines = open(text_path).read().split("\n")
# the plan's content predictions follow: content_predict's report, not this one's
if "content targets (predicted from the plan; reachable: within 5%)" in lines:
    lines = lines[:lines.index("content targets (predicted from the plan; reachable: within 5%)")]
bad = []
checked = 0


def human(v):
    """fmt_bytes(v, FMT_BYTES_DIGITS(2)): "895 B", "13.65 KiB"."""
    v = int(v)
    if v < 1024:
        return "%d B" % v
    x, u = float(v), 0
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    while x >= 1024 and u < 6:
        x /= 1024
        u += 1
    return "%.2f %s" % (x, units[u])


def get(path):
    o = J
    for p in path.split("."):
        if isinstance(o, list):
            o = o[int(p)] if int(p) < len(o) else 0
        elif p not in o:
            return KeyError
        else:
            o = o[p]
    return o


def same(got, path, fmt="%d", scale=1.0, value=None):
    """The text's got equals the JSON's figure at path formatted with fmt."""
    global checked
    v = get(path) if value is None else value
    checked += 1
    if v is KeyError:
        bad.append("%s: in the text (%s), not in the JSON" % (path, got))
        return
    if fmt == "h":
        want = human(v)
    elif fmt == "%s":
        want = "%s" % v
    elif fmt == "%d":
        want = "%d" % v
    else:
        want = fmt % (v * scale)
    if got.strip() != want.strip():
        bad.append("%s: text '%s', JSON %s ('%s')" % (path, got.strip(), v, want))


NUM = r"(-?[0-9.]+|nan|-?inf)"
# (pattern, [(group, path, format), ...]) for the lines of one figure each
SCALARS = [
    (r"  files +(\d+)$", [(1, "files", "%d")]),
    (r"  files +(\d+) \((\d+) in (\d+) special directories\)$",
     [(1, "files", "%d"), (2, "special_files", "%d"), (3, "special_dirs", "%d")]),
    (r"  directories +(\d+)$", [(1, "dirs", "%d")]),
    (r"  links +(\d+) \((\d+) hard, (\d+) symbolic\)$",
     [(1, "links", "%d"), (2, "hardlinks", "%d"), (3, "symlinks", "%d")]),
    (r"  other entries +(\d+) \((\d+) FIFOs, (\d+) sockets, (\d+) character and (\d+) block devices\)$",
     [(1, "other_entries", "%d"), (2, "fifos", "%d"), (3, "sockets", "%d"),
      (4, "char_devices", "%d"), (5, "block_devices", "%d")]),
    (r"  special files +(\d+) FIFOs, (\d+) sockets, (\d+) character and (\d+) block devices$",
     [(1, "fifos", "%d"), (2, "sockets", "%d"), (3, "char_devices", "%d"), (4, "block_devices", "%d")]),
    (r"  directory fill +" + NUM + r" \(entry records / size, \d+ directories of 2 blocks or more\)$",
     [(1, "dir_fill", "%.3f")]),
    (r"  directory layout score " + NUM + r": (\d+) of (\d+) directories of 2 blocks or more in more than one run \(" + NUM + r"\), " + NUM + " runs on average$",
     [(1, "dir_layout_score", "%.4f"), (2, "dir_fragmented", "%d"), (3, "dir_multiblock", "%d"),
      (4, "dir_frag_share", "%.4f")]),
    (r"  inode order +a directory's entries span " + NUM + r"x their count \(median; 90th percentile " + NUM + r"x\); " + NUM + r"% of \d+ directories consecutive$",
     [(1, "inode_spread_median", "%.2f"), (2, "inode_spread_p90", "%.2f"),
      (3, "inode_consecutive_dirs", "%.1f", 100.0)]),
    (r"  preallocated +(\d+) files: (\d+) unwritten blocks inside, (\d+) blocks beyond the end$",
     [(1, "prealloc_files", "%d"), (2, "unwritten_blocks", "%d"), (3, "beyond_blocks", "%d")]),
    (r"  preallocated +(\d+) files: (.+) unwritten inside, (.+) beyond the end$",
     [(1, "prealloc_files", "%d"), (2, "unwritten_bytes", "h"), (3, "beyond_bytes", "h")]),
    (r"  xattrs +\d+ on (\d+) inodes: (\d+) user, (\d+) security, (\d+) system, (\d+) trusted$",
     [(1, "xattrs.inodes", "%d"), (2, "xattrs.user", "%d"), (3, "xattrs.security", "%d"),
      (4, "xattrs.system", "%d"), (5, "xattrs.trusted", "%d")]),
    (r"  xattrs +(\d+) inodes: (\d+) user, (\d+) security; ACLs (\d+) access, (\d+) default$",
     [(1, "xattr_inodes", "%d"), (2, "xattr_user", "%d"), (3, "xattr_security", "%d"),
      (4, "acl_access", "%d"), (5, "acl_default", "%d")]),
    (r"                  (\d+) in inodes, (\d+) in blocks; (\d+) inodes share (\d+) xattr blocks$",
     [(1, "xattrs.in_inode", "%d"), (2, "xattrs.in_block", "%d"), (3, "xattrs.block_refs", "%d"),
      (4, "xattrs.blocks", "%d")]),
    (r"  ACLs +(\d+) access, (\d+) default$",
     [(1, "xattrs.acl_access", "%d"), (2, "xattrs.acl_default", "%d")]),
    (r"  bytes +(\d+) \((.+)\)$", [(1, "bytes", "%d"), (2, "bytes", "h")]),
    (r"  file size +mean (.+), median (.+), max (.+)$",
     [(1, "mean_size", "h"), (2, "median_size", "h"), (3, "max_size", "h")]),
    (r"  max depth +(\d+)$", [(1, "max_depth", "%d")]),
    (r"  max depth +(\d+) \(directories\), (\d+) \(files\)$",
     [(1, "max_depth", "%d"), (2, "max_file_depth", "%d")]),
    (r"  sparse files +(\d+), holes of (.+) never written$",
     [(1, "sparse_files", "%d"), (2, "sparse_hole_bytes", "h")]),
    (r"  layout score +" + NUM + r" \((\d+) files of two or more blocks\)$",
     [(1, "layout_score", "%.6f"), (2, "layout_files", "%d")]),
    (r"  fragmented +(\d+) files \(" + NUM + r" of them\), " + NUM + " fragments each on average$",
     [(1, "fragmented_files", "%d")]),
    (r"  extents +(\d+) \(physically adjacent runs merged\)$", [(1, "extents", "%d")]),
    (r"  sparse files +(\d+), (\d+) hole blocks \(in i_size, unmapped\)$",
     [(1, "sparse_files", "%d"), (2, "hole_blocks", "%d")]),
    (r"  free blocks +(\d+) of (\d+) \(" + NUM + r"%\)$",
     [(1, "free_blocks", "%d"), (2, "total_blocks", "%d")]),
    (r"  free extents +(\d+): min (\d+) KB, max (\d+) KB, avg (\d+) KB$",
     [(1, "free_extents", "%d"), (2, "min_free_extent", "KB"), (3, "max_free_extent", "KB")]),
    (r"  free chunks +(\d+) of (\d+) \((.+) chunks\)$",
     [(1, "free_chunks", "%d"), (2, "total_chunks", "%d"), (3, "chunk_bytes", "h")]),
    (r"imprint plan report \(seed (\d+)\)$", [(1, "seed", "%d")]),
    (r"imprint measure: '(.*)' \(.*, block size (\d+)\)$", [(1, "target", "%s"), (2, "block_size", "%d")]),
    (r"  not measured: the file system does not report extents \(FIEMAP\)$", []),
    (r"against '(.*)' \(seed (\d+)\)$", [(2, "seed", "%d")]),
    (r"  special dirs +(\d+) \((\d+) files\), excluded from depth and files/dir$",
     [(1, "special_dirs", "%d"), (2, "special_files", "%d")]),
    (r"  size K-S D +" + NUM + " +" + NUM + "  .*$",
     [(1, "size_ks_d", "%.6f"), (2, "size_ks_critical_01", "%.6f")]),
    (r"  depth K-S D +" + NUM + " +" + NUM + "  .*$",
     [(1, "depth_ks_d", "%.6f"), (2, "depth_ks_critical_01", "%.6f")]),
    (r"  extension max \|diff\| +" + NUM + r" +\(worst: (.*)\)$",
     [(1, "ext_max_abs_diff", "%.6f"), (2, "ext_worst", "worst")]),
    (r"  files/dir max \|diff\| +" + NUM + r" +\(worst: .*\)$", [(1, "fpd_max_abs_diff", "%.6f")]),
    (r"  layout score +\(aged\) +" + NUM + "$", [(1, "layout_score", "%.6f"), (0, "layout_score_target", "null")]),
    (r"  layout score +" + NUM + "  " + NUM + "$",
     [(1, "layout_score_target", "%.6f"), (2, "layout_score", "%.6f")]),
    (r"  fragmented share +" + NUM + "  " + NUM + "$", []),
    (r"  extents/fragmented +" + NUM + "  " + NUM + "$", []),
    (r"  sparse files +(\d+) +(\d+)$", [(1, "sparse_files_target", "%d"), (2, "sparse_files", "%d")]),
    (r"  hole blocks +(\d+) +(\d+)$", [(1, "hole_blocks_target", "%d"), (2, "hole_blocks", "%d")]),
    (r"  free below chunk +\(aged\) +" + NUM + "$", [(1, "free_small_share", "%.6f")]),
    (r"  free below chunk +" + NUM + "  " + NUM + "$",
     [(1, "free_frag_share_target", "%.6f"), (2, "free_small_share", "%.6f")]),
    (r"  median age \(days\) +" + NUM + " +" + NUM + "$",
     [(1, "age_median_days_target", "%.2f"), (2, "age_days.median", "%.2f")]),
]
# table titles: the rows after them, until an empty line, belong to that table
TABLES = {
    "file sizes": "sizes", "files by depth": "depth", "files per directory": "fpd",
    "top extensions": "ext", "extents per file": "epf",
    "fragment sizes (blocks, fragmented files)": "frag", "files by depth (regular files)": "fitdepth",
    "files per directory (regular directories)": "fitfpd",
}
HEADERS = {"  bytes                  files     share", "  depth    files     share",
           "  files     dirs     share", "  ext       files     share",
           "  depth    target  achieved", "  files    target  achieved", "  ext       target  achieved",
           "fit                     achieved   1% critical", "layout", "free space (as e2freefrag counts it)",
           "layout and free space    target    achieved", ""}
# the fit report's ext_top in measure --against replaces measure's in the JSON (same key)
fit_ext = kind == "plan" or "against" in J
rows = {k: [] for k in set(TABLES.values()) | {"free", "extra", "fitext"}}
table = None
for n, line in enumerate(lines):
    m = None
    if line.startswith("top extensions (of "):
        m = re.match(r"top extensions \(of (\d+)\)$", line)
        same(m.group(1), "extensions")
        table = "ext"
        continue
    if line in TABLES or line.strip() in TABLES:
        table = TABLES[line.strip()]
        if table == "ext" and kind == "measure" and line == "top extensions":
            table = "fitext"
        continue
    if line.startswith("file ages (days before "):
        ages = lines[n + 1].split()
        for name, val in zip(ages[0::2], ages[1::2]):
            same(val, "age_days." + name, "%.1f")
        lines[n + 1] = ""
        table = None
        continue
    if line == "  Extent Size Range :  Free extents   Free Blocks  Percent":
        table = "free"
        continue
    if line in HEADERS:
        if line == "":
            table = None
        continue
    for pat, figs in SCALARS:
        m = re.match(pat, line)
        if not m:
            continue
        for g in figs:
            grp, path, fmt = g[0], g[1], g[2]
            if fmt == "null":
                checked_null = get(path)
                if checked_null is not None:
                    bad.append("%s: the text says aged, the JSON has %s" % (path, checked_null))
            elif fmt == "KB":
                same(m.group(grp), path, value=get(path) * J["block_size"] // 1024)
            elif fmt == "worst":
                same(m.group(grp), path, "%s", value=get(path) or "-")
            else:
                same(m.group(grp), path, fmt, *(g[3:]))
        break
    if m:
        table = None if table not in ("epf",) else table
        continue
    if table:
        rows[table].append(line)
        continue
    mx = re.match(r"  (.+?) +" + NUM + r"(   \(worst: (.*)\)|   \(target: " + NUM + r", \|diff\| " + NUM + r"\))?$", line)
    if mx:
        rows["extra"].append(mx)
        continue
    bad.append("line %d has no JSON counterpart this check knows: '%s'" % (n + 1, line))


def table_check(name, path, parse, fmt_share=None, skip_zero=True, per=None):
    """Rows "label count share" against the JSON array at path (parse: label -> index)."""
    arr = get(path)
    if arr is KeyError or arr is None:
        if rows[name]:
            bad.append("%s: rows in the text, no array in the JSON" % path)
        return
    seen = set()
    for r in rows[name]:
        f = r.split()
        i = parse(f[0] if len(f[0]) > 1 or f[0] != ">" else f[0] + f[1])
        if f[0] == ">":
            f = [f[0] + f[1]] + f[2:]
        seen.add(i)
        same(f[1], "%s.%d" % (path, i), "%d")
        if per is not None and len(f) > 2:
            v = get("%s.%d" % (path, i))
            same(f[2], path, "%8.5f", value=(v / per if per else 0))
    for i, v in enumerate(arr):
        if v and i not in seen:
            bad.append("%s[%d] = %s has no row in the text" % (path, i, v))


sizes = {}
if kind == "measure":
    for b in range(1, 66):
        sizes[human(1 << (b - 1)) + ".."] = b
    sizes["0"] = 0
    nf, nd = J.get("files", 0), J.get("dirs", 0)
    fpd_n = len(J.get("dirs_by_files") or [])
    # "1.00 KiB.." is split by the blanks: put the label back together
    rows["sizes"] = [re.sub(r"^  (\S+) (\S+\.\.)", r"  \1_\2", r) for r in rows["sizes"]]
    table_check("sizes", "size_histogram", lambda s: sizes[s.replace("_", " ")], per=nf)
    table_check("depth", "files_by_depth", int, per=nf)
    table_check("fpd", "dirs_by_files", lambda s: fpd_n - 1 if s.startswith(">") else int(s), per=nd)
    table_check("epf", "extents_per_file", lambda s: 33 if s == ">32" else int(s))
    table_check("frag", "fragment_size_histogram", lambda s: int(s.rstrip(".")).bit_length() - 1)
    if not fit_ext:
        top = J.get("ext_top", [])
        if len(rows["ext"]) != len(top):
            bad.append("ext_top: %d rows in the text, %d in the JSON" % (len(rows["ext"]), len(top)))
        for r, e in zip(rows["ext"], top):
            f = r.split()
            same(f[0], "ext_top", "%s", value=e["ext"] or "(none)")
            same(f[1], "ext_top", "%d", value=e["files"])
            same(f[2], "ext_top", "%.5f", value=e["share"])
    hist = J.get("free_extent_histogram") or []
    if len(rows["free"]) != len(hist):
        bad.append("free_extent_histogram: %d rows in the text, %d in the JSON" % (len(rows["free"]), len(hist)))
    for r, e in zip(rows["free"], hist):
        f = r.split(":")[1].split()
        same(f[0], "free_extent_histogram", "%d", value=e["extents"])
        same(f[1], "free_extent_histogram", "%d", value=e["blocks"])
if "depth_target" in J:
    fit_depth = rows["fitdepth"]
    if len(fit_depth) != len(J["depth_target"]):
        bad.append("depth_target: %d rows in the text, %d in the JSON" % (len(fit_depth), len(J["depth_target"])))
    for i, r in enumerate(fit_depth):
        f = r.split()
        same(f[0], "depth", value=i)
        same(f[1], "depth_target.%d" % i, "%.5f")
        same(f[2], "depth_achieved.%d" % i, "%.5f")
    fpd = [re.sub(r">\s+", ">", r) for r in rows["fitfpd"]]
    if len(fpd) != len(J["fpd_target"]):
        bad.append("fpd_target: %d rows in the text, %d in the JSON" % (len(fpd), len(J["fpd_target"])))
    for i, r in enumerate(fpd):
        f = r.split()
        same(f[1], "fpd_target.%d" % i, "%.5f")
        same(f[2], "fpd_achieved.%d" % i, "%.5f")
    ext = rows["fitext"] if kind == "measure" else rows["ext"]
    if len(ext) != len(J["ext_top"]):
        bad.append("ext_top: %d rows in the text, %d in the JSON" % (len(ext), len(J["ext_top"])))
    for r, e in zip(ext, J["ext_top"]):
        f = r.split()
        same(f[0], "ext_top", "%s", value=e["ext"])
        same(f[1], "ext_top", "%.5f", value=e["target"])
        same(f[2], "ext_top", "%.5f", value=e["achieved"])
# the extra fit lines: a key ending _max_abs_diff, _ks_d or _achieved of the same value
for mx in rows["extra"]:
    val = mx.group(2)
    keys = [k for k, v in J.items() if isinstance(v, float) and "%.6f" % v == val and
            k.endswith(("_max_abs_diff", "_ks_d", "_achieved"))]
    if mx.group(4) is not None:
        keys = [k for k in keys if k.endswith("_max_abs_diff") and J.get(k[:-13] + "_worst") == mx.group(4)]
    if mx.group(5) is not None:
        keys = [k for k in keys if k.endswith("_achieved") and "%.6f" % J.get(k[:-9] + "_target", -1) == mx.group(5)]
    checked += 1
    if not keys:
        bad.append("'%s': no JSON figure of that value" % mx.group(0).strip())
for b in bad:
    print(b)
print("%d figures compared, %d mismatches" % (checked, len(bad)), file=sys.stderr)
sys.exit(1 if bad else 0)
