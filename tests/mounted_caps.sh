#!/bin/bash
# mounted_caps.sh - the mounted backend's capability probe: a real exFAT (FUSE) refused with the list, written with --allow-drop and counted; refused characters, case twins and the largest file size through the probe's test hook
. "${srcdir:-.}/tests/lib.sh"

need_loops

# jget FILE KEY: a top-level value of a JSON file (0 when absent)
jget() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))' "$1" "$2"; }
empty() { [ -z "$(ls -A "$1")" ]; }

# twins PLAN: entries of one directory whose names differ only in case (the later of each pair)
twins() {
	python3 -c '
import sys, collections
seen = collections.Counter()
n = 0
for line in open(sys.argv[1], encoding="utf-8").read().split("\n")[1:]:
    if not line:
        continue
    d, _, name = line.split("\t")[0].rpartition("/")
    key = (d, name.lower())
    n += seen[key] > 0
    seen[key] += 1
print(n)' "$1"
}

# A plan with names that differ only in case in one directory (found by the check above)
CASE=(--size 1G --used 100M --seed 1 --set name_upper_share=0.5 --set files_per_dir=200
	--set hardlink_share=0.02 --set symlink_share=0.02)
"$IMPRINT" plan "${CASE[@]}" >"$WORK/case.tsv"
ntwins=$(twins "$WORK/case.tsv")
[ "$ntwins" -gt 0 ] && pass "the plan has $ntwins names differing only in case from another in their directory" ||
	fail "the plan meant to have case twins has none"

# --- a real poorer file system: exFAT through FUSE (no links, owners, modes, holes; 10 ms times;
# names compared without case)
if command -v mkfs.exfat >/dev/null && command -v mount.exfat-fuse >/dev/null && [ -c /dev/fuse ]; then
	truncate -s 300M "$WORK/ex.img"
	mkfs.exfat "$WORK/ex.img" >/dev/null
	if attach_dev "$WORK/ex.img" && mkdir -p "$WORK/ex" && mount.exfat-fuse "$DEV" "$WORK/ex" >/dev/null 2>&1 &&
		mountpoint -q "$WORK/ex"; then
		MOUNTS+=("$WORK/ex")
		EX=1
	else
		fail "cannot mount a fresh exFAT image with mount.exfat-fuse"
	fi
else
	pass "# SKIP exFAT: mkfs.exfat, mount.exfat-fuse or /dev/fuse missing (apt-get install exfatprogs exfat-fuse)"
