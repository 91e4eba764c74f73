#!/bin/bash
# shard.sh - `imprint create --shard K/N`: the shares of one plan written in any order, at
# once, twice, or killed and rerun, then `--shard finish`, give the tree one plain create
# gives (type, size, mode, owner, mtime, link count, hard-link groups, symlink targets,
# device numbers, bytes); `verify --shard K/N` checks a share; the refusals write nothing.
# No root needed (as root, owners and device nodes are compared too).
. "${srcdir:-.}/tests/lib.sh"

PLAN=(--size 64M --used 12M --seed 7 --files 700)

# listing DIR: one line per entry (tests/tree_listing.py)
listing() { python3 "${srcdir:-.}/tests/tree_listing.py" "$1"; }

# create_plain DIR, create_shards DIR N ORDER...: the plan, plain or by shards in ORDER
create_shards() {
	local dir=$1 n=$2 k
	shift 2
	mkdir -p "$dir"
	for k in "$@"; do
		"$IMPRINT" create -q -j2 "${PLAN[@]}" --shard "$k/$n" "$dir" 2>"$WORK/err" ||
			fail "shard $k/$n of $dir: $(head -c 300 "$WORK/err")"
	done
}

finish_shards() {
	"$IMPRINT" create -q "${PLAN[@]}" --shard finish "$1" 2>"$WORK/err" ||
		fail "finish $1: $(head -c 300 "$WORK/err")"
}

# same DIR WHAT: DIR's listing is the plain create's
same() {
	listing "$1" >"$WORK/got"
	if cmp -s "$WORK/ref" "$WORK/got"; then
		pass "$2: the same tree as one plain create ($(wc -l <"$WORK/ref") entries)"
	else
		fail "$2: differs from the plain create: $(diff "$WORK/ref" "$WORK/got" | head -5)"
	fi
	if [ -n "$(find "$1" -name '.imprint-*' | head -1)" ]; then
		fail "$2: leftovers: $(find "$1" -name '.imprint-*' | head -3)"
	fi
}

mkdir -p "$WORK/plain"
"$IMPRINT" create -q "${PLAN[@]}" "$WORK/plain" 2>"$WORK/err" || fail "plain create: $(cat "$WORK/err")"
listing "$WORK/plain" >"$WORK/ref"
links=$(awk -F'|' '$2 == 12' "$WORK/ref" | wc -l)
hard=$(awk -F'|' '$2 == 10 && $6 > 1' "$WORK/ref" | wc -l)
if [ "$links" -gt 0 ] && [ "$hard" -gt 0 ] && [ "$(wc -l <"$WORK/ref")" -gt 500 ]; then
	pass "the plan has $(wc -l <"$WORK/ref") entries, $links symbolic links, $hard names of files with hard links"
else
	fail "the plan lacks links to test: $links symbolic, $hard hard"
fi

# N = 1
create_shards "$WORK/n1" 1 0
finish_shards "$WORK/n1"
same "$WORK/n1" "N=1"

# N = 3, out of order, shard 1 twice; each share verified before the finish
create_shards "$WORK/n3" 3 2 0 1 1
for k in 0 1 2; do
	verify_ok "N=3 share $k" "${PLAN[@]}" --shard "$k/3" "$WORK/n3"
done
finish_shards "$WORK/n3"
same "$WORK/n3" "N=3 in the order 2 0 1 1"
verify_ok "N=3 whole" "${PLAN[@]}" "$WORK/n3"

# a share's check fails where the share is missing
mkdir -p "$WORK/part"
create_shards "$WORK/part" 3 0
expect_status 1 "verify --shard 1/3 where only share 0 ran" "$IMPRINT" verify "${PLAN[@]}" --shard 1/3 "$WORK/part"
expect_status 0 "verify --shard 0/3 there" "$IMPRINT" verify "${PLAN[@]}" --shard 0/3 "$WORK/part"
expect_status 1 "finish before every shard ran" "$IMPRINT" create -q "${PLAN[@]}" --shard finish "$WORK/part"
expect_err "2 of the 3 shards of '$WORK/part' have not completed (1, 2" "finish names the shards missing"

# N = 4, all at once
mkdir -p "$WORK/n4"
pids=()
for k in 3 1 0 2; do
	"$IMPRINT" create -q -j2 "${PLAN[@]}" --shard "$k/4" "$WORK/n4" 2>"$WORK/err$k" &
	pids+=($!)
done
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || fail "concurrent shard (pid ${pids[$i]}): $(cat "$WORK"/err* | head -c 300)"
done
finish_shards "$WORK/n4"
same "$WORK/n4" "N=4 concurrently"
verify_ok "N=4 whole" "${PLAN[@]}" "$WORK/n4"

