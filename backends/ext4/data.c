/* data.c - file data written by worker threads in large pwrites at the layout's blocks */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "backends/ext4/data.h"
#include "backends/ext4/dio.h"
#include "content/sparse.h"

#define EXT4_DATA_BATCH_BYTES (8u << 20)
#define BATCH_ALIGN	      ((size_t)2 << 20) /* a huge page (x86-64); EXT4_DIO_ALIGN's multiple */

static void piece_swap(struct ext4_piece *a, struct ext4_piece *b)
{
	struct ext4_piece t = *a;

	*a = *b;
	*b = t;
}

/*
 * Sort pieces by physical block in place: qsort's merge sort would take a
 * copy of the array (as much again as the pieces).  Block numbers are
 * unique, so any sort gives the same order.  Quicksort on the median of
 * three, the smaller side first, insertion sort for short ranges.
 */
static void pieces_sort(struct ext4_piece *p, size_t n)
{
	while (n > 16) {
		size_t m = n / 2, i = 0, j = n - 1;
		uint64_t pivot;

		if (p[m].pblk < p[0].pblk)
			piece_swap(&p[m], &p[0]);
		if (p[n - 1].pblk < p[0].pblk)
			piece_swap(&p[n - 1], &p[0]);
		if (p[n - 1].pblk < p[m].pblk)
			piece_swap(&p[n - 1], &p[m]);
		pivot = p[m].pblk;
		for (;;) {
			while (p[i].pblk < pivot)
				i++;
			while (p[j].pblk > pivot)
				j--;
			if (i >= j)
				break;
			piece_swap(&p[i++], &p[j--]);
		}
		/* [0, j] <= pivot <= [j + 1, n) */
		if (j + 1 < n - j - 1) {
			pieces_sort(p, j + 1);
			p += j + 1;
			n -= j + 1;
		} else {
			pieces_sort(p + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && p[k].pblk < p[k - 1].pblk; k--)
			piece_swap(&p[k], &p[k - 1]);
}

int ext4_data_init(struct ext4_data *d, const struct plan *pl, const struct layout *lo,
		   const uint64_t *file_blocks, uint32_t block_size)
{
	size_t n = 0, at = 0;
	uint64_t holes = 0;
	int sorted = 1, sparse = sparse_enabled(pl);
	struct sparse_holes h = { 0 };

	memset(d, 0, sizeof(*d));
	d->pl = pl;
	d->fd = -1;
	d->dfd = -1;
	d->block_size = block_size;
	d->batch_blocks = EXT4_DATA_BATCH_BYTES / block_size;
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		if (!file_blocks[f])
			continue;
		for (uint64_t e = lo->file_ext[f]; e < lo->file_ext[f + 1]; e++)
			n += (lo->ext[e].len + EXT4_DATA_PIECE_MAX - 1) / EXT4_DATA_PIECE_MAX;
		/* a hole inside a run cuts it in two; it counts as done (progress) */
		if (sparse) {
			n += sparse_file_holes(pl, f, &h);
			holes += h.bytes;
		}
	}
	atomic_init(&d->bytes_done, holes);
	atomic_init(&d->files_done, 0);
	d->piece = malloc((n ? n : 1) * sizeof(*d->piece));
	if (!d->piece)
		return -ENOMEM;
	for (uint64_t f = 0; f < pl->nfiles; f++)
		if (file_blocks[f] && pl->file_size[f] >= CONTENT_SPLIT_MIN)
			d->nbig++;
	d->big = calloc(d->nbig ? d->nbig : 1, sizeof(*d->big));
	if (!d->big)
		return -ENOMEM;
	d->nbig = 0;
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t done = 0, lblk;
		size_t first = at;

		if (!file_blocks[f])
			continue;
		if (sparse)
			sparse_file_holes(pl, f, &h);
		/* logical blocks of a sparse file skip its holes: a piece ends at each */
		lblk = sparse ? sparse_lblk(&h, block_size, 0) : 0;
		for (uint64_t e = lo->file_ext[f]; e < lo->file_ext[f + 1]; e++) {
			for (uint64_t off = 0, len; off < lo->ext[e].len; off += len) {
				struct ext4_piece *p = &d->piece[at++];

				len = lo->ext[e].len - off;
				if (len > EXT4_DATA_PIECE_MAX)
					len = EXT4_DATA_PIECE_MAX;
				if (sparse && h.n) {
					uint64_t left = sparse_data_left(&h, block_size, lblk);

					if (len > left)
						len = left;
				}
				p->pblk = lo->ext[e].pblk + off;
				p->file = (uint32_t)f;
				p->lblk = lblk;
				p->len = len;
				p->last = 0;
				done += len;
				lblk = sparse ? sparse_lblk(&h, block_size, done) : done;
				if (at > 1 && p[-1].pblk >= p->pblk)
					sorted = 0;
			}
		}
		if (done != file_blocks[f])
			return -EINVAL; /* ext4_data_release() frees */
		d->piece[at - 1].last = 1;
		d->data_files++;
		d->data_bytes += pl->file_size[f];
		if (pl->file_size[f] >= CONTENT_SPLIT_MIN) {
			struct ext4_big *g = &d->big[d->nbig++];

			g->file = (uint32_t)f;
			g->left = done;
			g->nmap = at - first;
			g->map = malloc(g->nmap * sizeof(*g->map));
			if (!g->map)
				return -ENOMEM;
			memcpy(g->map, &d->piece[first], g->nmap * sizeof(*g->map));
		}
	}
	d->npieces = at;
	/* the write order only matters for speed: sequential is what disks like */
	if (!sorted)
		pieces_sort(d->piece, d->npieces);
	return 0;
}

