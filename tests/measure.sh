#!/bin/bash
# measure.sh - imprint measure: the plan's figures read back from images, e2freefrag and the kernel (FIEMAP) agree, corrupt images fail cleanly
. "${srcdir:-.}/tests/lib.sh"

LOOP=
MNT="$WORK/mnt"
mkdir -p "$MNT"
cleanup() {
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	LOOP=
}
trap 'cleanup; rm -rf "$WORK"' EXIT

# jcmp WHAT A.json B.json KEYS...: the keys hold equal values in both (missing keys fail)
jcmp() {
	local what=$1 a=$2 b=$3 out
	shift 3
	if out=$(python3 - "$a" "$b" "$@" <<'EOF'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = [k for k in sys.argv[3:] if k not in a or k not in b or a[k] != b[k]]
for k in bad:
    print("%s: %s vs %s" % (k, str(a.get(k))[:60], str(b.get(k))[:60]))
sys.exit(1 if bad else 0)
EOF
	); then
		pass "$what"
	else
		fail "$what: $(echo "$out" | head -4 | tr '\n' ';')"
	fi
}

# the keys of the plan report a measurement of the same plan must reproduce exactly
REPORT_KEYS="seed files dirs links hardlinks symlinks special_dirs special_files bytes
	mean_size median_size max_size max_depth size_ks_d size_ks_critical_01 depth_ks_d
	depth_ks_critical_01 ext_max_abs_diff ext_worst fpd_max_abs_diff depth_target
	depth_achieved fpd_target fpd_achieved ext_top"
# those that hold with hard links too (a hard-linked file counts at its first name)
LINK_KEYS="seed files dirs links hardlinks symlinks special_dirs bytes
	mean_size median_size max_size size_ks_d ext_max_abs_diff ext_worst ext_top"

# build NAME MKFS-OPTIONS ARGS...: config, plan report, image (+ planned extents),
# measurement against the config
build() {
	local n=$1 mkfs=$2
	shift 2
	"$IMPRINT" config "$@" >"$WORK/$n.cfg" &&
		"$IMPRINT" plan -c "$WORK/$n.cfg" --report --json >"$WORK/$n.plan.json" &&
		"$IMPRINT" create -q --json -c "$WORK/$n.cfg" --extents "$WORK/$n.plan.ext" \
			${mkfs:+--mkfs-options "$mkfs"} "$WORK/$n.img" >"$WORK/$n.create.json" 2>"$WORK/err" ||
		{ fail "$n: config, plan or create failed: $(head -c 300 "$WORK/err")"; return 1; }
	if "$IMPRINT" measure "$WORK/$n.img" --against "$WORK/$n.cfg" --json \
		--extents "$WORK/$n.ext" >"$WORK/$n.json" 2>"$WORK/err"; then
		pass "$n: measured"
	else
		fail "$n: measure failed: $(head -c 300 "$WORK/err")"
		return 1
	fi
}

# same_runs WHAT A B [FIELDS]: two extents files (create's or measure's) give each
# path the same runs (FIELDS 3: the same runs, whatever the names: hard links)
same_runs() {
	if diff <(tail -n +2 "$2" | cut -f"${4:-2,3}" | sort) <(tail -n +2 "$3" | cut -f"${4:-2,3}" | sort) \
		>"$WORK/diff"; then
		pass "$1 ($(($(wc -l <"$2") - 1)) files)"
	else
		fail "$1: $(head -4 "$WORK/diff" | tr '\n' ';')"
	fi
}

# layout_like_create NAME: the measured layout score, to create's 4 decimals
layout_like_create() {
	local got want
	want=$(python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["layout_score"])' \
		"$WORK/$1.create.json")
	got=$(python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["layout_score"])' \
		"$WORK/$1.json")
	[ "$got" = "$want" ] && pass "$1: layout score $got as create reported" ||
		fail "$1: layout score $got, create reported $want"
}

