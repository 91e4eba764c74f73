/* test_ext4_dir.c - directory blocks on real images, checked by e2fsck, debugfs and lookups */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "backends/ext4/dir.h"

#define TIME_STAMP 1700000000u

enum name_kind {
	NAMES_MIXED,	/* mostly plain, some 255-byte, some UTF-8 */
	NAMES_PLAIN,	/* file_%06u_some_longer_suffix.txt */
	NAMES_LONG,	/* all 255 bytes */
	NAMES_COLLIDE,	/* 255-byte names sharing hashes under COLLIDE_SEED, then plain */
};

/*
 * coll_%010u_qqq... (255 bytes) for these numbers share a half_md4 hash
 * under COLLIDE_SEED: two runs of 4, ten of 3, then 100 pairs.  On 1 KiB
 * blocks 3 such entries fill a leaf, so a run of 4 must straddle two.
 * Found by brute force over 40 million names.
 */
#define COLLIDE_SEED "5a1a7e3e-1d0c-4b2f-9e6a-3c7d2b1f0e05"
static const uint32_t collide[] = {
	10663748, 10850002, 29800860, 35433775, 7352272, 10578431, 19239918, 20182941, 19820441,
	21580699, 34408411, 7457451, 27634378, 34137249, 6490488, 21470813, 25653148, 1626833,
	6070973, 25233699, 5421920, 15948178, 34702445, 7487770, 21192959, 28355801, 205837,
	10833466, 32925456, 19869752, 30689805, 39566299, 4898310, 11977251, 26706364, 18546293,
	30540472, 38877228, 25420707, 30087572, 4010245, 20159895, 18497400, 34019983, 534705,
	23559302, 14432468, 28482914, 25738921, 28670244, 2815603, 9888109, 12168173, 29640443,
	9950257, 17155082, 373587, 32026208, 4833946, 22746216, 4923257, 30056715, 27232263,
	32844063, 2427220, 30264645, 11463240, 26726106, 3643458, 29763287, 4455419, 39846581,
	17281525, 28697870, 25033545, 29963702, 31482626, 39542598, 26563594, 39432411, 10071204,
	16539670, 9807484, 20923909, 28950074, 35224113, 27004102, 27709264, 25928367, 37160857,
	13671552, 19561625, 3020301, 38453829, 13138728, 30603079, 24238494, 35843649, 21351628,
	37722961, 10885270, 34277759, 580287, 12709667, 22410038, 37971184, 14776710, 30973446,
	23660239, 33852584, 6473093, 19625410, 12456028, 26542741, 11868470, 29977706, 7685810,
	19279225, 37803463, 38168921, 18834605, 36868647, 2084472, 11368310, 11433968, 24409312,
	27954116, 34492050, 16170682, 20233843, 6244972, 20910678, 191675, 15885372, 14456017,
	36947535, 889978, 37856658, 21727131, 32908365, 2533127, 23849728, 8704888, 27345488,
	17544159, 34453102, 5785884, 33309592, 14081190, 35642447, 26941482, 34580217, 25444487,
	26080053, 20405386, 39183832, 30916352, 35816538, 27215448, 36675164, 20659614, 38374747,
	9045983, 20197336, 17734972, 29783471, 9877814, 13762856, 5343671, 27646162, 17746325,
	19329593, 7254085, 20212377, 9463973, 31725711, 21165396, 33823362, 13543199, 15281266,
	14156447, 37214369, 25780399, 28664014, 8405410, 21108878, 15524432, 20593034, 17717660,
	21444183, 8182053, 34239967, 18389837, 20285934, 20996170, 23972647, 1683132, 31703452,
	4809069, 7152662, 14796418, 39959146, 5082788, 20715070, 3580169, 17191446, 27431576,
	30989246, 22169944, 32163733, 27600010, 38970821, 8450177, 12512869, 651944, 20140673,
	4398974, 30210804, 1337782, 20979776, 6559233, 20360827, 863202, 30773318, 8644717,
	13845123, 619400, 10278315, 21394240, 34704810, 27645844, 31499112, 27374174, 34495707,
	24137978, 30709361, 29363306, 31439602,
};

struct dir_case {
	const char *mkfs;	/* extra mke2fs options */
	const char *size;
	unsigned int n;
	enum name_kind names;
	int indexed;		/* expected shape */
	int levels;		/* expected, or -1 */
};

struct names {
	char *pool;
	struct ext4_dirent_in *e;
	size_t n;
};

