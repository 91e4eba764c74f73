/* Table-driven JSON output: a struct's uint64_t counters added to an object by a field table. */
#include <stdint.h>
#include <string.h>

#include "report/json_fields.h"

void json_add_u64s(json_object *o, const void *base, const struct json_u64_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v;

		memcpy(&v, (const char *)base + f[i].off, sizeof(v));
		json_object_object_add(o, f[i].key, json_object_new_uint64(v));
	}
}
