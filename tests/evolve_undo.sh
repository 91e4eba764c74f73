#!/bin/bash
# evolve_undo.sh - a failed or interrupted evolve of an ext2/3/4 image leaves it generation N-1
# byte for byte (imprint's own undo file, free blocks of zeros by number only, put back): a file
# system that fills up mid-way, and SIGTERM at a pause point; '--undo FILE' keeps an e2undo file
# of a completed evolve too, and 'e2undo FILE IMG' gives generation N-1 back byte for byte; no
# temporary is left; SIGKILL leaves the undo file for 'evolve --rollback'
. "${srcdir:-.}/tests/lib.sh"

command -v e2undo >/dev/null || [ -x /usr/sbin/e2undo ] || { echo "1..0 # SKIP no e2undo"; exit 77; }
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
# no_temporaries WHAT: evolve left no undo file of its own in TMPDIR
no_temporaries() {
	if [ -z "$(ls -A "$TMPDIR")" ]; then pass "$1: no temporary undo file left"
	else fail "$1: left $(ls -A "$TMPDIR" | head -3 | tr '\n' ' ')"; fi
}
# same_image WHAT A B: A and B are byte-identical, and A is e2fsck -fn clean
same_image() {
	if cmp -s "$2" "$3"; then pass "$1: byte-identical to generation N-1"
	else fail "$1: differs from generation N-1 in $(cmp -l "$2" "$3" | wc -l) bytes"; fi
	expect_fsck "$2" "$1: e2fsck -fn clean"
}

# a full file system: generation 1 needs more than is free
AF=(--fs ext4 --files 300 --used 16M --size 24M --seed 3 --set gen_growth_share=0.5)
build_fsck "a nearly full ext4" "$WORK/full.img" "${AF[@]}"
cp "$WORK/full.img" "$WORK/full0.img"
expect_status 1 "evolve of a full file system fails" \
	"$IMPRINT" evolve "${AF[@]}" --generation 1 "$WORK/full.img"
expect_err "No space left on device" "the failure names the cause"
expect_err "rolled back: it is generation 0 as before" "the failure says the image is generation 0"
# the failure came after changes were made: without the rollback the image would differ
n=$(grep -c "cannot write" "$WORK/err")
[ "$n" = 1 ] && pass "it failed writing a file, after the deletes and renames" ||
	fail "it failed elsewhere: $(head -c 300 "$WORK/err")"
same_image "after the failed evolve" "$WORK/full.img" "$WORK/full0.img"
no_temporaries "the failed evolve"
# free blocks that hold old bytes (a reused device): put back too, not zeroed
python3 - "$WORK/full0.img" "$WORK/garbage.img" <<'PY' || fail "garbage in the free blocks"
import random, re, shutil, subprocess, sys
shutil.copy(sys.argv[1], sys.argv[2])
out = subprocess.run(["dumpe2fs", sys.argv[2]], capture_output=True, text=True).stdout
bs = int(re.search(r"^Block size:\s+(\d+)", out, re.M).group(1))
r = random.Random(5)
n = 0
with open(sys.argv[2], "r+b") as f:
    for line in re.findall(r"^\s+Free blocks: (.+)$", out, re.M):
        for run in line.split(", "):
            a, _, b = run.partition("-")
            for blk in range(int(a), int(b or a) + 1):
                f.seek(blk * bs)
                f.write(r.randbytes(bs))
                n += 1
print(n, file=sys.stderr)
PY
cp "$WORK/garbage.img" "$WORK/garbage0.img"
expect_status 1 "evolve of the full file system with old bytes in its free blocks fails" \
	"$IMPRINT" evolve "${AF[@]}" --generation 1 "$WORK/garbage.img"
expect_err "rolled back: it is generation 0 as before" "the failure says the image is generation 0"
same_image "old bytes in free blocks" "$WORK/garbage.img" "$WORK/garbage0.img"

# --undo FILE with a failure: rolled back, FILE not kept
cp "$WORK/full0.img" "$WORK/raw.img"
"$IMPRINT" evolve "${AF[@]}" --generation 1 --undo "$WORK/full.undo" "$WORK/raw.img" >/dev/null 2>&1
[ ! -e "$WORK/full.undo" ] && pass "a rolled-back evolve does not keep --undo's file" ||
	fail "--undo's file kept after the rollback"