static char tmpdir[] = "/tmp/test_ext4_dir.XXXXXX";

static int group_setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* Images of failed cases are left behind: remove whatever is there */
static int group_teardown(void **state)
{
	struct dirent *d;
	char path[512];
	DIR *dir;

	(void)state;
	dir = opendir(tmpdir);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, d->d_name);
		unlink(path);
	}
	closedir(dir);
	return rmdir(tmpdir);
}

/* Run a shell command, its output kept and shown only on failure */
static int run(const char *cmd, char *out, size_t outsz)
{
	size_t len = 0;
	FILE *f;
	int st;

	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (out) {
		while (len + 1 < outsz) {
			size_t got = fread(out + len, 1, outsz - 1 - len, f);

			if (!got)
				break;
			len += got;
		}
		out[len] = '\0';
	}
	/* drain what does not fit */
	while (fgetc(f) != EOF)
		;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void name_of(enum name_kind kind, unsigned int i, char *buf, uint32_t *len)
{
	int l;

	if (kind == NAMES_COLLIDE && i < sizeof(collide) / sizeof(collide[0])) {
		l = snprintf(buf, 256, "coll_%010u_", collide[i]);
		memset(buf + l, 'q', 255 - (size_t)l);
		l = 255;
	} else if (kind == NAMES_LONG || (kind == NAMES_MIXED && i % 211 == 7)) {
		l = snprintf(buf, 256, "long_%07u_", i);
		for (; l < 255; l++)
			buf[l] = (char)('a' + (i + (unsigned int)l) % 26);
	} else if (kind == NAMES_MIXED && i % 53 == 3) {
		/* "fichier_N_été_日本語.txt" */
		l = snprintf(buf, 256, "fichier_%06u_\xc3\xa9t\xc3\xa9_"
			     "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.txt", i);
	} else {
		l = snprintf(buf, 256, "file_%06u_some_longer_suffix.txt", i);
	}
	*len = (uint32_t)l;
}

static void names_make(struct names *s, enum name_kind kind, size_t n)
{
	s->n = n;
	s->pool = malloc(n * 256 + 1);
	s->e = calloc(n + 1, sizeof(*s->e));
	assert_non_null(s->pool);
	assert_non_null(s->e);
	for (size_t i = 0; i < n; i++) {
		s->e[i].name = s->pool + i * 256;
		name_of(kind, (unsigned int)i, s->pool + i * 256, &s->e[i].name_len);
		s->e[i].type = EXT2_FT_REG_FILE;
	}
}

static void names_free(struct names *s)
{
	free(s->pool);
	free(s->e);
}

static ext2_filsys fs_open(const char *img, int flags)
{
	ext2_filsys fs;

	assert_int_equal(ext2fs_open2(img, NULL, flags | EXT2_FLAG_64BITS, 0, 0, unix_io_manager,
				      &fs), 0);
	assert_int_equal(ext2fs_read_bitmaps(fs), 0);
	return fs;
}

static void mkfs(const char *img, const char *opts, const char *size, unsigned int ninodes)
{
	char cmd[1024], out[4096], nopt[32] = "";

	if (ninodes)
		snprintf(nopt, sizeof(nopt), "-N %u", ninodes);
	/* -b always: mke2fs picks 1 KiB blocks for small images */
	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext4 %s %s %s '%s' %s 2>&1",
		 strstr(opts, "-b ") ? "" : "-b 4096", nopt, opts, img, size);
	if (run(cmd, out, sizeof(out))) {
		fprintf(stderr, "%s\n%s", cmd, out);
		fail();
	}
}

/* One empty regular file per entry, as the backend would have made them */
static void make_files(ext2_filsys fs, struct names *s)
{
	struct ext2_inode inode;
	ext2_ino_t ino = EXT2_FIRST_INO(fs->super);

	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | 0644;
	inode.i_links_count = 1;
	inode.i_atime = inode.i_ctime = inode.i_mtime = TIME_STAMP;
	for (size_t i = 0; i < s->n; i++) {
		/* the last inode as hint: the search starts in its group */
		assert_int_equal(ext2fs_new_inode(fs, ino, LINUX_S_IFREG | 0644, NULL, &ino), 0);
		ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
		assert_int_equal(ext2fs_write_new_inode(fs, ino, &inode), 0);
		s->e[i].ino = ino;
	}
}

