#!/bin/bash
# age.sh - aging and layout targets end to end: e2fsck -fn clean, e2freefrag's histogram against the free-space target, scores, orders, same bytes
. "${srcdir:-.}/tests/lib.sh"

for t in e2fsck e2freefrag sha256sum; do
	command -v "$t" >/dev/null 2>&1 || { echo "1..0 # SKIP $t not found"; exit 77; }
done

# build WHAT IMG ARGS...: imprint create --json ARGS IMG (summary in $WORK/out), then e2fsck -fn IMG
build() {
	local what=$1 img=$2 out
	shift 2
	rm -f "$img"
	if ! "$IMPRINT" create -q --json "$@" "$img" >"$WORK/out" 2>"$WORK/err"; then
		fail "$what: create failed: $(head -c 400 "$WORK/err")"
		return 1
	fi
	if out=$(e2fsck -fn "$img" 2>&1); then
		pass "$what: e2fsck -fn clean"
	else
		fail "$what: e2fsck -fn: $(echo "$out" | grep -v '^Pass\|^e2fsck' | head -5 | tr '\n' ' ')"
		return 1
	fi
}

# e2freefrag's histogram as "bucket free_extents free_blocks" lines (bucket b: [2^b, 2^(b+1)) blocks)
hist() {
	e2freefrag "$1" | awk '
		$1 == "Blocksize:" { bs = $2 }
		$2 ~ /-$/ && $3 == ":" {
			v = $1; sub(/\.\.\.$/, "", v); u = substr(v, length(v)); v = substr(v, 1, length(v) - 1)
			m = u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : 1099511627776
			b = int(log(v * m / bs) / log(2) + 0.5)
			print b, $4, $5
		}'
}

# free blocks of an image, from e2freefrag
free_blocks() { e2freefrag "$1" | awk '$1 == "Free" && $2 == "blocks:" { print $3 }'; }

json_num() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/out" "$1"; }

img=$WORK/img
base="--size 256M --seed 4"

# --- aging: clean, reproducible, and more broken free space than without it
build "age_rounds=20" "$img" $base --set age_rounds=20
aged_ext=$(hist "$img" | awk '{ n += $2 } END { print n + 0 }')
sha1=$(sha256sum "$img" | cut -d' ' -f1)
build "age_rounds=20 again" "$img" $base --set age_rounds=20
if [ "$(sha256sum "$img" | cut -d' ' -f1)" = "$sha1" ]; then
	pass "age_rounds=20: same seed, same bytes"
else
	fail "age_rounds=20: two builds differ"
fi
build "no aging" "$img" $base
plain_ext=$(hist "$img" | awk '{ n += $2 } END { print n + 0 }')
if [ "$aged_ext" -gt $((plain_ext * 4)) ]; then
	pass "aging leaves more free extents ($aged_ext against $plain_ext)"
else
	fail "aging leaves $aged_ext free extents, unaged $plain_ext"
fi

# aging with layout targets: the targets give way (the image is still sound)
build "age_rounds=20 with layout targets" "$img" $base --set age_rounds=20 \
	--set layout_score=0.8 --set free_frag_share=0.3 --set layout_order=shuffled
build "age_rounds=20, 1 KiB blocks, 80 % full" "$img" --size 128M --seed 5 \
	--set fill_share=0.8 --set age_rounds=20 --mkfs-options "-b 1024"
build "age_rounds=10 ext2" "$img" $base --fs ext2 --set age_rounds=10

# --- the free-space shape: e2freefrag's histogram against the target
# (free_gap_shape 1: a share 0.3 * 2^b / 255 of the free space in bucket b
# for b = 0..7, below the 1 MiB chunk of 256 blocks; tolerance 0.01 each)
for share in 0.1 0.3; do
	build "free_frag_share=$share" "$img" $base --set free_frag_share=$share
	fb=$(free_blocks "$img")
	res=$(hist "$img" | awk -v fb="$fb" -v s="$share" '
		{ got[$1] = $3 / fb; if ($1 < 8) small += $3 / fb }
		END {
			worst = 0
			for (b = 0; b < 8; b++) {
				d = got[b] - s * 2 ^ b / 255; if (d < 0) d = -d
				if (d > worst) worst = d
			}
			printf "%.4f %.4f", small, worst
		}')
	small=${res% *} worst=${res#* }
	if awk -v a="$small" -v s="$share" -v w="$worst" 'BEGIN { d = a - s; if (d < 0) d = -d; exit !(d <= 0.01 && w <= 0.01) }'; then
		pass "free_frag_share=$share: e2freefrag small share $small, worst bucket off by $worst"
	else
		fail "free_frag_share=$share: e2freefrag small share $small, worst bucket off by $worst"
	fi
done

# --- spread and order: the score still holds
build "layout_score=0.8 frag_file_share=0.3" "$img" $base --set layout_score=0.8 \
	--set frag_file_share=0.3
got=$(json_num layout_score)
if awk -v g="$got" 'BEGIN { d = g - 0.8; if (d < 0) d = -d; exit !(d <= 0.005) }'; then
	pass "frag_file_share=0.3: layout score $got"
else
	fail "frag_file_share=0.3: layout score $got, wanted 0.8"
fi
for order in creation shuffled; do
	build "layout_order=$order layout_score=0.9" "$img" $base --set layout_order=$order \
		--set layout_score=0.9 --set frag_select=size --set frag_sizes=equal
	got=$(json_num layout_score)
	if awk -v g="$got" 'BEGIN { d = g - 0.9; if (d < 0) d = -d; exit !(d <= 0.005) }'; then
		pass "layout_order=$order: layout score $got"
	else
		fail "layout_order=$order: layout score $got, wanted 0.9"
	fi
done

finish
