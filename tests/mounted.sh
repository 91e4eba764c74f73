#!/bin/bash
# mounted.sh - the mounted backend: the plan written into loop-mounted ext4, xfs, btrfs and a tmpfs, checked and refused safely
. "${srcdir:-.}/tests/lib.sh"

need_loops

ARGS=(--size 256M --used 40M --seed 11 --set hardlink_share=0.05 --set symlink_share=0.1
	--set sparse_file_share=0.5 --set sparse_hole_share=0.5)

# the reference: the ext4 backend's image of the same plan, mounted read-only
ref_mount "${ARGS[@]}"

# check NAME DIR: create into DIR, verify, measure, diff -r and metadata against the reference
check() {
	local what=$1 d=$2
	if ! "$IMPRINT" create --json "${ARGS[@]}" "$d" >"$WORK/create.json" 2>"$WORK/err"; then
		fail "$what: create failed: $(head -c 400 "$WORK/err")"
		return
	fi
	pass "$what: created ($(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("layout score", j["layout_score"], "files", j["files"], "sparse", j["sparse_files"])' "$WORK/create.json"))"
	verify_ok "$what" "${ARGS[@]}" "$d"
	if "$IMPRINT" measure "$d" >"$WORK/measure" 2>&1; then
		pass "$what: measure: $(grep -m1 'layout score\|not measured' "$WORK/measure" | tr -s ' ')"
	else
		fail "$what: measure failed: $(head -3 "$WORK/measure")"
	fi
	same_as_ref "$what" "$d"
}

# make_fs FS IMG SIZE MNT: a fresh file system of type FS in a new image IMG of SIZE, mounted at MNT
make_fs() {
	truncate -s "$3" "$2"
	case $1 in
	ext4) mkfs.ext4 -q -F "$2" ;;
	xfs) mkfs.xfs -q -f "$2" ;;
	btrfs) mkfs.btrfs -q -f "$2" >/dev/null ;;
	esac
	attach_dev "$2" && mount_at "$4" "$DEV" && return 0
	fail "$1: cannot mount a fresh $1 image"
	return 1
}
# no_temps DIR FS WHEN: the aging churn left no temporary in DIR
no_temps() {
	find "$1" -name '.age~*' | grep -q . && fail "$2: temporaries left behind$3" ||
		pass "$2: no temporary left behind$3"
}
for fs in ext4 xfs btrfs; do
	if ! command -v "mkfs.$fs" >/dev/null; then
		pass "# SKIP $fs: mkfs.$fs missing (apt-get install xfsprogs btrfs-progs)"
		continue
	fi
	make_fs "$fs" "$WORK/$fs.img" 512M "$WORK/$fs" || continue
	mkdir "$WORK/$fs/d"
	check "$fs" "$WORK/$fs/d"
done
# jget FILE KEY: a top-level value of a JSON file
jget() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"; }