static void hash_of(ext2_filsys fs, const char *name, unsigned int len, uint32_t *hash)
{
	int version = fs->super->s_def_hash_version;

	if (version <= EXT2_HASH_TEA && (fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		version += 3;
	assert_int_equal(ext2fs_dirhash2(version, name, (int)len, NULL, 0, fs->super->s_hash_seed,
					 hash, NULL), 0);
}

static int leaf_has(const char *blk, unsigned int bs, const struct ext4_dirent_in *d)
{
	unsigned int off = 0;

	while (off < bs) {
		const struct ext2_dir_entry *de = (const void *)(blk + off);
		unsigned int rl = ext2fs_le16_to_cpu(de->rec_len);

		assert_true(rl >= 8 && off + rl <= bs);
		if (ext2fs_le32_to_cpu(de->inode) == d->ino &&
		    (ext2fs_le16_to_cpu(de->name_len) & 0xff) == d->name_len &&
		    !memcmp(de->name, d->name, d->name_len))
			return 1;
		off += rl;
	}
	return 0;
}

static const struct ext2_dx_entry *dx_at(const char *buf, unsigned int bs, uint32_t blk,
					 unsigned int *count)
{
	const struct ext2_dx_entry *ent = (const void *)(buf + (size_t)blk * bs + 8);

	*count = ext2fs_le16_to_cpu(((const struct ext2_dx_countlimit *)ent)->count);
	return ent;
}

/* The kernel's lookup (dx_probe, then ext4_htree_next_block) on the formatted buffer */
static int dx_lookup(ext2_filsys fs, const char *buf, const struct ext4_dirent_in *d)
{
	struct {
		const struct ext2_dx_entry *ent;
		unsigned int count, at;
	} fr[3];
	unsigned int bs = fs->blocksize, levels, l;
	const struct ext2_dx_root_info *info = (const void *)(buf + 24);
	uint32_t hash, blk;

	hash_of(fs, d->name, d->name_len, &hash);
	levels = info->indirect_levels;
	assert_true(levels < 3);
	fr[0].ent = (const void *)(buf + 32);
	fr[0].count = ext2fs_le16_to_cpu(((const struct ext2_dx_countlimit *)fr[0].ent)->count);
	for (l = 0;; l++) {
		unsigned int p = 1, q = fr[l].count - 1;

		assert_true(fr[l].count >= 1);
		while (p <= q && q > 0) {
			unsigned int m = p + (q - p) / 2;

			if (ext2fs_le32_to_cpu(fr[l].ent[m].hash) > hash)
				q = m - 1;
			else
				p = m + 1;
		}
		fr[l].at = p - 1;
		blk = ext2fs_le32_to_cpu(fr[l].ent[fr[l].at].block) & EXT4_DX_BLOCK_MASK;
		if (l == levels)
			break;
		fr[l + 1].ent = dx_at(buf, bs, blk, &fr[l + 1].count);
	}
	for (;;) {
		uint32_t bhash;

		if (leaf_has(buf + (size_t)blk * bs, bs, d))
			return 1;
		l = levels;
		while (fr[l].at + 1 >= fr[l].count) {
			if (l == 0)
				return 0;
			l--;
		}
		fr[l].at++;
		bhash = ext2fs_le32_to_cpu(fr[l].ent[fr[l].at].hash);
		if ((bhash & ~1u) != hash)
			return 0;
		blk = ext2fs_le32_to_cpu(fr[l].ent[fr[l].at].block) & EXT4_DX_BLOCK_MASK;
		while (l < levels) {
			l++;
			fr[l].ent = dx_at(buf, bs, blk, &fr[l].count);
			fr[l].at = 0;
			blk = ext2fs_le32_to_cpu(fr[l].ent[0].block) & EXT4_DX_BLOCK_MASK;
		}
	}
}

struct leaf_walk {
	uint32_t *blk;
	uint32_t *dxhash;	/* the hash its parent gives it, continuation bit kept */
	size_t n, cap, index_blocks;
};

static void walk_dx(const char *buf, unsigned int bs, const struct ext2_dx_entry *ent,
		    unsigned int level, unsigned int levels, uint32_t first_hash,
		    struct leaf_walk *w)
{
	unsigned int count = ext2fs_le16_to_cpu(((const struct ext2_dx_countlimit *)ent)->count);

	w->index_blocks++;
	for (unsigned int k = 0; k < count; k++) {
		uint32_t h = k ? ext2fs_le32_to_cpu(ent[k].hash) : first_hash;
		uint32_t b = ext2fs_le32_to_cpu(ent[k].block) & EXT4_DX_BLOCK_MASK;
		unsigned int c;

		if (level < levels) {
			walk_dx(buf, bs, dx_at(buf, bs, b, &c), level + 1, levels, h, w);
			continue;
		}
		assert_true(w->n < w->cap);
		w->blk[w->n] = b;
		w->dxhash[w->n++] = h;
	}
}

/* First and last entry hash of a leaf, checking the leaf is in hash order */
static void leaf_range(ext2_filsys fs, const char *blk, uint32_t *first, uint32_t *last)
{
	unsigned int off = 0, bs = fs->blocksize, n = 0;

	while (off < bs) {
		const struct ext2_dir_entry *de = (const void *)(blk + off);
		uint32_t h;

		off += ext2fs_le16_to_cpu(de->rec_len);
		if (!de->inode)
			continue;
		hash_of(fs, de->name, ext2fs_le16_to_cpu(de->name_len) & 0xff, &h);
		if (n++ == 0)
			*first = h;
		else
			assert_true(h >= *last);
		*last = h;
	}
	assert_true(n > 0);
}

/*
 * Every leaf once, covering the hashes its parents say; a run of equal
 * hashes crosses a leaf boundary only when it fills the leaf before, and
 * then with the continuation bit.  Returns how many boundaries it crossed.
 */
static size_t check_leaves(ext2_filsys fs, const char *buf, const struct ext4_dir_shape *sh)
{
	const struct ext2_dx_root_info *info = (const void *)(buf + 24);
	struct leaf_walk w = { .cap = sh->nblocks };
	unsigned char *used = calloc(sh->nblocks, 1);
	uint32_t pfirst = 0, plast = 0;
	size_t crossed = 0;

	w.blk = malloc(w.cap * sizeof(*w.blk));
	w.dxhash = malloc(w.cap * sizeof(*w.dxhash));
	assert_non_null(used);
	assert_non_null(w.blk);
	assert_non_null(w.dxhash);
	assert_int_equal(info->indirect_levels, sh->levels);
	walk_dx(buf, fs->blocksize, (const void *)(buf + 32), 0, sh->levels, 0, &w);
	assert_int_equal(w.n + w.index_blocks, sh->nblocks);
	for (size_t i = 0; i < w.n; i++) {
		uint32_t first = 0, last = 0;

		assert_true(w.blk[i] > 0 && w.blk[i] < sh->nblocks);
		assert_false(used[w.blk[i]]);
		used[w.blk[i]] = 1;
		leaf_range(fs, buf + (size_t)w.blk[i] * fs->blocksize, &first, &last);
		if (i) {
			assert_int_equal(w.dxhash[i] & ~1u, first);
			assert_int_equal(!!(w.dxhash[i] & 1), plast == first);
			assert_true(plast <= first);
			if (plast == first) {
				assert_int_equal(pfirst, plast);
				crossed++;
			}
		}
		pfirst = first;
		plast = last;
	}
	free(used);
	free(w.blk);
	free(w.dxhash);
	return crossed;
}

/* A directory inode under root whose blocks are buf, at blocks libext2fs picks */
/* The directory's generation: not 0, so that a checksum without it fails the checks */
#define DIR_GEN 0x6e5eed01u

static ext2_ino_t make_dir_inode(ext2_filsys fs, const struct ext4_dir_shape *sh)
{
	struct ext2_inode inode;
	ext2_ino_t dino;

	assert_int_equal(ext2fs_new_inode(fs, EXT2_ROOT_INO, LINUX_S_IFDIR | 0755, NULL, &dino), 0);
	ext2fs_inode_alloc_stats2(fs, dino, +1, 1);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFDIR | 0755;
	inode.i_links_count = 2;
	inode.i_generation = DIR_GEN;
	inode.i_atime = inode.i_ctime = inode.i_mtime = TIME_STAMP;
	if (sh->indexed)
		inode.i_flags |= EXT2_INDEX_FL;
	assert_int_equal(ext2fs_inode_size_set(fs, &inode, (ext2_off64_t)sh->nblocks * fs->blocksize),
			 0);
	assert_int_equal(ext2fs_write_new_inode(fs, dino, &inode), 0);
	return dino;
}

static void place_dir_blocks(ext2_filsys fs, ext2_ino_t dino, const struct ext4_dir_shape *sh,
			     const char *buf)
{
	struct ext2_inode inode;
	ext2_extent_handle_t h;
	blk64_t goal = ext2fs_find_inode_goal(fs, dino, NULL, 0), lblk = 0;

	assert_int_equal(ext2fs_read_inode(fs, dino, &inode), 0);
	assert_int_equal(ext2fs_extent_open2(fs, dino, &inode, &h), 0);
	while (lblk < sh->nblocks) {
		blk64_t pblk, plen;

		assert_int_equal(ext2fs_new_range(fs, 0, goal, sh->nblocks - lblk, NULL, &pblk, &plen),
				 0);
		ext2fs_block_alloc_stats_range(fs, pblk, (blk_t)plen, +1);
		for (blk64_t k = 0; k < plen; k++)
			assert_int_equal(ext2fs_extent_set_bmap(h, lblk + k, pblk + k, 0), 0);
		assert_int_equal(io_channel_write_blk64(fs->io, pblk, (int)plen,
							buf + (size_t)lblk * fs->blocksize), 0);
		lblk += plen;
		goal = pblk + plen;
	}
	ext2fs_extent_free(h);
	assert_int_equal(ext2fs_read_inode(fs, dino, &inode), 0);
	assert_int_equal(ext2fs_iblk_add_blocks(fs, &inode, sh->nblocks), 0);
	assert_int_equal(ext2fs_write_inode(fs, dino, &inode), 0);
}

static void link_under_root(ext2_filsys fs, ext2_ino_t dino)
{
	struct ext2_inode root;
	errcode_t err;

	err = ext2fs_link(fs, EXT2_ROOT_INO, "d", dino, EXT2_FT_DIR);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		assert_int_equal(ext2fs_expand_dir(fs, EXT2_ROOT_INO), 0);
		err = ext2fs_link(fs, EXT2_ROOT_INO, "d", dino, EXT2_FT_DIR);
	}
	assert_int_equal(err, 0);
	assert_int_equal(ext2fs_read_inode(fs, EXT2_ROOT_INO, &root), 0);
	root.i_links_count++;
	assert_int_equal(ext2fs_write_inode(fs, EXT2_ROOT_INO, &root), 0);
}

struct seen {
	const struct names *s;
	int32_t *by_ino;	/* entry index of each inode, or -1 */
	unsigned char *found;
	ext2_ino_t dino;
	size_t ninodes;
	int filetype;
	size_t dots, others;
};

static int seen_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de, int offset, int blocksize,
		   char *buf, void *priv)
{
	struct seen *v = priv;
	unsigned int len = ext2fs_dirent_name_len(de);
	int32_t i;

	(void)dir;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE) {
		assert_int_equal(de->inode, entry == DIRENT_DOT_FILE ? v->dino : EXT2_ROOT_INO);
		v->dots++;
		return 0;
	}
	assert_true(de->inode < v->ninodes);
	i = v->by_ino[de->inode];
	assert_true(i >= 0);
	assert_int_equal(len, v->s->e[i].name_len);
	assert_memory_equal(de->name, v->s->e[i].name, len);
	if (v->filetype)
		assert_int_equal(ext2fs_dirent_file_type(de), EXT2_FT_REG_FILE);
	assert_false(v->found[i]);
	v->found[i] = 1;
	v->others++;
	return 0;
}

