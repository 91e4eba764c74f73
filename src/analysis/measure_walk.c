/* measure_walk.c - the measure walk: what every entry of an image or tree adds to the tallies */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/extents_file.h"
#include "analysis/measure_int.h"
#include "util/array.h"
#include "util/util.h"

/* ---- the walk ---------------------------------------------------------- */
static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Hash of the name of entry (index + 1) of table ctx. */
static uint64_t mext_hash(uint64_t entry, const void *ctx)
{
	const struct mext *t = ctx;

	return str_hash(t->name[entry - 1]);
}

/* Id of ext in the table, added when new; -ENOMEM. */
static int64_t mext_id(struct mext *t, const char *ext)
{
	const struct array_col cols[] = { { &t->name, sizeof(*t->name) },
					  { &t->files, sizeof(*t->files) } };
	size_t i;

	if (array_slots_reserve(&t->slot, &t->nslot, t->n, 256, mext_hash, t))
		return -ENOMEM;
	for (i = str_hash(ext) & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1))
		if (!strcmp(t->name[t->slot[i] - 1], ext))
			return t->slot[i] - 1;
	if (array_grow_cols(cols, ARRAY_SIZE(cols), &t->cap, t->n + 1))
		return -ENOMEM;
	t->name[t->n] = strdup(ext);
	if (!t->name[t->n])
		return -ENOMEM;
	t->files[t->n] = 0;
	t->slot[i] = t->n + 1;
	return (int64_t)t->n++;
}

static void mext_release(struct mext *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->name[i]);
	free(t->name);
	free(t->files);
	free(t->slot);
}

static int grow_files(struct mstate *m)
{
	uint64_t c = m->fcap ? m->fcap * 2 : 4096;

	if (m->nfiles < m->fcap)
		return 0;
	/* parallel arrays, one capacity */
	if (array_resize(&m->size, c, sizeof(*m->size)) ||
	    array_resize(&m->mtime, c, sizeof(*m->mtime)) ||
	    array_resize(&m->depth, c, sizeof(*m->depth)) ||
	    array_resize(&m->dir, c, sizeof(*m->dir)) || array_resize(&m->ext, c, sizeof(*m->ext)))
		return -ENOMEM;
	m->fcap = c;
	return 0;
}

static int grow_dirs(struct mstate *m)
{
	uint32_t c = m->dcap ? m->dcap * 2 : 1024;

	if (m->ndirs < m->dcap)
		return 0;
	if (m->dcap >= UINT32_MAX / 2)
		return -E2BIG;
	if (array_resize(&m->ddepth, c, sizeof(*m->ddepth)) ||
	    array_resize(&m->dnfiles, c, sizeof(*m->dnfiles)) ||
	    array_resize(&m->dmin, c, sizeof(*m->dmin)) ||
	    array_resize(&m->dmax, c, sizeof(*m->dmax)) ||
	    array_resize(&m->dcnt, c, sizeof(*m->dcnt)) ||
	    array_resize(&m->dent, c, sizeof(*m->dent)) ||
	    array_resize(&m->dsize, c, sizeof(*m->dsize)) ||
	    array_resize(&m->dsub, c, sizeof(*m->dsub)))
		return -ENOMEM;
	m->dcap = c;
	return 0;
}

static void write_extents_line(struct mstate *m, const struct fsread_entry *e)
{
	FILE *f = m->ext_out;
	size_t nruns = 0;

	extents_file_begin_line(f, m->nfiles - 1, e->path, NULL);
	for (size_t i = 0; i < e->nextents;) {
		uint64_t start = e->extents[i].physical, len = e->extents[i].len;
		size_t j = i + 1;

		while (j < e->nextents &&
		       e->extents[j - 1].physical + e->extents[j - 1].len == e->extents[j].physical)
			len += e->extents[j++].len;
		extents_file_put_run(f, nruns++, start, len);
		i = j;
	}
	extents_file_end_line(f, nruns);
}

