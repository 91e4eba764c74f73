#!/bin/bash
# determinism.sh - same config same manifest, another seed another, and the 1M-file fit goal
. "${srcdir:-.}/tests/lib.sh"

"$IMPRINT" plan --files 50K --seed 7 -o "$WORK/a"
"$IMPRINT" plan --files 50K --seed 7 -o "$WORK/b"
"$IMPRINT" plan --files 50K --seed 8 -o "$WORK/c"
cmp -s "$WORK/a" "$WORK/b" && pass "same seed, identical manifests" || fail "same seed differs"
cmp -s "$WORK/a" "$WORK/c" && fail "another seed gives the same manifest" \
	|| pass "another seed, another manifest"

"$IMPRINT" plan --files 1M --seed 7 --report --json >"$WORK/r1.json"
"$IMPRINT" plan --files 1M --seed 7 -o "$WORK/m1"
"$IMPRINT" plan --files 1M --seed 7 -o "$WORK/m2"
cmp -s "$WORK/m1" "$WORK/m2" && pass "1M files twice, identical manifests" \
	|| fail "1M files twice differ"
python3 - "$WORK/r1.json" <<'PY' && pass "1M fit: size, depth, ext goals" || fail "1M fit goals"
import json, sys
r = json.load(open(sys.argv[1]))
print("# size_ks_d %.6f depth_ks_d %.6f ext_max_abs_diff %.6f fpd_max_abs_diff %.6f" %
      (r["size_ks_d"], r["depth_ks_d"], r["ext_max_abs_diff"], r["fpd_max_abs_diff"]))
assert r["files"] == 1000000 and r["seed"] == 7
assert r["size_ks_d"] < 0.005 and r["depth_ks_d"] < 0.01 and r["ext_max_abs_diff"] < 0.005
PY
finish
