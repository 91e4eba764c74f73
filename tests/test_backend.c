/* test_backend.c - the backend seam: the core calls hooks by capability, wrappers, failures, cancellation */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <ext2fs/ext2fs.h>

#include "backends/backend.h"
#include "backends/registry.h"
#include "core/pipeline.h"
#include "read/fsread.h"
#include "testbackend.h"
#include "testutil.h"

static const char *const small[] = { "files", "300", "used", "20M", "size", "64M", "seed", "3", NULL };

/* One run of the pipeline through ops on target (NULL: none), the plan of small. */
struct run {
	struct plan pl;
	struct create_opts o;
	struct create_result res;
	struct pipeline_job j;
	char msg[800];
	char path[64];
	volatile sig_atomic_t cancel;
};

/* A sparse image file of the plan's size, for a backend that formats one. */
static void make_image(struct run *r)
{
	int fd;

	snprintf(r->path, sizeof(r->path), "%s/imprint-seam-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(r->path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)r->pl.prm.size), 0);
	close(fd);
}

static void run_setup(struct run *r, int image)
{
	memset(r, 0, sizeof(*r));
	test_build_plan(&r->pl, small);
	if (image)
		make_image(r);
	r->o.target = image ? r->path : "unused";
	r->o.jobs = 2;
	r->o.cancel = &r->cancel;
	r->j.o = &r->o;
	r->j.pl = &r->pl;
	r->j.target = "TARGET";
	r->j.res = &r->res;
	r->j.msg = r->msg;
	r->j.len = sizeof(r->msg);
}

static int run_pipeline(struct run *r, const struct backend_ops *ops, int image)
{
	run_setup(r, image);
	return pipeline_run(ops, &r->j);
}

/* The calls of a run that went through: a layout asked for and handed on when placed. */
static void assert_clean_run(int placed)
{
	assert_int_equal(wrap.opens, 1);
	assert_int_equal(wrap.layout_requests, placed);
	assert_int_equal(wrap.populates, 1);
	assert_int_equal(!!wrap.populate_had_layout, placed);
	assert_int_equal(wrap.finishes, 1);
	assert_int_equal(wrap.aborts, 0);
}

static void run_release(struct run *r)
{
	if (r->path[0])
		unlink(r->path);
	plan_release(&r->pl);
}

/* e2fsck -fn's exit status on the image. */
static int fsck(const char *path)
{
	char cmd[256];
	int st;

	snprintf(cmd, sizeof(cmd), "e2fsck -fn '%s' >/dev/null 2>&1", path);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A backend without PLACES_BLOCKS is never asked for a layout, and gets none. */
static void test_null_no_layout(void **state)
{
	struct backend_ops ops;
	struct run r;

	(void)state;
	wrap_reset(&null_backend_ops, &ops);
	assert_int_equal(run_pipeline(&r, &ops, 0), 0);
	assert_clean_run(0);
	assert_int_equal(r.res.files, r.pl.nfiles);
	assert_false(r.res.have_layout);
	assert_false(r.res.have_score);
	run_release(&r);
}

/* ext4 places blocks: one layout request, a layout handed to populate, a clean image. */
static void test_ext4_layout(void **state)
{
	struct backend_ops ops;
	struct run r;

	(void)state;
	wrap_reset(&ext4_backend_ops, &ops);
	assert_int_equal(run_pipeline(&r, &ops, 1), 0);
	assert_clean_run(1);
	assert_true(wrap.fills > 0);
	assert_true(r.res.have_layout && r.res.have_score);
	assert_true(r.res.layout_score > 0.99);
	assert_int_equal(fsck(r.path), 0);
	run_release(&r);
}

/*
 * The content writes the bytes asked for and none past them: the ext4
 * data workers clear a block's tail only as far as an earlier batch
 * wrote, so a source scribbling there would leave its bytes in the image.
 * Every kind of the default mix, made whole and in parts, beside guard bytes.
 */
static void test_fill_in_bounds(void **state)
{
	static const char *const mix[] = { "files", "2000", "used", "60M", "size", "256M", "seed",
					   "11", NULL };
	struct backend_ops ops;
	struct run r;

	(void)state;
	wrap_reset(&ext4_backend_ops, &ops);
	wrap.guard = 1;
	run_setup(&r, 0);
	plan_release(&r.pl);
	test_build_plan(&r.pl, mix);
	make_image(&r);
	r.o.target = r.path;
	assert_int_equal(pipeline_run(&ops, &r.j), 0);
	assert_true(wrap.fills >= r.pl.nfiles / 2);
	assert_int_equal(wrap.overruns, 0);
	assert_int_equal(fsck(r.path), 0);
	run_release(&r);
}

/* A content failure at one file aborts the backend, which leaves no valid file system. */
static void test_fail_at_file(void **state)
{
	struct backend_ops ops;
	struct run r;
	int ret;

	(void)state;
	wrap_reset(&ext4_backend_ops, &ops);
	wrap.fail_file = 150;
	ret = run_pipeline(&r, &ops, 1);
	assert_int_equal(ret, -EIO);
	assert_int_equal(wrap.populates, 1);
	assert_int_equal(wrap.finishes, 0);
	assert_int_equal(wrap.aborts, 1);
	assert_non_null(strstr(r.msg, "cannot write file data"));
	assert_int_not_equal(fsck(r.path), 0);
	run_release(&r);
}

/* A failed open is not aborted (nothing to release) and its message reaches the user. */
static void test_fail_open(void **state)
{
	struct backend_ops ops;
	struct run r;

	(void)state;
	wrap_reset(&null_backend_ops, &ops);
	wrap.fail_open = -EACCES;
	assert_int_equal(run_pipeline(&r, &ops, 0), -EACCES);
	assert_int_equal(wrap.aborts, 0);
	assert_int_equal(wrap.populates, 0);
	assert_string_equal(r.msg, strerror(EACCES));
	run_release(&r);
}

/* The core reads the flags: a backend claiming to place blocks without the hook gets -ENOSYS. */
static void test_missing_hooks(void **state)
{
	struct backend_ops ops;
	struct run r;

	(void)state;
	wrap_reset(&null_backend_ops, &ops);
	ops.caps |= BACKEND_PLACES_BLOCKS;
	assert_int_equal(run_pipeline(&r, &ops, 0), -ENOSYS);
	assert_non_null(strstr(r.msg, "cannot place blocks"));
	assert_int_equal(wrap.populates, 0);
	assert_int_equal(wrap.aborts, 1);
	run_release(&r);

	wrap_reset(&null_backend_ops, &ops);
	ops.populate = NULL;
	assert_int_equal(run_pipeline(&r, &ops, 0), -ENOSYS);
	assert_non_null(strstr(r.msg, "cannot write a plan"));
	run_release(&r);

	wrap_reset(&null_backend_ops, &ops);
	ops.open = NULL;
	assert_int_equal(run_pipeline(&r, &ops, 0), -ENOSYS);
	assert_non_null(strstr(r.msg, "cannot open a target"));
	run_release(&r);
}

/* A set cancellation token stops the run before the backend is opened. */
static void test_cancelled(void **state)
{
	struct backend_ops ops;
	struct run r;

	(void)state;
	wrap_reset(&null_backend_ops, &ops);
	run_setup(&r, 0);
	r.cancel = 1;
	assert_int_equal(pipeline_run(&ops, &r.j), -EINTR);
	assert_int_equal(wrap.opens, 0);
	run_release(&r);
}

/* No failure injected for the tests after this one, whether it passed or not. */
static int unset_fail_at(void **state)
{
	(void)state;
	return unsetenv("IMPRINT_TEST_FAIL_AT");
}

/*
 * The content is built beside the backend's open and layout: a failure of
 * either part (IMPRINT_TEST_FAIL_AT, test-only) is the one told, over the
 * backend's own, as when it came first; the backend opened meanwhile is
 * aborted before it wrote any file (ext4: no valid file system, no
 * --extents file) and the run reports it as never opened.
 */
static void test_content_fails(void **state)
{
	struct backend_ops ops;
	struct run r;
	char ext[80];

	(void)state;
	setenv("IMPRINT_TEST_FAIL_AT", "content-source", 1);
	wrap_reset(&ext4_backend_ops, &ops);
	run_setup(&r, 1);
	snprintf(ext, sizeof(ext), "%s.extents", r.path);
	r.j.extents_path = ext;
	assert_int_equal(pipeline_run(&ops, &r.j), -ENOMEM);
	assert_string_equal(r.msg, "cannot build the content source: Cannot allocate memory");
	assert_int_equal(wrap.opens, 1);
	assert_int_equal(wrap.populates, 0);
	assert_int_equal(wrap.aborts, 1);
	assert_false(r.j.opened);
	assert_int_not_equal(access(ext, F_OK), 0);
	assert_int_not_equal(fsck(r.path), 0);
	run_release(&r);

	/* the model's failure over an open that failed too */
	setenv("IMPRINT_TEST_FAIL_AT", "content-model", 1);
	wrap_reset(&null_backend_ops, &ops);
	wrap.fail_open = -EACCES;
	assert_int_equal(run_pipeline(&r, &ops, 0), -ENOMEM);
	assert_string_equal(r.msg, "cannot build the content model: Cannot allocate memory");
	assert_int_equal(wrap.aborts, 0);
	run_release(&r);

	/* over a layout that failed after the open */
	wrap_reset(&null_backend_ops, &ops);
	ops.caps |= BACKEND_PLACES_BLOCKS;
	assert_int_equal(run_pipeline(&r, &ops, 0), -ENOMEM);
	assert_string_equal(r.msg, "cannot build the content model: Cannot allocate memory");
	assert_int_equal(wrap.aborts, 1);
	assert_false(r.j.opened);
	run_release(&r);

	/* over a cancellation: the backend never opened */
	wrap_reset(&null_backend_ops, &ops);
	run_setup(&r, 0);
	r.cancel = 1;
	assert_int_equal(pipeline_run(&ops, &r.j), -ENOMEM);
	assert_string_equal(r.msg, "cannot build the content model: Cannot allocate memory");
	assert_int_equal(wrap.opens, 0);
	run_release(&r);
	unsetenv("IMPRINT_TEST_FAIL_AT");

	/* and with no failure: the same run goes through */
	wrap_reset(&null_backend_ops, &ops);
	assert_int_equal(run_pipeline(&r, &ops, 0), 0);
	assert_clean_run(0);
	run_release(&r);
}

/* The registry: by name, by file system and target kind; the null backend only by name. */
static void test_registry(void **state)
{
	struct backend_estimate e;
	struct plan pl;

	(void)state;
	assert_ptr_equal(backend_find("ext4"), &ext4_backend_ops);
	assert_ptr_equal(backend_find("null"), &null_backend_ops);
	assert_null(backend_find("nope"));
	assert_null(backend_find(NULL));
	assert_ptr_equal(backend_for("ext3", BACKEND_TARGET_FILE), &ext4_backend_ops);
	assert_ptr_equal(backend_for("ext2", BACKEND_TARGET_DEVICE), &ext4_backend_ops);
	assert_null(backend_for("vfat", BACKEND_TARGET_FILE));
	/* xfs, btrfs and f2fs images and devices: loopfs; directories of any: mounted */
	assert_ptr_equal(backend_find("loopfs"), &loopfs_backend_ops);
	assert_ptr_equal(backend_for("xfs", BACKEND_TARGET_FILE), &loopfs_backend_ops);
	assert_ptr_equal(backend_for("btrfs", BACKEND_TARGET_DEVICE), &loopfs_backend_ops);
	assert_ptr_equal(backend_for("f2fs", BACKEND_TARGET_FILE), &loopfs_backend_ops);
	assert_ptr_equal(backend_for("xfs", BACKEND_TARGET_DIR), &mounted_backend_ops);
	assert_false(backend_makes(&loopfs_backend_ops, "ext4"));
	assert_false(backend_makes(&null_backend_ops, "ext4"));
	test_build_plan(&pl, small);
	assert_int_equal(backend_estimate(&null_backend_ops, &pl, &e), -ENOSYS);
	assert_int_equal(backend_estimate(&ext4_backend_ops, &pl, &e), 0);
	assert_true(e.total >= e.data && e.data >= pl.bytes);
	/* loopfs: the file system's own overhead (an xfs log, btrfs DUP metadata) on top */
	snprintf(pl.prm.fs, sizeof(pl.prm.fs), "xfs");
	assert_int_equal(backend_estimate(&loopfs_backend_ops, &pl, &e), 0);
	assert_true(e.journal > 0 && e.total >= e.data + e.journal);
	snprintf(pl.prm.fs, sizeof(pl.prm.fs), "btrfs");
	assert_int_equal(backend_estimate(&loopfs_backend_ops, &pl, &e), 0);
	assert_true(e.meta > 0 && e.total >= e.data + e.meta);
	plan_release(&pl);
}

/*
 * A backend that measures declares the reader src/read picks for what it
 * makes: each of its file systems' images (or a directory), by the
 * readers' own probes; one that does not measure declares none.
 */
static void test_readers(void **state)
{
	size_t n;
	const struct backend_ops *const *list = backend_list(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct backend_ops *b = list[i];
		int dir = b->targets == BACKEND_TARGET_DIR;

		if (!(b->caps & BACKEND_MEASURES)) {
			assert_null(b->reader);
			continue;
		}
		assert_non_null(b->reader);
		if (!b->fs_names) {
			assert_true(dir);
			assert_string_equal(fsread_reader_for("", 1), b->reader);
			continue;
		}
		for (size_t k = 0; b->fs_names[k]; k++)
			assert_string_equal(fsread_reader_for(b->fs_names[k], dir), b->reader);
	}
	assert_string_equal(ext4_backend_ops.reader, "ext2");
	assert_string_equal(loopfs_backend_ops.reader, "loop");
	/* nothing libblkid knows: the ext2 reader, which says bad magic */
	assert_string_equal(fsread_reader_for("", 0), "ext2");
	assert_string_equal(fsread_reader_for("ext4dev", 0), "ext2");
	assert_string_equal(fsread_reader_for("xfs", 1), "mounted");
}

/*
 * The rules a file system sets on the parameters are its backend's check
 * hook's; the help of --fs and --backend lists what the registry holds.
 */
static void test_check_and_help(void **state)
{
	struct params p;
	char msg[512], help[1024];
	size_t n, n_fs = 0;
	const struct backend_ops *const *list = backend_list(&n);

	(void)state;
	params_init(&p);
	p.prealloc_file_share = 0.1;
	assert_int_equal(backend_check_params(&p, msg, sizeof(msg)), 0); /* ext4 */
	snprintf(p.fs, sizeof(p.fs), "ext3");
	assert_int_equal(backend_check_params(&p, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "which ext3 does not have"));
	snprintf(p.fs, sizeof(p.fs), "xfs");
	assert_int_equal(backend_check_params(&p, msg, sizeof(msg)), 0);
	p.inodes = 1000;
	assert_int_equal(backend_check_params(&p, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "'inodes' applies to ext2, ext3 and ext4 only"));
	snprintf(p.fs, sizeof(p.fs), "ext4");
	assert_int_equal(backend_check_params(&p, msg, sizeof(msg)), 0);

	/* every file system 'fs' takes is made by a backend and named in --fs's help */
	backend_help('f', 59, help, sizeof(help));
	for (const char *const *fs = backend_fs_list(); *fs; fs++) {
		assert_true(backend_fs_known(*fs));
		assert_non_null(backend_for(*fs, BACKEND_TARGET_FILE | BACKEND_TARGET_DEVICE));
		assert_non_null(strstr(help, *fs));
		n_fs++;
	}
	/* each backend's own names, once each, registry order */
	for (size_t i = 0, k = 0; i < n; i++)
		for (size_t j = 0; list[i]->fs_names && list[i]->fs_names[j]; j++, k++)
			assert_string_equal(backend_fs_list()[k], list[i]->fs_names[j]);
	assert_int_equal(n_fs, 6);
	assert_false(backend_fs_known("null"));
	assert_false(backend_fs_known("vfat"));
	params_init(&p);
	assert_string_equal(p.fs, "ext4");
	assert_non_null(strstr(help, "ext4 (default)"));
	backend_help('b', 59, help, sizeof(help));
	for (size_t i = 0; i < n; i++)
		assert_non_null(strstr(help, list[i]->name));
	for (const char *line = help; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		assert_true(strcspn(line, "\n") <= 59);
}

/*
 * File systems named from the registry: in words by capability and option, libblkid's
 * names resolved through a backend's aliases, the backend that populates what a
 * target holds (--no-format), and the size its fs_size hook reads.
 */
static void test_fs_words(void **state)
{
	struct stat st;
	char buf[128];
	struct run r;

	(void)state;
	backend_fs_words(0, BACKEND_OPT_NO_FORMAT, 0, 'o', buf, sizeof(buf));
	assert_string_equal(buf, "ext2, ext3 or ext4");
	backend_fs_words(BACKEND_EVOLVES, 0, BACKEND_TARGET_FILE, '/', buf, sizeof(buf));
	assert_string_equal(buf, "ext2/3/4");
	backend_fs_words(BACKEND_EVOLVES, 0, BACKEND_TARGET_DIR, '/', buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* nothing shared: each name whole; a backend that makes any says so */
	backend_fs_words(BACKEND_FORMATS, BACKEND_OPT_KEEP_PARTIAL, 0, '/', buf, sizeof(buf));
	assert_string_equal(buf, "xfs/btrfs/f2fs");
	backend_fs_words(BACKEND_MEASURES, 0, BACKEND_TARGET_DIR, 'o', buf, sizeof(buf));
	assert_string_equal(buf, "any");
	backend_fs_words(BACKEND_FORMATS, 0, 0, 'o', buf, sizeof(buf));
	assert_string_equal(buf, "ext2, ext3, ext4, xfs, btrfs or f2fs");
	/* whole names only */
	backend_fs_words(0, BACKEND_OPT_NO_FORMAT, 0, 'o', buf, 12);
	assert_string_equal(buf, "ext2, ext3");
	backend_fs_words(BACKEND_EVOLVES, 0, 0, '/', buf, 7);
	assert_string_equal(buf, "ext2/3");

	assert_string_equal(backend_fs_name("ext4dev"), "ext4");
	assert_string_equal(backend_fs_name("ext3"), "ext3");
	assert_string_equal(backend_fs_name("vfat"), "vfat");
	assert_null(backend_fs_name(NULL));
	assert_ptr_equal(backend_with_fs("ext4dev", BACKEND_OPT_NO_FORMAT), &ext4_backend_ops);
	assert_ptr_equal(backend_with_fs("ext2", BACKEND_OPT_NO_FORMAT), &ext4_backend_ops);
	assert_null(backend_with_fs("xfs", BACKEND_OPT_NO_FORMAT));
	assert_ptr_equal(backend_with_fs("xfs", 0), &loopfs_backend_ops);
	/* several signatures (libblkid's "ext4, xfs"), none, or a name no backend makes */
	assert_null(backend_with_fs("ext4, xfs", BACKEND_OPT_NO_FORMAT));
	assert_null(backend_with_fs("", 0));
	assert_null(backend_with_fs("swap", 0));

	/* the size of an image the ext4 backend made, from its superblock; 0 without a hook */
	assert_int_equal(run_pipeline(&r, &ext4_backend_ops, 1), 0);
	assert_int_equal(stat(r.path, &st), 0);
	assert_int_equal(backend_fs_size(&ext4_backend_ops, r.path), (uint64_t)st.st_size);
	assert_int_equal(backend_fs_size(&mounted_backend_ops, r.path), 0);
	assert_int_equal(backend_fs_size(&ext4_backend_ops, "/dev/zero"), 0);
	assert_int_equal(backend_fs_size(NULL, r.path), 0);
	run_release(&r);
}

/*
 * The editor of BACKEND_EVOLVES: found by file system and target kind; its wrappers answer
 * -ENOSYS for a backend without the bit (or without an editor) and edit
 * an ext4 image the ext4 backend made, which e2fsck then passes.
 */
static void test_editor(void **state)
{
	struct backend_ops plain = ext4_backend_ops, bare = ext4_backend_ops;
	char msg[256];
	struct backend_edit *e = (struct backend_edit *)msg; /* not NULL: a failed open clears it */
	struct backend_edit_file *f = NULL;
	struct backend_edit_usage u;
	struct backend_edit_stat st;
	struct run r;

	(void)state;
	assert_ptr_equal(backend_evolver("ext4", BACKEND_TARGET_FILE), &ext4_backend_ops);
	assert_ptr_equal(backend_evolver("ext2", BACKEND_TARGET_DEVICE), &ext4_backend_ops);
	assert_null(backend_evolver("ext4", BACKEND_TARGET_DIR));
	/* by the file system too: the loopfs backend makes xfs and btrfs but edits nothing */
	assert_null(backend_evolver("xfs", BACKEND_TARGET_FILE));
	assert_null(backend_evolver("btrfs", BACKEND_TARGET_DEVICE));
	assert_null(backend_evolver("no-such", BACKEND_TARGET_FILE));
	assert_null(backend_evolver(NULL, BACKEND_TARGET_FILE));
	backend_evolver_fs(BACKEND_TARGET_FILE, msg, sizeof(msg));
	assert_string_equal(msg, "ext2, ext3, ext4");
	backend_evolver_fs(BACKEND_TARGET_DIR, msg, sizeof(msg));
	assert_string_equal(msg, "");
	backend_evolver_fs(BACKEND_TARGET_FILE, msg, 8);
	assert_string_equal(msg, "ext2");
	plain.caps &= ~(unsigned)BACKEND_EVOLVES;
	bare.edit = NULL;
	assert_int_equal(run_pipeline(&r, &ext4_backend_ops, 1), 0);
	assert_int_equal(backend_edit_open(&null_backend_ops, r.path, 1, 0, NULL, &e, msg,
					   sizeof(msg)),
			 -ENOSYS);
	assert_null(e);
	assert_non_null(strstr(msg, "the null backend cannot edit"));
	assert_int_equal(backend_edit_open(&plain, r.path, 1, 0, NULL, &e, msg, sizeof(msg)),
			 -ENOSYS);
	assert_int_equal(backend_edit_open(&bare, r.path, 1, 0, NULL, &e, msg, sizeof(msg)),
			 -ENOSYS);
	assert_int_equal(backend_edit_undo(&plain, r.path, msg, sizeof(msg)), -ENOSYS);
	assert_int_equal(backend_edit_open(&ext4_backend_ops, NULL, 1, 0, NULL, &e, msg,
					   sizeof(msg)),
			 -EINVAL);
	/* a file of zeros is no ext2/3/4 file system: refused, with the reason */
	assert_int_equal(backend_edit_open(&ext4_backend_ops, "/dev/zero", 0, 0, NULL, &e, msg,
					   sizeof(msg)),
			 -EINVAL);
	assert_null(e);
	assert_true(msg[0]);

	/* now: the time stamped on what it touches (a deleted inode's dtime: not 0) */
	assert_int_equal(backend_edit_open(&ext4_backend_ops, r.path, 1, 1700000000, NULL, &e,
					   msg, sizeof(msg)),
			 0);
	assert_non_null(e);
	/* the handle is the ext4 backend's, but a backend without the bit is never called */
	assert_int_equal(backend_edit_mkdir(&plain, e, "/seam"), -ENOSYS);
	assert_int_equal(backend_edit_stat(&bare, e, "/seam", &st), -ENOSYS);
	assert_int_equal(backend_edit_usage(&null_backend_ops, e, &u), -ENOSYS);
	assert_int_equal(backend_edit_file_open(&plain, e, "/seam/f", 1, 0, &f), -ENOSYS);
	assert_null(f);
	assert_int_equal(backend_edit_stat(&ext4_backend_ops, e, "/seam", &st), -ENOENT);
	assert_int_equal(backend_edit_mkdir(&ext4_backend_ops, e, "/seam"), 0);
	assert_int_equal(backend_edit_mkdir(&ext4_backend_ops, e, NULL), -EINVAL);
	assert_int_equal(backend_edit_file_open(&ext4_backend_ops, e, "/seam/f", 1, 0, &f), 0);
	assert_int_equal(backend_edit_file_pwrite(&plain, f, "abc", 3, 0), -ENOSYS);
	assert_int_equal(backend_edit_file_pwrite(&ext4_backend_ops, f, "abc", 3, 8192), 0);
	assert_int_equal(backend_edit_file_truncate(&bare, f, 1), -ENOSYS);
	assert_int_equal(backend_edit_file_close(&ext4_backend_ops, f), 0);
	assert_int_equal(backend_edit_stat(&ext4_backend_ops, e, "/seam/f", &st), 0);
	assert_int_equal(st.size, 8195);
	assert_true(S_ISREG(st.mode));
	assert_int_equal(backend_edit_rename(&ext4_backend_ops, e, "/seam/f", "/seam/g"), 0);
	assert_int_equal(backend_edit_unlink(&plain, e, "/seam/g"), -ENOSYS);
	assert_int_equal(backend_edit_unlink(&ext4_backend_ops, e, "/seam/g"), 0);
	assert_int_equal(backend_edit_rmdir(&ext4_backend_ops, e, "/seam"), 0);
	assert_int_equal(backend_edit_usage(&ext4_backend_ops, e, &u), 0);
	assert_true(u.block_size >= 1024 && u.blocks_used > 0 && u.blocks_used < u.blocks);
	assert_true(u.inodes_free > 0 && u.inodes_free < u.inodes);
	assert_int_equal(backend_edit_close(&plain, e), -ENOSYS);
	assert_int_equal(backend_edit_close(&ext4_backend_ops, e), 0);
	assert_int_equal(backend_edit_close(&ext4_backend_ops, NULL), 0);
	assert_int_equal(fsck(r.path), 0);
	run_release(&r);
}

/* The extents of path in the image (libext2fs, read only), its bytes into buf (len of them at most). */
static int extents_and_bytes(const char *img, const char *path, char *buf, unsigned len,
			     unsigned *got)
{
	ext2_filsys fs;
	ext2_ino_t ino;
	ext2_file_t file;
	ext2_extent_handle_t h;
	struct ext2fs_extent x;
	int n = 0;

	assert_int_equal(ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino), 0);
	assert_int_equal(ext2fs_extent_open(fs, ino, &h), 0);
	for (errcode_t err = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &x); !err;
	     err = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_LEAF, &x))
		n += !(x.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT) && x.e_flags & EXT2_EXTENT_FLAGS_LEAF;
	ext2fs_extent_free(h);
	assert_int_equal(ext2fs_file_open(fs, ino, 0, &file), 0);
	assert_int_equal(ext2fs_file_read(file, buf, len, got), 0);
	ext2fs_file_close(file);
	ext2fs_close_free(&fs);
	return n;
}

/*
 * A file the editor writes past its end in unaligned pieces (its new
 * blocks as runs) and edits in place: libext2fs reads back the bytes
 * written, in one extent per contiguous run (the image is roomy: at
 * most 2), and e2fsck passes the image.
 */
static void test_editor_runs(void **state)
{
	enum { SIZE = (1 << 20) + 123, CAP = 2 << 20 };
	static const unsigned cuts[] = { 0, 5000, 305000, SIZE };
	char msg[256], *want = malloc(SIZE), *got = malloc(CAP);
	struct backend_edit *e = NULL;
	struct backend_edit_file *f = NULL;
	unsigned n = 0;
	struct run r;

	(void)state;
	assert_non_null(want);
	assert_non_null(got);
	for (unsigned i = 0; i < SIZE; i++)
		want[i] = (char)(i * 7 + i / 4096);
	assert_int_equal(run_pipeline(&r, &ext4_backend_ops, 1), 0);
	assert_int_equal(backend_edit_open(&ext4_backend_ops, r.path, 1, 1700000000, NULL, &e,
					   msg, sizeof(msg)),
			 0);
	assert_int_equal(backend_edit_file_open(&ext4_backend_ops, e, "/runs", 1, 0, &f), 0);
	for (unsigned i = 0; i + 1 < sizeof(cuts) / sizeof(cuts[0]); i++)
		assert_int_equal(backend_edit_file_pwrite(&ext4_backend_ops, f, want + cuts[i],
							  cuts[i + 1] - cuts[i], cuts[i]),
				 0);
	memset(want + 8000, 'x', 300); /* in place, across blocks 1 and 2 */
	assert_int_equal(backend_edit_file_pwrite(&ext4_backend_ops, f, want + 8000, 300, 8000), 0);
	assert_int_equal(backend_edit_file_truncate(&ext4_backend_ops, f, SIZE), 0);
	assert_int_equal(backend_edit_file_close(&ext4_backend_ops, f), 0);
	assert_int_equal(backend_edit_close(&ext4_backend_ops, e), 0);
	assert_true(extents_and_bytes(r.path, "/runs", got, CAP, &n) <= 2);
	assert_int_equal(n, SIZE);
	assert_memory_equal(got, want, SIZE);
	assert_int_equal(fsck(r.path), 0);
	run_release(&r);
	free(want);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_no_layout), cmocka_unit_test(test_ext4_layout),
		cmocka_unit_test(test_fail_at_file),   cmocka_unit_test(test_fail_open),
		cmocka_unit_test(test_missing_hooks),  cmocka_unit_test(test_cancelled),
		cmocka_unit_test_teardown(test_content_fails, unset_fail_at),
		cmocka_unit_test(test_fill_in_bounds),
		cmocka_unit_test(test_registry),       cmocka_unit_test(test_readers),
		cmocka_unit_test(test_check_and_help), cmocka_unit_test(test_fs_words),
		cmocka_unit_test(test_editor),
		cmocka_unit_test(test_editor_runs),
	};

	if (backend_supply_fs())
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
