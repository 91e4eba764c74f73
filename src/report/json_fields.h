/* Table-driven JSON output: a struct's uint64_t counters added to an object by a field table. */
#ifndef IMPRINT_JSON_FIELDS_H
#define IMPRINT_JSON_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* One counter: its JSON key and the offset of its uint64_t in the struct. */
struct json_u64_field {
	const char *key;
	size_t off;
};

/* The entry for uint64_t member m of type t, under key k (a member of another size does not build). */
#define JSON_U64_AS(t, k, m) \
	{ (k), offsetof(t, m) + 0 * sizeof(char[sizeof(((t *)0)->m) == sizeof(uint64_t) ? 1 : -1]) }
/* The same, the key being the member's name. */
#define JSON_U64(t, m) JSON_U64_AS(t, #m, m)

/* Add the n counters of f, read from base, to o in table order. */
void json_add_u64s(json_object *o, const void *base, const struct json_u64_field *f, size_t n);

#endif
