/* testutil.h - helpers shared by the cmocka tests: resolved parameters and plans from key-value lists */
#ifndef IMPRINT_TESTUTIL_H
#define IMPRINT_TESTUTIL_H

#include "model/params.h"
#include "plan/plan.h"

/* Defaults, then kv[0] = kv[1], kv[2] = kv[3] ... (NULL-terminated), resolved; fails the test on error. */
void test_resolved(struct params *p, const char *const *kv);

/* The plan of test_resolved(kv) into pl; fails the test on error. */
void test_build_plan(struct plan *pl, const char *const *kv);

#endif