# frag FS TARGET [ARGS...]: the score FIEMAP measures (imprint measure) meets TARGET within 0.01
# (with ARGS, spread parameters: or the summary says how close it came, never claiming it), and
# filefrag finds the same extents per file
frag() {
	local fs=$1 t=$2 d="$WORK/$1/frag$2$#" got note
	local args=(--size 256M --used 6M --seed 12 --set layout_score="$t" "${@:3}")
	mkdir "$d"
	if ! "$IMPRINT" create --json "${args[@]}" "$d" >"$WORK/c.json" 2>"$WORK/err"; then
		fail "$fs fragmented to $t ${*:3}: create failed: $(head -c 300 "$WORK/err")"
		return
	fi
	"$IMPRINT" measure --json "$d" >"$WORK/m.json"
	got=$(jget "$WORK/m.json" layout_score)
	note=$(jget "$WORK/c.json" notes)
	if python3 -c "import sys; sys.exit(abs($got - $t) > 0.01)"; then
		pass "$fs: layout score $got by measure for a target of $t ${*:3}"
	elif [ $# -gt 2 ] && [[ $note == *"layout_score not reached"* ]]; then
		pass "$fs: layout score $got for a target of $t ${*:3}, and the summary says so: $note"
	else
		fail "$fs: layout score $got for a target of $t ${*:3} (notes: $note)"
	fi
	ls -A "$d" | grep -q imprint && fail "$fs: fillers left behind" || pass "$fs: no filler left behind"
	# filefrag's extents per file (one name per inode, files of two or more extents)
	# against imprint measure's histogram
	find "$d" -type f -printf '%i %p\n' | sort -u -k1,1 | cut -d' ' -f2- |
		while read -r f; do filefrag "$f"; done |
		awk -F': ' '{ split($NF, a, " "); if (a[1] > 1) h[a[1] > 32 ? 33 : a[1]]++ }
			END { for (k = 2; k <= 33; k++) if (h[k]) printf "%d:%d ", k, h[k]; print "" }' >"$WORK/ff"
	python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["extents_per_file"]; print(" ".join("%d:%d" % (k, h[k]) for k in range(2, 34) if h[k]), "")' \
		"$WORK/m.json" >"$WORK/im"
	cmp -s "$WORK/ff" "$WORK/im" &&
		pass "$fs $t: filefrag finds the extents per file imprint measure does ($(cat "$WORK/ff"))" ||
		fail "$fs $t: filefrag '$(cat "$WORK/ff")', imprint measure '$(cat "$WORK/im")'"
}

# fragmentation and aging through the kernel on each file system
for fs in ext4 xfs btrfs; do
	mountpoint -q "$WORK/$fs" || continue
	frag "$fs" 0.6
	frag "$fs" 0.85
	# the spread parameters apply as on ext4; the score wins
	frag "$fs" 0.6 --set frag_file_share=0.5 --set frag_select=size
	frag "$fs" 0.85 --set frag_extents=4
	mkdir "$WORK/$fs/aged"
	if "$IMPRINT" create --json --size 256M --used 6M --seed 12 --set age_rounds=3 \
		"$WORK/$fs/aged" >"$WORK/aged.json" 2>"$WORK/err"; then
		n=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["age_series"]; print(len(s), *[r["round"] for r in s])' "$WORK/aged.json")
		[ "$n" = "4 0 1 2 3" ] && pass "$fs: age_rounds=3 through the kernel: series of rounds $n" ||
			fail "$fs: age_series rounds '$n', expected 4 0 1 2 3"
		no_temps "$WORK/$fs/aged" "$fs" ""
	else
		fail "$fs: age_rounds=3 through the kernel failed: $(head -c 300 "$WORK/err")"
	fi
done
# aging on a nearly full file system (85 % of what it has available): the
# churn fits in the space the kernel has, or drops what finds no room
for fs in ext4 xfs btrfs; do
	command -v "mkfs.$fs" >/dev/null || continue
	make_fs "$fs" "$WORK/full-$fs.img" 320M "$WORK/full-$fs" || continue
	avail=$(df -B1M --output=avail "$WORK/full-$fs" | tail -n 1)
	mkdir "$WORK/full-$fs/d"
	if "$IMPRINT" create -q --used "$((avail * 85 / 100))M" --seed 12 --set age_rounds=10 \
		"$WORK/full-$fs/d" 2>"$WORK/err"; then
		pass "$fs: age_rounds=10 at 85 % of the free space"
		no_temps "$WORK/full-$fs/d" "$fs" " when full"
	else
		fail "$fs: age_rounds=10 at 85 % of the free space failed: $(head -c 300 "$WORK/err")"
	fi
done
mount_at "$WORK/tmpfs" -t tmpfs -o size=300M tmpfs || fail "cannot mount a tmpfs"
mkdir "$WORK/tmpfs/d"
check "tmpfs" "$WORK/tmpfs/d"
grep -q '"layout_score":null' "$WORK/create.json" && pass "tmpfs: layout score unavailable (no FIEMAP), not 1.0" ||
	fail "tmpfs: layout score $(grep -o '"layout_score":[^,]*' "$WORK/create.json")"

# --- refusals: each leaves nothing behind
T="$WORK/tmpfs"
empty() { [ -z "$(ls -A "$1")" ]; }
: >"$T/file"
expect_status 2 "a regular file is refused by the mounted backend" \
	"$IMPRINT" create --backend mounted "${ARGS[@]}" "$T/file"
expect_err "the mounted backend takes directories" "the error says it takes directories"
mkdir "$T/full" && : >"$T/full/keep"
expect_status 1 "a directory that is not empty is refused" "$IMPRINT" create "${ARGS[@]}" "$T/full"
expect_err "is not empty" "the error says it is not empty"
[ "$(ls -A "$T/full")" = keep ] && pass "the directory that is not empty is untouched" ||
	fail "the directory now holds: $(ls -A "$T/full" | head -3)"
mount_at "$WORK/ro" -t tmpfs -o size=300M,ro tmpfs
expect_status 1 "a read-only mount is refused" "$IMPRINT" create "${ARGS[@]}" "$WORK/ro"
expect_err "read-only" "the error says read-only"
# a small file system, 40 MiB of it taken outside the target directory
mount_at "$WORK/small" -t tmpfs -o size=64M tmpfs
head -c 40M /dev/zero >"$WORK/small/taken"
mkdir "$WORK/small/d"
SMALL=(--size 64M --used 32M --seed 11)
expect_status 1 "a plan larger than the free space is refused up front" \
	"$IMPRINT" create "${SMALL[@]}" "$WORK/small/d"
expect_err "it needs about" "the error says how much it needs"
empty "$WORK/small/d" && pass "the refused directory is still empty" || fail "refused, yet: $(ls -A "$WORK/small/d" | head -3)"
# the free space is lied about (a test hook): ENOSPC mid-way, created entries removed
IMPRINT_MOUNTED_ASSUME_FREE=$((1 << 30)) expect_status 1 "ENOSPC mid-way fails" \
	"$IMPRINT" create -j 2 "${SMALL[@]}" "$WORK/small/d"
expect_err "No space left on device" "the error says no space left"
expect_err "removed the" "the error says what it removed"
empty "$WORK/small/d" && pass "after ENOSPC the directory is empty again" ||
	fail "after ENOSPC: $(find "$WORK/small/d" | head -5)"
[ "$(stat -c %s "$WORK/small/taken")" = $((40 << 20)) ] && pass "the file beside it is untouched" ||
	fail "the file beside the directory changed"
# SIGINT during the run
mkdir "$T/int"
"$IMPRINT" create -q --size 256M --used 200M --seed 5 "$T/int" 2>"$WORK/err" &
pid=$!
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 1 ] && grep -q "interrupted (SIGINT)" "$WORK/err" && pass "SIGINT stops the run (exit 1): $(head -c 200 "$WORK/err")" ||
	fail "SIGINT: exit $rc, $(head -c 300 "$WORK/err")"