# killed with SIGKILL mid-way, then run again: a larger plan, one writer thread
BIG=(--size 1G --used 96M --seed 5 --files 3000)
mkdir -p "$WORK/bigplain" "$WORK/kill"
"$IMPRINT" create -q "${BIG[@]}" "$WORK/bigplain" 2>"$WORK/err" || fail "plain create of the larger plan: $(cat "$WORK/err")"
"$IMPRINT" create -q -j1 "${BIG[@]}" --shard 0/2 "$WORK/kill" 2>/dev/null &
pid=$!
for _ in $(seq 200); do
	[ "$(find "$WORK/kill" -type f | wc -l)" -ge 200 ] && break
	sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
if [ -e "$WORK/kill/.imprint-shard-done-0" ]; then
	fail "the kill came after shard 0 had completed: not mid-way"
else
	pass "shard 0/2 killed mid-way ($(find "$WORK/kill" -type f ! -name '.imprint-*' | wc -l) files written)"
fi
for k in 1 0; do
	"$IMPRINT" create -q -j1 "${BIG[@]}" --shard "$k/2" "$WORK/kill" 2>"$WORK/err" ||
		fail "rerun of shard $k/2: $(head -c 300 "$WORK/err")"
done
"$IMPRINT" create -q "${BIG[@]}" --shard finish "$WORK/kill" 2>"$WORK/err" || fail "finish after the kill: $(cat "$WORK/err")"
PLAN=("${BIG[@]}")
listing "$WORK/bigplain" >"$WORK/ref"
same "$WORK/kill" "killed and rerun"
verify_ok "killed and rerun" "${BIG[@]}" "$WORK/kill"
PLAN=(--size 64M --used 12M --seed 7 --files 700)

# refusals: exit 2, a clear message, nothing written
mkdir -p "$WORK/empty"
refuse() {
	local what=$1 text=$2
	shift 2
	expect_status 2 "$what" "$IMPRINT" create -q "$@" "$WORK/empty"
	expect_err "$text" "$what: says why"
	if [ -z "$(ls -A "$WORK/empty")" ]; then
		pass "$what: nothing written"
	else
		fail "$what: wrote $(ls -A "$WORK/empty" | head -3)"
	fi
}
allowed="must be K/N with whole numbers 0 <= K < N <= 65536 (share K of N, counting from 0), 'auto' or 'finish'"
refuse "K = N" "$allowed (got '3/3')" "${PLAN[@]}" --shard 3/3
refuse "K > N" "$allowed (got '5/3')" "${PLAN[@]}" --shard 5/3
refuse "N = 0" "$allowed (got '0/0')" "${PLAN[@]}" --shard 0/0
refuse "N above the bound" "$allowed (got '0/65537')" "${PLAN[@]}" --shard 0/65537
refuse "not numbers" "$allowed (got 'one/3')" "${PLAN[@]}" --shard one/3
refuse "a sign" "$allowed (got '-1/3')" "${PLAN[@]}" --shard -1/3
refuse "no size" "'--shard' needs 'size'" --used 8M --seed 7 --shard 0/2
refuse "auto without a launcher" "no launcher's variables found" "${PLAN[@]}" --shard auto
expect_status 2 "auto with a bad rank" env OMPI_COMM_WORLD_RANK=4 OMPI_COMM_WORLD_SIZE=4 \
	"$IMPRINT" create -q "${PLAN[@]}" --shard auto "$WORK/empty"
expect_err "OMPI_COMM_WORLD_RANK=4, OMPI_COMM_WORLD_SIZE=4 from Open MPI do not make a share" "auto with a bad rank: says why"
# --shard auto: which launcher's variables give K and N (the share said on stderr)
auto_share() {
	local want=$1
	shift
	mkdir -p "$WORK/auto"
	rm -rf "$WORK/auto"/* "$WORK/auto"/.imprint-*
	env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK -u SLURM_ARRAY_TASK_ID -u SLURM_PROCID \
		-u JOB_COMPLETION_INDEX "$@" "$IMPRINT" create -q "${PLAN[@]}" --shard auto "$WORK/auto" \
		>"$WORK/out" 2>"$WORK/err"
	if grep -qF "$want" "$WORK/err" && grep -q "^shards $(echo "$want" | sed 's/.* of \([0-9]*\) .*/\1/')\$" "$WORK/auto/.imprint-shard"; then
		pass "--shard auto: $want"
	else
		fail "--shard auto with $*: wanted '$want', got $(head -c 300 "$WORK/err")"
	fi
}
auto_share "share 2 of 3 from Open MPI" OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=3 SLURM_PROCID=0 SLURM_NTASKS=1
auto_share "share 1 of 4 from PMIx under Slurm" PMIX_RANK=1 SLURM_NTASKS=4
auto_share "share 0 of 2 from MPICH/Hydra (PMI)" PMI_RANK=0 PMI_SIZE=2
auto_share "share 3 of 5 from a Slurm job array" SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=5 SLURM_PROCID=0 SLURM_NTASKS=1
auto_share "share 5 of 8 from Slurm" SLURM_PROCID=5 SLURM_NTASKS=8
auto_share "share 6 of 7 from a Kubernetes Indexed Job" JOB_COMPLETION_INDEX=6 IMPRINT_SHARD_COUNT=7
expect_status 2 "Kubernetes without IMPRINT_SHARD_COUNT" env -u IMPRINT_SHARD_COUNT JOB_COMPLETION_INDEX=1 \
	"$IMPRINT" create -q "${PLAN[@]}" --shard auto "$WORK/empty"