static void check_listing(const char *img, const struct names *s)
{
	struct seen v = { .s = s };
	ext2_filsys fs = fs_open(img, 0);
	size_t ninodes = fs->super->s_inodes_count + 1;

	v.ninodes = ninodes;
	v.by_ino = malloc(ninodes * sizeof(*v.by_ino));
	v.found = calloc(s->n + 1, 1);
	assert_non_null(v.by_ino);
	assert_non_null(v.found);
	memset(v.by_ino, 0xff, ninodes * sizeof(*v.by_ino));
	for (size_t i = 0; i < s->n; i++)
		v.by_ino[s->e[i].ino] = (int32_t)i;
	v.filetype = ext2fs_has_feature_filetype(fs->super);
	assert_int_equal(ext2fs_lookup(fs, EXT2_ROOT_INO, "d", 1, NULL, &v.dino), 0);
	assert_int_equal(ext2fs_dir_iterate2(fs, v.dino, 0, NULL, seen_cb, &v), 0);
	assert_int_equal(v.dots, 2);
	assert_int_equal(v.others, s->n);
	free(v.by_ino);
	free(v.found);
	ext2fs_close_free(&fs);
}

static void check_fsck(const char *img)
{
	static char out[1 << 16];
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "e2fsck -fn '%s' 2>&1", img);
	if (run(cmd, out, sizeof(out))) {
		fprintf(stderr, "%s\n%s", cmd, out);
		fail();
	}
}