fi
if [ -n "$EX" ]; then
	D="$WORK/ex/d"
	mkdir "$D"
	: >"$WORK/ex/beside"
	expect_status 1 "exFAT: the case-twin plan is refused before the first write" \
		"$IMPRINT" create "${CASE[@]}" "$D"
	for what in "symbolic links" "hard links" "owners (chown)" "mode bits" "nanosecond times" \
		"names that differ only in case ($ntwins, e.g." "or --allow-drop"; do
		expect_err "$what" "exFAT: the refusal lists $what"
	done
	empty "$D" && pass "exFAT: the refused directory is still empty" || fail "exFAT: refused, yet: $(ls -A "$D" | head -3)"
	[ "$(ls -A "$WORK/ex")" = "$(printf 'beside\nd')" ] && pass "exFAT: nothing else was made or left (no probe directory)" ||
		fail "exFAT: the file system holds: $(ls -A "$WORK/ex")"
	if "$IMPRINT" create --json --allow-drop "${CASE[@]}" "$D" >"$WORK/ex.json" 2>"$WORK/err"; then
		nhard=$(awk -F'\t' '$2 == "hardlink"' "$WORK/case.tsv" | wc -l)
		nsym=$(awk -F'\t' '$2 == "symlink"' "$WORK/case.tsv" | wc -l)
		got="$(jget "$WORK/ex.json" dropped_hardlinks) $(jget "$WORK/ex.json" dropped_symlinks) $(jget "$WORK/ex.json" renamed)"
		[ "$got" = "$nhard $nsym $ntwins" ] &&
			pass "exFAT --allow-drop: $nhard hard and $nsym symbolic links dropped, $ntwins case twins renamed, as the plan has" ||
			fail "exFAT --allow-drop: counts '$got', the plan has '$nhard $nsym $ntwins'"
		for k in owners_dropped modes_dropped times_rounded; do
			[ "$(jget "$WORK/ex.json" $k)" -gt 0 ] && pass "exFAT --allow-drop: $k $(jget "$WORK/ex.json" $k)" ||
				fail "exFAT --allow-drop: $k is $(jget "$WORK/ex.json" $k)"
		done
		[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layout_score"])' "$WORK/ex.json")" = None ] &&
			pass "exFAT: no FIEMAP, the layout score is unavailable (null), not 1.0" ||
			fail "exFAT: layout score $(grep -o '"layout_score":[^,]*' "$WORK/ex.json")"
		[ "$(find "$D" -type f | wc -l)" = "$(jget "$WORK/ex.json" files)" ] &&
			pass "exFAT: every planned file is there ($(jget "$WORK/ex.json" files)), the twins under their new names" ||
			fail "exFAT: $(find "$D" -type f | wc -l) files, $(jget "$WORK/ex.json" files) planned"
		"$IMPRINT" verify "${CASE[@]}" "$D" >"$WORK/out" 2>&1
		rc=$?
		# what verify may find: the dropped metadata and links, and the renamed twins missing
		other=$(grep '^mismatch' "$WORK/out" | grep -v -e ': mode 0777, planned' -e ': owner 0:0, planned' \
			-e ': mtime [0-9.]*, planned' -e 'missing link' -e 'missing file' -e ': links [0-9]*, planned' | head -3)
		[ $rc = 1 ] && [ -z "$other" ] &&
			pass "exFAT: verify reports only what was dropped or renamed (exit 1): $(tail -1 "$WORK/out")" ||
			fail "exFAT: verify exit $rc, other mismatches: $other"
	else
		fail "exFAT --allow-drop: create failed: $(head -c 300 "$WORK/err")"
	fi
	rm -rf "$D"
	# SIGINT on a file system whose removal goes through FUSE
	# The delay is random, so that the signal lands at different steps from
	# run to run.  A create that ends before the signal is sent proves
	# nothing either way: it is run again with half the delay (a loaded
	# machine can make the write fast relative to the clock, not slower).
	delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 0.2 + 1.2 * rand() }')
	for try in 1 2 3 4 5 6; do
		rm -rf "$D"
		mkdir "$D"
		"$IMPRINT" create -q --allow-drop --size 256M --used 40M --files 4000 --seed 5 "$D" 2>"$WORK/err" &
		pid=$!
		sleep "$delay"
		# a zombie (ended, not yet reaped) takes a signal too: ask its state first
		state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
		if [ -n "$state" ] && [ "$state" != Z ] && kill -INT "$pid" 2>/dev/null; then
			wait "$pid"
			rc=$?
			break
		fi
		wait "$pid"
		rc=$?
		echo "# try $try: the create ended (exit $rc) before SIGINT at $delay s; again with half the delay"
		delay=$(awk -v d="$delay" 'BEGIN { printf "%.2f", d / 2 }')
	done
	[ $rc = 1 ] && empty "$D" && grep -q "interrupted (SIGINT)" "$WORK/err" && pass "exFAT: SIGINT after $delay s removes what was made: $(head -c 160 "$WORK/err")" ||
		fail "exFAT: SIGINT after $delay s: exit $rc, left $(find "$D" -mindepth 1 | wc -l) entries: $(head -c 200 "$WORK/err")"
	[ "$(ls -A "$WORK/ex")" = "$(printf 'beside\nd')" ] && pass "exFAT: nothing beside DIR was touched" ||
		fail "exFAT: the file system holds: $(ls -A "$WORK/ex")"
fi

# --- refused characters and case, faked on a tmpfs by the probe's test hook
mount_at "$WORK/t" -t tmpfs -o size=300M tmpfs || fail "cannot mount a tmpfs"
T="$WORK/t"
U=(--size 256M --used 24M --seed 11 --set name_utf8_share=0.4 --set symlink_share=0.1 --set hardlink_share=0.05)
"$IMPRINT" plan "${U[@]}" >"$WORK/u.tsv"
CH=é語
nbad=$(awk -F'\t' 'NR > 1 { n = split($1, p, "/"); print p[n] }' "$WORK/u.tsv" | grep -c -F -e é -e 語)
mkdir "$T/u" "$T/full"
IMPRINT_MOUNTED_DENY="chars=$CH" expect_status 1 "names with characters the file system refuses are refused" \
	"$IMPRINT" create "${U[@]}" "$T/u"
