#!/bin/bash
# profile_content.sh - profile --content records each extension's content (ext_content) and a
# clone made from it compresses like its source by extension (issue 22 item 2): a synthetic
# tree of repetitive .xml and .h, random .jpg and .dat, text without an extension, real .pyc
# and .mo when the machine has them, record lines (symbol lists, devhelp indexes, signed XML,
# SVG drawings); ratios measured by Python's zlib, which shares no code
# with imprint; .pyc read by python3's marshal, .mo by msgunfmt, types by file(1).
. "${srcdir:-.}/tests/lib.sh"
command -v python3 >/dev/null || { echo "1..0 # SKIP needs python3"; exit 77; }
command -v file >/dev/null || { echo "1..0 # SKIP needs file"; exit 77; }

TOL=0.15 # relative: the issue's goal for ratios

python3 - "$WORK/src" <<'PY'
import glob, os, random, shutil, sys
r = random.Random(11)
root = sys.argv[1]
words = ["alpha", "beta", "gamma", "delta", "value", "name", "item", "config", "entry", "type"]
# documentation prose of a Zipf vocabulary smaller than imprint's text model draws from (as
# Perl's .pod: 29 distinct words per KiB where imprint's prose has about 58)
vocab = ["".join(r.choice("etaoinshrdlucmfwyp") for _ in range(r.randint(2, 9))) for _ in range(1500)]
zipf = [1.0 / (k + 1) for k in range(len(vocab))]
for d in range(12):
    p = os.path.join(root, "d%02d" % d)
    os.makedirs(p)
    for f in range(8):
        # markup with the repetition of real XML: the same elements, a few values (about 10x)
        rows = "".join('  <%s id="%d" kind="%s">%s %s</%s>\n' % (
            w, r.randint(0, 99), r.choice(words), r.choice(words), r.randint(0, 9), w)
            for w in (r.choice(words) for _ in range(r.randint(200, 2000))))
        open(os.path.join(p, "f%d.xml" % f), "w").write("<?xml version=\"1.0\"?>\n<root>\n%s</root>\n" % rows)
        # headers: declarations of a few shapes (about 5x)
        decl = "".join("#define %s_%s_%d 0x%04x\nextern int %s_%s(struct %s *p, unsigned %s);\n" % (
            r.choice(words).upper(), r.choice(words).upper(), r.randint(0, 999), r.randint(0, 65535),
            r.choice(words), r.choice(words), r.choice(words), r.choice(words))
            for _ in range(r.randint(50, 600)))
        open(os.path.join(p, "h%d.h" % f), "w").write("/* header */\n#ifndef H\n#define H\n%s#endif\n" % decl)
        # incompressible media and data
        open(os.path.join(p, "i%d.jpg" % f), "wb").write(r.randbytes(r.randint(20000, 200000)))
        open(os.path.join(p, "b%d.dat" % f), "wb").write(r.randbytes(r.randint(5000, 80000)))
        # tables of code points and names: many distinct words (numbers), as Unicode data files
        base = r.randint(0x1000, 0xF0000)
        tbl = []
        for _ in range(r.randint(300, 3000)):
            base += r.randint(1, 9)
            tbl.append("%04X;%s %s;%s\n" % (base, r.choice(words).upper(), r.choice(words).upper(),
                                              r.choice(["Lu", "Ll", "Nd", "Mn"])))
        open(os.path.join(p, "u%d.tbl" % f), "w").write("".join(tbl))
        open(os.path.join(p, "doc%d.rst" % f), "w").write("\n\n".join(
            " ".join(r.choices(vocab, zipf, k=r.randint(40, 120))) + "."
            for _ in range(r.randint(20, 120))))
        # documentation without an extension
        open(os.path.join(p, "README%d" % f), "w").write(
            "".join("%s %s %s.\n" % (r.choice(words), r.choice(words), r.choice(words))
                    for _ in range(r.randint(100, 800))))
pyc = sorted(glob.glob("/usr/lib/python3*/**/__pycache__/*.pyc", recursive=True))[:60]
mo = sorted(glob.glob("/usr/share/locale/*/LC_MESSAGES/*.mo"))[:60]
os.makedirs(os.path.join(root, "real"))
for i, f in enumerate(pyc + mo):
    shutil.copyfile(f, os.path.join(root, "real", "%d%s" % (i, os.path.splitext(f)[1])))
PY

# a tree's figures by extension: ext gzip text words (zlib -6 of each file's first 1 MiB;
# distinct words per KiB: per file, in its first 128 KiB, words being runs of ASCII letters
# and digits case folded, files weighted by size)
ratios() {
	python3 - "$1" <<'PY'
import os, re, sys, zlib
tok = re.compile(rb"[A-Za-z0-9]+")
tot = {}
for dp, dns, fns in os.walk(sys.argv[1]):
    dns[:] = [d for d in dns if d != "lost+found"]
    for n in fns:
        i = n.rfind(".")
        e = n[i + 1:] if i > 0 else "-"
        b = open(os.path.join(dp, n), "rb").read()[:1 << 20]
        t = tot.setdefault(e, [0, 0, 0, 0, 0.0, 0])
        t[0] += len(b); t[1] += len(zlib.compress(b, 6)); t[2] += 1
        t[3] += b"\0" not in b[:8192]
        h = b[:128 << 10]
        if h:
            size = os.path.getsize(os.path.join(dp, n))
            t[4] += size * 1024.0 * len(set(w.lower() for w in tok.findall(h))) / len(h)
            t[5] += size
for e, t in sorted(tot.items()):
    print(e, "%.4f" % (t[0] / t[1] if t[1] else 0), "%.3f" % (t[3] / t[2]),
          "%.2f" % (t[4] / t[5] if t[5] else 0))
PY
}

if "$IMPRINT" profile --content "$WORK/src" -o "$WORK/p.conf" 2>"$WORK/err"; then
	pass "profile --content of the tree"
else
	fail "profile --content: $(head -c 300 "$WORK/err")"
	finish
fi
# the table's entries, its "+=" lines too
line=" $(sed -n 's/^ext_content +\{0,1\}= //p' "$WORK/p.conf" | tr '\n' ' ')"

for e in xml h jpg dat tbl; do
	case " $line" in
	*" $e:"*) pass "ext_content holds .$e" ;;
	*) fail "no .$e in ext_content: $(echo "$line" | head -c 300)" ;;
	esac
done
case " $line" in
*" :"*) pass "ext_content holds the files without an extension" ;;
*) fail "no extension-less entry in ext_content: $(echo "$line" | head -c 300)" ;;
esac

