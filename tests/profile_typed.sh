#!/bin/bash
# profile_typed.sh - typed formats of a profile --content clone (issue 22 item 2): the
# duplicate-block share of .gz and .png (real ones share first blocks: files that begin alike,
# in groups of 2 to 4) and the ratio of .pdf (real PDFs deflate their streams) come back in the
# clone, whose files stay valid; so do the ratios of .jpg (real ones above 1 hold metadata or drawings that repeat)
# and .gif (LZW-coded: about 1.0).  A small synthetic tree: gzip files of texts with common
# beginnings, PNGs whose first rows are alike, PDFs of deflated pages, JPEGs of noise with large
# XMP segments (cjpeg), GIFs of noise in small palettes (ppmtogif).  Figures by tests/content_by_ext.py (Python's
# zlib and hashlib, no imprint code); validity by gzip -t, Python's zlib over each member,
# chunk CRCs and the inflated image size of each PNG, each PDF stream inflated, file(1), and
# pngcheck, qpdf, djpeg and giftopnm when installed.
. "${srcdir:-.}/tests/lib.sh"
command -v python3 >/dev/null || { echo "1..0 # SKIP needs python3"; exit 77; }
command -v gzip >/dev/null || { echo "1..0 # SKIP needs gzip"; exit 77; }
TOP=${srcdir:-.}

python3 - "$WORK/src" <<'PY'
import gzip, os, random, struct, sys, zlib
r = random.Random(5)
root = sys.argv[1]
os.makedirs(root)
words = ["".join(r.choice("etaoinshrdlucmfwyp") for _ in range(r.randint(2, 8))) for _ in range(3000)]
def text(n, rr):
    out, size = [], 0
    while size < n:
        l = " ".join(rr.choice(words) for _ in range(rr.randint(5, 14))) + ".\n"
        out.append(l)
        size += len(l)
    return "".join(out).encode()
# gzip: 6 pairs whose texts begin alike (their first blocks are the same), 6 that do not
for i in range(18):
    base = text(r.randint(60000, 200000), random.Random(100 + i // 2))
    own = text(r.randint(20000, 100000), random.Random(500 + i))
    data = base + own if i < 12 else own + base
    open(os.path.join(root, "c%02d.gz" % i), "wb").write(gzip.compress(data, 9, mtime=0))
def png(path, w, h, rows):
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    z = zlib.compress(b"".join(b"\0" + row for row in rows), 6)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + b"".join(chunk(b"IDAT", z[i:i + 8192]) for i in range(0, len(z), 8192)) + chunk(b"IEND", b""))
# png: 5 pairs of the same first rows (noise: deflated, it hardly shrinks), 4 alone
for i in range(14):
    w, h = 160, 200
    rr, ro = random.Random(300 + i // 2), random.Random(700 + i)
    cut = 100 + 20 * (i % 2) if i < 10 else 0
    rows = [bytes(rr.getrandbits(8) & 0xfc for _ in range(3 * w)) for _ in range(cut)]
    rows += [bytes(ro.getrandbits(8) & 0xfc for _ in range(3 * w)) for _ in range(h - cut)]
    png(os.path.join(root, "p%02d.png" % i), w, h, rows)
# pdf: pages of deflated content streams (gzip -6 about 1.02, as real ones)
def pdf(path, pages):
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", None,
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for p in range(pages):
        lines = "".join("(%s) '\n" % " ".join(r.choice(words) for _ in range(12))
                        for _ in range(r.randint(40, 300)))
        z = zlib.compress(("BT /F1 10 Tf 12 TL 72 756 Td\n" + lines + "ET\n").encode(), 6)
        objs.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(z) + z + b"\nendstream")
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font"
                    b" << /F1 3 0 R >> >> /Contents %d 0 R >>" % len(objs))
        kids.append(len(objs))
    objs[1] = b"<< /Type /Pages /Count %d /Kids [%s] >>" % (pages, b" ".join(b"%d 0 R" % k for k in kids))
    out, offs = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), []
    for i, o in enumerate(objs):
        offs.append(len(out))
        out += b"%d 0 obj\n" % (i + 1) + o + b"\nendobj\n"
    x = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offs)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, x)
    open(path, "wb").write(out)
for i in range(6):
    pdf(os.path.join(root, "d%d.pdf" % i), r.randint(5, 25))
