# html_check.py - checks of imprint's --html pages for tests/html.sh and tests/html_browser.sh
# Each command prints lines "ok WHAT" or "fail WHAT"; the shell test turns them into TAP.
import html.parser
import json
import math
import re
import sys

BLOCK = re.compile(r'<script type="application/json" id="imprint-data">(.*?)</script>', re.S)


def say(ok, what):
    print(("ok " if ok else "fail ") + what)


def blob(page):
    text = open(page, encoding="utf-8").read()
    m = BLOCK.search(text)
    if not m:
        raise SystemExit("fail %s: no imprint-data block" % page)
    return json.loads(m.group(1)), text


def first_diff(a, b, path="$"):
    """The first place where a and b differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s.%s only on one side" % (path, k)
            d = first_diff(a[k], b[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "%s: %d against %d items" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r against %r" % (path, a, b)


def cmd_offline(page):
    """No reference that would load anything, the CSP, the size bound."""
    _, text = blob(page)
    loads = re.findall(r'''<(?:script|link|img|iframe|object|embed|source|audio|video)\b[^>]*\b(?:src|href|data)\s*=''',
                       text, re.I)
    say(not loads, "%s: no element loads a file (%d found)" % (page, len(loads)))
    urls = re.findall(r'''(?:url\(\s*['"]?|@import\s+['"]?)(?:https?:)?//''', text, re.I)
    say(not urls, "%s: no CSS url() or @import of a network address" % page)
    say("Content-Security-Policy\" content=\"default-src 'none';" in text,
        "%s: its Content-Security-Policy forbids every request" % page)
    say(len(text.encode()) < 2 * 1024 * 1024, "%s: %d bytes, under 2 MiB" % (page, len(text.encode())))


def cmd_same(page, key, jsonfile):
    """The page's figures under key are exactly the --json output of the same run."""
    d, _ = blob(page)
    want = json.load(open(jsonfile))
    if key not in d:
        say(False, "%s: no '%s' figures" % (page, key))
        return
    diff = first_diff(d[key], want)
    say(diff is None, "%s: '%s' equals the --json output%s" % (page, key, ": " + diff if diff else ""))


def manifest(path):
    files, dirs, links = [], [], []
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        name = f[0].rsplit("/", 1)[1]
        if f[1] == "file":
            files.append((len(name.encode("utf-8", "surrogateescape")), int(f[2])))
        elif f[1] == "hardlink":
            links.append(len(name.encode("utf-8", "surrogateescape")))
        elif f[1] == "dir" and f[0] != "/":
            dirs.append((len(name.encode("utf-8", "surrogateescape")), f[0].count("/")))
    return files, dirs, links


def hist(values, n=None):
    h = [0] * ((max(values) + 1) if values else 0)
    for v in values:
        h[v] += 1
    return h


def cmd_tree(page, mani):
    """Names, directories and the size CDF of the page against the manifest's own count."""
    d, _ = blob(page)
    x = d["extra"]
    files, dirs, links = manifest(mani)
    got = x["name_lengths"]
    say(got["files"] == hist([n for n, _ in files] + links),
        "%s: file name lengths (hard links too) equal the manifest's" % page)
    say(got["dirs"] == hist([n for n, _ in dirs]),
        "%s: directory name lengths equal the manifest's" % page)
    want = hist([0] + [dp for _, dp in dirs])
    say(x["dirs_by_depth"] == want, "%s: directories by depth %s equal the manifest's %s"
        % (page, x["dirs_by_depth"], want))
    sizes = sorted(s for _, s in files)
    cdf = x["size_cdf"]
    bad = [(s, a) for s, a in zip(cdf["x"], cdf["achieved"])
           if abs(a - sum(1 for v in sizes if v <= s) / len(sizes)) > 5e-6]
    say(not bad and cdf["x"][-1] == sizes[-1],
        "%s: size CDF at %d sizes up to %d equals the manifest's%s"
        % (page, len(cdf["x"]), cdf["x"][-1], " (first off: %r)" % (bad[:1],) if bad else ""))
    cls = x["size_classes"]
    byc = [0] * len(cls["bytes"])
    for s in sizes:
        byc[s.bit_length()] += s
    say(cls["bytes"] == byc, "%s: bytes by size class equal the manifest's" % page)


def cmd_map(page, blocks, free, groups):
    """The disk map's rows are the block groups; its free cells the free share (dumpe2fs)."""
    d, _ = blob(page)
    m = d["extra"]["disk_map"]
    blocks, free, groups = int(blocks), int(free), int(groups)
    say(len(m["rows"]) == groups and m["total_blocks"] == blocks,
        "%s: %d map rows for %d block groups, %d blocks" % (page, len(m["rows"]), groups, blocks))
    cells = {}
    for r in m["rows"]:
        n = 0
        for c, k in re.findall(r"([cfmu.])(\d+)", r):
            cells[c] = cells.get(c, 0) + int(k)
            n += int(k)
        if n != m["cells_per_row"] and r is not m["rows"][-1]:
            say(False, "%s: a row of %d cells, not %d" % (page, n, m["cells_per_row"]))
            return
    total = sum(cells.values())
    got, want = cells.get(".", 0) / total, free / blocks
    say(abs(got - want) < 0.02, "%s: map free share %.4f, dumpe2fs %.4f" % (page, got, want))
    frag = d["measure"]["fragmented_files"]
    say((cells.get("f", 0) > 0) == (frag > 0),
        "%s: fragmented cells %d with %d fragmented files" % (page, cells.get("f", 0), frag))


