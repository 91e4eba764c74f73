#!/bin/bash
# content_report.sh - imprint content-report on 1 GiB images: achieved compressibility, duplicates, zero blocks and types against their targets
. "${srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 not found"; exit 77; }

# within 5% (relative) of each target, as the issue asks; typed files: at least 99%
TOL=0.05
TYPED_MIN=0.99

# check_json WHAT FILE: every achieved figure of the JSON report in FILE against its target
check_json() {
	local what=$1 json=$2 line
	while IFS= read -r line; do
		case $line in
		ok*) pass "$what: ${line#ok }" ;;
		*) fail "$what: ${line#fail }" ;;
		esac
	done < <(python3 - "$json" "$TOL" "$TYPED_MIN" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
tol, typed_min = float(sys.argv[2]), float(sys.argv[3])
t = r["targets"]
pairs = [("compress_ratio_zlib", "compress_ratio"), ("compress_ratio_zstd", "compress_ratio"),
         ("compress_ratio_exec_zlib", "compress_ratio_exec"),
         ("compress_ratio_exec_zstd", "compress_ratio_exec"),
         ("dup_file_share", "dup_file_share"), ("dup_block_share", "dup_block_share"),
         ("zero_block_share", "zero_block_share")]
for got_key, want_key in pairs:
    got, want = r[got_key], t[want_key]
    if want is None:
        print("fail %s: no target %s in the report" % (got_key, want_key))
    elif want == 0:
        # no relative difference to a zero target: nothing may be there
        ok = got == 0
        print("%s %s %.4f, target 0" % ("ok" if ok else "fail", got_key, got))
    else:
        rel = (got - want) / want
        ok = abs(rel) <= tol
        print("%s %s %.4f, target %.4f (%+.2f%%)" %
              ("ok" if ok else "fail", got_key, got, want, 100 * rel))
share = r["typed_identified_share"]
if share is None:
    print("fail typed files identified: the image holds no typed files")
else:
    print("%s typed files identified %.4f (%d of %d), at least %.2f" %
          ("ok" if share >= typed_min else "fail",
           share, r["typed_identified"], r["typed_files"], typed_min))
EOF
)
}

# report WHAT IMG ARGS...: create a 1 GiB image with ARGS, then check its content report
report() {
	local what=$1 img=$2
	shift 2
	rm -f "$img"
	if ! "$IMPRINT" create -q --size 1G "$@" "$img" >"$WORK/out" 2>"$WORK/err"; then
		fail "$what: create failed: $(head -c 400 "$WORK/err")"
		return 1
	fi
	if ! "$IMPRINT" content-report --json --size 1G "$@" "$img" >"$WORK/report.json" \
		2>"$WORK/err"; then
		fail "$what: content-report failed: $(head -c 400 "$WORK/err")"
		return 1
	fi
	pass "$what: content-report ran"
	check_json "$what" "$WORK/report.json"
}

# mounted_like_image WHAT IMG ARGS...: the image read through libext2fs and
# its loop mount read through the kernel (FIEMAP for the holes) give the
# same figures, a sample of the segments compressed to stay fast
MNT=$WORK/mnt
LOOP=
cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	LOOP=
}
mounted_like_image() {
	local what=$1 img=$2
	shift 2
	if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null || ! losetup -f >/dev/null 2>&1; then
		pass "# SKIP $what: mounted tree: needs root and a free loop device"
		return
	fi
	mkdir -p "$MNT"
	trap 'cleanup; rm -rf "$WORK"' EXIT
	"$IMPRINT" content-report --json --sample 0.05 "$@" "$img" >"$WORK/image.json" 2>"$WORK/err"
	if LOOP=$(losetup -f --show -r "$img") && mount -o ro "$LOOP" "$MNT" 2>"$WORK/err"; then
		if "$IMPRINT" content-report --json --sample 0.05 "$@" "$MNT" \
			>"$WORK/mounted.json" 2>"$WORK/err"; then
			if python3 - "$WORK/image.json" "$WORK/mounted.json" 2>"$WORK/err" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ["files", "bytes", "compress_ratio_zlib", "compress_ratio_zstd", "dup_file_share",
        "dup_block_share", "zero_block_share", "hole_blocks", "typed_identified_share",
        "type_mix", "groups"]
diff = [k for k in keys if a[k] != b[k]]
if diff:
    print("differ: " + " ".join(diff), file=sys.stderr)
sys.exit(1 if diff else 0)
EOF
			then
				pass "$what: mounted tree: the same figures as the image ($(python3 -c \
					'import json,sys; print("hole blocks %d" % json.load(open(sys.argv[1]))["hole_blocks"])' \
					"$WORK/mounted.json"))"
			else
				fail "$what: mounted tree: figures differ from the image's ($(cat "$WORK/err"))"
			fi
		else
			fail "$what: content-report on the mounted tree: $(head -c 400 "$WORK/err")"
		fi
	else
		fail "$what: cannot mount the image: $(head -c 300 "$WORK/err")"
	fi
	cleanup
}

img=$WORK/img

# --- the defaults (every byte compressed; the checks below that need no
# precision compress a sample, to stay fast)
report "defaults" "$img" --seed 31
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["hole_blocks"] == 0 else 1)' \
	"$WORK/report.json" && pass "defaults: no sparse files, hole_blocks 0" ||
	fail "defaults: hole blocks without sparse files"

