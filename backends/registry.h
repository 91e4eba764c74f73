/* registry.h - the backends there are, and how the core finds one */
#ifndef IMPRINT_BACKENDS_REGISTRY_H
#define IMPRINT_BACKENDS_REGISTRY_H

#include <stddef.h>

#include "backends/backend.h"

extern const struct backend_ops ext4_backend_ops;
extern const struct backend_ops mounted_backend_ops;
extern const struct backend_ops loopfs_backend_ops;
extern const struct backend_ops null_backend_ops;

/* The backend named name ("ext4", "null"), or NULL. */
const struct backend_ops *backend_find(const char *name);

/*
 * The first backend, in registry order, that declares file system fs in
 * its fs_names and takes kind (BACKEND_TARGET_*), or NULL.
 */
const struct backend_ops *backend_for(const char *fs, unsigned kind);

/*
 * Supply the file systems the backends make, registry order, and the
 * default (ext4) as the names parameter 'fs' takes (params_supply_names):
 * the model knows none.  Call before the first params_init().  Returns 0,
 * or a negative errno (more names than the registry holds room for).
 */
int backend_supply_fs(void);

/*
 * The backend that edits file system fs ('fs') on a TARGET of kind
 * (BACKEND_TARGET_*) in place for `imprint evolve`: the first, registry
 * order, that declares BACKEND_EVOLVES, makes fs and takes kind, or NULL.
 */
const struct backend_ops *backend_evolver(const char *fs, unsigned kind);

/*
 * The file systems backend_evolver() finds a backend for on a TARGET of
 * kind, registry order, into buf: "ext2, ext3, ext4" ("any" for a backend
 * that makes any; "" when none evolves kind; the names that fit whole).
 */
void backend_evolver_fs(unsigned kind, char *buf, size_t len);

/*
 * The file systems made by the backends that declare every bit of caps
 * (BACKEND_*) and of options (BACKEND_OPT_*) and take a TARGET of kind
 * (BACKEND_TARGET_*; 0: any kind), registry order, each once, in words
 * into buf: how 'o' "ext2, ext3 or ext4", how '/' "ext2/3/4" (the letters
 * they all begin with written once); "any" for a backend that makes any;
 * "" when none fits (the names that fit buf whole).  Messages and help
 * name file systems through this, never by hand.
 */
void backend_fs_words(unsigned caps, unsigned options, unsigned kind, int how, char *buf,
		      size_t len);

/*
 * The name 'fs' gives the file system libblkid calls type: the fs_names
 * entry a backend's fs_aliases maps type to ("ext4dev": "ext4"), else type.
 */
const char *backend_fs_name(const char *type);

/*
 * The first backend, registry order, that takes every option of options
 * (BACKEND_OPT_*) and declares file system type (libblkid's name,
 * backend_fs_name()) in its fs_names, or NULL: for --no-format, the
 * backend that populates what TARGET holds.
 */
const struct backend_ops *backend_with_fs(const char *type, unsigned options);

/* The names 'fs' takes, NULL-ended: empty before backend_supply_fs(). */
const char *const *backend_fs_list(void);

/* Whether a backend makes file system fs (the names 'fs' takes). */
int backend_fs_known(const char *fs);

/* Whether ops makes file system fs (any, when ops->fs_names is NULL). */
int backend_makes(const struct backend_ops *ops, const char *fs);

/*
 * The check hooks of the backends that make p's file system ('fs'): 0,
 * or -EINVAL with msg set by the first that refuses p.
 */
int backend_check_params(const struct params *p, char *msg, size_t len);

/*
 * The help of --backend (which == 'b': each backend and its summary) or
 * of --fs ('f': the file systems, registry order, the default marked),
 * into buf, lines broken at width columns.
 */
void backend_help(int which, unsigned width, char *buf, size_t len);

/* The registered backends, for listings: *n of them. */
const struct backend_ops *const *backend_list(size_t *n);

#endif
