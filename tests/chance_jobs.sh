#!/bin/bash
# chance_jobs.sh - the small files' chance copies are hashed on as many threads as create's -j, not one a CPU, and -j changes no byte
. "${srcdir:-.}/tests/lib.sh"

# many distinct files of at most 512 bytes beside the plan's copies: the source hashes them all
ARGS=(--size 256M --seed 1 --files 20000 --used 24M --set size_tail_weight=0 --set size_mu=6.9
	--set size_sigma=1.2)

# threads J: the threads `imprint create -jJ` starts on the null backend (which writes no data:
# its only threads are the J - 1 beside the caller that make the plan's names unique (20,000
# entries: threaded), the content's, built beside the backend's open, which hashes a share of
# the chance copies, and the J - 1 others that hash the rest: 2J - 1), counted by strace
threads() {
	rm -f "$WORK/null.img"
	strace -f -qq -e trace=clone,clone3 -o "$WORK/strace" \
		"$IMPRINT" create -q -j"$1" --backend null "${ARGS[@]}" "$WORK/null.img" 2>"$WORK/err" ||
		{ echo "create -j$1 failed: $(head -c 300 "$WORK/err")"; return; }
	grep -c CLONE_THREAD "$WORK/strace"
}

if ! command -v strace >/dev/null || ! strace -qq -o /dev/null true 2>/dev/null; then
	pass "# SKIP threads follow -j: strace missing or not permitted"
else
	for j in 1 3; do
		got=$(threads $j)
		if [ "$got" = "$((2 * j - 1))" ]; then
			pass "-j$j: names and chance copies on $j thread(s) each ($got started)"
		else
			fail "-j$j: wanted $((2 * j - 1)) threads started, got '$got' ($(nproc) CPUs online)"
		fi
	done
fi

# the count, so the bytes, do not depend on the threads
for j in 1 3; do
	"$IMPRINT" create -q -j$j "${ARGS[@]}" "$WORK/j$j.img" 2>"$WORK/err" ||
		fail "create -j$j: $(head -c 300 "$WORK/err")"
done
if [ -s "$WORK/j1.img" ] && cmp -s "$WORK/j1.img" "$WORK/j3.img"; then
	pass "-j1 and -j3 images identical ($(sha "$WORK/j1.img" | head -c 16))"
else
	fail "-j1 and -j3 images differ"
fi
e2fsck -fn "$WORK/j3.img" >"$WORK/fsck" 2>&1 && pass "e2fsck -fn clean" ||
	fail "e2fsck: $(tail -3 "$WORK/fsck")"
finish
