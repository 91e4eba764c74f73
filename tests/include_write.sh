#!/bin/bash
# include_write.sh - --include written by the backends: ext4 images (debugfs, e2fsck, a loop mount),
# the mounted and loopfs backends, --include-normalize, determinism, verify, the null summary
. "${srcdir:-.}/tests/lib.sh"

command -v debugfs >/dev/null && command -v setfattr >/dev/null && command -v getfattr >/dev/null || {
	echo "1..0 # SKIP needs debugfs, setfattr and getfattr"
	exit 77
}

T=$WORK/tree
mkdir -p "$T/sub/deep"
printf 'hello\n' >"$T/small"
: >"$T/empty"
head -c 3145728 /dev/urandom >"$T/big"
head -c 5000 /dev/urandom >"$T/sub/deep/mid"
ln -s small "$T/link"
ln -s "$(printf 'long/%.0s' $(seq 20))target" "$T/slowlink" # 105 bytes: a block of its own
ln "$T/small" "$T/sub/hard"
chmod 0750 "$T/sub"
chmod 0604 "$T/sub/deep/mid"
chmod 0755 "$T/big"
touch -d @1600000000.123456789 "$T/small"
touch -h -d @1500000000.5 "$T/link"
setfattr -n user.bench -v 'run 1' "$T/big"
setfattr -n user.dir -v yes "$T/sub"
XN=2 # attributes in the tree: a trusted.* one on a symbolic link too, as root where the host takes it
if [ "$(id -u)" -eq 0 ]; then
	chown 1234:5678 "$T/big"
	chown -h 42:43 "$T/link"
	setfattr -h -n trusted.imprint -v link "$T/link" 2>/dev/null && XN=3
fi
touch -d @1650000000.25 "$T/sub/deep" "$T/sub" "$T"

# the ext4 backend, with one and two workers: the same bytes
for j in 1 2; do
	build_fsck "ext4 image with an include (-j$j)" "$WORK/a$j.img" --size 64M -j$j --include "$T:/opt/bench"
done
[ "$(sha "$WORK/a1.img")" = "$(sha "$WORK/a2.img")" ] && pass "-j1 and -j2 images byte-identical" ||
	fail "-j1 and -j2 images differ"
build_fsck "same line again" "$WORK/a3.img" --size 64M -j2 --include "$T:/opt/bench"
[ "$(sha "$WORK/a1.img")" = "$(sha "$WORK/a3.img")" ] && pass "rebuilt image byte-identical" ||
	fail "rebuilt image differs"

# debugfs reads what libext2fs wrote: bytes, owner, mode, times, links, xattrs
dbg() { debugfs -R "$1" "$WORK/a1.img" 2>/dev/null; }
for f in big small empty sub/deep/mid; do
	dbg "dump /opt/bench/$f $WORK/dump" >/dev/null
	[ "$(sha "$WORK/dump")" = "$(sha "$T/$f")" ] && pass "debugfs dump: bytes of $f" || fail "bytes of $f differ"
	rm -f "$WORK/dump"