/* debugfs computes the root's checksum even without metadata_csum, and says it cannot */
static const char *dump_error(const char *out, int csum)
{
	static const char *const bad[] = { "EXPECTED", "Corrupted", "while ", "Couldn't" };
	static const char nocsum[] = "while calculating checksum for ";

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		for (const char *p = strstr(out, bad[k]); p; p = strstr(p + 1, bad[k])) {
			if (!csum && !strncmp(p, nocsum, sizeof(nocsum) - 1))
				continue;
			return p;
		}
	}
	return NULL;
}

static void check_htree_dump(const char *img, unsigned int levels, int csum)
{
	static char out[1 << 20];
	char cmd[1024], want[64];

	snprintf(cmd, sizeof(cmd), "debugfs -R 'htree /d' '%s' 2>&1", img);
	assert_int_equal(run(cmd, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "Indirect levels: %u", levels);
	/* debugfs reports trouble in words, still exiting 0 */
	if (!strstr(out, "Root node dump:") || !strstr(out, want) ||
	    !strstr(out, "Reading directory block") || dump_error(out, csum)) {
		fprintf(stderr, "%s\n%.4000s\n", cmd, out);
		fail();
	}
}

static void run_case(const struct dir_case *c, const char *tag)
{
	struct ext4_dir_shape sh;
	struct names s;
	char img[256];
	char *buf, *again;
	ext2_filsys fs;
	ext2_ino_t dino;
	size_t bytes;

	snprintf(img, sizeof(img), "%s/%s.img", tmpdir, tag);
	mkfs(img, c->mkfs, c->size, c->n > 1000 ? c->n + 100 : 0);
	fs = fs_open(img, EXT2_FLAG_RW);
	/* the collisions hold for this hash only */
	if (c->names == NAMES_COLLIDE)
		assert_int_equal(fs->super->s_def_hash_version, EXT2_HASH_HALF_MD4);
	names_make(&s, c->names, c->n);
	make_files(fs, &s);

	assert_int_equal(ext4_dir_shape(fs, s.e, s.n, &sh), 0);
	assert_int_equal(sh.indexed, c->indexed);
	if (c->levels >= 0)
		assert_int_equal(sh.levels, c->levels);
	if (!sh.indexed)
		assert_int_equal(sh.levels, 0);

	dino = make_dir_inode(fs, &sh);
	bytes = (size_t)sh.nblocks * fs->blocksize;
	buf = malloc(bytes);
	again = malloc(bytes);
	assert_non_null(buf);
	assert_non_null(again);
	/* no byte may depend on what the buffer held */
	memset(buf, 0xa5, bytes);
	memset(again, 0x5a, bytes);
	assert_int_equal(ext4_dir_format(fs, dino, DIR_GEN, EXT2_ROOT_INO, s.e, s.n, &sh, buf), 0);
	assert_int_equal(ext4_dir_format(fs, dino, DIR_GEN, EXT2_ROOT_INO, s.e, s.n, &sh, again), 0);
	assert_memory_equal(buf, again, bytes);
	/* every block's checksum as libext2fs sets it, the generation read from the inode */
	for (uint32_t b = 0; ext2fs_has_feature_metadata_csum(fs->super) && b < sh.nblocks; b++) {
		char *blk = again + (size_t)b * fs->blocksize;

		memset(blk + fs->blocksize - 4, 0, 4);
		assert_int_equal(ext2fs_dir_block_csum_set(fs, dino, (struct ext2_dir_entry *)blk), 0);
	}
	assert_memory_equal(buf, again, bytes);
	if (sh.indexed) {
		size_t crossed = check_leaves(fs, buf, &sh);

		if (c->names == NAMES_COLLIDE)
			assert_true(crossed > 0);
		for (size_t i = 0; i < s.n; i++)
			assert_true(dx_lookup(fs, buf, &s.e[i]));
	}

	place_dir_blocks(fs, dino, &sh, buf);
	link_under_root(fs, dino);
	assert_int_equal(ext2fs_close_free(&fs), 0);

	check_fsck(img);
	check_listing(img, &s);
	if (sh.indexed)
		check_htree_dump(img, sh.levels, !strstr(c->mkfs, "^metadata_csum"));

	free(buf);
	free(again);
	names_free(&s);
	unlink(img);
}

static void run_cases(const struct dir_case *cases, size_t n, const char *tag)
{
	for (size_t k = 0; k < n; k++)
		run_case(&cases[k], tag);
}

#define CSUM ""
#define NOCSUM "-O ^metadata_csum"

static void test_empty(void **state)
{
	static const struct dir_case c = { CSUM, "64M", 0, NAMES_PLAIN, 0, 0 };

	(void)state;
	run_case(&c, "empty");
}

static void test_one(void **state)
{
	static const struct dir_case c = { NOCSUM " -b 1024", "64M", 1, NAMES_PLAIN, 0, 0 };

	(void)state;
	run_case(&c, "one");
}

/* Largest n that still fits one block, on a throwaway image */
static unsigned int one_block_max(const char *opts, const char *tag)
{
	struct ext4_dir_shape sh;
	struct names s;
	char img[256];
	ext2_filsys fs;
	unsigned int n;

	snprintf(img, sizeof(img), "%s/%s.img", tmpdir, tag);
	mkfs(img, opts, "64M", 0);
	fs = fs_open(img, 0);
	names_make(&s, NAMES_PLAIN, 1000);
	for (n = 1;; n++) {
		assert_int_equal(ext4_dir_shape(fs, s.e, n, &sh), 0);
		if (sh.indexed)
			break;
		assert_int_equal(sh.nblocks, 1);
	}
	/* root and two leaves, or one leaf when the dots made the difference */
	assert_true(sh.nblocks == 2 || sh.nblocks == 3);
	names_free(&s);
	ext2fs_close_free(&fs);
	unlink(img);
	return n - 1;
}

static void test_block_worth(void **state)
{
	static const char *const opts[] = { CSUM, NOCSUM, CSUM " -b 1024", NOCSUM " -b 1024" };

	(void)state;
	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		unsigned int n = one_block_max(opts[k], "probe");
		struct dir_case full = { opts[k], "64M", n, NAMES_PLAIN, 0, 0 };
		struct dir_case over = { opts[k], "64M", n + 1, NAMES_PLAIN, 1, 0 };
		/* 44-byte entries after "." and "..", in front of any tail */

		unsigned int bs = strstr(opts[k], "-b 1024") ? 1024 : 4096;

		assert_int_equal(n, (bs - 24 - (strstr(opts[k], "^metadata_csum") ? 0 : 12)) / 44);
		run_case(&full, "full");
		run_case(&over, "over");
	}
}