# noise images for JPEGs (cjpeg) and GIFs of 4 to 16 colours (ppmtogif), below
ppm = os.path.join(os.path.dirname(root), "ppm")
os.makedirs(ppm)
for i in range(8):
    w, h = r.randint(32, 64), r.randint(32, 64)
    open(os.path.join(ppm, "j%d.ppm" % i), "wb").write(b"P6 %d %d 255\n" % (w, h) + r.randbytes(3 * w * h))
for i in range(12):
    w, h, c = r.randint(16, 64), r.randint(16, 48), r.choice([4, 8, 16])
    pal = [r.randbytes(3) for _ in range(c)]
    open(os.path.join(ppm, "g%d.ppm" % i), "wb").write(b"P6 %d %d 255\n" % (w, h) +
        b"".join(r.choice(pal) for _ in range(w * h)))
PY
# jpg and gif, a tree of their own (src2: the first tree's plan, and so its pairs, unchanged):
# real coders (noise: coded data that hardly shrinks); each JPEG with an XMP segment of 40-80%
# of its coded bytes (the metadata of a photograph: gzip -6 about 1.4)
imgs=
if command -v cjpeg >/dev/null && command -v ppmtogif >/dev/null; then
	imgs=1
	mkdir "$WORK/src2"
	for f in "$WORK"/ppm/j*.ppm; do
		cjpeg -quality 90 "$f" >"$WORK/ppm/$(basename "$f" .ppm).jpg"
	done
	for f in "$WORK"/ppm/g*.ppm; do
		ppmtogif "$f" >"$WORK/src2/$(basename "$f" .ppm).gif" 2>/dev/null
	done
	python3 - "$WORK/ppm" "$WORK/src2" <<'PY'
import glob, os, random, struct, sys
r = random.Random(9)
tags = ["dc:subject", "xmp:CreatorTool", "photoshop:History", "exif:ExposureTime", "tiff:Make"]
for f in sorted(glob.glob(os.path.join(sys.argv[1], "j*.jpg"))):
    b = open(f, "rb").read()
    n = int(len(b) * r.uniform(0.4, 0.8))
    xmp = b'http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF>'
    while len(xmp) < n:
        t = r.choice(tags)
        xmp += b"<%s><rdf:li>%d</rdf:li></%s>\n" % (t.encode(), r.randint(0, 99999), t.encode())
    xmp = xmp[:n - 12] + b"</rdf:RDF>\n"
    seg = b"".join(b"\xff\xe1" + struct.pack(">H", len(xmp[k:k + 65000]) + 2) + xmp[k:k + 65000]
                   for k in range(0, len(xmp), 65000))
    open(os.path.join(sys.argv[2], os.path.basename(f)), "wb").write(b[:2] + seg + b[2:])
PY
fi

if "$IMPRINT" profile --content "$WORK/src" -o "$WORK/p.conf" 2>"$WORK/err" &&
	mkdir -p "$WORK/clone" && "$IMPRINT" create -c "$WORK/p.conf" "$WORK/clone" >/dev/null 2>"$WORK/err"; then
	pass "profile --content of the tree, and its clone"
else
	fail "profile or create: $(head -c 300 "$WORK/err")"
	finish
fi
python3 "$TOP/tests/content_by_ext.py" "$WORK/src" --no-zstd >"$WORK/src.m"
python3 "$TOP/tests/content_by_ext.py" "$WORK/clone" --no-zstd >"$WORK/clone.m"
# ratio_within SRC.m CLONE.m EXT: the clone's gzip -6 ratio of .EXT within 15% of the source's
ratio_within() {
	local s c
	s=$(ext_fig "$1" "$3" gzip)
	c=$(ext_fig "$2" "$3" gzip)
	if [ -n "$s" ] && [ -n "$c" ] && near "$s" "$c" 0.15; then
		pass ".$3: clone gzip -6 ratio $c within 15% of the source's $s"
	else
		fail ".$3: clone gzip -6 ratio '$c' against the source's '$s' (within 15%)"
	fi
}

