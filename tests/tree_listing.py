#!/usr/bin/env python3
# tree_listing.py DIR - one line per entry under DIR, sorted by path: type, mode, owner, mtime
# (ns), link count, size (not a directory's), device numbers, symlink target, a file's
# sha256 and its hard-link group (the first path of its inode); imprint's own .imprint-*
# names left out.  For comparing trees written by different routes (tests/shard*.sh).
import hashlib
import os
import stat
import sys

root = sys.argv[1]
entries = [(b".", root)]
for top, dirs, files in os.walk(root):
    for name in dirs + files:
        path = os.path.join(top, name)
        rel = os.path.relpath(path, root)
        if rel.startswith('.imprint-'):
            continue
        entries.append((os.fsencode(rel), path))
entries.sort()
first = {}
out = sys.stdout.buffer
for rel, path in entries:
    st = os.lstat(path)
    kind = stat.S_IFMT(st.st_mode)
    size, extra, group = st.st_size, b'-', b'-'
    if stat.S_ISDIR(kind):
        size = '-'
    elif stat.S_ISREG(kind):
        h = hashlib.sha256()
        with open(path, 'rb') as f:
            for chunk in iter(lambda: f.read(1 << 20), b''):
                h.update(chunk)
        extra = h.hexdigest().encode()
        group = first.setdefault((st.st_dev, st.st_ino), rel)
    elif stat.S_ISLNK(kind):
        extra = os.fsencode(os.readlink(path))
    elif stat.S_ISCHR(kind) or stat.S_ISBLK(kind):
        extra = ('%d:%d' % (os.major(st.st_rdev), os.minor(st.st_rdev))).encode()
    out.write(b'|'.join([rel, ('%o|%o|%d:%d|%d|%d|%s' % (
        kind >> 12, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, st.st_mtime_ns,
        st.st_nlink, size)).encode(), extra, group]) + b'\n')
