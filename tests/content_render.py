#!/usr/bin/env python3
# content_render.py TEXT JSON - every figure of content-report's text agrees with its --json
#
# Each line of the text is matched by one pattern below (a line matching none
# fails: a figure printed without its JSON counterpart is found) and each
# figure on it is compared with the JSON's value formatted as the text
# formats it.  Every group, type and unidentified file of the JSON must have
# its row.  Prints one line a mismatch; exit 1 if there is any, 0 otherwise.
import json
import re
import sys

text_path, json_path = sys.argv[1:3]
J = json.load(open(json_path))
lines = open(text_path).read().split("\n")
if lines and lines[-1] == "":
    lines.pop()
bad = []
checked = 0


def human(v):
    """fmt_bytes(v, FMT_BYTES_DIGITS(1) | FMT_BYTES_PIB): "895 B", "13.6 KiB"."""
    v = int(v)
    if v < 1024:
        return "%d B" % v
    x, u = float(v), 0
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    while x >= 1024 and u < 5:
        x /= 1024
        u += 1
    return "%.1f %s" % (x, units[u])


def same(got, what, want):
    """The text's got equals want (the JSON's figure as the text formats it)."""
    global checked
    checked += 1
    if got.strip() != want.strip():
        bad.append("%s: text '%s', JSON '%s'" % (what, got.strip(), want.strip()))


def near(got, what, want):
    """The text's four decimals are the JSON's three (a prediction) within rounding."""
    global checked
    checked += 1
    if abs(float(got) - want) > 0.00051:
        bad.append("%s: text '%s', JSON %.3f" % (what, got, want))


def num(v, fmt):
    return "-" if v is None else fmt % v