same_image "--undo: rolled back after the failure" "$WORK/raw.img" "$WORK/full0.img"

# ext4 and ext2 images of a larger plan, evolved to generation 1
A=(--fs ext4 --files 2000 --used 30M --size 100M --seed 7 --set gen_modify_share=0.1
	--set gen_dir_create_share=0.05 --set gen_dir_remove_share=0.05)
A2=("${A[@]}")
A2[1]=ext2
for fs in ext4 ext2; do
	if [ "$fs" = ext4 ]; then set -- "${A[@]}"; else set -- "${A2[@]}"; fi
	build_fsck "$fs generation 0" "$WORK/$fs.img" "$@"
	cp "$WORK/$fs.img" "$WORK/${fs}0.img"

	# SIGTERM at the pause point: files deleted and moved, directories made and removed
	IMPRINT_TEST_PAUSE_AT=evolve-moved "$IMPRINT" evolve "$@" --generation 1 "$WORK/$fs.img" \
		>"$WORK/out" 2>"$WORK/err" &
	pid=$!
	stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }
	wait_until "$pid" stopped "$pid"
	if stopped "$pid"; then
		pass "$fs: evolve stopped at 'evolve-moved'"
		# changes were made by then: the file system's own view differs (libext2fs' cache aside)
		kill -TERM "$pid"
		kill -CONT "$pid"
	else
		kill -KILL "$pid" 2>/dev/null
		fail "$fs: evolve never reached 'evolve-moved': $(head -c 300 "$WORK/err")"
	fi
	wait "$pid"
	rc=$?
	[ "$rc" = 1 ] && pass "$fs: SIGTERM ends evolve with exit 1" || fail "$fs: SIGTERM: exit $rc"
	expect_err "interrupted (SIGTERM)" "$fs: the interruption is named"
	expect_err "rolled back: it is generation 0 as before" "$fs: the image is said to be generation 0"
	same_image "$fs: after SIGTERM" "$WORK/$fs.img" "$WORK/${fs}0.img"
	no_temporaries "$fs: the interrupted evolve"

	# a completed evolve with --undo: e2undo gives generation 0 back
	expect_status 0 "$fs: evolve to generation 1 with --undo" \
		"$IMPRINT" evolve "$@" --generation 1 --undo "$WORK/$fs.undo" "$WORK/$fs.img"
	grep -qF "'e2undo $WORK/$fs.undo $WORK/$fs.img' gives back generation 0" "$WORK/out" &&
		pass "$fs: the summary says how to undo" || fail "$fs: summary: $(head -3 "$WORK/out")"
	no_temporaries "$fs: the completed evolve"
	if cmp -s "$WORK/$fs.img" "$WORK/${fs}0.img"; then fail "$fs: evolve changed nothing"
	else pass "$fs: generation 1 differs from 0"; fi
	expect_fsck "$WORK/$fs.img" "$fs: generation 1 e2fsck -fn clean"
	cp "$WORK/$fs.img" "$WORK/${fs}1.img"
	if e2undo "$WORK/$fs.undo" "$WORK/$fs.img" >"$WORK/u" 2>&1; then pass "$fs: e2undo ran"
	else fail "$fs: e2undo: $(head -c 300 "$WORK/u")"; fi
	same_image "$fs: e2undo after a completed evolve" "$WORK/$fs.img" "$WORK/${fs}0.img"
	# and generation 1 again, from the restored image, is the same bytes
	"$IMPRINT" evolve "$@" --generation 1 --undo "$WORK/$fs.undo2" "$WORK/$fs.img" >/dev/null 2>"$WORK/err" ||
		fail "$fs: evolve after e2undo: $(head -c 300 "$WORK/err")"
	cmp -s "$WORK/$fs.img" "$WORK/${fs}1.img" && pass "$fs: evolving again gives the same generation 1" ||
		fail "$fs: evolving again differs from the first generation 1"
	# without --undo (imprint's own undo file only) the same image: its lifetime write count
	# is imprint's, whatever manager libext2fs' reads and writes went through
	cp "$WORK/${fs}0.img" "$WORK/$fs.plain"
	"$IMPRINT" evolve "$@" --generation 1 "$WORK/$fs.plain" >/dev/null 2>"$WORK/err" ||
		fail "$fs: evolve without --undo: $(head -c 300 "$WORK/err")"
	if cmp -s "$WORK/$fs.plain" "$WORK/${fs}1.img"; then
		pass "$fs: with and without --undo the same image"
	else
		w0=$(dumpe2fs -h "$WORK/$fs.plain" 2>/dev/null | grep -i '^Lifetime writes')
		w1=$(dumpe2fs -h "$WORK/${fs}1.img" 2>/dev/null | grep -i '^Lifetime writes')
		fail "$fs: without --undo the image differs at $(cmp "$WORK/$fs.plain" "$WORK/${fs}1.img" | head -1) ('$w0', '$w1')"
	fi
	no_temporaries "$fs: evolve without --undo"