expect_err "names with 'é' '語' ($nbad names)" "the refusal names the characters and counts the $nbad names"
empty "$T/u" && pass "the refused directory is still empty" || fail "refused, yet: $(ls -A "$T/u" | head -3)"
if IMPRINT_MOUNTED_DENY="chars=$CH" "$IMPRINT" create --json --allow-drop "${U[@]}" "$T/u" >"$WORK/u.json" 2>"$WORK/err" &&
	"$IMPRINT" create -q "${U[@]}" "$T/full" 2>>"$WORK/err"; then
	[ "$(jget "$WORK/u.json" renamed)" = "$nbad" ] && pass "--allow-drop: the $nbad names renamed are counted" ||
		fail "--allow-drop: renamed $(jget "$WORK/u.json" renamed), the plan has $nbad such names"
	left=$(find "$T/u" \( -name '*é*' -o -name '*語*' \) | head -3)
	[ -z "$left" ] && pass "no name holds a refused character" || fail "names with refused characters: $left"
	a=$(find "$T/u" -xtype l | wc -l)
	b=$(find "$T/full" -xtype l | wc -l)
	[ "$a" = "$b" ] && pass "renamed names: symbolic links follow them ($a dangle, as in the full tree)" ||
		fail "renamed names: $a symbolic links dangle, $b in the full tree"
	# the bytes are the plan's: each file of the renamed tree has a file of the same content in the full tree
	(cd "$T/u" && find . -type f -exec sha256sum {} + | cut -d' ' -f1 | sort) >"$WORK/a"
	(cd "$T/full" && find . -type f -exec sha256sum {} + | cut -d' ' -f1 | sort) >"$WORK/b"
	cmp -s "$WORK/a" "$WORK/b" && pass "the renamed tree holds the same file contents" || fail "file contents differ"
else
	fail "chars --allow-drop: $(head -c 300 "$WORK/err")"
fi
rm -rf "$T/u" "$T/full"

# case twins on a file system that compares names without case (the hook), renamed the same way twice
mkdir "$T/c1" "$T/c2"
IMPRINT_MOUNTED_DENY=case expect_status 1 "case twins on a case-insensitive file system are refused" \
	"$IMPRINT" create "${CASE[@]}" "$T/c1"
expect_err "names that differ only in case ($ntwins, e.g." "the refusal counts the $ntwins twins"
IMPRINT_MOUNTED_DENY=case "$IMPRINT" create -q --allow-drop "${CASE[@]}" "$T/c1" 2>"$WORK/err"
IMPRINT_MOUNTED_DENY=case "$IMPRINT" create -q --allow-drop "${CASE[@]}" "$T/c2" 2>>"$WORK/err"
folded=$(cd "$T/c1" && find . -mindepth 1 | tr '[:upper:]' '[:lower:]' | sort | uniq -d | head -3)
[ -z "$folded" ] && pass "--allow-drop: no two names of a directory differ only in case" ||
	fail "--allow-drop: case twins left: $folded"
diff -r --no-dereference "$T/c1" "$T/c2" >/dev/null && pass "the twins are renamed the same way every time" ||
	fail "two runs differ: $(diff -r --no-dereference "$T/c1" "$T/c2" | head -3)"
"$IMPRINT" verify "${CASE[@]}" "$T/c1" >"$WORK/out" 2>&1
[ "$(grep -c 'missing file' "$WORK/out")" = "$ntwins" ] &&
	pass "verify misses exactly the $ntwins renamed twins: $(tail -1 "$WORK/out")" ||
	fail "verify misses $(grep -c 'missing file' "$WORK/out") files, $ntwins renamed"
# a case-insensitive file system with a plan that has no twins is not refused
mkdir "$T/c3"
IMPRINT_MOUNTED_DENY=case expect_status 0 "a plan without case twins is written on a case-insensitive file system" \
	"$IMPRINT" create -q "${U[@]}" "$T/c3"
rm -rf "$T/c1" "$T/c2" "$T/c3"

# the largest file size
big=$(awk -F'\t' 'NR > 1 && $2 == "file" && $3 > m { m = $3 } END { print m }' "$WORK/u.tsv")
mkdir "$T/m"
IMPRINT_MOUNTED_DENY="file_max=$((big - 1))" expect_status 1 "a file larger than the file system takes is refused" \
	"$IMPRINT" create "${U[@]}" "$T/m"
expect_err "files of $big bytes (it takes at most $((big - 1)))" "the refusal gives the size and the limit"
IMPRINT_MOUNTED_DENY="file_max=$((big - 1))" expect_status 1 "--allow-drop does not drop file sizes" \
	"$IMPRINT" create --allow-drop "${U[@]}" "$T/m"
empty "$T/m" && pass "the refused directory is still empty" || fail "refused, yet: $(ls -A "$T/m" | head -3)"
IMPRINT_MOUNTED_DENY="file_max=$big" expect_status 0 "a limit the largest file meets is no refusal" \
	"$IMPRINT" create -q "${U[@]}" "$T/m"
finish