class Tables(html.parser.HTMLParser):
    """Every table of a rendered page: caption -> rows of cell texts."""

    def __init__(self):
        super().__init__()
        self.tables, self.cur, self.row, self.cell, self.cap = {}, None, None, None, None
        self.pre, self.pre_id = {}, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.cur = []
        elif tag == "caption":
            self.cap = ""
        elif tag == "tr" and self.cur is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "pre":
            self.pre_id = dict(attrs).get("id")
            self.pre[self.pre_id] = ""

    def handle_endtag(self, tag):
        if tag == "caption":
            self.name, self.cap = self.cap, None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.cur.append(self.row)
            self.row = None
        elif tag == "table" and self.cur is not None:
            self.tables[self.name] = self.cur
            self.cur = None
        elif tag == "pre":
            self.pre_id = None

    def handle_data(self, data):
        if self.cap is not None:
            self.cap += data
        elif self.cell is not None:
            self.cell += data
        elif self.pre_id is not None:
            self.pre[self.pre_id] += data


def close(text, want, digits):
    try:
        return abs(float(text) - want) <= 0.5 * 10 ** -digits + 1e-12
    except ValueError:
        return False


def cmd_dom(dom, page):
    """The numbers the rendered page shows are those of its figures (and so of --json)."""
    d, _ = blob(page)
    p = Tables()
    p.feed(open(dom, encoding="utf-8").read())
    t = p.tables
    head = dict((r[0], r[1]) for r in t.get("Headline", [])[1:])
    src = d.get("measure") or d.get("plan") or d.get("content")
    for k, label in (("files", "files"), ("dirs", "directories"), ("bytes", "bytes")):
        if k in src:
            say(head.get(label, "").split(" ")[0] == str(src[k]),
                "%s: headline %s %s, JSON %s" % (dom, label, head.get(label), src[k]))
    fit = d.get("measure") if d.get("measure", {}).get("depth_target") else d.get("plan")
    if fit and "Files by depth" in t and fit.get("depth_target"):
        rows = t["Files by depth"][1:]
        ok = len(rows) == len(fit["depth_target"]) and all(
            close(r[1], fit["depth_target"][i], 4) and close(r[2], fit["depth_achieved"][i], 4)
            for i, r in enumerate(rows))
        say(ok, "%s: files by depth, %d rows, target and achieved as the JSON" % (dom, len(rows)))
        rows = t["Top extensions"][1:]
        ok = all(r[0] == (e["ext"] or "(none)") and close(r[1], e["target"], 4) and
                 close(r[2], e["achieved"], 4) for r, e in zip(rows, fit["ext_top"]))
        say(ok and len(rows) == len(fit["ext_top"]), "%s: top extensions as the JSON" % dom)
        rows = dict((r[0], r[1]) for r in t["Fit: K-S D and share differences"][1:])
        say(close(rows["size K-S D"], fit["size_ks_d"], 6) and close(rows["depth K-S D"], fit["depth_ks_d"], 6),
            "%s: K-S D %s, %s as the JSON" % (dom, rows["size K-S D"], rows["depth K-S D"]))
    m = d.get("measure")
    if m and m.get("layout_score") is not None:
        rows = dict((r[0], r[1]) for r in t["Extents per file"][1:])
        say(close(rows["layout score"], m["layout_score"], 6) and
            rows["fragmented files"] == str(m["fragmented_files"]) and rows["extents"] == str(m["extents"]),
            "%s: layout score %s, %s fragmented files as the JSON" % (dom, rows["layout score"], rows["fragmented files"]))
        rows = t["Free extents (e2freefrag buckets)"][1:-1]
        h = m["free_extent_histogram"]
        say(len(rows) == len(h) and all(r[1] == str(b["extents"]) and r[2] == str(b["blocks"])
                                        for r, b in zip(rows, h)),
            "%s: free extents by bucket as the JSON (%d buckets)" % (dom, len(h)))
    c = d.get("content")
    if c:
        rows = dict((r[0], r) for r in t["Compression ratio by group"][1:])
        ok = all(close(rows[g][2], c["groups"][g]["compress_ratio_zlib"], 3) and
                 close(rows[g][3], c["groups"][g]["compress_ratio_zstd"], 3) for g in rows)
        say(ok and rows, "%s: compression ratios of %d groups as the JSON" % (dom, len(rows)))
        rows = dict((r[0], r) for r in t["Duplicate and zero shares"][1:])
        say(close(rows["duplicate files"][2], c["dup_file_share"], 4) and
            close(rows["zero blocks"][2], c["zero_block_share"], 4) and
            close(rows["duplicate blocks"][1], c["targets"]["dup_block_share"], 4),
            "%s: duplicate and zero shares as the JSON" % dom)
    say(p.pre.get("command", "").startswith("imprint "), "%s: shows the command line" % dom)
    canvases = len(re.findall(r"<canvas\b", open(dom, encoding="utf-8").read()))
    lines = [l.split() for l in p.pre.get("selftest", "").strip().splitlines()
             if not l.startswith("drawn-ms ")]
    blank = [l[0] for l in lines if int(l[2]) == 0]
    say(canvases > 0 and len(lines) == canvases and not blank,
        "%s: %d charts drawn, none blank%s" % (dom, canvases, " (blank: %s)" % blank if blank else ""))
    say("page-error" not in p.pre and 'id="page-error"' not in open(dom, encoding="utf-8").read(),
        "%s: no script error" % dom)


if __name__ == "__main__":
    cmds = {"offline": cmd_offline, "same": cmd_same, "tree": cmd_tree, "map": cmd_map, "dom": cmd_dom}
    cmds[sys.argv[1]](*sys.argv[2:])