/* One batch: its pieces, the buffer their blocks are made in, the runs written. */
struct ext4_batch {
	struct ext4_piece *b;
	size_t n;
	uint64_t span_start;
	uint64_t *sb; /* staged metadata blocks copied into buf, ascending */
	size_t ns;
	unsigned char *buf;
	/*
	 * For each block of buf, how many bytes from its start may not be
	 * zero (what earlier batches left there): a block's tail past its
	 * file's end is cleared only that far, not to the block's end.
	 */
	uint32_t *dirty;
	struct ext4_dio_run *run;
	size_t nrun;
	uint64_t bytes, files;
};

static int staged_less(const struct ext4_staged *a, const struct ext4_staged *b)
{
	return a->pblk < b->pblk || (a->pblk == b->pblk && a->seq < b->seq);
}

static void staged_push(struct ext4_data *d, struct ext4_staged e)
{
	size_t i = d->nheap++;

	while (i && staged_less(&e, &d->heap[(i - 1) / 2])) {
		d->heap[i] = d->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	d->heap[i] = e;
}

static struct ext4_staged staged_pop(struct ext4_data *d)
{
	struct ext4_staged top = d->heap[0], last = d->heap[--d->nheap];
	size_t i = 0, n = d->nheap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && staged_less(&d->heap[c + 1], &d->heap[c]))
			c++;
		if (!staged_less(&d->heap[c], &last))
			break;
		d->heap[i] = d->heap[c];
		i = c;
	}
	if (n)
		d->heap[i] = last;
	return top;
}

/*
 * The pool has no room for n blocks, and workers running will make some:
 * the metadata writer waits.  Workers never wait for it meanwhile (see
 * batch_early()).  Called under d->lock.
 */
static int stage_full(const struct ext4_data *d, uint64_t n)
{
	return d->staging && !d->stop && d->running && n <= d->stage_cap / 2 && d->nfree < n;
}

int ext4_data_stage(struct ext4_data *d, uint64_t pblk, uint64_t n, const unsigned char *buf)
{
	int taken = 0;

	if (!d->started || !d->pool)
		return 0;
	pthread_mutex_lock(&d->lock);
	if (pblk + n > d->meta_high) {
		d->meta_high = pblk + n;
		if (d->meta_waiting)
			pthread_cond_broadcast(&d->meta_cv);
	}
	/* ahead of the data by the whole pool: wait for the workers to take some */
	while (stage_full(d, n) && pblk >= d->frontier) {
		d->room_waiting++;
		pthread_cond_wait(&d->meta_cv, &d->lock);
		d->room_waiting--;
	}
	if (d->staging && !d->stop && pblk >= d->frontier && pblk + n <= d->end && n <= d->nfree) {
		for (uint64_t i = 0; i < n; i++) {
			struct ext4_staged e = { pblk + i, d->seq++, d->free_slot[--d->nfree] };

			memcpy(d->pool + (size_t)e.slot * d->block_size, buf + i * d->block_size,
			       d->block_size);
			staged_push(d, e);
		}
		taken = 1;
	}
	pthread_mutex_unlock(&d->lock);
	return taken;
}