for e in gz png; do
	s=$(ext_fig "$WORK/src.m" $e dup_block)
	c=$(ext_fig "$WORK/clone.m" $e dup_block)
	if [ -n "$s" ] && [ -n "$c" ] && awk -v s="$s" -v c="$c" 'BEGIN { exit !(s > 0.05 && c - s <= 0.01 && s - c <= 0.01) }'; then
		pass ".$e: clone duplicate blocks $c within 0.01 of the source's $s"
	else
		fail ".$e: clone duplicate blocks '$c' against the source's '$s' (within 0.01)"
	fi
	c=$(ext_fig "$WORK/clone.m" $e dup_file)
	[ "$c" = 0.0000 ] && pass ".$e: no clone file a copy of another (prefixes only)" ||
		fail ".$e: clone duplicate files '$c' where the source has none"
done
for e in gz png pdf; do
	ratio_within "$WORK/src.m" "$WORK/clone.m" $e
done
# groups: a shared first block comes in 2 to 4 files, 2.7 on average (/usr/share/doc's .gz:
# 2.68), not in pairs only (main: every one exactly twice)
if python3 - "$WORK/clone" >"$WORK/grp.out" 2>&1 <<'PY'; then
import collections, glob, hashlib, os, sys
n = collections.Counter()
for f in glob.glob(os.path.join(sys.argv[1], "*.gz")):
    b = open(f, "rb").read()
    for k in range(0, len(b) - 4095, 4096):
        n[hashlib.sha1(b[k:k + 4096]).digest()] += 1
dup = [c for c in n.values() if c > 1]
mean = sum(dup) / len(dup) if dup else 0
print("%d blocks, %.2f occurrences each, at most %d" % (len(dup), mean, max(dup or [0])))
sys.exit(not (dup and 2.2 <= mean <= 3.3 and max(dup) <= 4))
PY
	pass ".gz: shared first blocks in groups of 2 to 4 files ($(cat "$WORK/grp.out"))"
else
	fail ".gz: shared first blocks not in groups of 2 to 4 files averaging 2.2-3.3: $(tail -c 300 "$WORK/grp.out")"
fi

# plan --report predicts what the prefixes make (main: "-", typed formats not predicted)
if "$IMPRINT" plan --report -c "$WORK/p.conf" >"$WORK/report" 2>"$WORK/err"; then
	for e in gz png; do
		row=$(awk -v e="$e" '$1 == e && NF == 6' "$WORK/report")
		s=$(ext_fig "$WORK/src.m" $e dup_block)
		awk -v s="$s" 'NF == 6 { d = $6 - s; exit !(d <= 0.01 && d >= -0.01) }' <<<"$row" &&
			pass ".$e: plan --report predicts duplicate blocks $(awk '{ print $6 }' <<<"$row") (source $s)" ||
			fail ".$e: plan --report's row '$row' against the source's duplicate blocks $s"
	done
else
	fail "plan --report: $(head -c 300 "$WORK/err")"
fi