# without --content: imprint's per-type ratios for the types it has them for, said in the header
if "$IMPRINT" profile "$WORK/src" -o "$WORK/plain.conf" 2>"$WORK/err"; then
	plain=" $(sed -n 's/^ext_content +\{0,1\}= //p' "$WORK/plain.conf" | tr '\n' ' ')"
	case "$plain" in
	*" xml:"*" h:"* | *" h:"*" xml:"*) pass "a profile without --content: defaults for .xml and .h" ;;
	*) fail "no default ext_content for .xml and .h without --content: $plain" ;;
	esac
	case "$plain" in
	*" jpg:"* | *" dat:"*) fail "default ext_content for a type imprint has no ratio of: $plain" ;;
	*) pass "no default for .jpg and .dat (imprint has no ratio of them)" ;;
	esac
	grep -q '^# content by extension without --content' "$WORK/plain.conf" &&
		pass "the header says the ratios are imprint's defaults" ||
		fail "no header line on the default ext_content"
else
	fail "profile without --content: $(head -c 200 "$WORK/err")"
fi

mkdir -p "$WORK/clone"
if "$IMPRINT" create -c "$WORK/p.conf" "$WORK/clone" >/dev/null 2>"$WORK/err"; then
	pass "clone made from the profile"
else
	fail "create: $(head -c 300 "$WORK/err")"
	finish
fi

ratios "$WORK/src" >"$WORK/src.r"
ratios "$WORK/clone" >"$WORK/clone.r"
for e in xml h dat tbl -; do
	s=$(awk -v e="$e" '$1 == e { print $2 }' "$WORK/src.r")
	c=$(awk -v e="$e" '$1 == e { print $2 }' "$WORK/clone.r")
	if [ -n "$s" ] && [ -n "$c" ] &&
		near "$s" "$c" "$TOL"; then
		pass ".$e: clone gzip ratio $c within $TOL of the source's $s"
	else
		fail ".$e: clone gzip ratio '$c' against the source's '$s' (tolerance $TOL)"
	fi
done
# the vocabulary: the sixth figure is the source's distinct words per KiB (measured here by
# Python), and the clone's .tbl (prose made to it) has as many
listed=$(tr ' ' '\n' <<<"$line" | sed -n 's/^tbl:[^/]*\/[^/]*\/[^/]*\/[^/]*\/[^/]*\/\([0-9.]*\)$/\1/p')
s=$(awk '$1 == "tbl" { print $4 }' "$WORK/src.r")
[ -n "$listed" ] && [ -n "$s" ] && awk -v a="$listed" -v b="$s" 'BEGIN { exit !(a / b - 1 <= 0.02 && b / a - 1 <= 0.02) }' &&
	pass ".tbl: ext_content's distinct words per KiB $listed, Python counts $s" ||
	fail ".tbl: ext_content lists distinct words per KiB '$listed', Python counts '$s'"
c=$(awk '$1 == "tbl" { print $4 }' "$WORK/clone.r")
if [ -n "$s" ] && [ -n "$c" ] &&
	near "$s" "$c" "$TOL"; then
	pass ".tbl: clone distinct words per KiB $c within $TOL of the source's $s"
else
	fail ".tbl: clone distinct words per KiB '$c' against the source's '$s' (tolerance $TOL)"
fi
# a profile made before the figure (five figures an entry) loads, and its clone keeps the
# format's own vocabulary: fewer distinct words in .tbl
sed -E '/^ext_content/s#(:[^/ ]+/[^/ ]+/[^/ ]+/[^/ ]+/[^/ ]+)/[0-9.]+#\1#g' "$WORK/p.conf" >"$WORK/old.conf"
grep -q 'tbl:[^/ ]*/[^/ ]*/[^/ ]*/[^/ ]*/[^/ ]* ' "$WORK/old.conf" || grep -q 'tbl:[^/ ]*/[^/ ]*/[^/ ]*/[^/ ]*/[^/ ]*$' "$WORK/old.conf" ||
	fail "the five-figure profile still has six figures for .tbl"
mkdir -p "$WORK/oldclone"
if "$IMPRINT" create -c "$WORK/old.conf" "$WORK/oldclone" >/dev/null 2>"$WORK/err"; then
	o=$(ratios "$WORK/oldclone" | awk '$1 == "tbl" { print $4 }')
	[ -n "$o" ] && awk -v o="$o" -v c="$c" 'BEGIN { exit !(o < c * 0.8) }' &&
		pass "a five-figure profile loads; its .tbl has $o distinct words per KiB (with the figure: $c)" ||
		fail "five-figure profile: .tbl distinct words per KiB '$o' against '$c' with the figure"
else
	fail "create from a five-figure profile: $(head -c 300 "$WORK/err")"
fi

# a vocabulary below the format's own: .rst prose of a smaller Zipf vocabulary; the clone
# draws words again (gen_file.narrow) down to the source's distinct words per KiB, and keeps
# the ratio, where the five-figure profile's clone keeps the format's own, far above
s=$(awk '$1 == "rst" { print $4 }' "$WORK/src.r")
c=$(awk '$1 == "rst" { print $4 }' "$WORK/clone.r")
o=$(ratios "$WORK/oldclone" | awk '$1 == "rst" { print $4 }')
if [ -n "$s" ] && [ -n "$c" ] && [ -n "$o" ] &&
	awk -v s="$s" -v c="$c" -v o="$o" -v t="$TOL" 'BEGIN { d = c / s - 1; exit !(d <= t && d >= -t && o > s * (1 + 2 * t)) }'; then
	pass ".rst: clone distinct words per KiB $c within $TOL of the source's $s (five-figure profile: $o)"
else
	fail ".rst: clone distinct words per KiB '$c' against the source's '$s', five-figure '$o' (tolerance $TOL)"
fi
s=$(awk '$1 == "rst" { print $2 }' "$WORK/src.r")
c=$(awk '$1 == "rst" { print $2 }' "$WORK/clone.r")
[ -n "$s" ] && [ -n "$c" ] && near "$s" "$c" "$TOL" &&
	pass ".rst: clone gzip ratio $c within $TOL of the source's $s with fewer words" ||
	fail ".rst: clone gzip ratio '$c' against the source's '$s' (tolerance $TOL)"

# a second small tree: text notes sharing 4 KiB-aligned blocks, and files equal to files of
# another extension (kept apart: the first tree's plan and its predictions stay as they are)
python3 - "$WORK/src2" <<'PY'
import os, random, sys
root = sys.argv[1]
words = ["alpha", "beta", "gamma", "delta", "value", "name", "item", "config", "entry", "type"]
# notes sharing 4 KiB-aligned blocks: half of them hold one of three licence blocks at their
# second block (a share of about 0.1 of their full blocks)
r2 = random.Random(12)
def note(n):
    return "".join("%s %s %s %d.\n" % (r2.choice(words), r2.choice(words), r2.choice(words),
                                       r2.randint(0, 99999)) for _ in range(n)).encode()
lic = [note(400)[:4096] for _ in range(3)]
os.makedirs(os.path.join(root, "notes"))
for f in range(64):
    body = note(r2.randint(300, 1200))
    if f % 2 == 0:
        body = body[:4096] + lic[r2.randrange(3)] + body[4096:]
    open(os.path.join(root, "notes", "n%d.txt" % f), "wb").write(body)