void ext4_data_meta_at(struct ext4_data *d, uint64_t pblk)
{
	if (!d->started || !d->pool)
		return;
	pthread_mutex_lock(&d->lock);
	if (pblk > d->meta_high) {
		d->meta_high = pblk;
		if (d->meta_waiting)
			pthread_cond_broadcast(&d->meta_cv);
	}
	pthread_mutex_unlock(&d->lock);
}

void ext4_data_meta_done(struct ext4_data *d)
{
	if (!d->started)
		return;
	pthread_mutex_lock(&d->lock);
	d->meta_done = 1;
	pthread_cond_broadcast(&d->meta_cv);
	pthread_mutex_unlock(&d->lock);
}

/*
 * The next batch would span blocks the metadata writer has not offered
 * yet: taking it now would leave them to small writes of their own.
 * Called under d->lock.
 */
static int batch_early(const struct ext4_data *d)
{
	if (!d->staging || d->meta_done || d->stop || d->next >= d->npieces ||
	    d->nfree < d->stage_cap / 2)
		return 0;
	return d->piece[d->next].pblk + d->next_off + d->batch_blocks > d->meta_high;
}

/*
 * Hand out the next batch: pieces (or parts of them) within batch_blocks
 * of the first block, and the staged metadata blocks there, copied into
 * s->buf.  Called under d->lock.  Returns the count of pieces and staged
 * blocks; 0 when nothing is left.
 */
static size_t take_batch(struct ext4_data *d, struct ext4_batch *s)
{
	struct ext4_piece *out = s->b;
	size_t n = 0;
	uint64_t start = UINT64_MAX, limit, bs = d->block_size;

	s->n = 0;
	s->ns = 0;
	if (d->next < d->npieces)
		start = d->piece[d->next].pblk + d->next_off;
	if (d->nheap && d->heap[0].pblk < start)
		start = d->heap[0].pblk;
	if (start == UINT64_MAX)
		return 0;
	limit = start + d->batch_blocks;
	s->span_start = start;
	while (d->next < d->npieces) {
		const struct ext4_piece *p = &d->piece[d->next];
		uint64_t from = p->pblk + d->next_off, len = p->len - d->next_off;

		if (from >= limit)
			break;
		if (from + len > limit)
			len = limit - from;
		out[n].pblk = from;
		out[n].file = p->file;
		out[n].lblk = p->lblk + d->next_off;
		out[n].len = len;
		d->next_off += len;
		out[n].last = 0;
		if (d->next_off == p->len) {
			out[n].last = p->last;
			d->next++;
			d->next_off = 0;
		}
		n++;
	}
	/* the same block staged twice: the later copy wins */
	while (d->nheap && d->heap[0].pblk < limit) {
		struct ext4_staged e = staged_pop(d);

		memcpy(s->buf + (e.pblk - start) * bs, d->pool + (size_t)e.slot * bs, (size_t)bs);
		s->dirty[e.pblk - start] = (uint32_t)bs;
		d->free_slot[d->nfree++] = e.slot;
		if (d->room_waiting)
			pthread_cond_broadcast(&d->meta_cv);
		if (!s->ns || s->sb[s->ns - 1] != e.pblk)
			s->sb[s->ns++] = e.pblk;
	}
	/* what comes below limit from now on is the caller's to write */
	d->frontier = limit;
	s->n = n;
	return n + s->ns;
}

/* The large file f made in parts, or NULL. */
static struct ext4_big *big_of(const struct ext4_data *d, uint32_t f)
{
	size_t lo = 0, hi = d->nbig;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->big[mid].file < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nbig && d->big[lo].file == f && d->big[lo].sp ? &d->big[lo] : NULL;
}

/*
 * Blocks first .. first + len - 1 of s->buf took have bytes of content
 * from the first one's start: the rest of them is zero, as the kernel
 * leaves a file's last block, cleared as far as an earlier batch wrote.
 */
static void clear_tail(struct ext4_batch *s, uint64_t first, uint64_t len, uint64_t have,
		       uint64_t bs)
{
	uint64_t full = have / bs;
	uint32_t keep = (uint32_t)(have % bs);
	unsigned char *at = s->buf + first * bs;

	for (uint64_t k = 0; k < full; k++)
		s->dirty[first + k] = (uint32_t)bs;
	for (uint64_t k = full; k < len; k++, keep = 0) {
		if (s->dirty[first + k] > keep)
			memset(at + k * bs + keep, 0, s->dirty[first + k] - keep);
		s->dirty[first + k] = keep;
	}
}