/* The entry's extended attributes and ACLs into m->meta; one count for an inode. */
static int tally_xattrs(struct fsread *fs, const struct fsread_entry *e, struct mstate *m)
{
	struct measure_meta *t = &m->meta;
	struct fsread_xattrs x;

	if ((e->type == FSREAD_FILE && !e->first_name) ||
	    (e->type == FSREAD_DIR && e->depth == 0 && !strcmp(e->name, "lost+found")))
		return 0;
	if (fsread_xattrs(fs, e, &x, NULL)) {
		t->unreadable++;
		return 0;
	}
	if (!(x.user + x.security + x.system + x.trusted))
		return 0;
	t->entries++;
	t->user += x.user;
	t->security += x.security;
	t->system += x.system;
	t->trusted += x.trusted;
	t->in_inode += x.in_inode;
	t->in_block += x.in_block;
	t->acl_access += x.acl_access != 0;
	t->acl_default += x.acl_default != 0;
	if (!x.block)
		return 0;
	t->block_refs++;
	if (array_grow(&t->blocks, &t->blocks_cap, t->nblocks + 1, sizeof(*t->blocks)))
		return -ENOMEM;
	t->blocks[t->nblocks++] = x.block;
	return 0;
}

/* Preallocated space: unwritten blocks before the end, any block after it. */
static void tally_prealloc(const struct fsread_entry *e, unsigned bs, struct measure_meta *t)
{
	uint64_t eofb = (e->size + bs - 1) / bs, unw = 0, beyond = 0;

	for (size_t i = 0; i < e->nextents; i++) {
		const struct fsread_extent *x = &e->extents[i];
		uint64_t end = x->logical + x->len;

		if ((x->flags & FSREAD_EXTENT_UNWRITTEN) && x->logical < eofb)
			unw += (end < eofb ? end : eofb) - x->logical;
		if (end > eofb)
			beyond += end - (x->logical > eofb ? x->logical : eofb);
	}
	t->prealloc_files += unw || beyond;
	t->unwritten_blocks += unw;
	t->beyond_blocks += beyond;
}

/* Mapping blocks of a block-mapped directory in [a, b) (map sorted). */
static uint64_t map_in(const uint64_t *map, size_t n, uint64_t a, uint64_t b)
{
	size_t lo = 0, hi = n, k = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + k < n && map[lo + k] < b)
		k++;
	return k;
}

/*
 * A directory's layout: its runs, a gap that holds only its own indirect
 * blocks (where ext2/3 and imprint put them, among the data) not a break.
 */
static void tally_dir_layout(const struct fsread_entry *e, struct measure_meta *t)
{
	uint64_t runs = 0;

	if (!e->extents || e->blocks < 2)
		return;
	for (size_t i = 0; i < e->nextents; i++) {
		uint64_t end = i ? e->extents[i - 1].physical + e->extents[i - 1].len : 0;
		uint64_t p = e->extents[i].physical;

		if (!i || (p != end && !(p > end && map_in(e->map_blocks, e->nmap_blocks, end, p) ==
							    p - end)))
			runs++;
	}
	t->dl_dirs++;
	t->dl_frag += runs > 1;
	t->dl_runs += runs;
	t->dl_pairs += e->blocks - 1;
	t->dl_contig += e->blocks - runs;
}

/* An entry's name by length, with or without an extension (a dot past the first byte). */
static void tally_name(struct mstate *m, const struct fsread_entry *e)
{
	const char *dot = memrchr(e->name, '.', e->name_len);
	int ext = e->type == FSREAD_DIR ? 2 : dot && dot != e->name;

	m->name_len_ext[ext][e->name_len < 255 ? e->name_len : 255]++;
}