# the same three files under two extensions (and one of each's own): no copies of their
# own extension (issue 22: an empty .pdf was counted a copy of empty files of others)
os.makedirs(os.path.join(root, "twins"))
for f in range(3):
    body = note(300)
    for e in ("md", "ini"):
        open(os.path.join(root, "twins", "t%d.%s" % (f, e)), "wb").write(body)
for e in ("md", "ini"):
    open(os.path.join(root, "twins", "own.%s" % e), "wb").write(note(300))
PY
if "$IMPRINT" profile --content "$WORK/src2" -o "$WORK/p2.conf" 2>"$WORK/err" &&
	mkdir -p "$WORK/clone2" && "$IMPRINT" create -c "$WORK/p2.conf" "$WORK/clone2" >/dev/null 2>"$WORK/err"; then
	pass "profile --content of the second tree, and its clone"
else
	fail "second tree: $(head -c 300 "$WORK/err")"
fi
line2=" $(sed -n 's/^ext_content +\{0,1\}= //p' "$WORK/p2.conf" | tr '\n' ' ')"

# duplicate 4 KiB blocks of a text extension: the clone's .txt repeats blocks at the share the
# profile lists (the source's, by Python's sha1 of the full blocks of distinct files), and
# plan --report predicts it
dupblocks() {
	python3 - "$1" "$2" <<'PY'
import hashlib, os, sys
seen, files, n = {}, set(), 0
for dp, dns, fns in os.walk(sys.argv[1]):
    for f in fns:
        if f.endswith("." + sys.argv[2]):
            b = open(os.path.join(dp, f), "rb").read()
            if hashlib.sha256(b).digest() in files:
                continue
            files.add(hashlib.sha256(b).digest())
            for o in range(0, len(b) - 4095, 4096):
                h = hashlib.sha1(b[o:o + 4096]).digest()
                seen[h] = seen.get(h, 0) + 1
                n += 1
print("%.4f" % (sum(c for c in seen.values() if c > 1) / n if n else 0))
PY
}
s=$(dupblocks "$WORK/src2" txt)
c=$(dupblocks "$WORK/clone2" txt)
listed=$(tr ' ' '\n' <<<"$line2" | sed -n 's/^txt:[^/]*\/[^/]*\/\([^/]*\)\/.*/\1/p')
if awk -v s="$s" -v c="$c" -v l="$listed" 'BEGIN { exit !(s > 0.05 && l - s <= 0.001 && s - l <= 0.001 &&
	c - s <= 0.02 && s - c <= 0.02) }'; then
	pass ".txt: clone duplicate blocks $c against the source's $s (listed $listed)"
else
	fail ".txt: clone duplicate blocks '$c' against the source's '$s' (listed '$listed', within 0.02)"
fi
t=$(ratios "$WORK/clone2" | awk '$1 == "txt" { print $3 }')
[ "$t" = "1.000" ] && pass ".txt: the clone's files with duplicate blocks are still text" ||
	fail ".txt: text share '$t' in the clone"
p=$("$IMPRINT" plan --report -c "$WORK/p2.conf" 2>"$WORK/err" | awk '$1 == "txt" && NF == 6 { print $6 }')
[ -n "$p" ] && awk -v p="$p" -v l="$listed" 'BEGIN { exit !(p - l <= 0.01 && l - p <= 0.01) }' &&
	pass ".txt: plan --report predicts duplicate blocks $p (listed $listed)" ||
	fail ".txt: plan --report predicts duplicate blocks '$p' (listed '$listed')"

# a copy counts for its extension when the file it copies has that extension too
twins=$(tr ' ' '\n' <<<"$line2" | sed -n 's/^\(md\|ini\):[^/]*\/\([^/]*\)\/.*/\1:\2/p' | sort | tr '\n' ' ')
[ "$twins" = "ini:0 md:0 " ] && pass "files equal to files of another extension: no copies of their own ($twins)" ||
	fail "files equal to files of another extension: duplicate-file shares '$twins', wanted ini:0 md:0"

# .mo: the clone's catalogues at the ratio of the real ones they clone (their text recurs)
s=$(awk '$1 == "mo" { print $2 }' "$WORK/src.r")
c=$(awk '$1 == "mo" { print $2 }' "$WORK/clone.r")
if [ -z "$s" ]; then
	echo "# no .mo on this machine: mo ratio skipped"
elif [ -n "$c" ] && near "$s" "$c" "$TOL"; then
	pass ".mo: clone gzip ratio $c within $TOL of the source's $s"
else
	fail ".mo: clone gzip ratio '$c' against the source's '$s' (tolerance $TOL)"
fi

c=$(awk '$1 == "jpg" { print $2 }' "$WORK/clone.r")
[ -n "$c" ] && awk -v c="$c" 'BEGIN { exit !(c <= 1.05) }' &&
	pass ".jpg: clone gzip ratio $c at most 1.05 (source random)" ||
	fail ".jpg: clone gzip ratio '$c' above 1.05"
t=$(awk '$1 == "-" { print $3 }' "$WORK/clone.r")
[ "$t" = "1.000" ] && pass "files without an extension are text in the clone as in the source" ||
	fail "files without an extension: text share '$t' in the clone"

if grep -q ' pyc:' <<<"$line"; then
	find "$WORK/clone" -name '*.pyc' >"$WORK/pyc.list"
	if python3 - "$WORK/pyc.list" <<'PY' >"$WORK/pyc.out" 2>&1; then
import importlib.util, marshal, sys
n = 0
for p in open(sys.argv[1]).read().split():
    b = open(p, "rb").read()
    assert b[:4] == importlib.util.MAGIC_NUMBER or sys.version_info[:2] != (3, 11), p
    if len(b) < 128:
        continue
    code = marshal.loads(b[16:])
    assert type(code).__name__ == "code", p
    exec(code, {})
    n += 1
assert n > 0
print(n)
PY
		pass ".pyc: $(cat "$WORK/pyc.out") clone files loaded by marshal and run"
	else
		fail ".pyc: $(tail -c 300 "$WORK/pyc.out")"
	fi
	bad=$(head -50 "$WORK/pyc.list" | xargs -r file -b | grep -ivc 'byte-compiled')
	[ "$bad" = 0 ] && pass ".pyc: file(1) names every one byte-compiled Python" ||
		fail ".pyc: $bad of 50 not named byte-compiled by file(1)"
else
	echo "# no .pyc on this machine: pyc checks skipped"
fi

if grep -q ' mo:' <<<"$line" && command -v msgunfmt >/dev/null; then
	bad=0
	n=0
	for f in $(find "$WORK/clone" -name '*.mo' | head -40); do
		n=$((n + 1))
		msgunfmt "$f" >/dev/null 2>&1 || bad=$((bad + 1))
	done
	[ "$n" -gt 0 ] && [ "$bad" = 0 ] && pass ".mo: msgunfmt reads all $n clone catalogues" ||
		fail ".mo: msgunfmt failed on $bad of $n"
else
	echo "# no .mo or no msgunfmt on this machine: mo checks skipped"
fi

