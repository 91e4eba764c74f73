/* content.c - the interim content source: pseudo-random bytes as a pure function of (seed, file, offset) */
#include <string.h>

#include "content.h"
#include "content/gen.h"
#include "plan.h"
#include "rng.h"

static int random_fill(const struct content_source *cs, uint64_t file, uint64_t offset,
		       void *buf, size_t len)
{
	gen_random(rng_mix64(cs->seed ^ rng_mix64(file + 1)), offset, buf, len);
	return 0;
}

void content_random_init(struct content_source *cs, const struct plan *pl)
{
	memset(cs, 0, sizeof(*cs));
	cs->name = "random";
	cs->fill = random_fill;
	cs->pl = pl;
	cs->seed = rng_stream_key(pl->prm.seed, "content");
}
