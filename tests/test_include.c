/* test_include.c - --include: a source that changed after it was read is refused, never copied wrong */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "plan/include.h"

struct tree {
	char dir[64];
	char file[128];
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A directory holding one file "f", scanned into s. */
static void scan(struct tree *t, struct include_set *s)
{
	char arg[160], err[PATH_MAX + 256] = "";
	struct timespec ts[2] = { { 1600000000, 0 }, { 1600000000, 0 } };

	snprintf(t->dir, sizeof(t->dir), "%s/imprint-inc.XXXXXX", P_tmpdir);
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->file, sizeof(t->file), "%s/f", t->dir);
	put(t->file, "hello\n");
	assert_int_equal(utimensat(AT_FDCWD, t->file, ts, 0), 0);
	memset(s, 0, sizeof(*s));
	snprintf(arg, sizeof(arg), "%s:/opt/x", t->dir);
	assert_int_equal(include_add(s, arg, err, sizeof(err)), 0);
	assert_int_equal(include_scan(s, err, sizeof(err)), 0);
	/* /opt, /opt/x, /opt/x/f */
	assert_int_equal(s->n, 3);
	assert_int_equal(s->e[2].kind, INCLUDE_FILE);
	assert_int_equal(s->e[2].size, 6);
}

static void done(struct tree *t, struct include_set *s)
{
	include_release(s);
	unlink(t->file);
	rmdir(t->dir);
}

/* Unchanged: open, read, and the check after copying passes; a short read does not. */
static void test_unchanged(void **state)
{
	char err[PATH_MAX + 256] = "", buf[16];
	struct include_set s;
	struct tree t;
	int fd;

	(void)state;
	scan(&t, &s);
	fd = include_open_source(&s.e[2], err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 6);
	assert_int_equal(include_check_copied(&s.e[2], fd, 6, err, sizeof(err)), 0);
	assert_int_equal(include_check_copied(&s.e[2], fd, 5, err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "gave 5 bytes where 6 were planned"));
	close(fd);
	done(&t, &s);
}

/* Grown after the scan: refused at open, the message names the file. */
static void test_changed_size(void **state)
{
	char err[PATH_MAX + 256] = "";
	struct include_set s;
	struct tree t;

	(void)state;
	scan(&t, &s);
	put(t.file, "hello, world\n");
	assert_int_equal(include_open_source(&s.e[2], err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, t.file));
	assert_non_null(strstr(err, "changed since it was planned"));
	done(&t, &s);
}

/* Same size, new bytes (and so a new mtime): refused too, also with --include-normalize. */
static void test_changed_mtime(void **state)
{
	char err[PATH_MAX + 256] = "";
	struct include_set s;
	struct tree t;

	(void)state;
	scan(&t, &s);
	include_set_time(&s, 1700000000); /* normalised or not, SRC's own mtime is compared */
	put(t.file, "HELLO\n");
	assert_int_equal(include_open_source(&s.e[2], err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "changed since it was planned"));
	done(&t, &s);
}

/* Gone, or a link now: refused with the file named. */
static void test_replaced(void **state)
{
	char err[PATH_MAX + 256] = "";
	struct include_set s;
	struct tree t;

	(void)state;
	scan(&t, &s);
	assert_int_equal(unlink(t.file), 0);
	assert_int_equal(include_open_source(&s.e[2], err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, t.file));
	assert_int_equal(symlink("/etc/hostname", t.file), 0);
	assert_int_equal(include_open_source(&s.e[2], err, sizeof(err)), -ELOOP);
	done(&t, &s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unchanged),
		cmocka_unit_test(test_changed_size),
		cmocka_unit_test(test_changed_mtime),
		cmocka_unit_test(test_replaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