# freefrag NAME: e2freefrag's histogram, extremes and free chunks equal imprint's
freefrag() {
	local n=$1 out kb
	if ! command -v e2freefrag >/dev/null; then
		pass "$n: # SKIP e2freefrag not found"
		return
	fi
	kb=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["chunk_bytes"] // 1024)' \
		"$WORK/$n.json")
	e2freefrag -c "$kb" "$WORK/$n.img" >"$WORK/$n.ff" 2>&1 || { fail "$n: e2freefrag failed"; return; }
	if out=$(python3 - "$WORK/$n.ff" "$WORK/$n.json" <<'EOF'
import json, re, sys
ff, m = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
hist = {}
for lo, u, n, b in re.findall(r"^\s*(\d+)([KMGT])\.\.\.\s*\S+\s*:\s*(\d+)\s+(\d+)", ff, re.M):
    hist[int(lo) * units[u]] = (int(n), int(b))
mine = {h["min_bytes"]: (h["extents"], h["blocks"]) for h in m["free_extent_histogram"]}
bad = []
if hist != mine:
    bad.append("histogram %s vs %s" % (sorted(hist.items())[:4], sorted(mine.items())[:4]))
def num(label):
    return int(re.search(label + r":\s*(\d+)", ff).group(1))
kb = m["block_size"] // 1024
for label, mv in (("Min. free extent", m["min_free_extent"] * kb),
                  ("Max. free extent", m["max_free_extent"] * kb),
                  ("Avg. free extent", m["free_blocks"] // max(m["free_extents"], 1) * kb),
                  ("Num. free extent", m["free_extents"]),
                  ("Free chunks", m["free_chunks"]), ("Total chunks", m["total_chunks"]),
                  ("Free blocks", m["free_blocks"])):
    if num(label) != mv:
        bad.append("%s %d vs %d" % (label, num(label), mv))
print("; ".join(bad) if bad else "%d buckets" % len(hist))
sys.exit(1 if bad else 0)
EOF
	); then
		pass "$n: e2freefrag agrees: $out"
	else
		fail "$n: e2freefrag disagrees: $out"
	fi
}

small="--size 64M --set size_mu=8 --set size_sigma=1.5 --set size_tail_weight=0"

# --- an ext4 image without hard links, fragmented: every figure of the plan report
build frag "" $small --files 1500 --seed 3 --set hardlink_share=0 --set layout_score=0.8 &&
{
	jcmp "frag: the plan report's figures, exactly" "$WORK/frag.plan.json" "$WORK/frag.json" \
		$REPORT_KEYS
	layout_like_create frag
	same_runs "frag: measured runs of every file are the planned ones" \
		"$WORK/frag.plan.ext" "$WORK/frag.ext"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["fragmented_files"] > 0 and d["extents"] > d["files"]
assert d["layout_score_target"] == 0.8 and abs(d["layout_score"] - 0.8) < 0.005' "$WORK/frag.json" &&
		pass "frag: fragmented files and extents counted, layout score on target" ||
		fail "frag: fragmented_files, extents or the layout score are off"
	freefrag frag
}

# --- ext2 block maps, 1 KiB blocks, hard links and a special directory
build ext2 "-b 1024" --size 96M --set size_mu=8 --set size_sigma=1.5 --set size_tail_weight=0 \
	--files 4000 --seed 5 --fs ext2 --set layout_score=0.9 --set hardlink_share=0.02 \
	--set special_dirs=1 --set special_dir_files=1500
if [ -s "$WORK/ext2.json" ]; then
	jcmp "ext2: counts, sizes and extensions as planned (hard links, a special directory)" \
		"$WORK/ext2.plan.json" "$WORK/ext2.json" $LINK_KEYS
	python3 -c 'import json,sys; p,m=(json.load(open(f)) for f in sys.argv[1:3])
h = p["hardlinks"] / p["files"]
assert p["hardlinks"] > 0
# a hard-linked file counts at its first name: depth and files/dir move by at most that
assert abs(p["depth_ks_d"] - m["depth_ks_d"]) <= 2 * h + 1e-12, (p["depth_ks_d"], m["depth_ks_d"])
assert abs(p["fpd_max_abs_diff"] - m["fpd_max_abs_diff"]) <= 2 * p["hardlinks"] / p["dirs"] + 1e-12' \
		"$WORK/ext2.plan.json" "$WORK/ext2.json" &&
		pass "ext2: depth and files/dir within what hard links can move" ||
		fail "ext2: depth or files/dir further from the plan than hard links explain"
	layout_like_create ext2
	same_runs "ext2: measured block maps are the planned runs" "$WORK/ext2.plan.ext" "$WORK/ext2.ext" 3
	freefrag ext2
fi

# --- inline data: small files have no extents, their bytes are still counted
build inl "-O inline_data" $small --files 800 --seed 7 --set hardlink_share=0 \
	--set size_mu=4 &&
	jcmp "inline_data: the plan report's figures, exactly" "$WORK/inl.plan.json" "$WORK/inl.json" \
		$REPORT_KEYS

