#!/bin/bash
# ext4_lifetime.sh - the superblock's lifetime write count (s_kbytes_written, dumpe2fs' "Lifetime
# writes") is imprint's own figure, not libext2fs' I/O count (which follows unix_io's cache):
# create adds to the count it found (mke2fs's) the KiB of the blocks it put in use; evolve adds
# the KiB of the blocks it wrote, each once; with every libext2fs read and write straight to the
# image (IMPRINT_TEST_IO_CACHE=off) both give the same bytes
. "${srcdir:-.}/tests/lib.sh"

# kib IMG: s_kbytes_written, exactly (dumpe2fs rounds it to MB)
kib() {
	python3 -c 'import struct, sys
f = open(sys.argv[1], "rb"); f.seek(1024 + 0x178); print(struct.unpack("<Q", f.read(8))[0])' "$1"
}
# field IMG NAME: a field of dumpe2fs -h
field() { dumpe2fs -h "$1" 2>/dev/null | sed -n "s/^$2:[[:space:]]*//p"; }
used() { echo $(($(field "$1" 'Block count') - $(field "$1" 'Free blocks'))); }

# create into a file system mke2fs made here: its count plus the blocks put in use
for fs in ext4 ext2; do
	img="$WORK/$fs.nf"
	rm -f "$img"
	truncate -s 48M "$img"
	if ! mke2fs -q -F -t "$fs" -E lazy_itable_init=0,nodiscard "$img" >"$WORK/out" 2>&1; then
		fail "$fs: mke2fs: $(head -c 300 "$WORK/out")"
		continue
	fi
	k0=$(kib "$img") u0=$(used "$img") bs=$(field "$img" 'Block size')
	if ! "$IMPRINT" create -q --no-format --files 200 --used 12M --seed 5 "$img" \
		>"$WORK/out" 2>"$WORK/err"; then
		fail "$fs: create --no-format: $(head -c 300 "$WORK/err")"
		continue
	fi
	expect_fsck "$img" "$fs: create --no-format: e2fsck -fn clean"
	k1=$(kib "$img") u1=$(used "$img")
	want=$((k0 + (u1 - u0) * bs / 1024))
	[ "$u1" -gt "$u0" ] && [ "$k1" = "$want" ] &&
		pass "$fs ($bs-byte blocks): lifetime writes $k1 KiB = mke2fs's $k0 + $((u1 - u0)) blocks put in use" ||
		fail "$fs: lifetime writes $k1 KiB, want $k0 + ($u1 - $u0) blocks of $bs = $want"
	lw=$(field "$img" 'Lifetime writes')
	[ -n "$lw" ] && pass "$fs: dumpe2fs -h shows 'Lifetime writes: $lw'" ||
		fail "$fs: dumpe2fs -h shows no Lifetime writes"
done

# the same image through unix_io's cache and without it (reads and writes in another pattern)
for args in "--fs ext4 --size 64M --used 20M --files 400 --seed 2" "--fs ext3 --size 40M --used 12M --files 300 --seed 4"; do
	# shellcheck disable=SC2086
	build_fsck "$args" "$WORK/c.img" $args -j2 || continue
	# shellcheck disable=SC2086
	IMPRINT_TEST_IO_CACHE=off build_fsck "$args, no cache" "$WORK/n.img" $args -j1 || continue
	cmp -s "$WORK/c.img" "$WORK/n.img" &&
		pass "$args: with and without unix_io's cache the same image ($(kib "$WORK/c.img") KiB written)" ||
		fail "$args: the images differ without the cache (lifetime writes $(kib "$WORK/c.img"), $(kib "$WORK/n.img") KiB)"
done

# evolve: the count found plus the blocks it wrote, the same with and without the cache
E=(--fs ext4 --size 64M --used 20M --files 400 --seed 6)
build_fsck "evolve's generation 0" "$WORK/g0.img" "${E[@]}"
cp "$WORK/g0.img" "$WORK/a.img"
cp "$WORK/g0.img" "$WORK/b.img"
"$IMPRINT" evolve "${E[@]}" --generation 1 "$WORK/a.img" >/dev/null 2>"$WORK/err" ||
	fail "evolve: $(head -c 300 "$WORK/err")"
IMPRINT_TEST_IO_CACHE=off "$IMPRINT" evolve "${E[@]}" --generation 1 "$WORK/b.img" >/dev/null \
	2>"$WORK/err" || fail "evolve without the cache: $(head -c 300 "$WORK/err")"
expect_fsck "$WORK/a.img" "evolve: generation 1 e2fsck -fn clean"
cmp -s "$WORK/a.img" "$WORK/b.img" &&
	pass "evolve: with and without unix_io's cache the same generation 1" ||
	fail "evolve: generation 1 differs without the cache ($(kib "$WORK/a.img"), $(kib "$WORK/b.img") KiB written)"
# at least the blocks that changed, superblock and descriptor copies aside (written last, not
# counted); at most all of them
msg=$(python3 - "$WORK/g0.img" "$WORK/a.img" "$(kib "$WORK/g0.img")" "$(kib "$WORK/a.img")" <<'PY'
import re, subprocess, sys
a, b, k0, k1 = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = subprocess.run(["dumpe2fs", a], capture_output=True, text=True).stdout
bs = int(re.search(r"^Block size:\s+(\d+)", d, re.M).group(1))
count = int(re.search(r"^Block count:\s+(\d+)", d, re.M).group(1))
skip = {0}
for m in re.finditer(r"superblock at (\d+), Group descriptors at (\d+)-(\d+)", d):
    skip.add(int(m.group(1)))
    skip.update(range(int(m.group(2)), int(m.group(3)) + 1))
fa, fb = open(a, "rb"), open(b, "rb")
changed = 0
for blk in range(count):
    x, y = fa.read(bs), fb.read(bs)
    if x != y and blk not in skip:
        changed += 1
n, r = divmod(k1 - k0, bs // 1024)
ok = r == 0 and changed <= n <= count and changed > 0
print(f"evolve: lifetime writes +{k1 - k0} KiB: {n} blocks written, {changed} changed"
      " (superblock and descriptor copies aside)")
sys.exit(0 if ok else 1)
PY
) && pass "$msg" || fail "$msg"

finish