# the text form shows every figure beside its target
if "$IMPRINT" content-report --sample 0.05 --size 1G --seed 31 "$img" >"$WORK/out" \
	2>"$WORK/err"; then
	missing=
	for key in "compress_ratio " compress_ratio_exec dup_file_share dup_block_share \
		zero_block_share "typed identified"; do
		grep -q "^  $key" "$WORK/out" || missing="$missing '$key'"
	done
	[ -z "$missing" ] && pass "text report lists every figure" \
		|| fail "text report lacks$missing"
else
	fail "text content-report failed: $(head -c 400 "$WORK/err")"
fi

# the same tree read through the kernel gives the same figures
mounted_like_image "defaults" "$img" --size 1G --seed 31

# --- other targets: more compressible, less compressible executables, more
# duplicate and zero blocks, fewer copies
report "compress 3, exec 1.8, dup blocks 0.2, zero 0.1, dup files 0.05" "$img" --seed 32 \
	--set compress_ratio=3.0 --set compress_ratio_exec=1.8 --set dup_block_share=0.2 \
	--set zero_block_share=0.1 --set dup_file_share=0.05

# --- a target the image does not meet is reported as missed (the check can fail)
"$IMPRINT" content-report --json --sample 0.1 --size 1G --seed 32 --set compress_ratio=1.5 \
	"$img" >"$WORK/wrong.json" 2>"$WORK/err"
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1]));
sys.exit(0 if abs(r["compress_ratio_zlib"] / r["targets"]["compress_ratio"] - 1) > 0.05 else 1)' \
	"$WORK/wrong.json" 2>/dev/null; then
	pass "a wrong target shows as more than 5% off"
else
	fail "a wrong target (compress_ratio 1.5 for a 3.0 image) is not shown as missed"
fi

# --- sparse files: holes read as zeros but are not content: out of the
# blocks, the zero and duplicate blocks and the compressed bytes, counted as
# hole_blocks (about as many as imprint measure finds: copies count once)
sparse="--seed 33 --set sparse_file_share=1"
if report "sparse files" "$img" $sparse; then
	"$IMPRINT" measure --json "$img" >"$WORK/measure.json" 2>"$WORK/err" ||
		fail "sparse files: measure failed: $(head -c 300 "$WORK/err")"
	if out=$(python3 - "$WORK/report.json" "$WORK/measure.json" "$TOL" <<'EOF'
import json, sys
r, m = (json.load(open(p)) for p in sys.argv[1:3])
tol = float(sys.argv[3])
b = r["groups"]["binary"]
want = r["targets"]["zero_block_share"]
# what the report said before holes were told apart: holes as zero blocks
old = (b["zero_blocks"] + b["hole_blocks"]) / (b["blocks"] + b["hole_blocks"])
print("hole blocks %d (measure: %d in all files), zero_block_share %.4f, target %.4f; "
      "holes as zeros would give %.4f" % (r["hole_blocks"], m["hole_blocks"],
                                          r["zero_block_share"], want, old))
ok = (r["hole_blocks"] > 0 and r["hole_blocks"] == b["hole_blocks"] <= m["hole_blocks"]
      and abs(r["zero_block_share"] / want - 1) <= tol and abs(old / want - 1) > tol)
sys.exit(0 if ok else 1)
EOF
	); then
		pass "sparse files: $out"
	else
		fail "sparse files: $out"
	fi
	"$IMPRINT" content-report --sample 0.05 --size 1G $sparse "$img" >"$WORK/out" 2>"$WORK/err" &&
		grep -q "^  holes        [1-9][0-9]* blocks" "$WORK/out" &&
		pass "sparse files: the text report counts the hole blocks" ||
		fail "sparse files: the text report lacks the hole blocks: $(grep holes "$WORK/out")"
	mounted_like_image "sparse files" "$img" --size 1G $sparse
fi

# --- issue 16, finding 6: a 1 TiB sparse file in a 64 MiB image is read by
# its data, not its apparent size: read_bytes (what was read) stays a few
# MiB, and the holes are counted, not hashed (no timing: the counts prove it)
if truncate -s 1T "$WORK/host.bin" 2>/dev/null; then
	head -c 3000000 /dev/urandom | dd of="$WORK/host.bin" conv=notrunc status=none
	printf tail | dd of="$WORK/host.bin" bs=1 seek=$((1 << 39)) conv=notrunc status=none
	mke2fs -q -F -t ext4 -b 4096 "$WORK/sp.img" 64M >/dev/null 2>&1
	debugfs -w -R "write $WORK/host.bin sparse.bin" "$WORK/sp.img" >/dev/null 2>&1
	rm -f "$WORK/host.bin"
	expect_status 0 "1 TiB sparse file: content-report" timeout 600 "$IMPRINT" content-report --json "$WORK/sp.img"
	if python3 - "$WORK/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["bytes"] == 1 << 40, d["bytes"]
assert d["read_bytes"] <= 8 << 20, d["read_bytes"]
assert d["hole_blocks"] >= (1 << 28) - 1024, d["hole_blocks"]
PY
	then pass "1 TiB sparse file: at most 8 MiB read, the holes counted"
	else fail "1 TiB sparse file: $(head -c 300 "$WORK/out")"
	fi
	rm -f "$WORK/sp.img"
else
	pass "# SKIP 1 TiB sparse file: the host file system has no 1 TiB sparse files"
fi

rm -f "$img"
finish