# no_holes NAME: an image made without sparse files has none, and none are planned
no_holes() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
k = ("sparse_files", "hole_blocks", "sparse_files_target", "hole_blocks_target")
sys.exit(0 if all(d[x] == 0 for x in k) else 1)' "$WORK/$1.json" &&
		pass "$1: no sparse files, no hole blocks, none planned" ||
		fail "$1: sparse files or hole blocks found or planned without sparse_file_share"
}
for n in frag ext2 inl; do
	[ -s "$WORK/$n.json" ] && no_holes $n
done

# sparse_check NAME: the sparse files and hole blocks found are exactly the
# plan's (--against) and what create reported, and there are some
sparse_check() {
	local out
	if out=$(python3 - "$WORK/$1.json" "$WORK/$1.create.json" <<'EOF'
import json, sys
m, c = (json.load(open(f)) for f in sys.argv[1:3])
got = (m["sparse_files"], m["hole_blocks"])
want = (m["sparse_files_target"], m["hole_blocks_target"])
made = (c["sparse_files"], c["hole_blocks"])
print("sparse files %d, hole blocks %d; planned %d, %d; create %d, %d" % (got + want + made))
sys.exit(0 if got == want == made and got[0] > 0 and got[1] > 0 else 1)
EOF
	); then
		pass "$1: $out"
	else
		fail "$1: found and planned differ: $out"
	fi
}

# --- sparse files (ext4 extents with gaps; ext2 block maps with zero pointers,
# 1 KiB blocks): found exactly as planned, the layout score as create's
build sparse "" --size 256M --seed 11 --set sparse_file_share=0.5 --set layout_score=0.9 &&
{
	sparse_check sparse
	layout_like_create sparse
	same_runs "sparse: measured runs are the planned ones (hard links: whatever the names)" \
		"$WORK/sparse.plan.ext" "$WORK/sparse.ext" 3
	jcmp "sparse: counts, sizes and extensions as planned" "$WORK/sparse.plan.json" "$WORK/sparse.json" \
		$LINK_KEYS
}
build sparse2 "-b 1024" --size 128M --seed 12 --fs ext2 --set sparse_file_share=1 \
	--set layout_score=0.85 &&
{
	sparse_check sparse2
	layout_like_create sparse2
	same_runs "sparse2: measured block maps are the planned runs" "$WORK/sparse2.plan.ext" \
		"$WORK/sparse2.ext" 3
}

# --- text output and the usage errors
expect_status 0 "text report" "$IMPRINT" measure "$WORK/frag.img"
grep -q "^  layout score" "$WORK/out" && grep -q "HISTOGRAM\|Extent Size Range" "$WORK/out" &&
	pass "text report: layout and free space sections" || fail "text report lacks sections"
expect_status 0 "text report against a configuration with sparse files" "$IMPRINT" measure \
	"$WORK/sparse.img" --against "$WORK/sparse.cfg"
want=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("%d %d %d" % (d["sparse_files"], d["hole_blocks"], d["sparse_files_target"]))' "$WORK/sparse.json")
read -r sf hb sft <<<"$want"
grep -q "^  sparse files    $sf, $hb hole blocks" "$WORK/out" &&
	grep -Eq "^  sparse files +$sft +$sf\$" "$WORK/out" &&
	pass "text report: sparse files $sf, hole blocks $hb, planned $sft" ||
	fail "text report lacks the sparse files line ($want)"
expect_status 2 "measure needs a target" "$IMPRINT" measure
expect_err "measure needs a TARGET" "measure without a target: message"
expect_status 2 "measure --against TARGET (no CONFIG)" "$IMPRINT" measure --against "$WORK"
expect_err "'--against' takes a CONFIG file and took '$WORK'; give TARGET after it" \
	"measure --against TARGET: the message says the target went in as the CONFIG"
expect_status 2 "--against and -c together" "$IMPRINT" measure "$WORK/frag.img" \
	--against "$WORK/frag.cfg" -c "$WORK/frag.cfg"
expect_status 2 "--against is only for measure" "$IMPRINT" plan --against "$WORK/frag.cfg"
expect_status 1 "a missing target" "$IMPRINT" measure "$WORK/nothing.img"
expect_err "cannot open '$WORK/nothing.img'" "a missing target: message"

