#!/bin/bash
# mounted_faults.sh - the mounted backend interrupted at random moments (writing, fragmenting, aging) and refused on a read-only loop mount: nothing left in DIR, nothing beside it touched
. "${srcdir:-.}/tests/lib.sh"

need_loops

# a fresh ext4 (FIEMAP: the fragmenting phase runs) with a file beside the target directory
truncate -s 512M "$WORK/e.img"
mkfs.ext4 -q -F "$WORK/e.img"
if ! attach_dev "$WORK/e.img" || ! mount_at "$WORK/e" "$DEV"; then
	fail "cannot mount a fresh ext4 image"
	finish
fi
E="$WORK/e"
head -c 1M /dev/urandom >"$E/beside"
touch -d '2001-02-03 04:05:06' "$E/beside"
BESIDE="$(sha "$E/beside") $(stat -c '%Y %i' "$E/beside")"
seed=${INTR_SEED:-$RANDOM}
echo "# random moments from seed $seed (INTR_SEED=$seed repeats them)"
RANDOM=$seed

# untouched WHAT: DIR ($E/d) holds nothing (lost+found aside), and the file beside it is unchanged
untouched() {
	local left
	left=$(find "$E/d" -mindepth 1 | head -3)
	[ -z "$left" ] && pass "$1: the directory is empty again" || fail "$1: left behind: $left"
	[ "$(ls -A "$E")" = "$(printf 'beside\nd\nlost+found')" ] && pass "$1: no scratch directory left beside it" ||
		fail "$1: the file system holds: $(ls -A "$E" | tr '\n' ' ')"
	[ "$(sha "$E/beside") $(stat -c '%Y %i' "$E/beside")" = "$BESIDE" ] && pass "$1: the file beside it is untouched" ||
		fail "$1: the file beside it changed"
}

# interrupt WHAT SIG ARGS...: create ARGS into $E/d, send SIG at a random moment within the
# time a full run takes ($full seconds), then check what is left
interrupt() {
	local what=$1 sig=$2 delay rc
	shift 2
	delay=$(awk -v r="$RANDOM" -v f="$full" 'BEGIN { printf "%.2f", 0.05 + (f - 0.05) * r / 32768 }')
	mkdir "$E/d"
	"$IMPRINT" create -q "$@" "$E/d" 2>"$WORK/err" &
	pid=$!
	sleep "$delay"
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	if [ $rc = 0 ]; then
		pass "$what: SIG$sig after $delay s came after the end (exit 0)"
		rm -rf "$E/d"
		return
	fi
	[ $rc = 1 ] && grep -q "interrupted (SIG$sig)" "$WORK/err" &&
		pass "$what: SIG$sig after $delay s stops it (exit 1): $(head -c 160 "$WORK/err")" ||
		fail "$what: SIG$sig after $delay s: exit $rc, $(head -c 300 "$WORK/err")"
	untouched "$what, SIG$sig after $delay s"
	rmdir "$E/d"
}

# time_full ARGS...: how long a whole create of ARGS takes, into full
time_full() {
	local t0 t1
	mkdir "$E/d"
	t0=$(date +%s.%N)
	"$IMPRINT" create -q "$@" "$E/d" 2>"$WORK/err" || fail "a full run failed: $(head -c 300 "$WORK/err")"
	t1=$(date +%s.%N)
	full=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	rm -rf "$E/d"
}

PLAIN=(--size 512M --used 150M --files 8000 --seed 5 --set symlink_share=0.05 --set hardlink_share=0.02
	--set sparse_file_share=0.3)
FRAG=(--size 512M --used 30M --files 1500 --seed 6 --set layout_score=0.7)
AGED=(--size 512M --used 60M --files 3000 --seed 7 --set age_rounds=4)
for run in PLAIN FRAG AGED; do
	declare -n args=$run
	time_full "${args[@]}"
	pass "$run: a whole run takes $full s"
	interrupt "$run" INT "${args[@]}"
	interrupt "$run" INT "${args[@]}"
	interrupt "$run" TERM "${args[@]}"
	unset -n args
done

# --keep-partial keeps what was made, and says so
time_full "${PLAIN[@]}"
mkdir "$E/d"
"$IMPRINT" create -q --keep-partial "${PLAIN[@]}" "$E/d" 2>"$WORK/err" &
pid=$!
sleep "$(awk -v f="$full" 'BEGIN { print f / 2 }')"
kill -INT "$pid"
wait "$pid"
rc=$?
[ $rc = 1 ] && [ -n "$(ls -A "$E/d")" ] && grep -q "keep-partial" "$WORK/err" &&
	pass "--keep-partial: SIGINT keeps the $(find "$E/d" -mindepth 1 | wc -l) entries made and says so" ||
	fail "--keep-partial: exit $rc, $(find "$E/d" -mindepth 1 | wc -l) entries, $(head -c 200 "$WORK/err")"
rm -rf "$E/d"

# a read-only loop mount of a file system: refused up front, the image unchanged
mkdir -p "$WORK/rotree/d"
truncate -s 64M "$WORK/ro.img"
mkfs.ext4 -q -F -d "$WORK/rotree" "$WORK/ro.img"
before=$(sha "$WORK/ro.img")
if attach_dev "$WORK/ro.img" ro && mount_at "$WORK/ro" -o ro "$DEV"; then
	expect_status 1 "a directory on a read-only loop mount is refused" \
		"$IMPRINT" create --size 64M --used 8M --seed 1 "$WORK/ro/d"
	expect_err "is on a read-only file system" "the error says the file system is read-only"
	umount "$WORK/ro"
	[ "$(sha "$WORK/ro.img")" = "$before" ] && pass "the read-only image is unchanged" ||
		fail "the read-only image changed"
else
	fail "cannot mount the image read-only"
fi
finish