/* Make the content of batch s in its buffer and gather its runs of consecutive blocks. */
static int fill_batch(struct ext4_data *d, struct ext4_batch *s)
{
	const struct ext4_piece *b = s->b;
	uint64_t bs = d->block_size;
	int ret = 0;

	s->nrun = 0;
	s->bytes = 0;
	s->files = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint64_t size = d->pl->file_size[b[i].file];
		uint64_t off = b[i].lblk * bs, want = (uint64_t)b[i].len * bs;
		/* blocks kept beyond the end of a preallocated file: zeros */
		uint64_t have = off >= size ? 0 : size - off < want ? size - off : want;
		unsigned char *at = s->buf + (b[i].pblk - s->span_start) * bs;

		struct ext4_big *g = have ? big_of(d, b[i].file) : NULL;

		if (g)
			ret = content_split_fill(d->cs, g->sp, off, at, (size_t)have);
		else
			ret = have ? d->cs->fill(d->cs, b[i].file, off, at, (size_t)have) : 0;
		if (ret)
			return ret;
		clear_tail(s, b[i].pblk - s->span_start, b[i].len, have, bs);
		s->bytes += have;
		s->files += b[i].last;
	}
	/* runs of consecutive blocks, pieces and staged blocks merged in block order */
	for (size_t i = 0, k = 0; i < s->n || k < s->ns;) {
		uint64_t first = UINT64_MAX, end;

		if (i < s->n)
			first = b[i].pblk;
		if (k < s->ns && s->sb[k] < first)
			first = s->sb[k];
		end = first;
		for (;;) {
			if (i < s->n && b[i].pblk == end)
				end += b[i++].len;
			else if (k < s->ns && s->sb[k] == end) {
				end++;
				k++;
			} else
				break;
		}
		s->run[s->nrun].buf = s->buf + (first - s->span_start) * bs;
		s->run[s->nrun].len = (size_t)((end - first) * bs);
		s->run[s->nrun].off = d->base + first * bs;
		s->nrun++;
	}
	return 0;
}

/*
 * Content is made in parallel, but the writes go one batch at a time: the
 * kernel serializes writes to one file anyway, and waiting here sleeps
 * where waiting on the inode lock would spin a CPU.  With io, the batch
 * is only submitted: finish_batch() waits for it.
 */
static int submit_batch(struct ext4_data *d, struct ext4_batch *s, struct ext4_dio *io)
{
	int ret = 0;

	pthread_mutex_lock(&d->wlock);
	if (io && !atomic_load(&d->buffered)) {
		ret = ext4_dio_submit(io, d->dfd, d->fd, s->run, s->nrun);
		if (ret == 1) {
			atomic_store(&d->buffered, 1);
			ret = 0;
		}
	} else {
		for (size_t i = 0; i < s->nrun && !ret; i++)
			ret = ext4_pwrite_all(d->fd, s->run[i].buf, s->run[i].len, s->run[i].off);
	}
	pthread_mutex_unlock(&d->wlock);
	return ret;
}

/*
 * Write logical blocks [lblk, lblk + n) of large file g from buf, at the
 * physical blocks its pieces give them.  -EIO when a block has none.
 */
static int big_write(struct ext4_data *d, const struct ext4_big *g, uint64_t lblk, uint64_t n,
		     const unsigned char *buf)
{
	uint64_t bs = d->block_size;
	int ret = 0;

	while (n && !ret) {
		const struct ext4_piece *p = NULL;
		uint64_t k;

		for (size_t i = 0; i < g->nmap && !p; i++)
			if (lblk >= g->map[i].lblk && lblk < (uint64_t)g->map[i].lblk + g->map[i].len)
				p = &g->map[i];
		if (!p)
			return -EIO;
		k = (uint64_t)p->lblk + p->len - lblk;
		if (k > n)
			k = n;
		ret = ext4_pwrite_all(d->fd, buf, (size_t)(k * bs),
				      d->base + (p->pblk + (lblk - p->lblk)) * bs);
		buf += k * bs;
		lblk += k;
		n -= k;
	}
	return ret;
}

/*
 * Every block of large file g is written: make the ranges the parts left
 * to the fixup again (whole blocks, now that the memo has every sum) and
 * write them over the parts' blocks, through the page cache (the parts'
 * direct writes are done).
 */