# --- measure and content-report never write: the image's bytes and times stay as they were
before=$(sha256sum <"$WORK/sparse.img")$(stat -c '%s %Y %Z' "$WORK/sparse.img")
"$IMPRINT" measure --json "$WORK/sparse.img" >/dev/null 2>&1
"$IMPRINT" measure "$WORK/sparse.img" --against "$WORK/sparse.cfg" >/dev/null 2>&1
"$IMPRINT" content-report --sample 0.1 "$WORK/sparse.img" >/dev/null 2>&1
after=$(sha256sum <"$WORK/sparse.img")$(stat -c '%s %Y %Z' "$WORK/sparse.img")
[ "$before" = "$after" ] && pass "measure and content-report leave the image untouched (sha256, size, mtime, ctime)" ||
	fail "the image changed: $before / $after"

# --- corrupt and truncated images: a clear error and exit 1, never a signal
cp "$WORK/frag.img" "$WORK/bad.img"
truncate -s 40M "$WORK/bad.img"
bs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["block_size"])' "$WORK/frag.json")
expect_status 1 "truncated image" "$IMPRINT" measure "$WORK/bad.img"
expect_err "'$WORK/bad.img': truncated: block $((40 * 1048576 / bs)) is beyond the end of the file" \
	"truncated image: message"
head -c 1536 "$WORK/frag.img" >"$WORK/bad.img"
expect_status 1 "image cut inside the superblock" "$IMPRINT" measure "$WORK/bad.img"
expect_err "'$WORK/bad.img': " "image cut inside the superblock: message names it"
cp "$WORK/frag.img" "$WORK/bad.img"
dd if=/dev/zero of="$WORK/bad.img" bs=1024 seek=1 count=1 conv=notrunc status=none
expect_status 1 "zeroed superblock" "$IMPRINT" measure "$WORK/bad.img"
expect_err "'$WORK/bad.img': not an ext2/3/4 file system (bad magic)" "zeroed superblock: message"
head -c 4M /dev/zero >"$WORK/bad.img"
expect_status 1 "a file of zeros" "$IMPRINT" measure "$WORK/bad.img"
expect_err "not an ext2/3/4 file system (bad magic)" "a file of zeros: message"
mkfifo "$WORK/fifo"
expect_status 1 "a FIFO" "$IMPRINT" measure "$WORK/fifo"
expect_err "is neither an image file, a block device nor a directory" "a FIFO: message"

# --- issue 16, finding 5: an i_size beyond the largest file (2^63 - 1) is
# corruption named by inode: exit 1 at once (content-report used to hash
# 2^63 bytes of hole, measure to wrap its byte total)
mke2fs -q -F -t ext4 -b 4096 "$WORK/small.img" 8M >/dev/null 2>&1
echo hello >"$WORK/h.txt"
debugfs -w -R "write $WORK/h.txt h.txt" "$WORK/small.img" >/dev/null 2>&1
cp "$WORK/small.img" "$WORK/bad.img"
debugfs -w -R "sif h.txt size 9223372036854775807" "$WORK/bad.img" >/dev/null 2>&1
expect_status 1 "i_size 2^63 - 1: measure" timeout 60 "$IMPRINT" measure "$WORK/bad.img"
expect_err "corrupt: '/h.txt' (inode 12) claims 9223372036854775807 bytes, more than the file system's largest file" \
	"i_size 2^63 - 1: measure names the inode"
expect_status 1 "i_size 2^63 - 1: content-report" timeout 60 "$IMPRINT" content-report "$WORK/bad.img"
expect_err "(inode 12) claims 9223372036854775807 bytes" "i_size 2^63 - 1: content-report names the inode"
expect_status 0 "the same image before: measure" "$IMPRINT" measure "$WORK/small.img"

# --- finding 7: superblocks e2fsck would not open are refused, the field named
cp "$WORK/small.img" "$WORK/bad.img"
debugfs -w -R "ssv first_ino 0" "$WORK/bad.img" >/dev/null 2>&1
expect_status 1 "first_ino 0" "$IMPRINT" measure "$WORK/bad.img"
expect_err "corrupt superblock: first_ino is 0" "first_ino 0: message"
cp "$WORK/small.img" "$WORK/bad.img"
debugfs -w -R "ssv first_data_block 7" "$WORK/bad.img" >/dev/null 2>&1
expect_status 1 "first_data_block 7" "$IMPRINT" measure "$WORK/bad.img"
expect_err "corrupt superblock: first_data_block is 7 (must be 0 for 4096-byte blocks)" \
	"first_data_block 7: message"
cp "$WORK/small.img" "$WORK/bad.img"
debugfs -w -R "ssv inode_size 100" "$WORK/bad.img" >/dev/null 2>&1
expect_status 1 "inode_size 100" "$IMPRINT" measure "$WORK/bad.img"