/* Groups of cases, each run as one test under its tag. */
static const struct dir_case cases_10k[] = {
	{ CSUM, "64M", 10000, NAMES_MIXED, 1, 0 },
	{ NOCSUM, "64M", 10000, NAMES_MIXED, 1, 0 },
	{ CSUM " -b 1024", "64M", 10000, NAMES_MIXED, 1, 1 },
	{ NOCSUM " -b 1024", "64M", 10000, NAMES_MIXED, 1, 1 },
};

static const struct dir_case cases_linear[] = {
	{ CSUM " -O ^dir_index", "64M", 10000, NAMES_MIXED, 0, 0 },
	{ NOCSUM " -O ^dir_index -b 1024", "64M", 3000, NAMES_MIXED, 0, 0 },
};

static const struct dir_case cases_100k[] = {
	{ CSUM, "128M", 100000, NAMES_MIXED, 1, 1 },
	{ NOCSUM " -b 1024", "160M", 100000, NAMES_MIXED, 1, 1 },
};

/* Equal hashes kept in one leaf where they fit, else flagged as continued */
static const struct dir_case cases_collide[] = {
	{ CSUM " -b 1024 -E hash_seed=" COLLIDE_SEED, "64M", 538, NAMES_COLLIDE, 1, -1 },
	{ NOCSUM " -b 1024 -E hash_seed=" COLLIDE_SEED, "64M", 538, NAMES_COLLIDE, 1, -1 },
};

