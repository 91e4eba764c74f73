#!/bin/bash
# profile_gif.sh - a profile --content clone of GIFs whose ratio is below imprint's noise floor
# (issue 22): real LZW streams of 256-colour images (ppmforge planets, pnmquant, ppmtogif) of
# 1.4-4.3 KB compress about 1.00, where imprint's GIFs of 3-6 KB, their 8-bit codes all
# literals, kept 1.06-1.10 (main's clone: 1.055); gzip -6 and zstd -3 ratios of the clone by
# tests/content_by_ext.py (Python's zlib and the zstd CLI, no imprint code), within 15% (the
# issue's goal) and within 2% (what the codes naming the string table reach); every clone GIF
# named by file(1), decoded by giftopnm without a word and by an LZW decoder here to exactly
# its width times height pixels; -j1 and -j2 the same.
. "${srcdir:-.}/tests/lib.sh"
TOP=${srcdir:-.}
for t in python3 zstd file ppmforge pnmquant ppmtogif giftopnm; do
	command -v $t >/dev/null || { echo "1..0 # SKIP needs $t (python3, zstd, file, netpbm)"; exit 77; }
done

mkdir "$WORK/src"
for i in $(seq 1 24); do
	ppmforge -seed $i -width $((56 + i * 7 % 40)) -height $((44 + i * 11 % 30)) -stars 0 2>/dev/null |
		pnmquant 256 2>/dev/null | ppmtogif >"$WORK/src/p$i.gif" 2>/dev/null
done
n=$(find "$WORK/src" -name '*.gif' -size +1k | wc -l)
[ "$n" = 24 ] && pass "24 GIFs made by netpbm" || fail "netpbm made $n GIFs of 24"

if "$IMPRINT" profile --content "$WORK/src" -o "$WORK/p.conf" 2>"$WORK/err" &&
	mkdir "$WORK/clone" &&
	"$IMPRINT" create -c "$WORK/p.conf" "$WORK/clone" >/dev/null 2>"$WORK/err"; then
	pass "profile --content and its clone"
else
	fail "profile or create: $(head -c 300 "$WORK/err")"
	finish
fi
python3 "$TOP/tests/content_by_ext.py" "$WORK/src" >"$WORK/src.m"
python3 "$TOP/tests/content_by_ext.py" "$WORK/clone" >"$WORK/clone.m"

s=$(ext_fig "$WORK/src.m" gif gzip)
[ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s < 1.02) }' &&
	pass "the source's gzip -6 ratio $s is below imprint's noise floor" ||
	fail "the source's gzip -6 ratio '$s' (wanted below 1.02: the tree is not what this test is about)"
for k in gzip zstd; do
	s=$(ext_fig "$WORK/src.m" gif $k)
	c=$(ext_fig "$WORK/clone.m" gif $k)
	for tol in 0.15 0.02; do
		if [ -n "$s" ] && [ -n "$c" ] &&
			near "$s" "$c" "$tol"; then
			pass "$k: the clone's ratio $c within $tol of the source's $s"
		else
			fail "$k: the clone's ratio '$c' against the source's '$s' (within $tol)"
		fi
	done
done

# an LZW decoder of its own: every image's codes name existing entries (or the one being
# made), and give width times height pixels, then the end code
python3 - "$WORK/clone" >"$WORK/lzw.out" 2>&1 <<'PY'
import glob, os, sys


def blocks(b, i):
    out = bytearray()
    while b[i]:
        out += b[i + 1:i + 1 + b[i]]
        i += 1 + b[i]
    return bytes(out), i + 1


def lzw_pixels(data, m):
    clear, size, bits, acc, k = 1 << m, m + 1, 0, 0, 0
    nxt, prev, px, lens = clear + 2, None, 0, {}
    for byte in data:
        acc |= byte << bits
        bits += 8
        while bits >= size:
            c, acc, bits = acc & ((1 << size) - 1), acc >> size, bits - size
            if c == clear:
                size, nxt, prev, lens = m + 1, clear + 2, None, {}
                continue
            if c == clear + 1:
                return px
            if c < clear:
                n = 1
            elif c in lens:
                n = lens[c]
            elif c == nxt and prev is not None:
                n = prev + 1
            else:
                raise ValueError("code %d names no entry (next %d)" % (c, nxt))
            if prev is not None and nxt < 4096:
                lens[nxt] = prev + 1
                nxt += 1
                if nxt == 1 << size and size < 12:
                    size += 1
            prev, px = n, px + n
    raise ValueError("no end code")


bad, n = [], 0
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.gif"))):
    b = open(f, "rb").read()
    if len(b) < 35:
        continue
    n += 1
    try:
        assert b[:6] in (b"GIF87a", b"GIF89a"), "signature"
        i = 13 + (3 << ((b[10] & 7) + 1) if b[10] & 0x80 else 0)
        frames = 0
        while b[i] != 0x3b:
            if b[i] == 0x21:
                _, i = blocks(b, i + 2)
            elif b[i] == 0x2c:
                w, h = int.from_bytes(b[i + 5:i + 7], "little"), int.from_bytes(b[i + 7:i + 9], "little")
                i += 10 + (3 << ((b[i + 9] & 7) + 1) if b[i + 9] & 0x80 else 0)
                m = b[i]
                data, i = blocks(b, i + 1)
                px = lzw_pixels(data, m)
                assert px == w * h, "%d pixels for %dx%d" % (px, w, h)
                frames += 1
            else:
                raise ValueError("block 0x%02x at %d" % (b[i], i))
        assert frames and i == len(b) - 1, "frames %d, trailer at %d of %d" % (frames, i, len(b))
    except (AssertionError, ValueError, IndexError) as e:
        bad.append("%s: %s" % (os.path.basename(f), e))
print(n, "decoded")
if bad:
    print("\n".join(bad[:5]))
    sys.exit(1)
PY
[ $? = 0 ] && pass "LZW decoder: $(head -1 "$WORK/lzw.out")" || fail "LZW decoder: $(head -c 300 "$WORK/lzw.out")"

bad=
images_valid "$WORK/clone" gif 35 "GIF image data" giftopnm
ng=$n
[ -z "$bad" ] && [ "$ng" -ge 20 ] && pass "file(1) and giftopnm accept the clone's $ng .gif" ||
	fail "clone .gif ($ng) refused:$bad"
same_jobs "$WORK/p.conf" "the .gif profile"

finish