static int big_fixup(struct ext4_data *d, const struct ext4_big *g)
{
	uint64_t bs = d->block_size, size = d->pl->file_size[g->file];
	const uint64_t *off, *len;
	long n = content_split_fixups(g->sp, &off, &len);
	unsigned char *buf = NULL;
	size_t cap = 0;
	int ret = n < 0 ? (int)n : 0;

	for (long i = 0; i < n && !ret; i++) {
		uint64_t a = off[i] / bs * bs, e = off[i] + len[i];

		e = (e + bs - 1) / bs * bs;
		while (a < e && !ret) {
			uint64_t b = e - a > (uint64_t)d->batch_blocks * bs ?
					     a + (uint64_t)d->batch_blocks * bs :
					     e;
			uint64_t have = b < size ? b - a : size - a;

			if (cap < b - a) {
				free(buf);
				cap = (size_t)(b - a);
				buf = malloc(cap);
				if (!buf)
					return -ENOMEM;
			}
			memset(buf + have, 0, (size_t)(b - a - have));
			ret = content_split_fill(d->cs, g->sp, a, buf, (size_t)have);
			if (!ret) {
				pthread_mutex_lock(&d->wlock);
				ret = big_write(d, g, a / bs, (b - a) / bs, buf);
				pthread_mutex_unlock(&d->wlock);
			}
			a = b;
		}
	}
	free(buf);
	return ret;
}

/* Count batch s's blocks of large files written; fix up each whose last block they were. */
static int big_done(struct ext4_data *d, const struct ext4_batch *s)
{
	int ret = 0;

	for (size_t i = 0; i < s->n && !ret; i++) {
		struct ext4_big *g = d->nbig ? big_of(d, s->b[i].file) : NULL;
		int last;

		if (!g)
			continue;
		pthread_mutex_lock(&d->lock);
		g->left -= s->b[i].len;
		last = g->left == 0;
		pthread_mutex_unlock(&d->lock);
		if (last)
			ret = big_fixup(d, g);
	}
	return ret;
}

/* Wait for what is in flight of batch s, write the fixups it completes, then count it done. */
static int finish_batch(struct ext4_data *d, struct ext4_batch *s, struct ext4_dio *io)
{
	int ret = 0;

	if (io && io->inflight)
		ret = ext4_dio_reap(io, d->fd, s->run, io->inflight);
	if (!ret)
		ret = big_done(d, s);
	if (ret)
		return ret;
	atomic_fetch_add(&d->bytes_done, s->bytes);
	atomic_fetch_add(&d->files_done, s->files);
	return 0;
}

static int batch_alloc(struct ext4_batch *s, size_t cap, uint32_t block_size)
{
	memset(s, 0, sizeof(*s));
	/*
	 * Aligned for direct I/O, and on huge pages where the kernel gives
	 * them: each write pins the buffer's pages, 512 times fewer of them
	 */
	if (posix_memalign((void **)&s->buf, BATCH_ALIGN, cap * block_size))
		s->buf = NULL;
	else
		madvise(s->buf, cap * block_size, MADV_HUGEPAGE);
	s->dirty = malloc(cap * sizeof(*s->dirty));
	s->b = malloc(cap * sizeof(*s->b));
	s->sb = malloc(cap * sizeof(*s->sb));
	s->run = malloc(cap * sizeof(*s->run));
	if (!s->buf || !s->dirty || !s->b || !s->sb || !s->run)
		return -ENOMEM;
	/* what the allocator gave is not known to be zero */
	for (size_t k = 0; k < cap; k++)
		s->dirty[k] = block_size;
	return 0;
}

static void batch_free(struct ext4_batch *s)
{
	free(s->buf);
	free(s->dirty);
	free(s->b);
	free(s->sb);
	free(s->run);
}

/*
 * Take batches in block order until none is left.  With direct I/O, two
 * batches alternate: one is made while the other is in flight.
 */