empty "$T/int" && pass "after SIGINT the directory is empty again" ||
	fail "after SIGINT: $(find "$T/int" | head -5)"

# --- a poorer file system, made so by the probe's test hook (IMPRINT_MOUNTED_DENY)
grep -q dropped "$WORK/create.json" && fail "the JSON of a full build counts drops: $(cat "$WORK/create.json")" ||
	pass "a build that drops nothing has no drop counts in its JSON"
DROP=(--size 128M --used 16M --seed 11 --set hardlink_share=0.05 --set symlink_share=0.1)
mkdir "$T/poor"
IMPRINT_MOUNTED_DENY=hardlinks,symlinks,chown,name_max=24 expect_status 1 \
	"a plan needing what the file system lacks is refused" "$IMPRINT" create "${DROP[@]}" "$T/poor"
expect_err "it lacks symbolic links, hard links, owners (chown), names of" "the refusal lists what is missing"
expect_err "or --allow-drop" "the refusal names --allow-drop"
empty "$T/poor" && pass "the refused directory is still empty" || fail "refused, yet: $(ls -A "$T/poor" | head -3)"
"$IMPRINT" plan "${DROP[@]}" >"$WORK/plan.tsv"
nhard=$(awk -F'\t' '$2 == "hardlink"' "$WORK/plan.tsv" | wc -l)
nsym=$(awk -F'\t' '$2 == "symlink"' "$WORK/plan.tsv" | wc -l)
# entries with an inode of their own (DIR itself, made empty, too) and a planned owner not root's
nown=$(awk -F'\t' 'NR > 1 && $2 != "hardlink" && ($8 != 0 || $9 != 0)' "$WORK/plan.tsv" | wc -l)
if IMPRINT_MOUNTED_DENY=hardlinks,symlinks,chown,name_max=24 "$IMPRINT" create --json --allow-drop \
	"${DROP[@]}" "$T/poor" >"$WORK/drop.json" 2>"$WORK/err"; then
	got=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(*[j.get(k, 0) for k in ("dropped_hardlinks", "dropped_symlinks", "owners_dropped", "renamed", "links")])' "$WORK/drop.json")
	read -r dh ds dow dren dlinks <<<"$got"
	[ "$dh $ds $dlinks" = "$nhard $nsym 0" ] && pass "--allow-drop: the JSON counts $dh hard and $ds symbolic links dropped, 0 made" ||
		fail "--allow-drop: JSON counts '$got', the plan has $nhard hard and $nsym symbolic links"
	[ "$dow" -gt 0 ] && [ "$dren" -gt 0 ] && pass "--allow-drop: $dow owners kept as root's, $dren names shortened" ||
		fail "--allow-drop: owners_dropped $dow, renamed $dren"
	[ -z "$(find "$T/poor" -type l)" ] && pass "no symbolic link was made" || fail "symbolic links made"
	long=$(find "$T/poor" -mindepth 1 -printf '%f\n' | LC_ALL=C awk 'length > 24' | head -3)
	[ -z "$long" ] && pass "no name is longer than 24 bytes" || fail "names longer than 24 bytes: $long"
	[ "$(find "$T/poor" -mindepth 1 -name '*~*' | wc -l)" = "$dren" ] && pass "the shortened names are the $dren counted" ||
		fail "$(find "$T/poor" -mindepth 1 -name '*~*' | wc -l) shortened names, $dren counted"
	[ -z "$(find "$T/poor" ! -user 0)" ] && pass "every entry is root's" || fail "entries not root's: $(find "$T/poor" ! -user 0 | head -3)"
	mkdir "$T/poor2"
	IMPRINT_MOUNTED_DENY=hardlinks,symlinks,chown,name_max=24 "$IMPRINT" create -q --allow-drop \
		"${DROP[@]}" "$T/poor2" 2>"$WORK/err"
	diff -r "$T/poor" "$T/poor2" >/dev/null && pass "the same names, shortened the same way, a second time" ||
		fail "a second run differs: $(diff -r "$T/poor" "$T/poor2" | head -3)"
	rm -rf "$T/poor2"
