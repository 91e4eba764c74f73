#!/bin/bash
# nothing_lost.sh - no user file lost (issue 23 items 10, 11, 14, 15): outputs never replace a non-regular file, --backend null leaves TARGET alone, verify refuses a FIFO, qemu-img's output is checked
. "${srcdir:-.}/tests/lib.sh"

SRC="$WORK/src"
mkdir -p "$SRC/d"
echo hello >"$SRC/a.txt"
echo more >"$SRC/d/b.txt"

# item 10: every output option refuses an existing FIFO (and, as root, a character device) and leaves it
mkfifo "$WORK/fifo"
NODES=("$WORK/fifo")
if [ "$(id -u)" -eq 0 ] && mknod "$WORK/cdev" c 1 3 2>/dev/null; then
	NODES+=("$WORK/cdev")
fi
ln -s "$WORK/target-of-link" "$WORK/link"
NODES+=("$WORK/link")
for node in "${NODES[@]}"; do
	n=${node##*/}
	expect_status 2 "profile -o $n --force is refused" timeout 20 "$IMPRINT" profile "$SRC" -o "$node" --force
	expect_status 1 "plan -o $n is refused" timeout 20 "$IMPRINT" plan --files 20 -o "$node"
	expect_status 1 "plan --html $n is refused" timeout 20 "$IMPRINT" plan --files 20 --report --html "$node"
	expect_status 1 "measure --extents $n is refused" timeout 20 "$IMPRINT" measure "$SRC" --extents "$node"
	expect_status 1 "create --extents $n is refused" timeout 20 "$IMPRINT" create --size 16M --files 20 \
		--extents "$node" "$WORK/x.img"
	[ ! -e "$WORK/x.img" ] && pass "create --extents $n: refused before the image is made" \
		|| fail "create --extents $n made '$WORK/x.img'"
	rm -f "$WORK/x.img"
done
[ -p "$WORK/fifo" ] && pass "the FIFO is still a FIFO" || fail "the FIFO was replaced"
if [ -e "$WORK/cdev" ]; then
	[ -c "$WORK/cdev" ] && pass "the character device is still one" || fail "the character device was replaced"
fi
[ -L "$WORK/link" ] && [ ! -e "$WORK/target-of-link" ] && pass "the symbolic link and its target are untouched" \
	|| fail "the symbolic link was replaced or followed"
expect_status 2 "profile -o DIR is refused" "$IMPRINT" profile "$SRC" -o "$SRC" --force
expect_status 0 "profile -o FILE still writes" "$IMPRINT" profile "$SRC" -o "$WORK/p.conf"
[ -f "$WORK/p.conf" ] && [ -s "$WORK/p.conf" ] && pass "profile -o FILE: a regular file" \
	|| fail "profile -o FILE wrote nothing"
expect_status 0 "measure --extents FILE still writes" "$IMPRINT" measure "$SRC" --extents "$WORK/e.txt"
[ -s "$WORK/e.txt" ] && [ -z "$(find "$WORK" -maxdepth 1 -name '*.tmp.*')" ] \
	&& pass "the extents file is there, no temporary beside it" || fail "extents file missing or temporary left"

# item 11: --backend null leaves TARGET as it was: not created, not truncated, not formatted
expect_status 0 "null backend, new target" "$IMPRINT" create --backend null --size 64M --files 20 "$WORK/n.img"
[ ! -e "$WORK/n.img" ] && pass "null backend: no file made" || fail "null backend made '$WORK/n.img' ($(stat -c %s "$WORK/n.img") bytes)"
grep -q "writes nothing" "$WORK/out" && pass "null backend: the summary says nothing was written" \
	|| fail "null backend summary: $(head -1 "$WORK/out")"
expect_status 0 "null backend, --format qcow2" "$IMPRINT" create --backend null --size 64M --files 20 \
	--format qcow2 "$WORK/n.qcow2"
[ ! -e "$WORK/n.qcow2" ] && pass "null backend --format qcow2: no file made" || fail "null backend made '$WORK/n.qcow2'"
"$IMPRINT" create -q --size 64M --files 20 "$WORK/e.img" || fail "a real image for the null backend to leave"
before=$(sha "$WORK/e.img")
expect_status 0 "null backend --force on an image" "$IMPRINT" create --backend null --size 64M --files 20 \
	--force "$WORK/e.img"
[ "$(sha "$WORK/e.img")" = "$before" ] && pass "null backend --force: the image is byte-identical" \
	|| fail "null backend --force changed the image"
e2fsck -fn "$WORK/e.img" >/dev/null 2>&1 && pass "e2fsck -fn on the image left alone" || fail "e2fsck -fn failed"
"$IMPRINT" create --backend null --size 64M --files 20 --partition gpt "$WORK/np.img" >/dev/null 2>&1
[ ! -e "$WORK/np.img" ] && pass "null backend --partition: no file made" || fail "null backend --partition made a file"

# item 14: verify refuses a FIFO at once (it blocked for ever in open)
expect_status 1 "verify FIFO is refused" timeout 20 "$IMPRINT" verify --files 20 "$WORK/fifo"
expect_err "is neither an image file, a block device nor a directory" "verify FIFO: the message says what is allowed"

# item 15: a qemu-img that exits 0 and writes nothing is caught; a refused qcow2 is not "AES-encrypted"
mkdir -p "$WORK/fake"
printf '#!/bin/sh\nexit 0\n' >"$WORK/fake/qemu-img"
chmod +x "$WORK/fake/qemu-img"
expect_status 1 "a silent qemu-img is caught" env PATH="$WORK/fake:$PATH" "$IMPRINT" create -q --size 16M \
	--files 20 "$WORK/z.qcow2"
expect_err "did not write a qcow2 image" "the message says qemu-img wrote no qcow2"
[ ! -e "$WORK/z.qcow2" ] && pass "no 0-byte .qcow2 left" || fail "'$WORK/z.qcow2' left ($(stat -c %s "$WORK/z.qcow2") bytes)"
if command -v qemu-img >/dev/null; then
	expect_status 0 "a real qcow2" "$IMPRINT" create -q --size 16M --files 20 "$WORK/r.qcow2"
	qemu-img check "$WORK/r.qcow2" >/dev/null 2>&1 && pass "qemu-img check on the qcow2" || fail "qemu-img check failed"
	expect_status 1 "an existing qcow2 is refused" "$IMPRINT" create -q --size 16M --files 20 "$WORK/r.qcow2"
	expect_err "holds a qcow2 image (version 3" "the refusal names a qcow2 image"
	grep -q "AES" "$WORK/err" && fail "the refusal calls a plain qcow2 encrypted: $(cat "$WORK/err")" \
		|| pass "the refusal does not call it encrypted"
fi

finish