G = J["groups"]
# the table's rows: the JSON's target, predicted figure and achieved value of each
ROWS = {
    "compress_ratio zlib": ("compress_ratio", "compress_ratio_zlib"),
    "compress_ratio zstd": ("compress_ratio", "compress_ratio_zstd"),
    "compress_ratio_exec zlib": ("compress_ratio_exec", "compress_ratio_exec_zlib"),
    "compress_ratio_exec zstd": ("compress_ratio_exec", "compress_ratio_exec_zstd"),
    "dup_file_share": ("dup_file_share", "dup_file_share"),
    "dup_block_share": ("dup_block_share", "dup_block_share"),
    "zero_block_share": ("zero_block_share", "zero_block_share"),
    "typed identified": ("typed_identified_share", "typed_identified_share"),
}
pred = {f["figure"]: f for f in (J.get("predicted") or {}).get("figures", [])}
seen_rows, seen_groups, seen_types, seen_miss = set(), set(), [], []
section = None
NUM = r"(-?[0-9.]+|nan|-?inf|-)"
for n, line in enumerate(lines):
    m = re.match(r"imprint content report: (.*)$", line)
    if m:
        same(m.group(1), "target", J["target"])
        continue
    m = re.match(r"  files +(\d+) \((.+)\), (\d+) distinct$", line)
    if m:
        same(m.group(1), "files", "%d" % J["files"])
        same(m.group(2), "bytes", human(J["bytes"]))
        same(m.group(3), "files - groups.all.dup_files", "%d" % (J["files"] - G["all"]["dup_files"]))
        continue
    m = re.match(r"  other binary (\d+) files \((.+)\), (\d+) blocks of distinct files$", line)
    if m:
        same(m.group(1), "groups.binary.files", "%d" % G["binary"]["files"])
        same(m.group(2), "groups.binary.bytes", human(G["binary"]["bytes"]))
        same(m.group(3), "groups.binary.blocks", "%d" % G["binary"]["blocks"])
        continue
    if line == "  holes        not known (the file system reports no extents)":
        same("null", "hole_blocks", "null" if J["hole_blocks"] is None else "%d" % J["hole_blocks"])
        continue
    m = re.match(r"  holes +(\d+) blocks \((.+)\) of distinct files: not content, left out of every figure$", line)
    if m:
        same(m.group(1), "hole_blocks", "%d" % J["hole_blocks"] if J["hole_blocks"] is not None else "null")
        same(m.group(2), "hole_blocks (bytes)", human((J["hole_blocks"] or 0) * 4096))
        continue
    m = re.match(r"  compressed +(.+) in 1 MiB segments \(sample share (.+)\), holes left out$", line)
    if m:
        same(m.group(1), "groups.all.sampled_bytes", human(G["all"]["sampled_bytes"]))
        same(m.group(2), "sample_share", "%g" % J["sample_share"])
        continue
    if line.startswith("  figure ") or line.startswith("  group ") or line == "" or \
            line.startswith("  (blocks, zero, dup and ratios"):
        section = "figures" if line.startswith("  figure ") else "groups" if line.startswith("  group ") else None
        continue
    m = re.match(r"   block-level dedup would save " + NUM + r" of all blocks\)$", line)
    if m:
        same(m.group(1), "groups.all.dedup_block_share", "%.4f" % G["all"]["dedup_block_share"])
        continue
    m = re.match(r"  \((\d+) of (\d+) typed files identified by libmagic as their type; target is a minimum\)$", line)
    if m:
        same(m.group(1), "typed_identified", "%d" % J["typed_identified"])
        same(m.group(2), "typed_files", "%d" % J["typed_files"])
        section = None
        continue
    m = re.match(r"  predicted miss: (.+?) reaches " + NUM + ", not " + NUM + ": .*$", line)
    if m:
        p = pred.get(m.group(1))
        if p is None or p["reachable"] is not False:
            bad.append("predicted miss of %s: not a miss in the JSON" % m.group(1))
        else:
            near(m.group(2), "predicted %s" % m.group(1), p["predicted"])
            same(m.group(3), "target of %s" % m.group(1), "%.4f" % p["target"])
        continue
    if line.startswith("  type mix (libmagic)"):
        section = "types"
        continue
    m = re.match(r"  typed files not identified as their type \(first (\d+)\)$", line)
    if m:
        same(m.group(1), "len(not_identified)", "%d" % len(J["not_identified"]))
        section = "miss"
        continue
    if section == "figures":
        name = line[2:26].strip()
        if name not in ROWS:
            bad.append("line %d: no such figure '%s'" % (n + 1, name))
            continue
        seen_rows.add(name)
        tkey, akey = ROWS[name]
        f = line[26:].split()
        target, achieved = J["targets"][tkey], J[akey]
        same(f[0], "targets." + tkey, num(target, "%.4f"))
        if name in pred:
            # the JSON's prediction has three decimals, the text four
            near(f[1], "predicted " + name, pred[name]["predicted"])
        else:
            same(f[1], "predicted " + name, "-")
        same(f[2], akey, num(achieved, "%.4f"))
        if achieved is not None and target is not None and len(f) > 3:
            want = "%+.2f%%" % (100 * (achieved - target) / target) if target else "%+.4f" % (achieved - target)
            same(f[3], "difference of " + name, want)
        continue
    if section == "groups":
        f = line.split()
        g = G.get(f[0])
        if g is None:
            bad.append("line %d: no group '%s' in the JSON" % (n + 1, f[0]))
            continue
        seen_groups.add(f[0])
        # the size is two words: "1.5 MiB"
        want = ["%d" % g["files"]] + human(g["bytes"]).split() + [
            "%.4f" % g["dup_file_share"], "%d" % g["blocks"], "%.4f" % g["zero_block_share"],
            "%.4f" % g["dup_block_share"], "%.3f" % g["compress_ratio_zlib"], "%.3f" % g["compress_ratio_zstd"]]
        same(" ".join(f[1:]), "groups." + f[0], " ".join(want))
        continue
    if section == "types":
        m = re.match(r"  (.+?) +(\d+) +" + NUM + "$", line)
        if m:
            seen_types.append(m.group(1))
            share = J["type_mix"].get(m.group(1))
            same(m.group(3), "type_mix." + m.group(1), num(share, "%.4f"))
            same("%.4f" % (int(m.group(2)) / J["files"]), "type_mix." + m.group(1) + " (files)", num(share, "%.4f"))
            continue
    if section == "miss":
        m = re.match(r"  (.*): (.*)$", line)
        if m:
            seen_miss.append({"path": m.group(1), "mime_type": m.group(2)})
            continue
    bad.append("line %d has no JSON counterpart this check knows: '%s'" % (n + 1, line))

for name in ROWS:
    if name not in seen_rows:
        bad.append("figure '%s': no row in the text" % name)
for g in G:
    if g not in seen_groups:
        bad.append("groups.%s: no row in the text" % g)
if seen_types != list(J["type_mix"]):
    bad.append("type_mix: the text's rows %s, the JSON's %s" % (seen_types[:3], list(J["type_mix"])[:3]))
checked += 1
if seen_miss != J["not_identified"]:
    bad.append("not_identified: the text lists %d, the JSON %d (or they differ)" % (len(seen_miss), len(J["not_identified"])))
checked += 1
for b in bad:
    print(b)
print("%d figures compared, %d mismatches" % (checked, len(bad)), file=sys.stderr)
sys.exit(1 if bad else 0)
