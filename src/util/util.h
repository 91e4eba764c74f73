/* util.h - small macros every stage uses: array length, minimum, maximum, freeing a list */
#ifndef IMPRINT_UTIL_H
#define IMPRINT_UTIL_H

#include <stddef.h>
#include <stdlib.h>

/*
 * 0, or a compile error when cond (a constant expression) is false; for
 * use inside expressions, where a static assertion cannot go.
 */
#define BUILD_ASSERT_OR_ZERO(cond) (sizeof(char[1 - 2 * !(cond)]) - 1)

#if defined(__GNUC__)
/* 0, or a compile error when a is a pointer rather than an array. */
#define MUST_BE_ARRAY(a) \
	BUILD_ASSERT_OR_ZERO(!__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])))
#else
#define MUST_BE_ARRAY(a) 0
#endif

/* Number of elements of array a, a constant expression; a pointer does not compile. */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + MUST_BE_ARRAY(a))

/*
 * The smaller and the larger of a and b, with C's usual arithmetic
 * conversions; each argument may be evaluated twice.
 */
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* free() each of the n pointers at p (FREE_ALL's loop). */
static inline void free_each(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}

/* free() each argument, in order: a release function's list of owned arrays. */
#define FREE_ALL(...) \
	free_each((void *const[]){ __VA_ARGS__ }, ARRAY_SIZE(((void *const[]){ __VA_ARGS__ })))

#endif