# --- the fuzzer's reproducers (tests/fuzz/crashes/): a clean exit 0 or 1, never a signal
for r in "$top_srcdir"/tests/fuzz/crashes/*.img; do
	[ -f "$r" ] || continue
	timeout 60 "$IMPRINT" measure "$r" >/dev/null 2>"$WORK/err"
	st=$?
	if [ "$st" -eq 0 ] || { [ "$st" -eq 1 ] && grep -q "^imprint: " "$WORK/err"; }; then
		pass "fuzz reproducer $(basename "$r"): exit $st"
	else
		fail "fuzz reproducer $(basename "$r"): exit $st: $(head -c 300 "$WORK/err")"
	fi
done

# flipped bytes in the metadata of images with and without checksums (seeded, so
# the same bytes every run): each run ends with 0 or 1 and any error is imprint's
build nocsum "-O ^metadata_csum" $small --files 400 --seed 9 --set layout_score=0.7
for base in frag nocsum ext2; do
	[ -f "$WORK/$base.img" ] || continue
	if out=$(python3 - "$IMPRINT" "$WORK/$base.img" "$WORK/bad.img" <<'EOF'
import random, subprocess, sys
imprint, src, dst = sys.argv[1:4]
data = open(src, "rb").read()
open(dst, "wb").write(data)
rng = random.Random(src.rsplit("/", 1)[-1])
codes = {}
f = open(dst, "r+b", buffering=0)
for i in range(40):
    region = rng.choice([1 << 20, 4 << 20])
    offs = sorted(set(rng.randrange(region) for _ in range(rng.choice([1, 8, 64, 512]))))
    for o in offs:
        f.seek(o)
        f.write(bytes([data[o] ^ (1 << rng.randrange(8))]))
    p = subprocess.run([imprint, "measure", dst, "--json"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=60)
    err = p.stderr.decode(errors="replace")
    codes[p.returncode] = codes.get(p.returncode, 0) + 1
    if p.returncode not in (0, 1) or (p.returncode == 1 and not err.startswith("imprint: '")):
        print("run %d: exit %d: %s" % (i, p.returncode, err[:200]))
        sys.exit(1)
    for o in offs:
        f.seek(o)
        f.write(data[o:o + 1])
print(", ".join("exit %d: %d" % kv for kv in sorted(codes.items())))
EOF
	); then
		pass "$base with flipped bytes: 40 runs, clean exits ($out)"
	else
		fail "$base with flipped bytes: $out"
	fi
done

# --- the kernel's view: FIEMAP on the loop-mounted image against libext2fs
if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null || ! losetup -f >/dev/null 2>&1; then
	pass "# SKIP loop-mounted checks: need root and a free loop device"
else
	for n in frag ext2 inl sparse sparse2; do
		[ -f "$WORK/$n.img" ] || continue
		LOOP=$(losetup -f --show -r "$WORK/$n.img") || { fail "$n: losetup"; continue; }
		if ! mount -o ro "$LOOP" "$MNT" 2>"$WORK/err"; then
			pass "$n: # SKIP the kernel does not mount it here: $(head -c 200 "$WORK/err")"
			cleanup
			continue
		fi
		if "$IMPRINT" measure "$MNT" --against "$WORK/$n.cfg" --json --extents "$WORK/$n.mnt.ext" \
			>"$WORK/$n.mnt.json" 2>"$WORK/err"; then
			pass "$n: mounted tree measured"
			same_runs "$n: FIEMAP and libext2fs give every file the same extents" \
				"$WORK/$n.ext" "$WORK/$n.mnt.ext"
			jcmp "$n: the mounted tree's figures equal the image's" "$WORK/$n.json" \
				"$WORK/$n.mnt.json" $REPORT_KEYS fragmented_files extents extents_per_file \
				fragment_size_histogram layout_files age_days sparse_files hole_blocks \
				sparse_files_target hole_blocks_target
			python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:3])
assert abs(a["layout_score"] - b["layout_score"]) <= 1e-9' "$WORK/$n.json" "$WORK/$n.mnt.json" &&
				pass "$n: same layout score to 1e-9" || fail "$n: layout scores differ"
		else
			fail "$n: measuring the mounted tree failed: $(head -c 300 "$WORK/err")"
		fi
		# the read-only loop device itself, through libext2fs, while it is mounted
		"$IMPRINT" measure "$LOOP" --against "$WORK/$n.cfg" --json >"$WORK/$n.dev.json" 2>"$WORK/err" &&
			jcmp "$n: the device reads as the image" "$WORK/$n.json" "$WORK/$n.dev.json" \
				$REPORT_KEYS layout_score extents free_extent_histogram free_chunks \
				sparse_files hole_blocks ||
			fail "$n: measuring the device failed: $(head -c 300 "$WORK/err")"
		# filefrag (e2fsprogs, FIEMAP) agrees on extent counts for a sample (a
		# hole ends an extent that imprint's runs merge: not for sparse images)
		if command -v filefrag >/dev/null && [ "${n#sparse}" = "$n" ]; then
			bad=0
			k=0
			while IFS=$'\t' read -r id path runs; do
				[ "$runs" = "-" ] && continue
				k=$((k + 1))
				[ $k -gt 150 ] && break
				# filefrag may count a run of more than 32768 blocks as several extents
				read -r lo hi < <(awk -F, '{ h = 0; for (i = 1; i <= NF; i++) {
					split($i, r, "+"); h += int((r[2] + 32767) / 32768) } print NF, h }' <<<"$runs")
				got=$(filefrag "$MNT$path" | sed -n 's/.*: \([0-9]*\) extents\? found/\1/p')
				if [ -z "$got" ] || [ "$got" -lt "$lo" ] || [ "$got" -gt "$hi" ]; then
					bad=$((bad + 1))
					echo "# filefrag: $path: $got extents, imprint: $lo ($runs)"
				fi
			done < <(tail -n +2 "$WORK/$n.mnt.ext")
			[ $bad -eq 0 ] && pass "$n: filefrag agrees on the extent counts ($k files)" ||
				fail "$n: filefrag disagrees on $bad of $k files"
		fi
		cleanup
	done

	# holes the kernel made: leading, inner, trailing and a file all hole are
	# sparse; inline data, an unwritten (fallocated) extent, empty and dense
	# files are not: 5 sparse files, 256 + 15 + 2 + 2 + 1 hole blocks
	hand="$WORK/hand.img"
	truncate -s 32M "$hand"
	if mkfs.ext4 -q -F -b 4096 -O inline_data "$hand" 2>"$WORK/err" &&
		LOOP=$(losetup -f --show "$hand") && mount "$LOOP" "$MNT" 2>>"$WORK/err"; then
		rnd() { head -c "$1" /dev/urandom; }
		truncate -s 1M "$MNT/all_hole"
		rnd 4096 >"$MNT/tail" && truncate -s 64K "$MNT/tail"
		rnd 4096 | dd of="$MNT/lead" bs=4096 seek=2 conv=notrunc status=none
		rnd 4096 >"$MNT/inner" && rnd 4096 | dd of="$MNT/inner" bs=4096 seek=3 conv=notrunc status=none
		rnd 4096 >"$MNT/partial" && truncate -s 5000 "$MNT/partial"
		rnd 8192 >"$MNT/dense"
		rnd 10 >"$MNT/tiny"
		: >"$MNT/empty"
		fallocate -l 64K "$MNT/prealloc"
		cleanup
		# the device just detached may still be torn down when losetup -f hands
		# it out again (seen under load: 'cannot mount /dev/loop0 read-only'):
		# a fresh device, up to 3 tries
		for try in 1 2 3; do
			LOOP=$(losetup -f --show -r "$hand") || break
			mount -o ro "$LOOP" "$MNT" 2>>"$WORK/err" && break
			losetup -d "$LOOP"; LOOP=; sleep 1
		done
		[ -n "$LOOP" ] && mountpoint -q "$MNT" &&
			"$IMPRINT" measure "$MNT" --json >"$WORK/hand.mnt.json" 2>"$WORK/err"
		cleanup
		"$IMPRINT" measure "$hand" --json >"$WORK/hand.json" 2>>"$WORK/err"
		for f in hand hand.mnt; do
			if out=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("%s: %d files, %d sparse, %d hole blocks" % (d["reader"], d["files"], d["sparse_files"], d["hole_blocks"]))
sys.exit(0 if (d["files"], d["sparse_files"], d["hole_blocks"]) == (9, 5, 276) else 1)' \
				"$WORK/$f.json" 2>&1); then
				pass "hand-made holes, $out"
			else
				fail "hand-made holes: $out (wanted 9 files, 5 sparse, 276 hole blocks) $(head -c 200 "$WORK/err")"
			fi
		done
	else
		fail "hand-made holes: mkfs or mount failed: $(head -c 300 "$WORK/err")"
		cleanup
	fi
fi

finish