static int work(struct ext4_data *d, struct ext4_batch *s, struct ext4_dio *io)
{
	struct ext4_batch *pending = NULL;
	unsigned cur = 0;
	int ret = 0;

	while (!ret) {
		size_t got;

		pthread_mutex_lock(&d->lock);
		while (batch_early(d)) {
			d->meta_waiting++;
			pthread_cond_wait(&d->meta_cv, &d->lock);
			d->meta_waiting--;
		}
		got = d->stop ? 0 : take_batch(d, &s[cur]);
		pthread_mutex_unlock(&d->lock);
		if (!got)
			break;
		if (d->cancel && *d->cancel) {
			ret = -EINTR;
			break;
		}
		ret = fill_batch(d, &s[cur]);
		if (!ret && pending)
			ret = finish_batch(d, pending, io);
		pending = NULL;
		if (!ret)
			ret = submit_batch(d, &s[cur], io);
		if (!ret && !io) {
			ret = finish_batch(d, &s[cur], NULL);
		} else if (!ret) {
			pending = &s[cur];
			cur ^= 1;
		}
	}
	if (pending) {
		int r = finish_batch(d, pending, io);

		if (!ret)
			ret = r;
	}
	return ret;
}

static void *worker(void *arg)
{
	struct ext4_data *d = arg;
	size_t cap = d->batch_blocks;
	struct ext4_batch s[2] = { 0 };
	struct ext4_dio io, *iop = NULL;
	int ret;

	ret = batch_alloc(&s[0], cap, d->block_size);
	/* no asynchronous context or second buffer: this worker writes through the page cache */
	if (!ret && d->dfd >= 0 && batch_alloc(&s[1], cap, d->block_size) == 0 &&
	    ext4_dio_init(&io, (unsigned)cap) == 0)
		iop = &io;
	if (!ret)
		ret = work(d, s, iop);
	if (iop)
		ext4_dio_release(iop);
	batch_free(&s[0]);
	batch_free(&s[1]);
	pthread_mutex_lock(&d->lock);
	if (ret && !d->err)
		d->err = ret;
	if (ret)
		d->stop = 1;
	d->running--;
	pthread_cond_broadcast(&d->idle);
	pthread_cond_broadcast(&d->meta_cv); /* the others stop too */
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/*
 * The measure (DATA_IO_AUTO): PROBE_TURNS turns of PROBE_TURN bytes of
 * zeros each, direct and buffered by turns, each until fdatasync() has
 * returned, at the first data blocks in block order (their runs merged,
 * up to PROBE_CHUNK each), which the workers write over afterwards.  Data
 * under PROBE_MIN goes direct unmeasured: the measure would cost more
 * than the choice could save.  The page cache is taken only when it wrote
 * PROBE_MARGIN times faster than direct I/O, a target where direct writes
 * are pathological (a write cache flushed at each, an emulated O_DIRECT):
 * a short buffered write lands in caches (the page cache's writeback of a
 * few MiB in one go, a virtual disk's host), while a whole run's buffered
 * data waits in memory for the final sync instead of going out while the
 * content is made, and pays a copy.  Measured on this project's VM
 * (doc/benchmarks.md): the measure gave the page cache 1.4 to 9.5 times
 * direct I/O's rate on an ext4 /var/tmp where whole runs were 1.5 times
 * faster direct, and 4 to 9 times on tmpfs, where both take the same time.
 */
#define PROBE_TURN   (8u << 20)
#define PROBE_TURNS  4u
#define PROBE_CHUNK  (1u << 20)
#define PROBE_RUNS   256u
#define PROBE_MIN    (UINT64_C(256) << 20)
#define PROBE_MARGIN 10.0

/* The next runs of data blocks from piece *i, *at blocks into it: up to want bytes, cap runs. */
static size_t probe_runs(const struct ext4_data *d, size_t *i, uint64_t *at, const unsigned char *zero,
			 struct ext4_dio_run *run, size_t cap, uint64_t want)
{
	const uint64_t bs = d->block_size, most = PROBE_CHUNK / bs;
	uint64_t got = 0;
	size_t n = 0;

	while (n < cap && got < want && *i < d->npieces) {
		uint64_t start = d->piece[*i].pblk + *at, len = 0;

		while (*i < d->npieces && d->piece[*i].pblk + *at == start + len && len < most) {
			uint64_t take = d->piece[*i].len - *at;

			take = take < most - len ? take : most - len;
			len += take;
			*at += take;
			if (*at == d->piece[*i].len) {
				(*i)++;
				*at = 0;
			}
		}
		run[n++] = (struct ext4_dio_run){ zero, len * bs, d->base + start * bs };
		got += len * bs;
	}
	return n;
}

/* Time both ways at the target (MB/s into d->io); -EINVAL when it refused direct I/O. */
static int probe(struct ext4_data *d)
{
	struct ext4_dio_run run[PROBE_RUNS];
	double secs[2] = { 0, 0 }, bytes[2] = { 0, 0 };
	unsigned char *zero;
	uint64_t at = 0;
	size_t i = 0;
	int ret = 0;

	if (posix_memalign((void **)&zero, EXT4_DIO_ALIGN, PROBE_CHUNK))
		return -ENOMEM;
	memset(zero, 0, PROBE_CHUNK);
	/* what mke2fs and libext2fs left in the page cache goes out first, untimed */
	if (fdatasync(d->fd) != 0) {
		free(zero);
		return -errno;
	}
	for (unsigned t = 0; !ret && t < PROBE_TURNS; t++) {
		size_t n = probe_runs(d, &i, &at, zero, run, PROBE_RUNS, PROBE_TURN);
		double s;

		if (!n)
			break;
		s = ext4_dio_time(d->fd, t & 1 ? -1 : d->dfd, run, n);
		if (s < 0) {
			ret = (int)s;
			break;
		}
		secs[t & 1] += s;
		for (size_t k = 0; k < n; k++)
			bytes[t & 1] += (double)run[k].len;
	}
	free(zero);
	d->io.direct_mbps = secs[0] > 0 ? bytes[0] / secs[0] / 1e6 : 0;
	d->io.buffered_mbps = secs[1] > 0 ? bytes[1] / secs[1] / 1e6 : 0;
	return ret;
}

static void stage_release(struct ext4_data *d)
{
	free(d->heap);
	free(d->free_slot);
	free(d->pool);
	d->heap = NULL;
	d->free_slot = NULL;
	d->pool = NULL;
	d->nheap = 0;
	d->nfree = 0;
	d->staging = 0;
}

/* Which way the data goes (d->dfd closed when not direct), and why, into d->io. */
static int choose_io(struct ext4_data *d, enum data_io way)
{
	struct data_io_report *io = &d->io;
	int ret = 0;

	memset(io, 0, sizeof(*io));
	io->have = 1;
	io->why = way == DATA_IO_AUTO ? "measured" : "forced";
	if (way != DATA_IO_BUFFERED && d->dfd < 0)
		io->why = "refused";
	else if (way == DATA_IO_AUTO && d->data_bytes < PROBE_MIN)
		io->why = "small";
	else if (way == DATA_IO_AUTO)
		ret = probe(d);
	if (ret == -EINVAL)
		io->why = "refused";
	else if (ret)
		return ret;
	io->direct = d->dfd >= 0 && ret == 0 &&
		     !(way == DATA_IO_AUTO && !strcmp(io->why, "measured") &&
		       io->buffered_mbps > PROBE_MARGIN * io->direct_mbps);
	if (!io->direct && d->dfd >= 0) {
		close(d->dfd);
		d->dfd = -1;
	}
	return 0;
}

/*
 * Room for staged metadata, when there is data to write it with; without
 * the memory, the metadata is written by its caller as before.
 */
static void stage_init(struct ext4_data *d)
{
	size_t cap = (d->stage_bytes ? d->stage_bytes : EXT4_DATA_STAGE_BYTES) / d->block_size;

	if (!d->npieces || d->no_stage || !cap)
		return;
	d->heap = malloc(cap * sizeof(*d->heap));
	d->free_slot = malloc(cap * sizeof(*d->free_slot));
	d->pool = malloc(cap * d->block_size);
	if (!d->heap || !d->free_slot || !d->pool) {
		stage_release(d);
		return;
	}
	for (size_t i = 0; i < cap; i++)
		d->free_slot[i] = (uint32_t)(cap - 1 - i);
	d->nfree = cap;
	d->stage_cap = cap;
	d->frontier = d->piece[0].pblk;
	d->end = d->piece[d->npieces - 1].pblk + d->piece[d->npieces - 1].len;
	d->staging = 1;
}

int ext4_data_start(struct ext4_data *d, const struct content_source *cs, int fd,
		    enum data_io way, unsigned jobs, volatile sig_atomic_t *cancel)
{
	pthread_condattr_t ca;
	int ret = 0;

	d->cs = cs;
	d->cancel = cancel;
	for (size_t i = 0; i < d->nbig; i++) {
		ret = content_split_begin(cs, d->big[i].file, &d->big[i].sp);
		if (ret)
			return ret;
	}
	d->fd = fd;
	d->dfd = way != DATA_IO_BUFFERED ? ext4_dio_open(fd, d->block_size, d->base) : -1;
	ret = choose_io(d, way);
	if (ret)
		return ret;
	/* two buffers a worker (one in flight): half the batch, the same memory */
	if (d->dfd >= 0 && d->batch_blocks > 1)
		d->batch_blocks /= 2;
	atomic_init(&d->buffered, 0);
	stage_init(d);
	if (jobs < 1)
		jobs = 1;
	d->thread = calloc(jobs, sizeof(*d->thread));
	if (!d->thread)
		return -ENOMEM;
	ret = -pthread_mutex_init(&d->lock, NULL);
	if (ret)
		goto out_free_thread;
	ret = -pthread_mutex_init(&d->wlock, NULL);
	if (ret)
		goto out_destroy_lock;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	ret = -pthread_cond_init(&d->idle, &ca);
	pthread_condattr_destroy(&ca);
	if (ret)
		goto out_destroy_wlock;
	ret = -pthread_cond_init(&d->meta_cv, NULL);
	if (ret) {
		pthread_cond_destroy(&d->idle);
		goto out_destroy_wlock;
	}
	d->started = 1;
	pthread_mutex_lock(&d->lock);
	for (unsigned i = 0; i < jobs; i++) {
		ret = -pthread_create(&d->thread[i], NULL, worker, d);
		if (ret)
			break;
		d->nthreads++;
		d->running++;
	}
	pthread_mutex_unlock(&d->lock);
	if (ret) {
		ext4_data_join(d, ret);
		return ret;
	}
	return 0;
out_destroy_wlock:
	pthread_mutex_destroy(&d->wlock);
out_destroy_lock:
	pthread_mutex_destroy(&d->lock);
out_free_thread:
	free(d->thread);
	d->thread = NULL;
	return ret;
}

int ext4_data_wait(struct ext4_data *d, unsigned ms)
{
	struct timespec until;
	int busy;

	if (!d->started)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&d->lock);
	while (d->running && pthread_cond_timedwait(&d->idle, &d->lock, &until) == 0)
		;
	busy = d->running != 0;
	pthread_mutex_unlock(&d->lock);
	return busy;
}