# a clone of the profile made without --content: .h at the ratio the profile lists for it
want=$(sed -n 's/^ext_content +\{0,1\}= //p' "$WORK/plain.conf" | tr ' ' '\n' | sed -n 's/^h:\([0-9.]*\)\/.*/\1/p')
mkdir -p "$WORK/plainclone"
if [ -n "$want" ] && "$IMPRINT" create -c "$WORK/plain.conf" "$WORK/plainclone" >/dev/null 2>"$WORK/err"; then
	c=$(ratios "$WORK/plainclone" | awk '$1 == "h" { print $2 }')
	[ -n "$c" ] && near "$want" "$c" "$TOL" &&
		pass ".h of the plain profile's clone: gzip ratio $c within $TOL of the listed $want" ||
		fail ".h of the plain profile's clone: gzip ratio '$c' against the listed '$want'"
else
	fail "clone of the plain profile (h ratio '$want'): $(head -c 200 "$WORK/err")"
fi

# the plain profile's duplicate files: per type as ext_content lists them, the other files at
# the share the header names, dup_file_share what those make of the source's files; its clone
# holds them (files whose sha256 another file of the extension has, counted by Python)
dups() {
	python3 - "$1" <<'PY'
import hashlib, os, sys
by = {}
for dp, dns, fns in os.walk(sys.argv[1]):
    dns[:] = [d for d in dns if d != "lost+found"]
    for n in fns:
        i = n.rfind(".")
        h = hashlib.sha256(open(os.path.join(dp, n), "rb").read()).digest()
        by.setdefault(n[i + 1:] if i > 0 else "-", []).append(h)
for e, hs in sorted(by.items()):
    print(e, len(hs), len(hs) - len(set(hs)))
PY
}
dups "$WORK/src" >"$WORK/src.d"
dups "$WORK/plainclone" >"$WORK/plain.d"
other=$(sed -n 's/^# content by extension without --content.*other extensions (\([0-9.]*\)).*/\1/p' "$WORK/plain.conf")
got=$(sed -n 's/^dup_file_share = //p' "$WORK/plain.conf")
sed -n 's/^ext_content +\{0,1\}= //p' "$WORK/plain.conf" | tr ' ' '\n' |
	sed -n 's/^\([^:]*\):[^/]*\/\([0-9.e-]*\)\/.*/\1 \2/p' >"$WORK/plain.shares"