struct dir_group {
	const char *tag;
	const struct dir_case *cases;
	size_t n;
};

#define DIR_GROUP(tag, cases) { tag, cases, sizeof(cases) / sizeof(cases[0]) }

static const struct dir_group group_10k = DIR_GROUP("10k", cases_10k);
static const struct dir_group group_linear = DIR_GROUP("linear", cases_linear);
static const struct dir_group group_100k = DIR_GROUP("100k", cases_100k);
static const struct dir_group group_collide = DIR_GROUP("collide", cases_collide);

static void test_group(void **state)
{
	const struct dir_group *g = *state;

	run_cases(g->cases, g->n, g->tag);
}

/* A cmocka test running group g, named name. */
#define GROUP_TEST(name, g) { name, test_group, NULL, NULL, (void *)&(g) }

/* 3 long names a 1 KiB leaf: 16,000 leaves pass 123 * 126, so two node levels */
static void test_largedir(void **state)
{
	static const struct dir_case c = { CSUM " -b 1024 -O large_dir", "64M", 48000, NAMES_LONG,
					   1, 2 };
	struct ext4_dir_shape sh;
	struct names s;
	char img[256];
	ext2_filsys fs;

	(void)state;
	run_case(&c, "largedir");

	/* the same names without large_dir cannot be indexed */
	snprintf(img, sizeof(img), "%s/nolarge.img", tmpdir);
	mkfs(img, CSUM " -b 1024", "64M", 0);
	fs = fs_open(img, 0);
	names_make(&s, NAMES_LONG, 48000);
	for (size_t i = 0; i < s.n; i++)
		s.e[i].ino = EXT2_FIRST_INO(fs->super);
	assert_int_equal(ext4_dir_shape(fs, s.e, s.n, &sh), -EFBIG);
	names_free(&s);
	ext2fs_close_free(&fs);
	unlink(img);
}

