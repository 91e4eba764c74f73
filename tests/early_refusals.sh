#!/bin/bash
# early_refusals.sh - create refuses what it can check before its first write: missing directories, qemu-img, MBR's 2 TiB, output files, system directories, linked DIRs
. "${srcdir:-.}/tests/lib.sh"

# snapshot DIR: every name under DIR with its size and mtime, to see that nothing was written
snapshot() { find "$1" -printf '%p %s %T@\n' 2>/dev/null | sort; }

# refused_untouched WANT_TEXT WHAT CMD...: exit 1 or 2, WANT_TEXT on stderr, $T as it was
refused_untouched() {
	local text=$1 what=$2 before st
	shift 2
	before=$(snapshot "$T")
	"$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
	st=$?
	if [ "$st" -ne 1 ] && [ "$st" -ne 2 ]; then
		fail "$what: exit $st, wanted 1 or 2; stderr: $(head -c 300 "$WORK/err.txt")"
	elif ! grep -qF -- "$text" "$WORK/err.txt"; then
		fail "$what: stderr lacks '$text', got: $(head -c 300 "$WORK/err.txt")"
	else
		pass "$what (exit $st)"
	fi
	[ "$(snapshot "$T")" = "$before" ] && pass "$what: nothing written" \
		|| fail "$what: $T changed: $(diff <(echo "$before") <(snapshot "$T") | head -5)"
}

# targets live in T, whose snapshot must not change; messages go to WORK
T=$WORK/t
mkdir "$T"

# --- a target in a missing directory: named, before planning
refused_untouched "cannot create '$T/missing/dir/x.img': directory '$T/missing/dir' does not exist" \
	"target in a missing directory" "$IMPRINT" create --size 1G "$T/missing/dir/x.img"

# --- MBR's 2 TiB: named at once, not after a 10 s build ending in libfdisk's ENOSPC
refused_untouched "an MBR partition table addresses at most 2 TiB" \
	"--partition mbr --size 3T" "$IMPRINT" create --partition mbr --size 3T --used 1M "$T/big.img"
refused_untouched "use '--partition gpt' or a smaller --partition-size" \
	"--partition mbr --partition-size 3T" \
	"$IMPRINT" create --partition mbr --partition-size 3T --size 64M --used 1M "$T/big.img"

# --- output files: their directory must exist before the build
refused_untouched "cannot write '$T/nodir/e.txt' for '--extents': directory '$T/nodir' does not exist" \
	"--extents in a missing directory" \
	"$IMPRINT" create --size 64M --used 1M --extents "$T/nodir/e.txt" "$T/y.img"
refused_untouched "is a directory: '--extents' needs a file name" "--extents naming a directory" \
	"$IMPRINT" create --size 64M --used 1M --extents "$T" "$T/y.img"
refused_untouched "cannot write '$T/nodir/m.txt' for '-o': directory '$T/nodir' does not exist" \
	"plan -o in a missing directory" "$IMPRINT" plan --used 1M -o "$T/nodir/m.txt"
refused_untouched "cannot write '$T/nodir/p.conf' for '-o'" "profile -o in a missing directory" \
	"$IMPRINT" profile "${srcdir:-.}/profiles" -o "$T/nodir/p.conf"

# --- a missing qemu-img: refused before the build (a private mount namespace hides it)
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	abs=$(cd "$(dirname "$IMPRINT")" && pwd)/$(basename "$IMPRINT")
	for fmt in qcow2 vmdk vhdx; do
		refused_untouched "'--format $fmt' needs qemu-img, which is not in PATH" \
			"no qemu-img: .$fmt refused" unshare -m --propagation private sh -c \
			'mount -t tmpfs none /usr/local/bin && mount -t tmpfs none /usr/bin && PATH=/nonexistent exec "$0" "$@"' \
			"$abs" create --size 64M --used 1M "$T/x.$fmt"
	done
else
	echo "# skipped the missing qemu-img case: needs root and unshare -m"
fi

# --- system directories: refused whatever the flags, before anything is written
etc_before=$(snapshot /etc | head -c 100000 | sha256sum)
for d in / /etc /usr/../etc /var /home /bin /usr; do
	expect_status 1 "create --force $d refused" "$IMPRINT" create --force --backend mounted --size 64M --used 1M "$d"
	expect_err "is the system directory" "$d: named a system directory"
done
for d in /lib*; do
	[ -d "$d" ] && [ ! -L "$d" ] || continue
	expect_status 1 "create --force $d refused" "$IMPRINT" create --force --size 64M --used 1M "$d"
	expect_err "'$d' is the system directory $d" "$d: named"
done
ln -s /etc "$T/etclink"
refused_untouched "'$T/etclink' is the system directory /etc" "a symbolic link to /etc" \
	"$IMPRINT" create --force --size 64M --used 1M "$T/etclink"
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	mkdir "$T/bind"
	expect_status 1 "a bind mount of /etc refused" unshare -m --propagation private sh -c \
		'mount --bind /etc "$1" && exec "$2" create --force --size 64M --used 1M "$1"' sh \
		"$T/bind" "$(cd "$(dirname "$IMPRINT")" && pwd)/$(basename "$IMPRINT")"
	expect_err "is the system directory /etc" "the bind mount is named as /etc"
	rmdir "$T/bind"
fi
[ "$(snapshot /etc | head -c 100000 | sha256sum)" = "$etc_before" ] && pass "/etc unchanged" \
	|| fail "/etc changed"

# --- a directory reached through a symbolic link: said so, before planning
mkdir "$T/real"
ln -s real "$T/lnk"
refused_untouched "'$T/lnk' is a symbolic link to a directory; give the directory itself" \
	"a linked DIR" "$IMPRINT" create --size 64M --used 1M "$T/lnk"
# "lnk/" too: the kernel follows a link with a trailing slash, imprint's rule does not change
for d in "$T/lnk/" "$T/lnk//"; do
	refused_untouched "'$d' is a symbolic link to a directory (a trailing '/' does not change that); give the directory itself ('$T/real')" \
		"a linked DIR given as '${d#"$T/"}'" "$IMPRINT" create --size 64M --used 1M "$d"
	refused_untouched "'$d' is a symbolic link to a directory" \
		"a linked DIR given as '${d#"$T/"}', mounted backend, --force" \
		"$IMPRINT" create --backend mounted --force --size 64M --used 1M "$d"
done
[ -z "$(ls -A "$T/real")" ] && pass "the linked directory stayed empty" || fail "'$T/real' was written"
# the directory itself, with a trailing slash, is still a target
if "$IMPRINT" create -q --size 64M --used 1M --files 20 "$T/real/" 2>"$WORK/err.txt" &&
	[ -n "$(ls -A "$T/real")" ]; then
	pass "the directory itself ('real/') is filled"
else
	fail "'real/' refused: $(head -c 300 "$WORK/err.txt")"
fi

finish
