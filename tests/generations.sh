#!/bin/bash
# generations.sh - --generation N: generation 0 is the plan itself; generations 2 and 3
# built directly (mounted backend, through the kernel) differ by what generation 3's
# summary says, as the test's own tree walk and 4 KiB block hashes count it
. "${srcdir:-.}/tests/lib.sh"

ARGS=(--files 2000 --used 30M --size 100M --seed 7 --set gen_modify_share=0.1
	--set gen_dir_create_share=0.05 --set gen_dir_remove_share=0.05 --set gen_truncate_share=0.3)

# generation 0 is today's plan, byte for byte
"$IMPRINT" plan "${ARGS[@]}" >"$WORK/m" && "$IMPRINT" plan "${ARGS[@]}" --generation 0 >"$WORK/m0"
if cmp -s "$WORK/m" "$WORK/m0"; then pass "--generation 0: the plan's manifest"
else fail "--generation 0 differs from the plan"; fi
"$IMPRINT" plan "${ARGS[@]}" --generation 3 >"$WORK/m3a" && "$IMPRINT" plan "${ARGS[@]}" --generation 3 >"$WORK/m3b"
if cmp -s "$WORK/m3a" "$WORK/m3b" && ! cmp -s "$WORK/m" "$WORK/m3a"; then
	pass "--generation 3: the same manifest twice, not generation 0's"
else
	fail "--generation 3 is not reproducible or equals generation 0"
fi

expect_status 2 "--generation -1 refused" "$IMPRINT" plan "${ARGS[@]}" --generation -1
expect_err "'--generation' must be a whole number from 0 to 100000 (got '-1')" "--generation -1"
expect_status 2 "--generation with sparse files refused" \
	"$IMPRINT" plan "${ARGS[@]}" --generation 1 --set sparse_file_share=0.1
expect_err "'sparse_file_share' is not supported by the change model yet" "--generation with sparse_file_share"
expect_status 2 "--generation is not measure's" "$IMPRINT" measure --generation 1 "$WORK"

# an ext4 image of generation 3 (libext2fs backend) is clean
if "$IMPRINT" create -q "${ARGS[@]}" --generation 3 "$WORK/g3.img" 2>"$WORK/err" &&
	e2fsck -fn "$WORK/g3.img" >"$WORK/fsck" 2>&1; then
	pass "create --generation 3 image: e2fsck -fn clean"
else
	fail "create --generation 3 image: $(head -c 300 "$WORK/err") $(tail -3 "$WORK/fsck")"
fi
rm -f "$WORK/g3.img"

mkdir "$WORK/g2" "$WORK/g3"
for g in 2 3; do
	if "$IMPRINT" create -q "${ARGS[@]}" --generation "$g" --json "$WORK/g$g" >"$WORK/sum$g.json" 2>"$WORK/err"; then
		pass "create --generation $g in a directory"
	else
		fail "create --generation $g: $(head -c 300 "$WORK/err")"
	fi
done
verify_ok "generation 3" "${ARGS[@]}" --generation 3 "$WORK/g3"
if ! "$IMPRINT" verify "${ARGS[@]}" --generation 2 "$WORK/g3" >/dev/null 2>&1; then
	pass "verify --generation 2 of generation 3 finds mismatches"
else
	fail "verify --generation 2 passed on generation 3"
fi

# the test's own walk: paths, sizes, bytes, mtimes, modes; 4 KiB block hashes
python3 - "$WORK/g2" "$WORK/g3" "$WORK/sum3.json" <<'PY'
import hashlib, json, os, sys
def walk(top):
    files, dirs = {}, set()
    for d, ds, fs in os.walk(top):
        for n in ds:
            p = os.path.join(d, n)
            if not os.path.islink(p):
                dirs.add(os.path.relpath(p, top))
        for n in fs:
            p = os.path.join(d, n)
            st = os.lstat(p)
            if not os.path.isfile(p) or os.path.islink(p):
                continue
            data = open(p, 'rb').read()
            blocks = [hashlib.sha1(data[i:i + 4096]).digest() for i in range(0, len(data), 4096)]
            files[os.path.relpath(p, top)] = (hashlib.sha256(data).digest(), st.st_mtime_ns, st.st_mode, blocks, st.st_ino, st.st_nlink)
    return files, dirs
f2, d2 = walk(sys.argv[1]); f3, d3 = walk(sys.argv[2])
g = json.load(open(sys.argv[3]))["generation"]
gone = set(f2) - set(f3); new = set(f3) - set(f2); both = set(f2) & set(f3)
# a file with hard links counts once (by its inode in generation 3)
def once(paths):
    return len(set(f3[p][4] for p in paths))
changed = once(p for p in both if f2[p][0] != f3[p][0])
meta = once(p for p in both if f2[p][0] == f3[p][0] and (f2[p][1] != f3[p][1] or f2[p][2] != f3[p][2]))
mode = once(p for p in both if f2[p][2] != f3[p][2])
moved = g["files_renamed"] + g["files_moved"]
mods = sum(g[k]["files"] for k in ("appended", "edited", "rewritten", "truncated"))
checks = [
    ("names gone", len(gone), g["deleted"]["files"] + moved),
    ("names new", len(new), g["created"]["files"] + moved),
    ("files whose bytes changed", changed, mods),
    ("metadata-only changes", meta, g["files_meta"]),
    ("mode changes", mode, g["files_mode"]),
    ("directories gone", len(d2 - d3), g["dirs_removed"]),
    ("directories new", len(d3 - d2), g["dirs_created"]),
]
bad = 0
for what, got, want in checks:
    ok = got == want
    bad += not ok
    print(("ok" if ok else "FAIL") + f" walk: {what}: {got}, summary {want}")
# blocks of generation 3 found anywhere in generation 2, against the summary's share kept
h2 = set(b for v in f2.values() for b in v[3])
u3 = {v[4]: v for v in f3.values()}.values()
tot = sum(len(v[3]) for v in u3); found = sum(1 for v in u3 for b in v[3] if b in h2)
share = found / tot
ok = g["blocks"] == tot and share >= g["dup_block_share"] - 1e-9 and share - g["dup_block_share"] < 0.02
bad += not ok
print(("ok" if ok else "FAIL") + f" walk: 4 KiB blocks {tot} (summary {g['blocks']}), held by generation 2: {share:.4f} (summary {g['dup_block_share']:.4f})")
print("changes in generation 3: " + ", ".join(f"{k} {g[k]['files']}" for k in ("created", "appended", "edited", "rewritten", "truncated", "deleted")))
sys.exit(1 if bad else 0)
PY
rc=$?
if [ $rc -eq 0 ]; then pass "tree walk: generation 3 against 2 matches its summary"
else fail "tree walk: generation 3 against 2 does not match its summary"; fi
finish
