/* tables_int.h - inside the tables: the table of tables that tables.c and tables_print.c share */
#ifndef IMPRINT_MODEL_TABLES_INT_H
#define IMPRINT_MODEL_TABLES_INT_H

#include <stddef.h>
#include <stdint.h>

#include "model/tables.h"

enum tab_kind { TK_SIZEQ, TK_SHARES, TK_EXT, TK_SBE, TK_COUNT, TK_SPARSE, TK_SPECIAL, TK_MODE,
		TK_QUANT, TK_EXTC };

struct tab_def {
	const char *name;
	enum tab_kind kind;
	size_t count_off; /* offsetof(struct param_tables, the count) */
	size_t data_off;  /* TK_SHARES, TK_QUANT: the double array; TK_MODE: the struct tab_modes */
	uint32_t max;
	const char *what; /* for messages: what one entry is */
	const char *desc; /* for 'imprint params' */
};

/* Every table key, in the order they are printed (tables_print.c) */
#define TAB_NDEFS 20
extern const struct tab_def tab_defs[TAB_NDEFS];

#endif