/* An entry's owner (root or not) and, for files and directories, its permission bits. */
static void tally_owner(struct mstate *m, const struct fsread_entry *e)
{
	m->owned++;
	m->root_owned += e->uid == 0;
	if (e->type == FSREAD_DIR)
		m->mode_dir[e->mode & 07777]++;
	else if (e->type == FSREAD_FILE)
		m->mode_file[e->mode & 07777]++;
}

int measure_on_entry(struct fsread *fs, const struct fsread_entry *e, void *arg)
{
	struct mstate *m = arg;
	char ext[MEASURE_EXT_LEN + 1];
	int64_t id;
	uint64_t f, holes, frags;

	if (m->skipping) {
		if (e->depth > m->skip_below) {
			m->skipped++;
			return 0;
		}
		m->skipping = 0;
	}
	if (tally_xattrs(fs, e, m))
		goto out_nomem;
	if (e->path[1] == '\0') {
		/* the root */
		if (grow_dirs(m))
			goto out_nomem;
		m->ddepth[0] = 0;
		m->dnfiles[0] = 0;
		m->dcnt[0] = 0;
		m->dent[0] = 24;
		m->dsize[0] = e->type == FSREAD_DIR ? e->size : 0;
		m->dsub[0] = 0;
		m->ndirs = 1;
		if (e->type == FSREAD_DIR)
			tally_dir_layout(e, &m->meta);
		m->stack[0] = 0;
		return 0;
	}
	if (e->type != FSREAD_FILE || e->first_name) {
		uint32_t p = m->stack[e->depth];

		/* directory fill: what the entries need against what the directory takes */
		m->dent[p] += (8 + e->name_len + 3) & ~(uint64_t)3;

		if (!m->dcnt[p] || e->ino < m->dmin[p])
			m->dmin[p] = e->ino;
		if (!m->dcnt[p] || e->ino > m->dmax[p])
			m->dmax[p] = e->ino;
		m->dcnt[p]++;
	}
	switch (e->type) {
	case FSREAD_DIR:
		if (e->depth == 0 && !strcmp(e->name, "lost+found")) {
			/* mke2fs's, not the model's */
			m->skipping = 1;
			m->skip_below = 0;
			m->skipped++;
			return 0;
		}
		if (e->depth + 1 >= 65535) {
			m->ret = -E2BIG;
			return -E2BIG;
		}
		if (grow_dirs(m))
			goto out_nomem;
		if (array_grow(&m->stack, &m->stack_cap, e->depth + 2, sizeof(*m->stack)))
			goto out_nomem;
		m->name_len[1][e->name_len < 255 ? e->name_len : 255]++;
		tally_dir_layout(e, &m->meta);
		m->ddepth[m->ndirs] = (uint16_t)(e->depth + 1);
		m->dnfiles[m->ndirs] = 0;
		m->dcnt[m->ndirs] = 0;
		m->dent[m->ndirs] = 24;
		m->dsize[m->ndirs] = e->size;
		m->dsub[m->ndirs] = 0;
		m->dsub[m->stack[e->depth]]++;
		tally_owner(m, e);
		tally_name(m, e);
		m->stack[e->depth + 1] = m->ndirs;
		m->ndirs++;
		return 0;
	case FSREAD_SYMLINK:
		m->symlinks++;
		tally_owner(m, e);
		tally_name(m, e);
		return 0;
	case FSREAD_OTHER:
		tally_owner(m, e);
		tally_name(m, e);
		m->others++;
		m->fifos += S_ISFIFO(e->mode);
		m->sockets += S_ISSOCK(e->mode);
		m->chardevs += S_ISCHR(e->mode);
		m->blockdevs += S_ISBLK(e->mode);
		return 0;
	case FSREAD_FILE:
		break;
	}
	/* every name of a regular file, a hard link's too */
	m->name_len[0][e->name_len < 255 ? e->name_len : 255]++;
	tally_name(m, e);
	if (!e->first_name) {
		m->hardlinks++;
		return 0;
	}
	if (grow_files(m))
		goto out_nomem;
	tally_owner(m, e);
	content_ext_of_path_case(e->name, ext, sizeof(ext));
	id = mext_id(&m->ext_tab, ext);
	if (id < 0)
		goto out_nomem;
	m->ext_tab.files[id]++;
	f = m->nfiles++;
	m->size[f] = e->size;
	m->mtime[f] = e->mtime.sec;
	m->depth[f] = (uint16_t)e->depth;
	m->dir[f] = m->stack[e->depth];
	m->ext[f] = (uint32_t)id;
	m->dnfiles[m->dir[f]]++;
	/* never wraps: the total saturates at 2^64 - 1 */
	if (__builtin_add_overflow(m->bytes, e->size, &m->bytes))
		m->bytes = UINT64_MAX;
	if (f == 0 || e->mtime.sec > m->max_mtime)
		m->max_mtime = e->mtime.sec;
	if (e->extents_unknown)
		return 0;
	holes = fsread_hole_blocks(e, fsread_geometry(fs)->block_size);
	if (holes) {
		m->sparse_files++;
		if (__builtin_add_overflow(m->hole_blocks, holes, &m->hole_blocks))
			m->hole_blocks = UINT64_MAX;
	}
	tally_prealloc(e, fsread_geometry(fs)->block_size, &m->meta);
	frags = measure_layout_add(&m->lay, e->extents, e->nextents);
	for (size_t i = 0; m->map.cnt && i < e->nextents; i++)
		html_map_add(&m->map, e->extents[i].physical, e->extents[i].len,
			     frags > 1 ? HTML_MAP_FRAG : HTML_MAP_CONTIG);
	if (m->ext_out)
		write_extents_line(m, e);
	return 0;
out_nomem:
	m->ret = -ENOMEM;
	return -ENOMEM;
}