want=$(awk -v o="$other" 'NR == FNR { s[$1] = $2; next }
	{ n += $2; c += ($1 in s ? s[$1] : o) * $2 } END { if (n) printf "%.4f", c / n }' \
	"$WORK/plain.shares" "$WORK/src.d")
hs=$(awk '$1 == "h" { print $2 }' "$WORK/plain.shares")
if [ -n "$other" ] && [ -n "$got" ] && [ -n "$hs" ] && awk -v a="$got" -v b="$want" -v h="$hs" \
	-v o="$other" 'BEGIN { exit !(a - b <= 0.0001 && b - a <= 0.0001 && h > 0.2 && o < 0.1) }'; then
	pass "plain profile: dup_file_share $got from the per-type shares (.h $hs) and the others' $other"
else
	fail "plain profile: dup_file_share '$got' against '$want' from ext_content and the others' '$other' (.h '$hs')"
fi
c=$(awk '$1 == "h" { printf "%.4f %d", $3 / $2, $2 }' "$WORK/plain.d")
if [ -n "$c" ] && awk -v c="${c% *}" -v n="${c#* }" -v s="$hs" \
	'BEGIN { d = c - s; exit !(d <= 0.01 + 0.5 / n && d >= -0.01 - 0.5 / n) }'; then
	pass ".h of the plain profile's clone: duplicate files ${c% *} of ${c#* } against the listed $hs"
else
	fail ".h of the plain profile's clone: duplicate files '$c' against the listed '$hs'"
fi
c=$(awk '{ n += $2; d += $3 } END { if (n) printf "%.4f", d / n }' "$WORK/plain.d")
[ -n "$c" ] && awk -v c="$c" -v s="$got" 'BEGIN { exit !(c - s <= 0.01 && s - c <= 0.01) }' &&
	pass "the plain profile's clone: duplicate files $c of all against dup_file_share $got" ||
	fail "the plain profile's clone: duplicate files '$c' of all against dup_file_share '$got'"

# plan --report's target for other binary's ratio is what ext_content makes of it (the listed
# extensions' ratios by bytes), not compress_ratio, which only the unlisted ones follow: set
# far off, it must not turn a reachable prediction into a predicted miss
if "$IMPRINT" plan --report -c "$WORK/p.conf" --set compress_ratio=5 >"$WORK/rep" 2>"$WORK/err"; then
	row=$(grep -m 1 '^  compress_ratio zlib ' "$WORK/rep")
	if awk -v t="$(awk '{ print $3 }' <<<"$row")" -v p="$(awk '{ print $4 }' <<<"$row")" \
		'BEGIN { exit !(t < 4.75 && p > 0 && p / t - 1 <= 0.05 && t / p - 1 <= 0.05) }' &&
		grep -q ' ok$' <<<"$row"; then
		pass "plan --report: other binary's ratio target from ext_content ($row)"
	else
		fail "plan --report with ext_content and compress_ratio=5: '$row'"
	fi
else
	fail "plan --report: $(head -c 300 "$WORK/err")"
fi

# a third tree: Markdown notes with few distinct words per KiB and a high ratio, as
# /usr/share/doc's .md and .html (a Zipf vocabulary of 5,000 words, sentences that recur
# within their file).  The clone must have both: the words were calibrated after the ratio
# once, and the ratio's last step took them back down (9.3 against 14.9 here)
python3 - "$WORK/src3" <<'PY'
import os, random, sys
r = random.Random(1)
root = sys.argv[1]
vocab = ["".join(r.choice("etaoinshrdlucmfwypvbgk") for _ in range(r.randint(2, 10))) for _ in range(5000)]
zipf = [1.0 / (k + 1) for k in range(len(vocab))]
os.makedirs(root)
for f in range(48):
    said = []
    out = ["# " + " ".join(r.choices(vocab, zipf, k=4)) + "\n\n"]
    n = int(r.choice([600, 2000, 8000, 30000, 120000]) * r.uniform(0.7, 1.3))
    size = 0
    while size < n:
        if said and r.random() < 0.7:
            s = r.choice(said)
        else:
            s = " ".join(r.choices(vocab, zipf, k=r.randint(6, 18))).capitalize() + "."
            said.append(s)
        if r.random() < 0.1:
            s = "\n## " + s[:-1] + "\n\n"
        elif r.random() < 0.15:
            s = "\n- " + s
        else:
            s = s + " "
        out.append(s)
        size += len(s)
    open(os.path.join(root, "n%02d.md" % f), "w").write("".join(out))
PY
if "$IMPRINT" profile --content "$WORK/src3" -o "$WORK/p3.conf" 2>"$WORK/err" &&
	mkdir -p "$WORK/clone3" && "$IMPRINT" create -c "$WORK/p3.conf" "$WORK/clone3" >/dev/null 2>"$WORK/err"; then
	ratios "$WORK/src3" >"$WORK/src3.r"
	ratios "$WORK/clone3" >"$WORK/clone3.r"
	s=$(awk '$1 == "md" { print $4 }' "$WORK/src3.r")
	c=$(awk '$1 == "md" { print $4 }' "$WORK/clone3.r")
	if [ -n "$s" ] && [ -n "$c" ] &&
		near "$s" "$c" "$TOL"; then
		pass ".md notes: clone distinct words per KiB $c within $TOL of the source's $s"
	else
		fail ".md notes: clone distinct words per KiB '$c' against the source's '$s' (tolerance $TOL)"
	fi
	s=$(awk '$1 == "md" { print $2 }' "$WORK/src3.r")
	c=$(awk '$1 == "md" { print $2 }' "$WORK/clone3.r")
	[ -n "$s" ] && [ -n "$c" ] && near "$s" "$c" "$TOL" &&
		pass ".md notes: clone gzip ratio $c within $TOL of the source's $s with the words" ||
		fail ".md notes: clone gzip ratio '$c' against the source's '$s' (tolerance $TOL)"
else
	fail "third tree: $(head -c 300 "$WORK/err")"
fi

# record lines (text/lines.c): a fourth tree of what the text formats cannot make, 8 files each
# of 30-60 KB: symbol lists (.amd64, Debian's ABI baselines: gzip -6 9.0, where prose tops out
# near 3.6), devhelp indexes (.devhelp2, XML that imprint's table has as other binary: 7.1),
# signed XML of base64 digests (.xml: 1.86, below the xml format's least, about 2.9) and SVG
# drawings of styled boxes (.svg: 8.6, above it).  The clone's gzip -6 and zstd -3 ratios and
# distinct words per KiB within 15% of the source's, xmllint accepts its XML and SVG, file(1)
# names them as the source's, -j1 and -j2 images the same.
python3 - "$WORK/src4" <<'PY'
import base64, os, random, sys
r = random.Random(22)
root = sys.argv[1]
os.makedirs(root)
syl = ["ab", "co", "de", "fi", "gu", "ha", "ke", "li", "mo", "nu", "pe", "ra", "si", "to", "ve", "xa", "ze"]
def word(rr, lo=2, hi=5):
    return "".join(rr.choice(syl) for _ in range(rr.randint(lo, hi)))
# symbol lists (.amd64: Debian's ABI baselines): sorted mangled names, their versions
for i in range(8):
    rr = random.Random(10 + i)
    classes = [word(rr) for _ in range(12)]
    out = []
    while sum(map(len, out)) < rr.randint(30000, 60000):
        c = rr.choice(classes)
        out.append("%s:_ZNSt%d%s%d%sE%s@@GLIBCXX_3.4.%d\n" % (rr.choice(["FUNC", "FUNC", "OBJECT"]),
                   len(c), c, rr.randint(1, 3), rr.choice(syl), rr.choice(["v", "Ev", "RKS_", "PKc"]), rr.randint(9, 32)))
    out.sort()
    open(os.path.join(root, "s%d.amd64" % i), "w").write("".join(out))
# devhelp indexes: one keyword a function, its name twice
for i in range(8):
    rr = random.Random(30 + i)
    lib = word(rr)
    mods = [word(rr) for _ in range(12)]
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<book xmlns="http://www.devhelp.net/book" title="%s Reference Manual" link="index.html" name="%s">\n  <functions>\n' % (lib, lib)]
    while sum(map(len, out)) < rr.randint(30000, 60000):
        m = rr.choice(mods)
        n = lib + word(rr).capitalize() + word(rr).capitalize()
        out.append('    <keyword type="%s" name="%s ()" link="%s-%s.html#%s"/>\n' % (rr.choice(["function", "function", "macro", "struct"]), n, lib, m, n))
    out.append("  </functions>\n</book>\n")
    open(os.path.join(root, "b%d.devhelp2" % i), "w").write("".join(out))
# signed XML: digests, signature values and certificates in base64
for i in range(8):
    rr = random.Random(50 + i)
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<Envelope xmlns="urn:envelope">\n']
    while sum(map(len, out)) < rr.randint(30000, 60000):
        b = base64.b64encode(rr.randbytes(rr.randint(60, 240))).decode()
        out.append('  <Signature Id="s%d">\n    <DigestValue>%s</DigestValue>\n    <SignatureValue>\n%s\n    </SignatureValue>\n  </Signature>\n'
                   % (rr.randint(1, 99999), base64.b64encode(rr.randbytes(20)).decode(), "\n".join(b[k:k + 64] for k in range(0, len(b), 64))))
    out.append("</Envelope>\n")
    open(os.path.join(root, "x%d.xml" % i), "w").write("".join(out))
# drawings exported by a tool: styled boxes with labels
for i in range(8):
    rr = random.Random(70 + i)
    cols = ["#%06x" % rr.getrandbits(24) for _ in range(5)]
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<svg width="65cm" height="24cm" viewBox="0 0 1300 480" xmlns="http://www.w3.org/2000/svg">\n']
    while sum(map(len, out)) < rr.randint(30000, 60000):
        x, y = rr.randint(0, 1300), rr.randint(0, 480)
        out.append('  <g>\n    <rect style="fill: %s; fill-opacity: 1; stroke-opacity: 1; stroke-width: 2; stroke: #000000" x="%d" y="%d" width="%d" height="54" rx="0" ry="0"/>\n'
                   '    <text font-size="12.8" style="fill: #000000; fill-opacity: 1; stroke: none;text-anchor:middle;font-family:sans-serif" x="%d" y="%.3f">\n'
                   '      <tspan x="%d" y="%.3f">%s:%s %d</tspan>\n    </text>\n  </g>\n'
                   % (rr.choice(cols), x, y, rr.randint(4, 30) * 10, x + 70, y + rr.random() * 20, x + 70, y + rr.random() * 20, word(rr), rr.choice(["all", "any", "none"]), rr.getrandbits(40)))
    out.append("</svg>\n")
    open(os.path.join(root, "g%d.svg" % i), "w").write("".join(out))
PY
if "$IMPRINT" profile --content "$WORK/src4" -o "$WORK/p4.conf" 2>"$WORK/err" &&
	mkdir -p "$WORK/clone4" && "$IMPRINT" create -c "$WORK/p4.conf" "$WORK/clone4" >/dev/null 2>"$WORK/err"; then
	zs=--no-zstd ks="gzip words"
	command -v zstd >/dev/null && zs= ks="gzip zstd words"
	python3 "${srcdir:-.}/tests/content_by_ext.py" "$WORK/src4" $zs >"$WORK/src4.m"
	python3 "${srcdir:-.}/tests/content_by_ext.py" "$WORK/clone4" $zs >"$WORK/clone4.m"
	for e in amd64 devhelp2 xml svg; do
		for k in $ks; do
			s=$(ext_fig "$WORK/src4.m" $e $k)
			c=$(ext_fig "$WORK/clone4.m" $e $k)
			if [ -n "$s" ] && [ -n "$c" ] &&
				near "$s" "$c" "$TOL"; then
				pass ".$e lines: clone $k $c within $TOL of the source's $s"
			else
				fail ".$e lines: clone $k '$c' against the source's '$s' (tolerance $TOL)"
			fi
		done
	done
	if command -v xmllint >/dev/null; then
		xmllint --noout "$WORK"/clone4/*.xml "$WORK"/clone4/*.svg "$WORK"/clone4/*.devhelp2 2>"$WORK/xl.err" &&
			pass "xmllint accepts the clone's .xml, .svg and .devhelp2" ||
			fail "xmllint: $(head -c 300 "$WORK/xl.err")"
	fi
	bad=
	for f in "$WORK"/clone4/*; do
		case $f in
		*.amd64) want='^ASCII text' ;;
		*.svg) want='^SVG Scalable Vector Graphics image' ;;
		*) want='^XML 1.0 document' ;;
		esac
		file -b "$f" | grep -q "$want" || bad="$bad $(basename "$f"):$(file -b "$f")"
	done
	[ -z "$bad" ] && pass "file(1) names every clone file of the fourth tree as its source's" ||
		fail "file(1) of the fourth tree's clone:$bad"
	same_jobs "$WORK/p4.conf" "the fourth tree's profile"
else
	fail "fourth tree: $(head -c 300 "$WORK/err")"
fi

# An extension of a few small files (three .py of 0.5-0.9 KB: each tree's plan has them at
# their own sizes) is calibrated on the very bytes its clone holds, made with the clone's
# keys: the clone's ratios and words within TOL_FEW (the bisection's step and the words' 1%
# stop).  With keys of the calibration's own (main before this check), these two trees'
# clones were +8% gzip, +10% zstd, -10% and -7% words off (/usr/share/doc's .perl: -25%
# words).  Their clones compile, as the source does.
TOL_FEW=0.04
for seed in 4 5; do
	mkdir -p "$WORK/src5.$seed" "$WORK/clone5.$seed"
	python3 - "$WORK/src5.$seed" "$seed" <<'PY'
import os, random, sys
root, r = sys.argv[1], random.Random(int(sys.argv[2]))
vocab = ["".join(r.choice("etaoinshrdlucmfwyp") for _ in range(r.randint(3, 9))) for _ in range(400)]
for f in range(3):
    out = ["#!/usr/bin/env python3", '"""%s."""' % " ".join(r.choices(vocab, k=12)),
           "import os", "import sys", ""]
    for _ in range(r.randint(1, 3)):
        fn, a, b = r.sample(vocab, 3)
        out += ["", "def %s(%s, %s=%d):" % (fn, a, b, r.randint(0, 99)),
                '    """%s."""' % " ".join(r.choices(vocab, k=r.randint(4, 15)))]
        for _ in range(r.randint(2, 8)):
            out.append("    %s = %s(%s, %r)" % (r.choice(vocab), r.choice(vocab), a, r.choice(vocab)))
        out.append("    return %s" % b)
    open(os.path.join(root, "m%d.py" % f), "w").write("\n".join(out) + "\n")
PY
	if ! "$IMPRINT" profile --content "$WORK/src5.$seed" -o "$WORK/p5.$seed.conf" 2>"$WORK/err" ||
		! "$IMPRINT" create -c "$WORK/p5.$seed.conf" "$WORK/clone5.$seed" >/dev/null 2>"$WORK/err"; then
		fail "few .py (tree $seed): $(head -c 300 "$WORK/err")"
		continue
	fi
	zs=--no-zstd ks="gzip words"
	command -v zstd >/dev/null && zs= ks="gzip zstd words"
	python3 "${srcdir:-.}/tests/content_by_ext.py" "$WORK/src5.$seed" $zs >"$WORK/src5.m"
	python3 "${srcdir:-.}/tests/content_by_ext.py" "$WORK/clone5.$seed" $zs >"$WORK/clone5.m"
	for k in $ks; do
		s=$(ext_fig "$WORK/src5.m" py $k)
		c=$(ext_fig "$WORK/clone5.m" py $k)
		if [ -n "$s" ] && [ -n "$c" ] &&
			near "$s" "$c" "$TOL_FEW"; then
			pass "few .py (tree $seed): clone $k $c within $TOL_FEW of the source's $s"
		else
			fail "few .py (tree $seed): clone $k '$c' against the source's '$s' (tolerance $TOL_FEW)"
		fi
	done
	if python3 - "$WORK/clone5.$seed" 2>"$WORK/err" <<'PY'
import glob, sys
fs = glob.glob(sys.argv[1] + "/**/*.py", recursive=True)
assert fs, "no .py in the clone"
for f in fs:
    compile(open(f, "rb").read(), f, "exec")
PY
	then
		pass "few .py (tree $seed): the clone's .py compile"
	else
		fail "few .py (tree $seed): $(tail -c 300 "$WORK/err")"
	fi
done

# Go source below the code generator's floor (text/code.c's variety): a fifth tree of six .go
# files of 20-60 KB with many distinct names, string literals and comments, as hand-written
# Go has them (gzip -6 about 2.5; /usr/share/doc's .go: 2.36).  Without recurrence the
# generator's Go compresses to about 3.2 at these sizes (its few name words and its statements
# without a name, `if err != nil { return nil, err }`): main's clone was +28% gzip, +28% zstd.
# The clone's gzip -6 and zstd -3 ratios within 15% of the source's, its braces, brackets and
# parentheses balanced in every file, gofmt (where installed) parses it, -j1 and -j2 images
# the same.
python3 - "$WORK/src6" <<'PY'
import os, random, sys
root, r = sys.argv[1], random.Random(22)
os.makedirs(root)
syl = ["ba", "ce", "di", "fo", "gu", "ha", "je", "ki", "lo", "mu", "na", "pe", "qi", "ro", "su", "ta",
       "ve", "wo", "xi", "yu", "za", "bre", "cla", "dro", "fli", "gra", "ple", "sto", "tru", "spa", "nth",
       "rk", "st", "ng", "ck"]
vocab = ["".join(r.choice(syl) for _ in range(r.randint(1, 4))) for _ in range(6000)]
def w():
    return r.choice(vocab)
def camel():
    p = [w() for _ in range(r.randint(1, 3))]
    return p[0] + "".join(x.capitalize() for x in p[1:])
def pascal():
    return "".join(w().capitalize() for _ in range(r.randint(1, 3)))
def sentence():
    s = " ".join(w() for _ in range(r.randint(5, 16)))
    return s[0].upper() + s[1:] + "."
def typ():
    return r.choice(["int", "string", "[]byte", "bool", "error", "int64", "uint32", "float64",
                     "time.Duration", "map[string]string", "*" + pascal(), pascal()])
def expr(vs, nk=7):
    k = r.randrange(nk)
    if k == 0: return str(r.randint(0, 99999))
    if k == 1: return '"%s"' % " ".join(w() for _ in range(r.randint(1, 6)))
    if k == 2: return "%s.%s(%s)" % (r.choice(vs), pascal(), ", ".join(r.sample(vs, min(len(vs), r.randint(0, 2)))))
    if k == 3: return "%s(%s, %d)" % (camel(), r.choice(vs), r.randint(0, 4096))
    if k == 4: return '%s["%s"]' % (r.choice(vs), w())
    if k == 5: return "0x%x" % r.getrandbits(r.choice([16, 32, 48]))
    return "&%s{%s: %s}" % (pascal(), pascal(), r.choice(vs))
def stmt(vs, ind):
    t = "\t" * ind
    k = r.randrange(10)
    if k == 0:
        v = camel(); vs.append(v)
        return ["%s%s := %s" % (t, v, expr(vs))]
    if k == 1: return ["%s%s = %s" % (t, r.choice(vs), expr(vs))]
    if k == 2:
        return ['%sif err := %s.%s(%s); err != nil {' % (t, r.choice(vs), pascal(), r.choice(vs)),
                '%s\treturn fmt.Errorf("%s %%s: %%v", %s, err)' % (t, " ".join(w() for _ in range(r.randint(1, 4))), r.choice(vs)), t + "}"]
    if k == 3: return ["%s// %s" % (t, sentence())]
    if k == 4: return ['%slog.Printf("%s: %%v", %s)' % (t, " ".join(w() for _ in range(r.randint(2, 6))), r.choice(vs))]
    if k == 5 and ind < 3:
        v = camel()
        out = ["%sfor %s, %s := range %s {" % (t, "_" if r.random() < .5 else camel(), v, r.choice(vs))]
        for _ in range(r.randint(1, 3)): out += stmt(vs + [v], ind + 1)
        return out + [t + "}"]
    if k == 6 and ind < 3:
        out = ["%sif %s %s %s {" % (t, r.choice(vs), r.choice(["==", "!=", "<", ">="]), expr(vs, 6))]
        for _ in range(r.randint(1, 3)): out += stmt(list(vs), ind + 1)
        return out + [t + "}"]
    if k == 7: return ["%s%s.%s = %s" % (t, r.choice(vs), pascal(), expr(vs))]
    return ["%s%s(%s)" % (t, r.choice(["defer ", "go ", ""]) + camel(), ", ".join(expr(vs) for _ in range(r.randint(0, 3))))]
for f in range(6):
    size = r.randint(20000, 60000)
    out = ["// Copyright %d The %s Authors. All rights reserved." % (r.randint(2009, 2024), pascal()),
           "// Use of this source code is governed by a BSD-style",
           "// license that can be found in the LICENSE file.", "",
           "// Package %s %s" % (w(), sentence()), "package %s" % w(), "", "import ("]
    out += ['\t"%s"' % p for p in sorted(r.sample(["bufio", "bytes", "context", "crypto/sha256",
            "encoding/json", "errors", "flag", "fmt", "io", "log", "net", "net/http", "net/url", "os",
            "os/exec", "path/filepath", "sort", "strconv", "strings", "sync", "time"], r.randint(3, 9)))]
    out += [")", ""]
    while sum(len(x) + 1 for x in out) < size:
        k = r.randrange(4)
        if k == 0:
            name = pascal()
            out += ["// %s %s" % (name, sentence()), "type %s struct {" % name]
            out += ["\t%s %s `json:\"%s\"`" % (pascal(), typ(), w()) for _ in range(r.randint(2, 8))]
            out += ["}", ""]
        elif k == 1:
            out += ["const ("] + ["\t%s = %s" % (pascal(), r.choice([str(r.randint(0, 1 << 20)), '"%s"' % w()]))
                                 for _ in range(r.randint(2, 6))] + [")", ""]
        else:
            name = r.choice([camel(), pascal()])
            ps = [camel() for _ in range(r.randint(0, 3))]
            recv = "(%s *%s) " % (w()[0], pascal()) if r.random() < .5 else ""
            out += ["// %s %s" % (name, sentence()),
                    "func %s%s(%s) %s {" % (recv, name, ", ".join("%s %s" % (p, typ()) for p in ps),
                                            r.choice(["error", typ(), "(%s, error)" % typ()]))]
            vs = ps or [camel()]
            for _ in range(r.randint(3, 12)): out += stmt(vs, 1)
            out += ["\treturn %s" % r.choice(["nil", r.choice(vs), "%s, nil" % r.choice(vs)]), "}", ""]
    open(os.path.join(root, "%s.go" % w()), "w").write("\n".join(out) + "\n")
PY
if "$IMPRINT" profile --content "$WORK/src6" -o "$WORK/p6.conf" 2>"$WORK/err" &&
	mkdir -p "$WORK/clone6" && "$IMPRINT" create -c "$WORK/p6.conf" "$WORK/clone6" >/dev/null 2>"$WORK/err"; then
	zs=--no-zstd ks=gzip
	command -v zstd >/dev/null && zs= ks="gzip zstd"
	python3 "${srcdir:-.}/tests/content_by_ext.py" "$WORK/src6" $zs >"$WORK/src6.m"
	python3 "${srcdir:-.}/tests/content_by_ext.py" "$WORK/clone6" $zs >"$WORK/clone6.m"
	for k in $ks; do
		s=$(ext_fig "$WORK/src6.m" go $k)
		c=$(ext_fig "$WORK/clone6.m" go $k)
		if [ -n "$s" ] && [ -n "$c" ] &&
			near "$s" "$c" "$TOL"; then
			pass ".go: clone $k $c within $TOL of the source's $s"
		else
			fail ".go: clone $k '$c' against the source's '$s' (tolerance $TOL)"
		fi
	done
	if python3 - "$WORK/clone6" 2>"$WORK/err" <<'PY'
import glob, sys
fs = glob.glob(sys.argv[1] + "/**/*.go", recursive=True)
assert len(fs) == 6, "%d .go in the clone, not 6" % len(fs)
for f in fs:
    depth = {"{": 0, "(": 0, "[": 0}
    close = {"}": "{", ")": "(", "]": "["}
    for c in open(f).read():
        if c in depth:
            depth[c] += 1
        elif c in close:
            depth[close[c]] -= 1
            assert depth[close[c]] >= 0, "%s: a '%s' closes nothing" % (f, c)
    assert not any(depth.values()), "%s: unclosed %s" % (f, depth)
PY
	then
		pass ".go: the clone's braces, brackets and parentheses balance"
	else
		fail ".go: $(tail -c 300 "$WORK/err")"
	fi
	if command -v gofmt >/dev/null; then
		gofmt -e "$WORK"/clone6/*.go >/dev/null 2>"$WORK/err" &&
			pass ".go: gofmt parses the clone" ||
			fail ".go: gofmt: $(head -c 300 "$WORK/err")"
	fi
	same_jobs "$WORK/p6.conf" "the Go tree's profile"
else
	fail "fifth tree: $(head -c 300 "$WORK/err")"
fi

# An extension's duplicate files, some of them empty files (/usr/share/doc: 13 of 75 .rst are
# empty, its share 0.160 is those 12): the clone holds the share its profile lists, counted by
# Python's sha256 of the clone's files; empty files are one content, so they are copies
# already (main before this check made 0.160 of .rst's files copies on top of them: 0.267).
# .rst: 10 empty files and 6 copies of 44 other files (15 of 60); .txt: 9 copies of 51 (0.150)
mkdir -p "$WORK/src7" "$WORK/clone7"
python3 - "$WORK/src7" <<'PY'
import os, random, sys
root, r = sys.argv[1], random.Random(6)
vocab = ["".join(r.choice("etaoinshrdlucmfwyp") for _ in range(r.randint(2, 9))) for _ in range(800)]
def prose():
    return " ".join(r.choices(vocab, k=r.randint(30, 600))) + ".\n"
for e, nempty, ncopy, nown in (("rst", 10, 6, 44), ("txt", 0, 9, 51)):
    own = [prose() for _ in range(nown)]
    bodies = [""] * nempty + own + [r.choice(own) for _ in range(ncopy)]
    for i, b in enumerate(bodies):
        d = os.path.join(root, "d%d" % (i % 6))
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "%s%d.%s" % (e, i, e)), "w").write(b)
PY
if "$IMPRINT" profile --content "$WORK/src7" -o "$WORK/p7.conf" 2>"$WORK/err" &&
	"$IMPRINT" create -c "$WORK/p7.conf" "$WORK/clone7" >/dev/null 2>"$WORK/err"; then
	dups "$WORK/src7" >"$WORK/src7.d"
	dups "$WORK/clone7" >"$WORK/clone7.d"
	for e in rst txt; do
		s=$(awk -v e="$e" '$1 == e { printf "%.4f", $3 / $2 }' "$WORK/src7.d")
		l=$(sed -n 's/^ext_content +\{0,1\}= //p' "$WORK/p7.conf" | tr ' ' '\n' |
			sed -n "s/^$e:[^/]*\/\([0-9.]*\)\/.*/\1/p")
		c=$(awk -v e="$e" '$1 == e { printf "%.4f %d", $3 / $2, $2 }' "$WORK/clone7.d")
		if [ -n "$s" ] && [ -n "$l" ] && [ -n "$c" ] && awk -v s="$s" -v l="$l" -v c="${c% *}" \
			'BEGIN { exit !(l - s <= 0.0001 && s - l <= 0.0001 && c - s <= 0.01 && s - c <= 0.01) }'; then
			pass ".$e: the clone's duplicate files ${c% *} of ${c#* } against the source's $s (listed $l)"
		else
			fail ".$e: the clone's duplicate files '$c' against the source's '$s' (listed '$l', within 0.01)"
		fi
	done
	n=$(find "$WORK/clone7" -name '*.rst' -type f -empty | wc -l)
	[ "$n" -ge 2 ] && pass ".rst: the clone has $n empty files (its size law's)" ||
		fail ".rst: the clone has $n empty files, wanted 2 or more (the check needs them)"
else
	fail "sixth tree: $(head -c 300 "$WORK/err")"
fi

# a seventh tree: .txt as /usr/lib/python3 has them, many empty and one-newline files (equal
# by chance in any clone, beyond what the plan makes copies) beside notes and their copies, and
# .cfg files a third of them copies.  The chance copies in excess are .txt's own: its plan
# copies are made distinct, not .cfg's (issue 22: the clone's .txt at 0.79 against 0.70, its
# .cfg at 0.24 against 0.33, when any extension's copies were)
mkdir -p "$WORK/clone8"
python3 - "$WORK/src8" <<'PY'
import os, random, sys
root = sys.argv[1]
r = random.Random(18)
words = ["alpha", "beta", "gamma", "delta", "value", "name", "item", "config", "entry", "type"]
def note(n):
    return "".join("%s %s %s %d.\n" % (r.choice(words), r.choice(words), r.choice(words),
                                       r.randint(0, 99999)) for _ in range(n))
files = [("txt", "")] * 30 + [("txt", "\n")] * 50
for i in range(40):
    files += [("txt", note(r.randint(20, 200)))] * (2 if i < 20 else 1)
for i in range(90):
    files += [("cfg", note(r.randint(30, 300)))] * (2 if i < 45 else 1)
for i, (e, b) in enumerate(files):
    d = os.path.join(root, "d%d" % (i % 7))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "%s%d.%s" % (e, i, e)), "w").write(b)