/* Bad input, duplicate names, a stale shape; htree bytes ignore input order */
static void test_api(void **state)
{
	struct ext4_dir_shape sh, bad;
	struct ext4_dirent_in one = { "a/b", 3, 12, EXT2_FT_REG_FILE };
	struct names s;
	char img[256], *a, *b;
	ext2_filsys fs;
	size_t bytes;

	(void)state;
	snprintf(img, sizeof(img), "%s/api.img", tmpdir);
	mkfs(img, CSUM, "64M", 0);
	fs = fs_open(img, 0);

	assert_int_equal(ext4_dir_shape(fs, &one, 1, &sh), -EINVAL);
	one.name = "..";
	one.name_len = 2;
	assert_int_equal(ext4_dir_shape(fs, &one, 1, &sh), -EINVAL);
	one.name_len = 0;
	assert_int_equal(ext4_dir_shape(fs, &one, 1, &sh), -EINVAL);
	one.name = "x";
	one.name_len = 1;
	one.type = EXT2_FT_MAX;
	assert_int_equal(ext4_dir_shape(fs, &one, 1, &sh), -EINVAL);

	names_make(&s, NAMES_MIXED, 5000);
	for (size_t i = 0; i < s.n; i++)
		s.e[i].ino = EXT2_FIRST_INO(fs->super) + (ext2_ino_t)i;
	assert_int_equal(ext4_dir_shape(fs, s.e, s.n, &sh), 0);
	assert_true(sh.indexed);
	bytes = (size_t)sh.nblocks * fs->blocksize;
	a = malloc(bytes);
	b = malloc(bytes);
	assert_non_null(a);
	assert_non_null(b);
	/* root's generation stands in for a directory's: checksums need an inode */
	assert_int_equal(ext4_dir_format(fs, EXT2_ROOT_INO, 0, EXT2_ROOT_INO, s.e, s.n, &sh, a), 0);
	/* reverse the input: same bytes */
	for (size_t i = 0, j = s.n - 1; i < j; i++, j--) {
		struct ext4_dirent_in t = s.e[i];

		s.e[i] = s.e[j];
		s.e[j] = t;
	}
	assert_int_equal(ext4_dir_format(fs, EXT2_ROOT_INO, 0, EXT2_ROOT_INO, s.e, s.n, &sh, b), 0);
	assert_memory_equal(a, b, bytes);

	bad = sh;
	bad.nblocks--;
	assert_int_equal(ext4_dir_format(fs, EXT2_ROOT_INO, 0, EXT2_ROOT_INO, s.e, s.n, &bad, a),
			 -EINVAL);

	s.e[17].name = s.e[4000].name;
	s.e[17].name_len = s.e[4000].name_len;
	assert_int_equal(ext4_dir_shape(fs, s.e, s.n, &sh), -EEXIST);

	free(a);
	free(b);
	names_free(&s);
	ext2fs_close_free(&fs);
	unlink(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_block_worth),
		GROUP_TEST("test_10k", group_10k),
		GROUP_TEST("test_linear", group_linear),
		GROUP_TEST("test_collisions", group_collide),
		GROUP_TEST("test_100k", group_100k),
		cmocka_unit_test(test_largedir),
	};

	if (system("mke2fs -V >/dev/null 2>&1 && e2fsck -V >/dev/null 2>&1 && "
		   "debugfs -V >/dev/null 2>&1")) {
		fprintf(stderr, "e2fsprogs not found: skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
