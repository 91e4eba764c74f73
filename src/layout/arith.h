/* arith.h - the small integer arithmetic the layout's modules share */
#ifndef IMPRINT_LAYOUT_ARITH_H
#define IMPRINT_LAYOUT_ARITH_H

#include <stdint.h>

static inline uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Floor of log2 x, x > 0. */
static inline unsigned ilog2(uint64_t x)
{
	return 63 - (unsigned)__builtin_clzll(x);
}

/* Extents a run of len blocks makes with extents of at most max_ext blocks (0: no limit). */
static inline uint64_t ext_count(uint64_t max_ext, uint64_t len)
{
	return max_ext ? div_up(len, max_ext) : 1;
}

#endif