PY
if "$IMPRINT" profile --content "$WORK/src8" -o "$WORK/p8.conf" 2>"$WORK/err" &&
	"$IMPRINT" create -c "$WORK/p8.conf" "$WORK/clone8" >/dev/null 2>"$WORK/err"; then
	dups "$WORK/src8" >"$WORK/src8.d"
	dups "$WORK/clone8" >"$WORK/clone8.d"
	n=$(find "$WORK/clone8" -name '*.txt' -type f -size -2c | wc -l)
	[ "$n" -ge 40 ] && pass ".txt: the clone has $n files of 0 or 1 byte" ||
		fail ".txt: the clone has $n files of 0 or 1 byte, wanted 40 or more (the check needs them)"
	for e in txt cfg; do
		s=$(awk -v e="$e" '$1 == e { printf "%.4f", $3 / $2 }' "$WORK/src8.d")
		c=$(awk -v e="$e" '$1 == e { printf "%.4f %d", $3 / $2, $2 }' "$WORK/clone8.d")
		if [ -n "$s" ] && [ -n "$c" ] && awk -v s="$s" -v c="${c% *}" \
			'BEGIN { exit !(s > 0.3 && c - s <= 0.01 && s - c <= 0.01) }'; then
			pass ".$e beside chance copies: the clone's duplicate files ${c% *} of ${c#* } against the source's $s"
		else
			fail ".$e beside chance copies: the clone's duplicate files '$c' against the source's '$s' (within 0.01)"
		fi
	done
else
	fail "seventh tree: $(head -c 300 "$WORK/err")"
fi

# a bad table is a usage error naming the key and what is allowed
printf 'ext_content = xml:0.5/0/0/0/1\n' >"$WORK/bad.conf"
expect_status 2 "ext_content ratio below 1 refused" "$IMPRINT" plan -c "$WORK/bad.conf"
grep -q "ext_content" "$WORK/err" && pass "the message names ext_content" ||
	fail "the message does not name ext_content: $(head -c 300 "$WORK/err")"
printf 'ext_content = xml:3/0/0/0/1/600\n' >"$WORK/bad.conf"
expect_status 2 "ext_content distinct words per KiB above 512 refused" "$IMPRINT" plan -c "$WORK/bad.conf"
expect_err "bad.conf line 1: 'ext_content' entry 1" "the message names the file, its line and the entry"
expect_err "words per KiB 0..512" "the message says what the figures allow"
printf 'ext_content = xml:3/0/0/0/1/20/1\n' >"$WORK/bad.conf"
expect_status 2 "ext_content with seven figures refused" "$IMPRINT" plan -c "$WORK/bad.conf"

finish
