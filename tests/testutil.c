/* testutil.c - helpers shared by the cmocka tests */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "testutil.h"

void test_resolved(struct params *p, const char *const *kv)
{
	struct param_error err;

	params_init(p);
	for (; kv && kv[0]; kv += 2) {
		if (params_set(p, kv[0], kv[1], "test", &err)) {
			fprintf(stderr, "%s\n", err.msg);
			fail();
		}
	}
	if (params_resolve(p, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		fail();
	}
}

void test_build_plan(struct plan *pl, const char *const *kv)
{
	struct params p;
	struct plan_error err = { { 0 } };

	test_resolved(&p, kv);
	if (plan_build(pl, &p, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		fail();
	}
}
