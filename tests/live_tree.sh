#!/bin/bash
# live_tree.sh - profile, measure and content-report of a live tree (issue 23 item 16): entries that
# vanish between their directory's listing and their reading, /proc's links and /sys's files are
# skipped, counted and said, not fatal
. "${srcdir:-.}/tests/lib.sh"

# a tree of files, a directory and a link, and those that will vanish
T="$WORK/tree"
mkdir -p "$T/keep/sub" "$T/gonedir/inner"
for i in $(seq 1 20); do
	head -c $((i * 300)) /dev/urandom >"$T/keep/f$i.bin"
	echo "line $i" >"$T/keep/sub/t$i.txt"
done
for i in 1 2 3 4 5; do echo "gone $i" >"$T/gone$i.txt"; done
echo inner >"$T/gonedir/inner/x.txt"
ln -s keep/f1.bin "$T/gonelink"
stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }

# vanish WHAT ARGS...: imprint ARGS stops (IMPRINT_TEST_PAUSE_AT=listed, test-only) once the tree's
# top directory is listed; 5 files, a directory and a link are removed; it goes on: exit 0, and
# the 7 are counted as vanished
vanish() {
	local what=$1 pid rc
	shift
	IMPRINT_TEST_PAUSE_AT=listed "$IMPRINT" "$@" "$T" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	wait_until "$pid" stopped "$pid"
	if ! stopped "$pid"; then
		wait "$pid"
		fail "$what: never stopped after listing (exit $?): $(head -c 300 "$WORK/err")"
		return
	fi
	mkdir -p "$WORK/aside"
	mv "$T"/gone*.txt "$T/gonedir" "$T/gonelink" "$WORK/aside/"
	kill -CONT "$pid"
	wait "$pid"
	rc=$?
	mv "$WORK/aside/"* "$T/"
	if [ "$rc" -eq 0 ] && grep -q "'$T': 7 vanished or changed while read (a live tree)" "$WORK/err"; then
		pass "$what: 7 entries vanished: exit 0, counted ($(grep -o '7 vanished[^:]*' "$WORK/err"))"
	else
		fail "$what: exit $rc: $(head -c 400 "$WORK/err")"
	fi
}

vanish "profile" profile
vanish "measure" measure
vanish "content-report" content-report
vanish "profile --content" profile --content

# the figures leave them out: measure of the tree without them counts what the interrupted one did
mkdir -p "$WORK/aside"
mv "$T"/gone*.txt "$T/gonedir" "$T/gonelink" "$WORK/aside/"
"$IMPRINT" measure --json "$T" >"$WORK/plain.json" 2>"$WORK/err"
mv "$WORK/aside/"* "$T/"
IMPRINT_TEST_PAUSE_AT=listed "$IMPRINT" measure --json "$T" >"$WORK/live.json" 2>"$WORK/err" &
pid=$!
wait_until "$pid" stopped "$pid"
mv "$T"/gone*.txt "$T/gonedir" "$T/gonelink" "$WORK/aside/"
kill -CONT "$pid"
wait "$pid"
mv "$WORK/aside/"* "$T/"
files() { python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["files"], j["dirs"])' "$1"; }
if [ -n "$(files "$WORK/plain.json")" ] && [ "$(files "$WORK/plain.json")" = "$(files "$WORK/live.json")" ]; then
	pass "measure counts what was there when read: files, dirs $(files "$WORK/live.json")"
else
	fail "measure of the live tree: $(files "$WORK/live.json") against $(files "$WORK/plain.json") without them"
fi

# nothing vanished: no note
"$IMPRINT" measure "$T" >/dev/null 2>"$WORK/err"
if grep -q "vanished\|could not be read" "$WORK/err"; then
	fail "a quiet tree: $(head -c 300 "$WORK/err")"
else
	pass "a quiet tree: no note of skipped entries"
fi

# /proc: links procfs does not show, entries of processes that end while read
for cmd in profile measure content-report; do
	expect_status 0 "$cmd /proc/self/" "$IMPRINT" "$cmd" /proc/self/
done
# /sys: files shorter than their size (4096) under --content and content-report
expect_status 0 "profile --content /sys/kernel" "$IMPRINT" profile --content /sys/kernel
if grep -Eq "'/sys/kernel': [0-9]+ directories or files could not be read" "$WORK/err"; then
	pass "profile --content /sys/kernel says what it could not read: $(grep -Eo '[0-9]+ directories or files' "$WORK/err")"
else
	fail "profile --content /sys/kernel: no count of unreadable files: $(head -c 300 "$WORK/err")"
fi
expect_status 0 "content-report /sys/kernel" "$IMPRINT" content-report /sys/kernel
expect_status 0 "measure /sys/kernel" "$IMPRINT" measure /sys/kernel

# as root, a directory is read (and written) in the host's mount namespace: nothing is mounted,
# and a private copy of the host's mounts would keep what the host unmounts meanwhile active
if [ "$(id -u)" -eq 0 ]; then
	mkdir -p "$WORK/nsdir/a" && echo x >"$WORK/nsdir/a/f"
	IMPRINT_TEST_PAUSE_AT=listed "$IMPRINT" measure "$WORK/nsdir" >/dev/null 2>&1 &
	pid=$!
	wait_until "$pid" stopped "$pid"
	if ! stopped "$pid"; then
		fail "measure of a directory never reached 'listed'"
	elif [ "$(readlink "/proc/$pid/ns/mnt")" = "$(readlink /proc/$$/ns/mnt)" ]; then
		pass "measure of a directory, as root: in the host's mount namespace"
	else
		fail "measure of a directory, as root: in a namespace of its own"
	fi
	kill -CONT "$pid" 2>/dev/null
	wait "$pid"
fi
finish