else
	fail "--allow-drop: create failed: $(head -c 300 "$WORK/err")"
fi
rm -rf "$T/poor"

# shortened names: symbolic links still lead where they did (as many dangle as in the full tree)
mkdir "$T/poor" "$T/full2"
if IMPRINT_MOUNTED_DENY=name_max=16 "$IMPRINT" create -q --allow-drop "${DROP[@]}" "$T/poor" 2>"$WORK/err" &&
	"$IMPRINT" create -q "${DROP[@]}" "$T/full2" 2>>"$WORK/err"; then
	a=$(find "$T/poor" -xtype l | wc -l)
	b=$(find "$T/full2" -xtype l | wc -l)
	[ "$a" = "$b" ] && pass "names shortened to 16 bytes: symbolic links follow them ($a dangle, as in the full tree)" ||
		fail "names shortened to 16 bytes: $a symbolic links dangle, $b in the full tree"
else
	fail "name_max=16 --allow-drop: $(head -c 300 "$WORK/err")"
fi
rm -rf "$T/poor" "$T/full2"

# drop_verify DENY KEY N M: --allow-drop with DENY; the JSON counts N as KEY, and verify
# reports the dropped entries as M mismatches (exit 1)
drop_verify() {
	local deny=$1 key=$2 want=$3 wantm=$4 n m
	mkdir "$T/poor"
	if ! IMPRINT_MOUNTED_DENY=$deny "$IMPRINT" create --json -q --allow-drop "${DROP[@]}" "$T/poor" \
		>"$WORK/drop.json" 2>"$WORK/err"; then
		fail "$deny: --allow-drop failed: $(head -c 300 "$WORK/err")"
		rm -rf "$T/poor"
		return
	fi
	n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))' "$WORK/drop.json" "$key")
	"$IMPRINT" verify "${DROP[@]}" "$T/poor" >"$WORK/out" 2>&1
	rc=$?
	m=$(tail -1 "$WORK/out" | sed -n 's/.*: \([0-9]*\) mismatches$/\1/p')
	[ "$n" = "$want" ] && [ "$rc" = 1 ] && [ "$m" = "$wantm" ] &&
		pass "$deny dropped: $key $n; verify reports them, exit 1, $m mismatches: $(grep -m1 '^mismatch' "$WORK/out")" ||
		fail "$deny dropped: $key $n (want $want), verify exit $rc with $m mismatches (want $wantm): $(head -3 "$WORK/out")"
	rm -rf "$T/poor"
}
# a missing link each; a hard link's file also has one link fewer than planned
nhtarget=$(awk -F'\t' '$2 == "hardlink" { print $6 }' "$WORK/plan.tsv" | sort -u | wc -l)
# owners: every inode made (DIR too, it was empty), mismatches where the plan's owner is not root
ninodes=$(awk -F'\t' 'NR > 1 && $2 != "hardlink"' "$WORK/plan.tsv" | wc -l)
drop_verify symlinks dropped_symlinks "$nsym" "$nsym"
drop_verify hardlinks dropped_hardlinks "$nhard" $((nhard + nhtarget))
drop_verify chown owners_dropped "$ninodes" "$nown"

