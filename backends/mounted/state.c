/* state.c - what every part of the mounted-path backend uses: cancellation */

#include "backends/mounted/mounted.h"

int mnt_cancelled(const struct mnt_state *st)
{
	return create_cancelled(st->o);
}
