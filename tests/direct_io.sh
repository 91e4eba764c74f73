#!/bin/bash
# direct_io.sh - --direct-io auto|on|off (ext4 backend): the same image every way, the choice and its measure in the summary
. "${srcdir:-.}/tests/lib.sh"

command -v e2fsck >/dev/null 2>&1 || { echo "1..0 # SKIP e2fsck not found"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 not found"; exit 77; }

# data_io FILE KEY: the summary's data_io.KEY from a --json output ("" when absent)
data_io() {
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1])).get("data_io", {}).get(sys.argv[2], ""))' "$1" "$2" 2>/dev/null
}

# --- 300 MiB of data: enough for auto to time both ways (256 MiB and more)
big="--size 1G --used 300M --seed 31 -j2"
for way in on off auto; do
	expect_status 0 "--direct-io $way: create" "$IMPRINT" create $big --json --direct-io $way \
		"$WORK/$way.img"
	cp "$WORK/out" "$WORK/$way.json"
done
if [ -f "$WORK/on.img" ] && [ -f "$WORK/off.img" ] && [ -f "$WORK/auto.img" ]; then
	[ "$(sha "$WORK/on.img")" = "$(sha "$WORK/off.img")" ] &&
		pass "direct and page-cache data: the same image (sha256)" ||
		fail "--direct-io on and off gave different images"
	[ "$(sha "$WORK/auto.img")" = "$(sha "$WORK/on.img")" ] &&
		pass "auto (the measure's zeros written over by the data): the same image" ||
		fail "--direct-io auto gave another image than on and off"
	expect_fsck "$WORK/auto.img" "auto: e2fsck -fn clean"
fi
way=$(data_io "$WORK/off.json" way) why=$(data_io "$WORK/off.json" why)
[ "$way/$why" = buffered/forced ] && pass "off: data_io says buffered, forced" ||
	fail "off: data_io way/why '$way/$why', wanted buffered/forced"
way=$(data_io "$WORK/on.json" way) why=$(data_io "$WORK/on.json" why)
case "$way/$why" in
direct/forced | buffered/refused) pass "on: data_io says $way, $why" ;;
*) fail "on: data_io way/why '$way/$why', wanted direct/forced (or buffered/refused)" ;;
esac
way=$(data_io "$WORK/auto.json" way) why=$(data_io "$WORK/auto.json" why)
d=$(data_io "$WORK/auto.json" direct_mb_per_s) b=$(data_io "$WORK/auto.json" buffered_mb_per_s)
if [ "$why" = refused ]; then
	pass "# SKIP auto: the file system of $WORK refuses direct I/O"
elif [ "$why" = measured ] && [ -n "$d" ] && [ -n "$b" ] &&
	python3 -c 'import sys; sys.exit(not (float(sys.argv[1]) > 0 and float(sys.argv[2]) > 0))' "$d" "$b"; then
	pass "auto: measured at the target (direct $d MB/s, page cache $b MB/s), took $way"
	# the rule: the page cache only when it wrote 10 times faster than direct I/O
	want=$(python3 -c 'import sys; print("buffered" if float(sys.argv[2]) > 10 * float(sys.argv[1]) else "direct")' "$d" "$b")
	[ "$way" = "$want" ] && pass "auto: took $way by its own measure" ||
		fail "auto: took $way where direct $d and page cache $b MB/s say $want"
else
	fail "auto: data_io why '$why', rates '$d' '$b'; wanted measured with two rates"
fi

# --- the text summary says it too
expect_status 0 "--direct-io off: text summary" "$IMPRINT" create --size 64M --files 100 --seed 32 \
	--direct-io off "$WORK/t.img"
grep -q "file data through the page cache (as --direct-io asked)" "$WORK/out" &&
	pass "text summary: file data through the page cache, as asked" ||
	fail "text summary lacks the data's way: $(head -c 400 "$WORK/out")"
# little data: auto takes direct I/O unmeasured
expect_status 0 "auto, 64 MiB image" "$IMPRINT" create --size 64M --files 100 --seed 32 --json \
	"$WORK/s.img"
why=$(data_io "$WORK/out" why)
case "$why" in
small | refused) pass "auto under 256 MiB of data: not measured ($why)" ;;
*) fail "auto under 256 MiB of data: why '$why', wanted small" ;;
esac
[ "$(sha "$WORK/s.img")" = "$(sha "$WORK/t.img")" ] &&
	pass "64 MiB: auto and off, the same image" || fail "64 MiB: auto and off differ"
rm -f "$WORK"/*.img

# --- bad input
expect_status 2 "--direct-io maybe refused" "$IMPRINT" create --size 64M --direct-io maybe \
	"$WORK/x.img"
expect_err "'--direct-io' must be auto, on or off (got 'maybe')" "--direct-io: says what is allowed"
[ ! -e "$WORK/x.img" ] && pass "--direct-io maybe: no image left" || fail "--direct-io maybe left an image"
mkdir -p "$WORK/dir"
expect_status 2 "--direct-io with the mounted backend refused" "$IMPRINT" create --backend mounted \
	--size 64M --direct-io on "$WORK/dir"
expect_err "'--direct-io' is not an option of the mounted backend" "--direct-io: the backend named"
expect_status 2 "--direct-io for plan refused" "$IMPRINT" plan --size 64M --direct-io on -o /dev/null
expect_err "'--direct-io'" "plan --direct-io: the option named"

finish
