#!/usr/bin/env python3
# profile_render.py TEXT JSON - every figure of a profile's header agrees with `profile --json`
#
# Each comment line of the header is matched by one pattern below (a line
# matching none fails) and each figure on it that the JSON holds is compared
# with the JSON's value formatted as the header formats it.  The
# configuration after the header is the profile itself, not a report: its
# lines are left alone.  Prints one line a mismatch; exit 1 if there is any.
import json
import re
import sys

text_path, json_path = sys.argv[1:3]
J = json.load(open(json_path))
bad = []
checked = 0


def get(path):
    o = J
    for p in path.split("."):
        if not isinstance(o, dict) or p not in o:
            return KeyError
        o = o[p]
    return o


def human(v):
    """fmt_bytes(v, FMT_BYTES_DIGITS(2)): "895 B", "13.65 KiB"."""
    if v < 1024:
        return "%d B" % v
    x, u = float(v), 0
    while x >= 1024 and u < 6:
        x /= 1024
        u += 1
    return "%.2f %s" % (x, ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"][u])


def same(got, path, fmt):
    global checked
    checked += 1
    v = get(path)
    if v is KeyError:
        bad.append("%s: in the text (%s), not in the JSON" % (path, got))
        return
    want = "nan" if v is None and fmt != "h" else human(v) if fmt == "h" else fmt % v
    if got.strip().lstrip("-") != want.strip().lstrip("-") if want == "nan" else got.strip() != want.strip():
        bad.append("%s: text '%s', JSON %s ('%s')" % (path, got.strip(), v, want))


N = r"(-?[0-9.e+-]+|-?nan|-?inf)"
D = r"(\d+)"
# (pattern, [(path, format) for each group; None: a figure the JSON does not hold])
LINES = [
    (r"# imprint profile of .*, made \S+ by imprint \S+$", []),
    (r"# it holds statistics only: .*$", []),
    (r"# source: " + D + " files, " + D + " directories, " + D + r" bytes \((.+)\), " + D +
     " hard links, " + D + " symbolic links$",
     [("files", "%d"), ("directories", "%d"), ("bytes", "%d"), ("bytes", "h"), ("hardlinks", "%d"),
      ("symlinks", "%d")]),
    (r"# file sizes: hybrid lognormal \+ Pareto by maximum likelihood \(mu " + N + ", sigma " + N +
     ", tail " + N + " from " + D + " bytes, shape " + N + r"\): K-S D " + N + "$",
     [("file_sizes.mu", "%.4g"), ("file_sizes.sigma", "%.4g"), ("file_sizes.tail_weight", "%.3g"),
      ("file_sizes.tail_xm", "%d"), ("file_sizes.tail_shape", "%.4g"),
      ("file_sizes.ks_d_parametric", "%.4f")]),
    (r"# file sizes: quantile table \(\d+ points\): K-S D " + N + "; used: .*$",
     [("file_sizes.ks_d_empirical", "%.4f")]),
    (r"# files by depth, directories by depth, files per directory \(0\.\." + D +
     r", then the tail\): tables, exact; files per directory law \(c " + N + ", k " + N +
     r"\): largest bin difference " + N + "$",
     [("files_per_dir.max_bin", "%d"), ("files_per_dir.law_offset", "%.4g"),
      ("files_per_dir.law_degree", "%.4g"), ("files_per_dir.law_max_bin_diff", "%.4f")]),
    (r"# directories: " + N + r" empty \(no file, no subdirectory\), " + N + " leaves; " + N +
     " subdirectories per non-leaf, at most " + D + "$",
     [None, ("tree.leaf_share", "%.4f"), None, ("tree.max_subdirs", "%d")]),
    (r"# largest directories \(files@depth\):( \d+@\d+)*$", []),
    (r"# extensions: " + D + r" named \(each with >= \d+ files\), the tail holds " + N +
     r" of files; sizes by extension: \d+ classes$",
     [("extensions_named", "%d"), ("extension_tail_share", "%.4f")]),
    (r"# subdirectories per directory \(subdirs_table, \d+ counts\), .* \(empty_dir_share " + N +
     r"\): the tree is built .*$", [("tree.empty_dir_share", "%.4f")]),
    (r"# special directories \(special_dir_table: .*\): " + D + " holding " + D + " files, .*$",
     [("tree.special_dirs", "%d"), ("tree.special_files", "%d")]),
    (r"# names \(" + D + r"\): with capitals " + N + ", stem in capitals " + N + ", numeric " + N +
     r", versioned \(1\.2, ~\) " + N + ", spaces " + N + ", non-ASCII " + N + "$",
     [("names.count", "%d"), ("names.upper_share", "%.4f"), ("names.caps_share", "%.4f"),
      ("names.numeric_share", "%.4f"), ("names.versioned_share", "%.4f"),
      ("names.space_share", "%.4f"), ("names.utf8_share", "%.4f")]),
    (r"# names the model makes \(\d+ drawn\): .*$", []),
    (r"# ages: median " + N + " days, 90% " + N + " days$", [("age_median_days", "%.1f"), None]),
    (r"# layout score " + N + r" over \d+ files of 2\+ blocks, \d+ fragmented; \d+ sparse files, \d+ hole blocks$",
     [("layout_score", "%.4f")]),
    (r"# modes: " + D + " distinct of files, " + D + r" of directories \(tables: mode_files, mode_dirs; beyond them " +
     N + " and " + N + r"\); owners: " + D + " users, root owns " + N + " of the entries$",
     [("metadata.modes_files", "%d"), ("metadata.modes_dirs", "%d"), None, None,
      ("metadata.owner_users", "%d"), ("metadata.owner_root_share", "%.4f")]),
    (r"# ages \(days before the newest mtime\): lognormal \(median " + N + ", sigma " + N +
     r"\): K-S D " + N + r"; age table \(\d+ points\): K-S D " + N + ", used; atime_quantiles: .*$",
     [None, None, ("metadata.age_ks_d_lognormal", "%.4f"), ("metadata.age_ks_d_table", "%.4f")]),
    (r"# fragmentation: " + N + r" of the files of 2\+ blocks fragmented, " + N +
     r" extents each \(frag_file_share, frag_extents\)$",
     [("metadata.frag_file_share", "%.4f"), ("metadata.frag_extents", "%.3f")]),
    (r"# free space: \d+ of \d+ blocks in \d+ extents, " + N + r" below 1 MiB \(free_frag_share\), gap shape " +
     N + r" \(free_gap_shape\); files fill " + N + r" of the capacity \(fill_share\)$",
     [("metadata.free_small_share", "%.4f"), ("metadata.free_gap_shape", "%.3f"),
      ("metadata.fill_share", "%.4f")]),
    (r"# holes: \d+ sparse files, \d+ files of 256 KiB or more the model may make sparse; " + N +
     " of the sparse files' 64 KiB units are holes$", [("metadata.sparse_hole_share", "%.4f")]),
    (r"# content: .*$", []),
    (r"# content by extension .*$", []),
    (r"# types \(libmagic\):.*$", []),
    (r"# source_files and source_bytes give the same count and bytes; .*$", []),
]
text = open(text_path).read().split("\n")
header = text[:text.index("")] if "" in text else text
for n, line in enumerate(header):
    for pat, figs in LINES:
        m = re.match(pat, line)
        if not m:
            continue
        for g, f in enumerate(figs):
            if f:
                same(m.group(g + 1), f[0], f[1])
        break
    else:
        bad.append("line %d has no JSON counterpart this check knows: '%s'" % (n + 1, line))
# the JSON's figures the header must show
for key in ("files", "file_sizes", "files_per_dir", "tree", "names", "metadata"):
    if key not in J:
        bad.append("%s: not in the JSON" % key)
if ("layout_score" in J) != any(l.startswith("# layout score ") for l in header):
    bad.append("layout_score: in one of the text and the JSON only")
checked += 1
for b in bad:
    print(b)
print("%d figures compared, %d mismatches" % (checked, len(bad)), file=sys.stderr)
sys.exit(1 if bad else 0)
