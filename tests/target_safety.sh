#!/bin/bash
# target_safety.sh - create never loses what is in an image file's place, and says why it fails
. "${srcdir:-.}/tests/lib.sh"

# --- mke2fs's own error, not its warning about usage types (issue 16, finding 8)
expect_status 1 "mke2fs refuses -O ^extent with 64bit" \
	"$IMPRINT" create -q --size 64M --mkfs-options "-O ^extent" "$WORK/e8.img"
expect_err "mke2fs failed on" "says mke2fs failed"
expect_err "Extents MUST be enabled for a 64-bit filesystem" "shows mke2fs's real error"
if grep -q "Warning: the fs_type" "$WORK/err"; then
	fail "the usage-type warning is still shown: $(head -c 300 "$WORK/err")"
else
	pass "no usage-type warning"
fi

# --- an existing file without a signature is not replaced without --force (finding 2)
python3 - "$WORK" <<'PY'
import os, sqlite3, struct, sys
w = sys.argv[1]
open(f"{w}/text.img", "w").write("my notes: do not lose them\n" * 40)
# random bytes from a fixed seed whose first bytes libmagic reads as no format
# (a random start can look like a DOS .COM program): the same file every run
import random
rnd = random.Random(1)
open(f"{w}/random.img", "wb").write(b"\xff\xfe\xfd\xfc" + rnd.randbytes((1 << 20) - 4))
db = sqlite3.connect(f"{w}/db.img"); db.execute("create table t (x)"); db.commit(); db.close()
# a qcow2 header: magic, version 3, then a cluster size and a 1 GiB virtual size
open(f"{w}/disk.img", "wb").write(b"QFI\xfb" + struct.pack(">IQIIQ", 3, 0, 0, 16, 1 << 30) + bytes(65536))
open(f"{w}/doc.img", "wb").write(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n")
PY
tar czf "$WORK/tgz.img" -C "$WORK" text.img
ln -s text.img "$WORK/link.img"
check_kept() { # FILE WHAT TEXT: refused without --force, unchanged, the refusal says TEXT
	local before
	before=$(sha "$1")
	expect_status 1 "$2 refused" "$IMPRINT" create -q --size 16M "$1"
	expect_err "use --force to overwrite it" "$2: says --force is needed"
	expect_err "$3" "$2: says what is there ($3)"
	[ "$(sha "$1")" = "$before" ] && [ "$(leftovers "$WORK")" -eq 0 ] \
		&& pass "$2: unchanged, nothing left beside it" || fail "$2: changed or a file left"
}
check_kept "$WORK/text.img" "a text file" "holds ASCII text"
check_kept "$WORK/random.img" "random data" "holds 1048576 bytes of data"
check_kept "$WORK/db.img" "an SQLite database" "holds SQLite 3.x database"
check_kept "$WORK/tgz.img" "a .tar.gz" "holds gzip compressed data"
check_kept "$WORK/disk.img" "a qcow2 disk" "holds a qcow2 image"
check_kept "$WORK/doc.img" "a PDF" "holds PDF document"
check_kept "$WORK/link.img" "a symlink to a text file" "'$WORK/link.img' holds ASCII text"
[ -L "$WORK/link.img" ] && pass "the symlink is still a symlink" || fail "the symlink was replaced"
: >"$WORK/empty.img"
expect_status 0 "an empty file is used" "$IMPRINT" create -q --size 16M "$WORK/empty.img"
truncate -s 16M "$WORK/holes.img"
expect_status 0 "a file of only holes is used" "$IMPRINT" create -q --size 16M "$WORK/holes.img"
expect_status 0 "--force overwrites the text file" "$IMPRINT" create -q --force --size 16M "$WORK/text.img"

# --- two runs on one new image path: the later one does not replace the earlier's (finding 1)
for i in 1 2 3; do
	rm -f "$WORK/race.img"
	"$IMPRINT" create -q --size 64M --seed 1 "$WORK/race.img" 2>"$WORK/race1" & p1=$!
	"$IMPRINT" create -q --size 64M --seed 2 "$WORK/race.img" 2>"$WORK/race2" & p2=$!
	wait $p1; s1=$?
	wait $p2; s2=$?
	if [ $((s1 + s2)) -eq 1 ] && grep -qF "appeared while imprint ran" "$WORK/race1" "$WORK/race2"; then
		pass "same path, try $i: one built it, the other refused (exit $s1/$s2)"
	else
		fail "same path, try $i: exit $s1/$s2: $(cat "$WORK/race1" "$WORK/race2" | head -c 300)"
	fi
	[ "$(leftovers "$WORK")" -eq 0 ] && e2fsck -fn "$WORK/race.img" >/dev/null 2>&1 \
		&& pass "same path, try $i: the image is whole, nothing left" \
		|| fail "same path, try $i: a leftover or a broken image"
done

# --- SIGKILL mid-build leaves nothing: the image is an unnamed O_TMPFILE until done (finding 4)
"$IMPRINT" create -q --size 2G --used 1500M "$WORK/kill.img" 2>/dev/null &
pid=$!
wait_until "$pid" open_over "$pid" $((100 << 20))
kill -KILL "$pid"
wait "$pid" 2>/dev/null
[ ! -e "$WORK/kill.img" ] && [ "$(leftovers "$WORK")" -eq 0 ] \
	&& pass "SIGKILL mid-build: no TARGET and no temporary file" \
	|| fail "SIGKILL mid-build left: $(ls -a "$WORK" | tr '\n' ' ')"

# --- the host's limits before planning; sizes too small (finding 10)
if ! truncate -s 100T "$WORK/probe" 2>/dev/null; then
	start=$(date +%s)
	expect_status 1 "--size 100T where files stop short of it" \
		timeout 60 "$IMPRINT" create -q --size 100T "$WORK/huge.img"
	expect_err "does not allow a file of 109951162777600 bytes (File too large)" \
		"says the host's file system does not allow it"
	[ $(($(date +%s) - start)) -lt 10 ] && pass "refused before planning (fast)" \
		|| fail "took $(($(date +%s) - start)) s"
	[ ! -e "$WORK/huge.img" ] && [ "$(leftovers "$WORK")" -eq 0 ] && pass "nothing left" \
		|| fail "a file was left"
else
	echo "# skip: this file system takes a 100 TiB file"
fi
rm -f "$WORK/probe"
for s in 7M 8M 9M; do
	"$IMPRINT" create -q --size $s "$WORK/s$s.img" >"$WORK/out" 2>"$WORK/err"
	st=$?
	if grep -qF "free after formatting" "$WORK/err"; then
		fail "--size $s failed after formatting: $(head -c 300 "$WORK/err")"
	elif [ $st -eq 0 ] && e2fsck -fn "$WORK/s$s.img" >/dev/null 2>&1; then
		pass "--size $s builds a clean image"
	elif [ $st -eq 1 ] && grep -qF "the plan does not fit" "$WORK/err" && [ ! -e "$WORK/s$s.img" ]; then
		pass "--size $s refused before formatting: $(head -c 200 "$WORK/err")"
	else
		fail "--size $s: exit $st: $(head -c 300 "$WORK/err")"
	fi
done
expect_status 2 "--size 128K is a parameter error" "$IMPRINT" create -q --size 128K "$WORK/tiny.img"
expect_err "'size' (128 KiB) is too small for any ext4 file system; it must be at least" \
	"says the size is too small and what is allowed"

finish
