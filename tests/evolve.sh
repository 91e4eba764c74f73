#!/bin/bash
# evolve.sh - imprint evolve through the kernel: generation 0 evolved to 1, 2 and 3 is
# the tree create makes of generation 3 directly (type, size, mode, owner, times,
# links, bytes, by the test's own walk); a directory of another generation or plan
# is refused before anything changes; SIGTERM mid-way stops it with the state it says
# (checked against the test's own listing and measure --generation)
. "${srcdir:-.}/tests/lib.sh"

ARGS=(--files 2000 --used 30M --size 100M --seed 7 --set gen_modify_share=0.1
	--set gen_dir_create_share=0.05 --set gen_dir_remove_share=0.05 --set gen_truncate_share=0.3)

mkdir "$WORK/e" "$WORK/d"
if "$IMPRINT" create -q "${ARGS[@]}" "$WORK/e" 2>"$WORK/err"; then pass "create generation 0"
else fail "create generation 0: $(head -c 300 "$WORK/err")"; fi
# every regular file with one name: its path, inode and bytes (paths and bytes in hex)
snap() {
	python3 - "$1" <<'PY'
import os, stat, sys
top = os.fsencode(sys.argv[1])
for d, ds, fs in os.walk(top):
    for n in fs:
        p = os.path.join(d, n); st = os.lstat(p)
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            print(os.path.relpath(p, top).hex(), st.st_ino, open(p, 'rb').read().hex())
PY
}
for g in 1 2 3; do
	[ "$g" = 3 ] && snap "$WORK/e" >"$WORK/s2"
	expect_status 0 "evolve to generation $g" "$IMPRINT" evolve "${ARGS[@]}" --generation "$g" "$WORK/e"
done
# how the kernel saw generation 3 written: a file whose bytes grew from its
# old ones (appended, in pieces) keeps its inode; one whose size changed
# with other bytes (a rewrite) is a new inode renamed over the old path
snap "$WORK/e" >"$WORK/s3"
got=$(python3 - "$WORK/s2" "$WORK/s3" <<'PY'
import sys
def load(f):
    return {p: (i, b) for p, i, b in (l.split(' ') for l in open(f).read().split('\n') if l)}
a, b = load(sys.argv[1]), load(sys.argv[2])
app = rew = bad = 0
for p in a.keys() & b.keys():
    (i0, b0), (i1, b1) = a[p], b[p]
    if b0 and len(b1) > len(b0) and b1.startswith(b0):
        app += 1; bad += i0 != i1
    elif len(b1) != len(b0) and not b1.startswith(b0) and not b0.startswith(b1):
        rew += 1; bad += i0 == i1
print(app, rew, bad)
PY
)
read -r napp nrew nbad <<<"$got"
if [ "${napp:-0}" -gt 0 ] && [ "${nrew:-0}" -gt 0 ] && [ "${nbad:-1}" = 0 ]; then
	pass "generation 3: $napp appended files kept their inodes, $nrew rewritten ones are new inodes"
else
	fail "generation 3: appended $napp, rewritten $nrew, of them $nbad written the other way"
fi
"$IMPRINT" create -q "${ARGS[@]}" --generation 3 "$WORK/d" 2>"$WORK/err" ||
	fail "create generation 3: $(head -c 300 "$WORK/err")"
verify_ok "evolved to 3" "${ARGS[@]}" --generation 3 "$WORK/e"

tree_listing "$WORK/e" >"$WORK/te"
tree_listing "$WORK/d" >"$WORK/td"
if [ -s "$WORK/te" ] && cmp -s "$WORK/te" "$WORK/td"; then
	pass "evolved 0 -> 1 -> 2 -> 3 is generation 3 made directly ($(wc -l <"$WORK/te") entries)"
else
	fail "evolved and direct generation 3 differ: $(diff "$WORK/te" "$WORK/td" | head -6)"
fi

# refusals, and nothing changed by them
tree_listing "$WORK/e" >"$WORK/before"
expect_status 1 "evolve of a generation 3 tree to generation 3 refused" \
	"$IMPRINT" evolve "${ARGS[@]}" --generation 3 "$WORK/e"
expect_err "is not generation 2 of this plan" "the refusal says which generation it wanted"
expect_err "it holds generation 3 already (nothing was changed)" "the refusal says it is generation 3 already"
expect_status 1 "evolve of another seed's tree refused" \
	"$IMPRINT" evolve "${ARGS[@]}" --seed 8 --generation 4 "$WORK/e"
expect_err "give the options it was created with" "another seed's refusal asks for the options"
tree_listing "$WORK/e" >"$WORK/after"
if cmp -s "$WORK/before" "$WORK/after"; then pass "refused evolves changed nothing"
else fail "a refused evolve changed the tree"; fi
expect_status 2 "evolve without --generation" "$IMPRINT" evolve "${ARGS[@]}" "$WORK/e"
expect_err "evolve needs '--generation N' (N >= 1)" "evolve without --generation"
expect_status 2 "evolve without the plan's size" "$IMPRINT" evolve --generation 1 "$WORK/e"
expect_status 2 "evolve of a file" "$IMPRINT" evolve "${ARGS[@]}" --generation 1 "$WORK/te"

# SIGTERM once files are deleted and moved: a directory has no undo, so evolve stops before its
# next move and says what it did; the deleted files it counts are the ones gone from the tree
mkdir "$WORK/s"
"$IMPRINT" create -q "${ARGS[@]}" "$WORK/s" 2>"$WORK/err" || fail "create: $(head -c 300 "$WORK/err")"
files() { (cd "$1" && find . -type f | sort); }
files "$WORK/s" >"$WORK/s0"
IMPRINT_TEST_PAUSE_AT=evolve-moved "$IMPRINT" evolve "${ARGS[@]}" --generation 1 "$WORK/s" \
	>"$WORK/out" 2>"$WORK/err" &
pid=$!
stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }
wait_until "$pid" stopped "$pid"
kill -TERM "$pid"
kill -CONT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 1 ] && pass "SIGTERM ends the evolve of a directory with exit 1" || fail "SIGTERM: exit $rc"
expect_err "interrupted (SIGTERM)" "the interruption is named"
state=$(grep -F "is now part generation 0 and part 1" "$WORK/err")
if [[ $state =~ after\ ([0-9]+)\ files\ deleted,.*\ ([0-9]+)\ moved\ files.*\ ([0-9]+)\ files\ written ]] &&
	[ "${BASH_REMATCH[3]}" = 0 ]; then
	deleted=${BASH_REMATCH[1]} moved=${BASH_REMATCH[2]}
	# the test's own walk: generation 0's paths now missing are the deleted and the moved
	missing=$(files "$WORK/s" | comm -23 "$WORK/s0" - | wc -l)
	[ "$missing" = $((deleted + moved)) ] && pass "$missing paths gone: $deleted deleted + $moved moved, as it says" ||
		fail "$missing paths gone, it says $deleted deleted and $moved moved"
	"$IMPRINT" measure "${ARGS[@]}" --generation 1 "$WORK/s" >"$WORK/census" 2>&1
	census=$(grep -E '^ +deleted ' "$WORK/census")
	if [[ $census =~ deleted\ +([0-9]+)\ of ]] && [ "${BASH_REMATCH[1]}" = "$deleted" ] &&
		[ "$deleted" -gt 0 ]; then
		pass "it says $deleted files deleted, none written: the tree's ($census)"
	else
		fail "it says $deleted deleted; measure: '$census'"
	fi
else
	fail "the state it names: $(head -c 500 "$WORK/err")"
fi
finish