done
st=$(dbg "stat /opt/bench/big")
mode=$(echo "$st" | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p')
[ "$mode" = 0755 ] && pass "debugfs: mode of big 0755" || fail "mode of big: $mode"
if [ "$(id -u)" -eq 0 ]; then
	echo "$st" | grep -q 'User:  1234   Group:  5678' && pass "debugfs: owner 1234:5678" ||
		fail "owner: $(echo "$st" | grep User)"
fi
st=$(dbg "stat /opt/bench/small")
echo "$st" | grep -q 'mtime: 0x5f5e1000:1d6f3454' && pass "debugfs: mtime of small with its nanoseconds" ||
	fail "mtime: $(echo "$st" | grep mtime)"
echo "$st" | grep -q 'Links: 2' && pass "debugfs: a hard-linked file has 2 links" || fail "links: $(echo "$st" | grep Links)"
dbg "ea_get /opt/bench/big user.bench" | grep -q 'run 1' && pass "debugfs: user.bench on big" ||
	fail "xattr: $(dbg "ea_list /opt/bench/big")"
[ "$(dbg "stat /opt/bench/sub/hard" | sed -n 's/^Inode: *\([0-9]*\).*/\1/p')" = \
  "$(dbg "stat /opt/bench/small" | sed -n 's/^Inode: *\([0-9]*\).*/\1/p')" ] &&
	pass "debugfs: the hard link is the file's inode" || fail "hard link has its own inode"

# the null backend counts them in its summary
expect_status 0 "null backend with an include" $IMPRINT create --backend null --size 64M --include "$T:/opt/bench" "$WORK/n.img"
grep -q 'included (--include): 4 files, 4 directories, 2 symbolic and 1 hard links' "$WORK/out" &&
	pass "summary counts the included entries" || fail "summary: $(grep included "$WORK/out")"
[ -e "$WORK/n.img" ] && fail "null backend wrote" || pass "null backend left TARGET alone"
expect_status 0 "--json summary" $IMPRINT create --backend null --json --size 64M --include "$T:/opt/bench" "$WORK/n.img"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["included"]; sys.exit(not (d["files"] == 4 and d["hardlinks"] == 1 and d["bytes"] == int(sys.argv[2]) and d["xattrs"] == int(sys.argv[3])))' \
	"$WORK/out" "$(($(stat -c %s "$T/big") + 6 + 5000))" "$XN" && pass "JSON 'included' object" ||
	fail "JSON: $(head -c 300 "$WORK/out")"

# a backend that cannot hold it refuses nothing silently: the target inside SRC is refused
expect_status 2 "target inside SRC" $IMPRINT create --size 64M --include "$T:/opt/bench" "$T/x.img"
expect_err "an image cannot hold what it is written into" "says the target lies in SRC"
[ -e "$T/x.img" ] && fail "image written into SRC" || pass "nothing written into SRC"

# a source whose bytes are not what the plan read (a sysfs file says 4096 bytes, gives fewer): refused, nothing left
SYSF=/sys/kernel/mm/transparent_hugepage/enabled
if [ -r "$SYSF" ] && [ "$(stat -c %s "$SYSF")" -gt "$(wc -c <"$SYSF")" ]; then
	expect_status 1 "ext4: a source that gives fewer bytes than planned" $IMPRINT create -q --size 32M --include "$SYSF:/thp" "$WORK/s.img"
	# kernfs gives an attribute a new mtime when its evicted inode is made again, so
	# the write may see a changed file before it sees a short read: both refusals
	# name the file and copy nothing (the CI of e867533 met the second)
	if grep -qF -- "--include: '$SYSF' changed since it was planned" "$WORK/err"; then
		pass "names the file and what changed (its sysfs mtime moved between plan and write)"
	else
		expect_err "--include: '$SYSF' gave $(wc -c <"$SYSF") bytes where 4096 were planned" "names the file and what it gave"
	fi
	[ -e "$WORK/s.img" ] || [ "$(leftovers "$WORK")" -ne 0 ] && fail "an image or a temporary was left" ||
		pass "no image and no temporary left"
fi

if [ "$(id -u)" -ne 0 ] || ! losetup -f >/dev/null 2>&1; then
	echo "# the loop mounts, verify and the mounted backend need root and a free loop device: skipped"
	finish
fi
need_loops

# what the kernel reads: every entry's bytes, type, mode, owner, times (ns) and attributes
# (a directory's size is the file system's own: not compared)
meta() { (cd "$1" && find . -printf '%p %y %m %U %G %T@ %n %s %l\n' | awk '$2 == "d" { $8 = "-" } 1' | sort); }
xattrs() { (cd "$1" && find . -print0 | sort -z | xargs -0 getfattr -h -d -m '^user\.' 2>/dev/null); }
attach_dev "$WORK/a1.img" ro && mount_at "$WORK/m" -o ro "$DEV" || fail "mount the image"
if diff -r --no-dereference "$T" "$WORK/m/opt/bench" >"$WORK/diff" 2>&1; then
	pass "loop mount: diff -r of the included tree finds nothing"
else
	fail "diff -r: $(head -5 "$WORK/diff")"
fi
meta "$T" >"$WORK/meta.src"
meta "$WORK/m/opt/bench" >"$WORK/meta.img"
if diff "$WORK/meta.src" "$WORK/meta.img" >"$WORK/diff"; then
	pass "loop mount: type, mode, owner, mtime (ns), links and size of $(wc -l <"$WORK/meta.img") entries as the source"
else
	fail "metadata differs: $(head -4 "$WORK/diff")"
fi
if diff <(xattrs "$T") <(xattrs "$WORK/m/opt/bench") >"$WORK/diff"; then
	pass "loop mount: the user.* attributes as the source ($(xattrs "$T" | grep -c =) values)"
else
	fail "xattrs differ: $(head -4 "$WORK/diff")"
fi
stat -c '%a %U %G %Y' "$WORK/m/opt" | grep -q '^755 root root 1767225600$' &&
	pass "the directory made for DEST: 0755 root:root at time_ref" || fail "/opt: $(stat -c '%a %U %G %Y' "$WORK/m/opt")"
umount "$WORK/m"

# verify: the same line passes; a changed source is a mismatch naming the path
verify_ok "ext4 image" --size 64M --include "$T:/opt/bench" "$WORK/a1.img"
grep -q '11 included entries (--include): 0 mismatches' "$WORK/out" && grep -q " $XN extended attributes" "$WORK/out" &&
	pass "verify counts the 11 included entries and their $XN attributes" || fail "verify: $(tail -2 "$WORK/out")"
cp -a "$T" "$WORK/t2"
printf 'x' >>"$WORK/t2/small"
chmod 0700 "$WORK/t2/sub/deep"
setfattr -n user.bench -v 'run 2' "$WORK/t2/big"
expect_status 1 "verify against a changed source" $IMPRINT verify --size 64M --include "$WORK/t2:/opt/bench" "$WORK/a1.img"
grep -q "mismatch: '/opt/bench/small' (--include): size 6, included 7" "$WORK/err" "$WORK/out" &&
	pass "verify names the file whose size changed" || fail "verify: $(cat "$WORK/err" "$WORK/out" | head -5)"
grep -q "'/opt/bench/sub/deep' (--include): mode 0755, included 0700" "$WORK/err" "$WORK/out" &&
	pass "verify names the directory whose mode changed" || fail "verify mode: $(cat "$WORK/err" "$WORK/out" | grep deep)"
grep -q "'/opt/bench/big' (--include): extended attribute 'user.bench' differs" "$WORK/err" "$WORK/out" &&
	pass "verify names the attribute that changed" || fail "verify xattr: $(cat "$WORK/err" "$WORK/out" | grep big)"

# --include-normalize: root:root, 0644/0755, SOURCE_DATE_EPOCH's time, no attributes
export SOURCE_DATE_EPOCH=1700000000
build_fsck "normalised include" "$WORK/n1.img" --size 64M --include "$T:/opt/bench" --include-normalize
mount_at "$WORK/n" -o ro,loop "$WORK/n1.img" && LOOPS+=("$(losetup -j "$WORK/n1.img" -O NAME -n)")
bad=$(cd "$WORK/n/opt" && find . -printf '%y %m %U %G %T@\n' |
	awk '($1 == "d" && $2 != 755) || ($1 == "f" && $2 != 644 && $2 != 755) || $3 != 0 || $4 != 0 || ($1 != "l" && $5 != "1700000000.0000000000")' | wc -l)
[ "$bad" -eq 0 ] && pass "normalised: root:root, 0644/0755, mtime SOURCE_DATE_EPOCH" ||
	fail "normalised: $bad entries differ: $(cd "$WORK/n/opt" && find . -printf '%p %y %m %U %G %T@\n' | head -4)"
stat -c %a "$WORK/n/opt/bench/big" | grep -q 755 && stat -c %a "$WORK/n/opt/bench/sub/deep/mid" | grep -q 644 &&
	pass "normalised: an executable file 0755, another 0644" || fail "normalised modes"
[ -z "$(getfattr -R -h -d -m - "$WORK/n/opt" 2>/dev/null)" ] && pass "normalised: no attributes" ||
	fail "normalised attributes: $(getfattr -R -h -d -m - "$WORK/n/opt" | head -3)"
umount "$WORK/n"
verify_ok "normalised image" --size 64M --include "$T:/opt/bench" --include-normalize "$WORK/n1.img"
unset SOURCE_DATE_EPOCH

# the mounted backend, into a directory of a tmpfs: the same included tree
mount_at "$WORK/tm" -t tmpfs -o size=200M tmpfs
mkdir "$WORK/tm/d"
expect_status 0 "mounted backend with an include" $IMPRINT create -q --size 64M --include "$T:/opt/bench" "$WORK/tm/d"
meta "$WORK/tm/d/opt/bench" >"$WORK/meta.dir"
if diff "$WORK/meta.src" "$WORK/meta.dir" >"$WORK/diff" && diff -r --no-dereference "$T" "$WORK/tm/d/opt/bench" >>"$WORK/diff"; then
	pass "mounted backend: bytes, type, mode, owner, mtime, links of every entry as the source"
else
	fail "mounted backend: $(head -4 "$WORK/diff")"
fi
if diff <(xattrs "$T") <(xattrs "$WORK/tm/d/opt/bench") >"$WORK/diff"; then
	pass "mounted backend: the user.* attributes as the source"
else
	fail "mounted backend xattrs: $(head -4 "$WORK/diff")"
fi
verify_ok "mounted backend" --size 64M --include "$T:/opt/bench" "$WORK/tm/d"
# a failure removes the included entries too
mkdir -p "$WORK/tm/e/opt/bench"
expect_status 1 "mounted backend: DEST already there" $IMPRINT create -q --force --size 64M --include "$T:/opt/bench" "$WORK/tm/e"
expect_err "--include: cannot make the directory '/opt'" "names the include that could not be made"
[ "$(find "$WORK/tm/e" | wc -l)" -eq 3 ] && pass "what was made was removed" || fail "left: $(find "$WORK/tm/e" | head -5)"
if [ -n "${SYSF:-}" ] && [ -r "$SYSF" ]; then
	mkdir "$WORK/tm/s"
	expect_status 1 "mounted backend: a source that gives fewer bytes than planned" $IMPRINT create -q --size 32M --include "$SYSF:/thp" "$WORK/tm/s"
	expect_err "where 4096 were planned" "names the file"
	[ -z "$(ls -A "$WORK/tm/s")" ] && pass "mounted backend: everything made was removed" || fail "left in DIR: $(ls -A "$WORK/tm/s" | head -3)"
fi

# the loopfs backend writes through the mounted one
if command -v mkfs.xfs >/dev/null; then
	expect_status 0 "xfs image with an include" $IMPRINT create -q --fs xfs --size 320M --include "$T:/opt/bench" "$WORK/x.img"
	verify_ok "xfs image" --fs xfs --size 320M --include "$T:/opt/bench" "$WORK/x.img"
	grep -q '11 included entries (--include): 0 mismatches' "$WORK/out" && pass "xfs: included entries checked" ||
		fail "xfs verify: $(tail -2 "$WORK/out")"
fi

finish