int ext4_data_error(struct ext4_data *d)
{
	int err;

	if (!d->started)
		return 0;
	pthread_mutex_lock(&d->lock);
	err = d->err;
	pthread_mutex_unlock(&d->lock);
	return err;
}

int ext4_data_join(struct ext4_data *d, int err)
{
	int ret = 0;

	if (!d->started)
		return err;
	pthread_mutex_lock(&d->lock);
	d->staging = 0;
	if (err) {
		d->stop = 1;
		if (!d->err)
			d->err = err;
	}
	pthread_cond_broadcast(&d->meta_cv);
	pthread_mutex_unlock(&d->lock);
	for (unsigned i = 0; i < d->nthreads; i++)
		pthread_join(d->thread[i], NULL);
	d->nthreads = 0;
	ret = d->err;
	/* staged blocks no batch took (none when all finished): written here */
	while (!ret && d->nheap) {
		struct ext4_staged e = staged_pop(d);

		ret = ext4_pwrite_all(d->fd, d->pool + (size_t)e.slot * d->block_size, d->block_size,
				      d->base + e.pblk * d->block_size);
	}
	stage_release(d);
	if (atomic_load(&d->buffered) && d->io.direct) {
		d->io.direct = 0; /* a write was refused: all went through the page cache */
		d->io.why = "refused";
	}
	pthread_cond_destroy(&d->meta_cv);
	pthread_cond_destroy(&d->idle);
	pthread_mutex_destroy(&d->wlock);
	pthread_mutex_destroy(&d->lock);
	free(d->thread);
	d->thread = NULL;
	d->started = 0;
	return ret;
}

void ext4_data_release(struct ext4_data *d)
{
	if (d->started)
		ext4_data_join(d, -ECANCELED);
	if (d->dfd >= 0)
		close(d->dfd);
	d->dfd = -1;
	stage_release(d);
	free(d->piece);
	d->piece = NULL;
	d->npieces = 0;
	for (size_t i = 0; i < d->nbig; i++) {
		content_split_end(d->big[i].sp);
		free(d->big[i].map);
	}
	free(d->big);
	d->big = NULL;
	d->nbig = 0;
}