# --- a symbolic link planted in DIR while imprint runs never leads it outside
OUTSIDE="$T/outside"
mkdir "$OUTSIDE"
chmod 0777 "$OUTSIDE"
RACE=(--size 256M --used 40M --files 20000 --seed 3 --set files_per_dir=2 --set symlink_share=0
	--set hardlink_share=0)
# race WHAT [files]: while a create of many directories runs (once its files are being
# written, with "files"), replace its directories by symbolic links to OUTSIDE
race() {
	local what=$1 phase=$2 R="$T/race" swaps=0 i=0 d rc
	mkdir "$R"
	"$IMPRINT" create -q -j 1 "${RACE[@]}" "$R" 2>"$WORK/race.err" &
	pid=$!
	if [ "$phase" = files ]; then
		while kill -0 $pid 2>/dev/null && [ -z "$(find "$R" -maxdepth 2 -type f -print -quit)" ]; do :; done
	fi
	while kill -0 $pid 2>/dev/null; do
		i=$((i + 1))
		d=$(find "$R" -mindepth 2 -maxdepth 3 -type d ! -name '*.moved*' 2>/dev/null | shuf -n 1)
		[ -n "$d" ] && mv "$d" "$d.moved$i" 2>/dev/null && ln -s "$OUTSIDE" "$d" && swaps=$((swaps + 1))
	done
	wait $pid
	rc=$?
	[ "$swaps" -gt 0 ] && pass "race $what: $swaps directories replaced by a symbolic link to a directory outside while imprint ran" ||
		fail "race $what: no directory could be replaced while imprint ran"
	[ -z "$(find "$OUTSIDE" -mindepth 1)" ] && pass "race $what: nothing was written outside DIR" ||
		fail "race $what: written outside DIR: $(find "$OUTSIDE" -mindepth 1 | head -5)"
	if [ $rc -eq 1 ] && grep -q "^imprint: " "$WORK/race.err"; then
		pass "race $what: imprint failed cleanly (exit 1): $(head -c 300 "$WORK/race.err" | tr '\n' ' ')"
	elif [ $rc -eq 0 ]; then
		"$IMPRINT" verify "${RACE[@]}" "$R" >"$WORK/out" 2>&1 &&
			fail "race $what: imprint finished and verify finds nothing amiss" ||
			pass "race $what: imprint finished, verify reports: $(tail -1 "$WORK/out")"
	else
		fail "race $what: exit $rc: $(head -c 300 "$WORK/race.err")"
	fi
	[ "$(find "$R" -type l -lname "$OUTSIDE" | wc -l)" = "$swaps" ] &&
		pass "race $what: the $swaps planted links are still there, untouched" ||
		fail "race $what: $(find "$R" -type l -lname "$OUTSIDE" | wc -l) of the $swaps planted links left"
	rm -rf "$R"
}
race "making directories"
race "writing files" files
[ -d "$OUTSIDE" ] && [ -z "$(find "$OUTSIDE" -mindepth 1)" ] && pass "race: the outside directory is still there and empty" ||
	fail "race: the outside directory changed"
finish
