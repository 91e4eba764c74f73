/* profile.h - `imprint profile`: the statistics of a tree or image as a configuration file */
#ifndef IMPRINT_PROFILE_H
#define IMPRINT_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "model/params.h"

struct json_object;

struct profile_opts {
	int json;          /* the figures as JSON instead of the configuration */
	int parametric;    /* sizes from the fitted hybrid law, not the quantile table */
	int content;       /* read every file's bytes: compress ratio, duplicates, zero blocks */
	double sample;     /* with content: share of 1 MiB segments compressed, (0, 1]; 0: all */
	int progress;      /* a progress line on stderr */
	const char *version; /* imprint's, for the header */
	int partition;     /* a partitioned disk's partition (from 1); 0: the one found */
	const char *html_path;         /* also write the --html page here, or NULL */
	const char *name;              /* how the page names the profile (-o's path), or NULL */
	struct json_object *html_page; /* with html_path: the page's figures so far (html.h) */
	const char *since;             /* --since OLD: the change model from OLD appended, or NULL */
};

/* The fitted file size laws and how well each follows the source. */
struct profile_size_fit {
	double mu, sigma, tail_weight, xm, shape; /* the hybrid's maximum likelihood */
	double loglik;
	double ks_parametric, ks_empirical;       /* K-S D against the source's sizes */
};

/*
 * Fit the hybrid lognormal + Pareto law to sizes (ascending, n of them)
 * by maximum likelihood, the split point xm chosen among the upper
 * quantiles by the profile likelihood; fills fit's law (K-S fields left).
 * Returns 0, or -EINVAL with fewer than 2 files.
 */
int profile_fit_sizes(const uint64_t *sizes, uint64_t n, struct profile_size_fit *fit);

/*
 * The files-per-directory law's offset c and degree k (fpd_probs(), with
 * the empty share given) by maximum likelihood over the directories
 * holding 1..maxbin files and the tail (count[i] directories hold i
 * files, count[maxbin + 1] more).  Returns 0, -EINVAL (no such
 * directory) or -ENOMEM.
 */
int profile_fit_fpd(const uint64_t *count, unsigned maxbin, double empty, double *c, double *k);

#endif