/* How far apart each directory's entries' inode numbers are: quantiles of the spread. */
static void inode_spread(struct mstate *m, unsigned bs)
{
	struct measure_meta *t = &m->meta;
	double *sp = malloc((m->ndirs ? m->ndirs : 1) * sizeof(*sp));
	uint64_t n = 0, tight = 0;

	if (!sp)
		return;
	for (uint32_t d = 0; d < m->ndirs; d++) {
		if (m->dsize[d] > bs) {
			t->dirent_bytes += m->dent[d];
			t->dir_bytes += m->dsize[d];
			t->fill_dirs++;
		}
		if (m->dcnt[d] < 2)
			continue;
		sp[n] = (double)(m->dmax[d] - m->dmin[d] + 1) / m->dcnt[d];
		tight += sp[n] <= 1.0;
		n++;
	}
	qsort(sp, n, sizeof(*sp), array_cmp_double);
	t->spread_dirs = n;
	t->spread_median = n ? sp[(n - 1) / 2] : 0;
	t->spread_p90 = n ? sp[(n - 1) * 9 / 10] : 0;
	t->spread_tight = n ? (double)tight / (double)n : 0;
	free(sp);
}

void measure_meta_finish(struct mstate *m, unsigned bs)
{
	struct measure_meta *t = &m->meta;

	if (t->nblocks) /* qsort's base must not be NULL, even for no element */
		qsort(t->blocks, t->nblocks, sizeof(*t->blocks), array_cmp_u64);
	t->shared_blocks = 0;
	for (size_t i = 0; i < t->nblocks; i++)
		t->shared_blocks += i == 0 || t->blocks[i] != t->blocks[i - 1];
	inode_spread(m, bs);
}

void measure_mstate_release(struct mstate *m)
{
	FREE_ALL(m->meta.blocks, m->dmin, m->dmax, m->dcnt, m->dent, m->dsize, m->dsub, m->size, m->mtime,
		 m->depth, m->dir, m->ext, m->ddepth, m->dnfiles, m->stack);
	mext_release(&m->ext_tab);
	html_map_release(&m->map);
}