# validity: every clone file read by other readers
bad=0
for f in "$WORK"/clone/*.gz; do
	gzip -t "$f" 2>>"$WORK/gz.err" || bad=$((bad + 1))
done
n=$(ls "$WORK"/clone/*.gz | wc -l)
[ "$bad" = 0 ] && [ "$n" -ge 12 ] && pass "gzip -t accepts the clone's $n .gz" ||
	fail "gzip -t refuses $bad of $n .gz: $(head -c 300 "$WORK/gz.err")"
if python3 - "$WORK/clone" >"$WORK/py.out" 2>&1 <<'PY'; then
import glob, os, re, struct, sys, zlib
root = sys.argv[1]
for f in sorted(glob.glob(os.path.join(root, "*.gz"))):
    b = open(f, "rb").read()
    d = zlib.decompressobj(31)
    out = d.decompress(b) + d.flush()
    assert d.eof and not d.unused_data, "%s: not one whole member" % f
    assert len(out) % (1 << 32) == struct.unpack("<I", b[-4:])[0], f
for f in sorted(glob.glob(os.path.join(root, "*.png"))):
    b = open(f, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", f
    at, idat, ihdr, types = 8, b"", None, []
    while at < len(b):
        n, t = struct.unpack(">I4s", b[at:at + 8])
        data = b[at + 8:at + 8 + n]
        assert struct.unpack(">I", b[at + 8 + n:at + 12 + n])[0] == zlib.crc32(t + data), "%s: CRC of %s" % (f, t)
        types.append(t)
        if t == b"IHDR":
            ihdr = struct.unpack(">IIBB", data[:10])
        if t == b"IDAT":
            idat += data
        at += 12 + n
    assert types[0] == b"IHDR" and types[-1] == b"IEND" and at == len(b), f
    w, h, bits, ct = ihdr
    raw = zlib.decompress(idat)
    assert len(raw) == h * (1 + w * {0: 1, 2: 3, 6: 4}[ct]), "%s: image size" % f
for f in sorted(glob.glob(os.path.join(root, "*.pdf"))):
    b = open(f, "rb").read()
    assert b.startswith(b"%PDF-") and b.rstrip().endswith(b"%%EOF"), f
    fl = 0
    for m in re.finditer(rb"<< /Length +(\d+)( /Filter /FlateDecode)? >>\nstream\n", b):
        if m.group(2):
            d = zlib.decompressobj()
            t = d.decompress(b[m.end():m.end() + int(m.group(1))]) + d.flush()
            assert d.eof and not d.unused_data and t.startswith(b"BT"), "%s: stream at %d" % (f, m.start())
            fl += 1
    assert fl, "%s: no deflated stream" % f
print("ok")
PY
	pass "Python reads each .gz as one member, each .png's chunk CRCs and image size, each .pdf's deflated streams"
else
	fail "Python's read of the clone: $(tail -c 300 "$WORK/py.out")"
fi
if command -v file >/dev/null; then
	n=$(for f in "$WORK"/clone/*.pdf; do file -b "$f"; done | grep -c '^PDF document')
	[ "$n" = "$(ls "$WORK"/clone/*.pdf | wc -l)" ] && pass "file(1) says PDF of every clone .pdf" ||
		fail "file(1) says PDF of $n clone .pdf only"
fi
if command -v pngcheck >/dev/null; then
	pngcheck -q "$WORK"/clone/*.png >"$WORK/png.out" 2>&1 && pass "pngcheck accepts the clone's .png" ||
		fail "pngcheck: $(head -c 300 "$WORK/png.out")"
fi
if command -v qpdf >/dev/null; then
	bad=0
	for f in "$WORK"/clone/*.pdf; do
		qpdf --check "$f" >"$WORK/qpdf.out" 2>&1 || bad=$((bad + 1))
	done
	[ "$bad" = 0 ] && pass "qpdf --check accepts the clone's .pdf" ||
		fail "qpdf --check refuses $bad .pdf: $(head -c 300 "$WORK/qpdf.out")"
fi

# the same image from one thread as from two
same_jobs "$WORK/p.conf" "the profile"

# .jpg and .gif (tree src2): the ratios of the clone within 15% of the source's, its files
# named by file(1), decoded by djpeg and giftopnm (no warning; below a format's least size,
# 251 and 35 bytes, a clone file is binary, as without a profile), -j1 and -j2 the same
if [ -n "$imgs" ]; then
	if "$IMPRINT" profile --content "$WORK/src2" -o "$WORK/p2.conf" 2>"$WORK/err" &&
		mkdir -p "$WORK/clone2" &&
		"$IMPRINT" create -c "$WORK/p2.conf" "$WORK/clone2" >/dev/null 2>"$WORK/err"; then
		python3 "$TOP/tests/content_by_ext.py" "$WORK/src2" --no-zstd >"$WORK/src2.m"
		python3 "$TOP/tests/content_by_ext.py" "$WORK/clone2" --no-zstd >"$WORK/clone2.m"
	else
		fail "profile or create of the .jpg/.gif tree: $(head -c 300 "$WORK/err")"
	fi
	for e in jpg gif; do
		ratio_within "$WORK/src2.m" "$WORK/clone2.m" $e
	done
	bad=
	images_valid "$WORK/clone2" jpg 251 "JPEG image data" djpeg
	nj=$n
	images_valid "$WORK/clone2" gif 35 "GIF image data" giftopnm
	ng=$n
	[ -z "$bad" ] && [ "$nj" -ge 4 ] && [ "$ng" -ge 5 ] &&
		pass "file(1), djpeg and giftopnm accept the clone's $nj .jpg and $ng .gif" ||
		fail "clone .jpg ($nj) and .gif ($ng) refused:$bad"
	same_jobs "$WORK/p2.conf" "the .jpg/.gif profile"
else
	pass "# SKIP .jpg and .gif: needs cjpeg and ppmtogif (libjpeg-turbo-progs, netpbm)"
fi

finish