done

# SIGKILL at the pause point: no rollback in the process; the undo file stays, named by the
# image's mark, until 'evolve --rollback' (tests/evolve_kill.sh checks the rest)
cp "$WORK/ext40.img" "$WORK/kill.img"
IMPRINT_TEST_PAUSE_AT=evolve-moved "$IMPRINT" evolve "${A[@]}" --generation 1 "$WORK/kill.img" \
	>/dev/null 2>&1 &
pid=$!
wait_until "$pid" stopped "$pid"
[ -n "$(ls -A "$TMPDIR")" ] && pass "a running evolve has its undo file in TMPDIR" ||
	fail "no undo file in TMPDIR while evolve runs"
kill -KILL "$pid"
wait "$pid"
sleep 0.2
[ -n "$(ls -A "$TMPDIR")" ] && pass "SIGKILL: the undo file is kept for the rollback" ||
	fail "SIGKILL: the undo file is gone"
expect_status 0 "SIGKILL: evolve --rollback" "$IMPRINT" evolve --rollback "$WORK/kill.img"
same_image "SIGKILL, rolled back" "$WORK/kill.img" "$WORK/ext40.img"
no_temporaries "SIGKILL, rolled back"

# bad input: --undo's file exists (never overwritten), a directory has no undo
before=$(sha "$WORK/ext4.img")
printf 'keep me\n' >"$WORK/mine"
expect_status 2 "--undo of an existing file refused" \
	"$IMPRINT" evolve "${A[@]}" --generation 2 --undo "$WORK/mine" "$WORK/ext4.img"
expect_err "'--undo' takes a new file" "the refusal says --undo takes a new file"
[ "$(cat "$WORK/mine")" = "keep me" ] && [ "$(sha "$WORK/ext4.img")" = "$before" ] &&
	pass "the existing file and the image are untouched" || fail "the refusal changed something"
mkdir "$WORK/dir"
expect_status 2 "--undo with a directory refused" \
	"$IMPRINT" evolve "${A[@]}" --generation 1 --undo "$WORK/dir.undo" "$WORK/dir"
expect_err "'--undo' is for an ext2/3/4 image or device" "the refusal says what --undo is for"
expect_status 1 "a wrong generation refused" \
	"$IMPRINT" evolve "${A[@]}" --generation 3 --undo "$WORK/w.undo" "$WORK/ext4.img"
[ ! -e "$WORK/w.undo" ] && [ "$(sha "$WORK/ext4.img")" = "$before" ] &&
	pass "a refused evolve leaves the image and no undo file" || fail "a refused evolve left something"
printf 'not a file system\n' >"$WORK/text"
expect_status 2 "evolve of a text file refused" \
	"$IMPRINT" evolve "${A[@]}" --generation 1 --undo "$WORK/t.undo" "$WORK/text"
[ ! -e "$WORK/t.undo" ] && pass "the refusal leaves no --undo file" || fail "--undo's file left"
expect_status 2 "evolve of a text file refused (no --undo)" \
	"$IMPRINT" evolve "${A[@]}" --generation 1 "$WORK/text"
TMPDIR="$WORK/none" expect_status 1 "no room for the undo file: refused" \
	"$IMPRINT" evolve "${A[@]}" --generation 2 "$WORK/ext4.img"
expect_err "cannot make the undo file '$WORK/none/imprint-undo-" "the refusal names the undo file"
expect_err "set TMPDIR to a directory with room" "the refusal says what to do"
[ "$(sha "$WORK/ext4.img")" = "$before" ] && pass "the image is untouched" || fail "the image changed"
no_temporaries "the refusals"
finish
