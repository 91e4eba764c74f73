#!/usr/bin/env python3
"""ext_tree.py IMG - every entry of an ext2/3/4 image, one line each, read by debugfs (no root, no mount)

Prints, sorted by path (lost+found left out): path, type, permission
bits, uid, gid, size (0 for directories: theirs depend on their history),
link count (0 for directories), atime, mtime, ctime (seconds.nanoseconds)
and the sha256 of a regular file's bytes or a symlink's target.  The walk
is by inode numbers (`ls -p`, `stat`, `dump` in batches through
`debugfs -f`), so names need no quoting; imprint's own code is not used.
"""
import hashlib
import os
import re
import subprocess
import sys
import tempfile

IMG = sys.argv[1]
ENV = dict(os.environ, DEBUGFS_PAGER='__none__', PAGER='__none__')


def debugfs(cmds):
    """Run commands; return each command's output (debugfs echoes 'debugfs: CMD' before it)."""
    with tempfile.NamedTemporaryFile('w', suffix='.cmds', delete=False) as f:
        f.write(''.join(c + '\n' for c in cmds))
        path = f.name
    try:
        out = subprocess.run(['debugfs', '-f', path, IMG], capture_output=True, env=ENV,
                             check=True).stdout.decode('utf-8', 'surrogateescape')
    finally:
        os.unlink(path)
    parts = re.split(r'^debugfs: .*$', out, flags=re.M)
    if len(parts) != len(cmds) + 1:
        sys.exit('ext_tree.py: debugfs answered %d of %d commands' % (len(parts) - 1, len(cmds)))
    return parts[1:]


def walk():
    """path -> inode for every entry below the root."""
    found, level = {}, [('', 2)]
    while level:
        outs = debugfs(['ls -p <%d>' % ino for _, ino in level])
        nxt = []
        for (base, _), out in zip(level, outs):
            for line in out.splitlines():
                if not line.startswith('/'):
                    continue
                # /ino/mode/uid/gid/name/size/ (size empty for directories)
                f = line.rstrip('\n').split('/')
                ino, mode, name = int(f[1]), int(f[2], 8), '/'.join(f[5:-2])
                if name in ('.', '..') or ino == 0 or (base == '' and name == 'lost+found'):
                    continue
                p = base + '/' + name
                found[p] = ino
                if mode & 0o170000 == 0o040000:
                    nxt.append((p, ino))
        level = nxt
    return found


def xtime(text, which):
    m = re.search(r'^\s*%s: 0x([0-9a-f]+)(?::([0-9a-f]+))?' % which, text, re.M)
    sec = int(m.group(1), 16)
    extra = int(m.group(2), 16) if m.group(2) else 0
    sec = (sec ^ 0x80000000) - 0x80000000 + ((extra & 3) << 32)
    return '%d.%09d' % (sec, extra >> 2)


def main():
    ents = walk()
    paths = sorted(ents)
    stats = debugfs(['stat <%d>' % ents[p] for p in paths])
    info, text = {}, dict(zip(paths, stats))
    for p, st in zip(paths, stats):
        typ = re.search(r'Type: (\S+)', st).group(1)
        mode = int(re.search(r'Mode:\s+(\d+)', st).group(1), 8)
        uid = re.search(r'User:\s+(\d+)', st).group(1)
        gid = re.search(r'Group:\s+(\d+)', st).group(1)
        size = int(re.search(r'Size: (\d+)', st).group(1))
        links = int(re.search(r'Links: (\d+)', st).group(1))
        info[p] = [typ, '%04o' % mode, uid, gid, size, links,
                   xtime(st, 'atime'), xtime(st, 'mtime'), xtime(st, 'ctime')]
    with tempfile.TemporaryDirectory() as d:
        files = [p for p in paths if info[p][0] == 'regular' or
                 (info[p][0] == 'symlink' and 'Fast link dest' not in text[p])]
        for i in range(0, len(files), 500):
            debugfs(['dump <%d> %s/%d' % (ents[p], d, ents[p]) for p in files[i:i + 500]])
        for p in paths:
            typ = info[p][0]
            m = re.search(r'Fast link dest: "(.*)"', text[p])
            if typ == 'symlink' and m:
                what = m.group(1)
            elif typ in ('regular', 'symlink'):
                with open('%s/%d' % (d, ents[p]), 'rb') as f:
                    what = hashlib.sha256(f.read()).hexdigest()
            else:
                what = '-'
            if typ == 'directory':
                info[p][4] = info[p][5] = 0
            print(p, *info[p], what)


main()