expect_err "sets JOB_COMPLETION_INDEX but not IMPRINT_SHARD_COUNT" "Kubernetes without IMPRINT_SHARD_COUNT: says why"

expect_status 2 "--shard on an image file" "$IMPRINT" create -q "${PLAN[@]}" --shard 0/2 "$WORK/img.ext4"
expect_err "'--shard' is not an option of the ext4 backend" "--shard on an image file: says why"
[ -e "$WORK/img.ext4" ] && fail "--shard on an image file made it" || pass "--shard on an image file: nothing made"
expect_status 2 "verify --shard finish" "$IMPRINT" verify "${PLAN[@]}" --shard finish "$WORK/n4"
expect_status 2 "finish without a marker" "$IMPRINT" create -q "${PLAN[@]}" --shard finish "$WORK/empty"
expect_err "holds no shard marker" "finish without a marker: says why"

# a second count of shards, another plan, a directory that is not empty
before=$(listing "$WORK/part" | sha256sum)
expect_status 2 "a mixture of shard counts" "$IMPRINT" create -q "${PLAN[@]}" --shard 1/4 "$WORK/part"
expect_err "is being written in 3 shards (its marker .imprint-shard), not 4" "a mixture of shard counts: says why"
expect_status 2 "another plan's shards" "$IMPRINT" create -q --size 64M --used 12M --seed 8 --files 700 --shard 1/3 "$WORK/part"
expect_err "holds the shards of another plan" "another plan's shards: says why"
[ "$(listing "$WORK/part" | sha256sum)" = "$before" ] && pass "refused shards changed nothing" ||
	fail "a refused shard changed '$WORK/part'"
# a finish killed after removing the markers, before DIR's own times (the test-only pause
# point 'unmarked'), runs again from what DIR's attribute kept, and ends as one plain create
stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }
listing "$WORK/plain" >"$WORK/ref"
create_shards "$WORK/fk" 2 1 0
IMPRINT_TEST_PAUSE_AT=unmarked "$IMPRINT" create -q "${PLAN[@]}" --shard finish "$WORK/fk" 2>"$WORK/err" &
pid=$!
wait_until "$pid" stopped "$pid"
if stopped "$pid"; then
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	[ -e "$WORK/fk/.imprint-shard" ] && fail "finish stopped at 'unmarked': the marker is still there" ||
		pass "finish stopped after removing the markers"
	expect_status 0 "finish again after a stop past the markers" "$IMPRINT" create -q "${PLAN[@]}" \
		--shard finish "$WORK/fk"
	same "$WORK/fk" "finish killed, then again"
	getfattr -n user.imprint.shard-finishing "$WORK/fk" >/dev/null 2>&1 &&
		fail "finish again left DIR's attribute" || pass "finish again: no attribute left"
	expect_status 2 "a third finish" "$IMPRINT" create -q "${PLAN[@]}" --shard finish "$WORK/fk"
	expect_err "holds no shard marker" "a third finish: says why"
else
	wait "$pid"
	fail "finish never reached 'unmarked' (exit $?): $(head -c 300 "$WORK/err")"
fi

# generation 1's shares agree on the change model (the gen_* settings) too
mkdir -p "$WORK/g1"
"$IMPRINT" create -q "${PLAN[@]}" --generation 1 --shard 0/2 "$WORK/g1" 2>"$WORK/err" ||
	fail "generation 1, shard 0/2: $(head -c 300 "$WORK/err")"
before=$(listing "$WORK/g1" | sha256sum)
expect_status 2 "another change model's shards" "$IMPRINT" create -q "${PLAN[@]}" --generation 1 \
	--set gen_modify_share=0.2 --shard 1/2 "$WORK/g1"
expect_err "holds the shards of generation 1 under another change model" "another change model's shards: says why"
[ "$(listing "$WORK/g1" | sha256sum)" = "$before" ] && pass "the refused shard changed nothing" ||
	fail "a shard of another change model changed '$WORK/g1'"
expect_status 0 "the same change model's shard" "$IMPRINT" create -q "${PLAN[@]}" --generation 1 --shard 1/2 "$WORK/g1"
mkdir -p "$WORK/full"
echo keep >"$WORK/full/mine"
expect_status 1 "a directory not empty, without a marker" "$IMPRINT" create -q "${PLAN[@]}" --shard 0/2 "$WORK/full"
expect_err "is not empty and holds no shard marker" "a directory not empty: says why"
[ "$(ls -A "$WORK/full")" = mine ] && pass "a directory not empty: untouched" || fail "a directory not empty: $(ls -A "$WORK/full")"

finish
