#!/bin/bash
# golden.sh - pinned outputs: manifest, --extents file, fit report and image bytes of each case
#
# Each case is a folder tests/golden/CASE holding
#   name    one line saying what the case covers
#   script  bash, sourced: ARGS=(options of plan and create), CREATE_ARGS=(create only)
#   expect  "WHAT SHA256" lines for manifest, report, extents and image
# The image and extents hashes depend on mke2fs: they are checked only with
# the e2fsprogs the expectations were made with (GOLDEN_MKE2FS below); with
# another version those two checks are skipped and the test says so.
#
# GOLDEN_UPDATE=1 rewrites every expect file from the current build: only
# for a change that is meant to change the output, and said so in its commit.
. "${srcdir:-.}/tests/lib.sh"

GOLDEN_MKE2FS=1.47.0
GOLDEN_DIR="${top_srcdir:-.}/tests/golden"

mke2fs_version=$(mke2fs -V 2>&1 | sed -n 's/^mke2fs \([0-9.]*\).*/\1/p')
same_mke2fs=0
[ "$mke2fs_version" = "$GOLDEN_MKE2FS" ] && same_mke2fs=1

for dir in "$GOLDEN_DIR"/*/; do
	case=$(basename "$dir")
	ARGS=()
	CREATE_ARGS=()
	# shellcheck disable=SC1090,SC1091
	. "$dir/script"
	out="$WORK/$case"
	mkdir -p "$out"

	got_ok=1
	"$IMPRINT" plan "${ARGS[@]}" -o "$out/manifest" 2>"$out/err" || got_ok=0
	"$IMPRINT" plan "${ARGS[@]}" --report --json >"$out/report" 2>>"$out/err" || got_ok=0
	"$IMPRINT" create -q -j2 "${ARGS[@]}" "${CREATE_ARGS[@]}" --extents "$out/extents" \
		"$out/image" 2>>"$out/err" || got_ok=0
	if [ "$got_ok" -ne 1 ]; then
		fail "$case: a command failed: $(head -c 400 "$out/err")"
		continue
	fi
	if e2fsck -fn "$out/image" >"$out/fsck" 2>&1; then
		pass "$case: e2fsck -fn clean"
	else
		fail "$case: e2fsck -fn: $(tail -n 5 "$out/fsck")"
	fi

	{
		echo "manifest $(sha "$out/manifest")"
		echo "report $(sha "$out/report")"
		echo "extents $(sha "$out/extents")"
		echo "image $(sha "$out/image")"
	} >"$out/got"

	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		[ "$same_mke2fs" = 1 ] || {
			fail "$case: GOLDEN_UPDATE needs mke2fs $GOLDEN_MKE2FS (have $mke2fs_version)"
			continue
		}
		cp "$out/got" "$dir/expect"
		pass "$case: expect rewritten"
		continue
	fi
	for what in manifest report extents image; do
		want=$(sed -n "s/^$what //p" "$dir/expect")
		got=$(sed -n "s/^$what //p" "$out/got")
		if [ -z "$want" ]; then
			fail "$case: expect has no '$what' line"
		elif [ "$what" = extents ] || [ "$what" = image ] && [ "$same_mke2fs" != 1 ]; then
			echo "# $case: $what not compared: mke2fs $mke2fs_version, expectations from $GOLDEN_MKE2FS"
		elif [ "$got" = "$want" ]; then
			pass "$case: $what unchanged"
		else
			fail "$case: $what changed ($got, expected $want)"
		fi
	done
	rm -f "$out/image"
done
[ "$same_mke2fs" = 1 ] || echo "# image and extents hashes skipped: mke2fs $mke2fs_version is not $GOLDEN_MKE2FS"
finish
