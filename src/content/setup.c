/* setup.c - the content model ready for the generators: its data, then each generator's part */
#include "content/setup.h"
#include "content/gen.h"
#include "content/model.h"

int content_model_init_words(struct content_model *cm, const struct plan *pl, const char *path)
{
	int ret;

	ret = content_model_data_init(cm, pl, path);
	if (ret)
		return ret;
	ret = content_text_init(cm);
	if (ret)
		goto out_release;
	ret = content_binary_init(cm);
	if (ret)
		goto out_release;
	ret = content_archive_init(cm);
	if (ret)
		goto out_release;
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
	content_binary_release(cm);
	content_text_release(cm);
	content_model_data_release(cm);
}
