/* setup.c - the content model ready for the generators: its data, then each generator's part */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "content/setup.h"
#include "content/gen.h"
#include "content/registry.h"
#include "content/extc.h"
#include "content/model.h"
#include "plan/generation.h"
#include "plan/plan.h"
#include "util/util.h"

/* Each generator family's part of the model, in the order they are made. */
static int (*const part_init[])(struct content_model *cm) = {
	content_text_init,
	content_binary_init,
	content_archive_init,
	content_extc_init,
};

/* content_model.binary_ext of plan pl. */
static int binary_exts(struct content_model *cm, const struct plan *pl)
{
	const struct param_tables *t = &pl->prm.tab;

	cm->binary_ext = calloc(pl->ext.count ? pl->ext.count : 1, 1);
	if (!cm->binary_ext)
		return -ENOMEM;
	for (size_t x = 0; x < pl->ext.count; x++) {
		cm->binary_ext[x] = content_ext_ops(pl->ext.name[x]) == &gen_binary_ops;
		for (uint32_t k = 0; k < t->nextc; k++)
			if (!strcmp(t->extc_name[k], pl->ext.name[x]))
				cm->binary_ext[x] = 0;
	}
	return 0;
}

int content_model_init_words(struct content_model *cm, const struct plan *pl, const char *path)
{
	int ret;

	/* a later generation's content draws on generation 0's model: its bytes stay as they were */
	if (pl && pl->gen)
		pl = pl->gen->base;
	ret = content_model_data_init(cm, pl, path);
	if (ret)
		return ret;
	if (pl) {
		ret = binary_exts(cm, pl);
		if (ret)
			goto out_release;
	}
	for (size_t i = 0; i < ARRAY_SIZE(part_init); i++) {
		ret = part_init[i](cm);
		if (ret)
			goto out_release;
	}
	return 0;

out_release:
	content_model_release(cm);
	return ret;
}

int content_model_init(struct content_model *cm, const struct plan *pl)
{
	return content_model_init_words(cm, pl, CONTENT_WORDLIST);
}

void content_model_release(struct content_model *cm)
{
	content_extc_release(cm);
	content_binary_release(cm);
	content_text_release(cm);
	free(cm->binary_ext);
	content_model_data_release(cm);
}
