#!/bin/bash
# generations_restic.sh - restic backs up generations 0..3 of a plan (the directory
# evolved in place by imprint evolve); each backup succeeds, 'restic check' is clean,
# and what each generation added to the repository is printed beside imprint's own
# figure of the bytes that generation wrote (doc/benchmarks.md records a run)
. "${srcdir:-.}/tests/lib.sh"

command -v restic >/dev/null 2>&1 || { echo "1..0 # SKIP restic not installed"; exit 77; }

ARGS=(--files 3000 --used 60M --size 200M --seed 11)
export RESTIC_PASSWORD=imprint-test RESTIC_REPOSITORY="$WORK/repo" RESTIC_CACHE_DIR="$WORK/cache"
export RESTIC_PROGRESS_FPS=0.0001

mkdir "$WORK/tree"
if restic init -q >"$WORK/out" 2>&1; then pass "restic init"
else fail "restic init: $(head -3 "$WORK/out")"; finish; fi
"$IMPRINT" create -q --json "${ARGS[@]}" "$WORK/tree" >"$WORK/create.json" 2>"$WORK/err" ||
	fail "create generation 0: $(head -c 300 "$WORK/err")"
# imprint bytes: what the generation wrote (created, appended, edited, rewritten);
# kept: imprint's share of the generation's 4 KiB blocks that the one before holds
printf '%-10s %14s %14s %14s %10s\n' generation "imprint bytes" "restic added" "restic packed" "kept"
for g in 0 1 2 3; do
	written=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["bytes"])' "$WORK/create.json") kept=-
	if [ "$g" -gt 0 ]; then
		if ! "$IMPRINT" evolve "${ARGS[@]}" --generation "$g" --json "$WORK/tree" >"$WORK/gen$g.json" 2>"$WORK/err"; then
			fail "evolve to generation $g: $(head -c 300 "$WORK/err")"
			break
		fi
		read -r written kept < <(python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
print(sum(g[k]["bytes"] for k in ("created", "appended", "edited", "rewritten")), "%.4f" % g["dup_block_share"])' "$WORK/gen$g.json")
	fi
	if (cd "$WORK/tree" && restic backup --json -q . >"$WORK/backup$g.json" 2>"$WORK/err"); then
		pass "restic backup of generation $g"
	else
		fail "restic backup of generation $g: $(head -c 300 "$WORK/err")"
		continue
	fi
	read -r added packed < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("message_type") == "summary":
        print(o.get("data_added", 0), o.get("data_added_packed", o.get("data_added", 0)))' "$WORK/backup$g.json")
	printf '%-10s %14s %14s %14s %10s\n' "$g" "$written" "$added" "$packed" "$kept"
	if [ "$g" -gt 0 ] && [ "$added" -le 0 ]; then
		fail "generation $g added nothing to the repository though $written bytes changed"
	fi
done
if restic check >"$WORK/check" 2>&1 && grep -q "no errors were found" "$WORK/check"; then
	pass "restic check: no errors"
else
	fail "restic check: $(tail -3 "$WORK/check")"
fi
n=$(restic snapshots --json 2>/dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
if [ "$n" = 4 ]; then pass "4 snapshots"; else fail "snapshots: $n, wanted 4"; fi
finish
