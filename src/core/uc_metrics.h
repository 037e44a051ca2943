/* SPDX-License-Identifier: Apache-2.0 */
/* Counters shared by every process and thread of a server, in one block
 * of memory the glue maps shared before the children fork (as httpd's
 * scoreboard is): requests and their latency per route family, database
 * time, the caches, signed URLs, bytes streamed. Each increment is one
 * relaxed atomic add, so nothing is locked on the request path. What only
 * a process knows (its caches) goes into a slot of its own, claimed as it
 * starts; a scrape sums the slots of the processes alive, and what a
 * process counted is kept when it exits. Rendered in Prometheus' text
 * exposition format. */
#ifndef UC_METRICS_H
#define UC_METRICS_H

#include <apr_pools.h>
#include <apr_time.h>

typedef struct uc_metrics uc_metrics_t;

/* Counters of the whole server. */
typedef enum uc_metric {
    UC_M_DB_QUERIES,          /* statements run, transactions included */
    UC_M_DB_MICROS,           /* time spent in them */
    UC_M_DB_ERRORS,
    UC_M_SIGNED_URLS,         /* data-file URLs the sharing server signed */
    UC_M_SHARING_BYTES,       /* bytes of sharing answers streamed */
    UC_M_VEND_HITS,           /* vended credentials from the cache */
    UC_M_VEND_MISSES,         /* ... fetched from a cloud */
    UC_M_ANSWER_HITS,         /* list answers given from the answer cache */
    UC_M_ANSWER_MISSES,       /* ... made, the cache asked first */
    /* What Delta writers reported of their commits (the UC Delta API's
     * metrics): reports, then the sums of their counts. */
    UC_M_COMMIT_REPORTS,
    UC_M_COMMIT_FILES_ADDED,
    UC_M_COMMIT_BYTES_ADDED,
    UC_M_COMMIT_FILES_REMOVED,
    UC_M_COMMIT_BYTES_REMOVED,
    UC_M_COMMIT_ROWS_INSERTED,
    UC_M_COMMIT_ROWS_REMOVED,
    UC_M_COMMIT_ROWS_UPDATED,
    UC_M_COUNT
} uc_metric_t;

/* What one process knows of its own caches: gauges (entries, bytes) and
 * counters it keeps itself. */
typedef struct uc_metrics_process {
    apr_uint64_t snapshot_entries;
    apr_uint64_t snapshot_bytes;
    apr_uint64_t snapshot_hits;
    apr_uint64_t snapshot_advances;
    apr_uint64_t snapshot_builds;
    apr_uint64_t snapshot_evictions;
    apr_uint64_t vend_entries;
    apr_uint64_t answer_entries;
    apr_uint64_t answer_bytes;
} uc_metrics_process_t;

/* The requests a route family counts, by method (UC_GET .. UC_DELETE, and
 * one for any other) and status class (1xx .. 5xx). */
#define UC_METRICS_METHODS 6
#define UC_METRICS_CLASSES 5

/* The bytes a block of `families` route families and `processes` process
 * slots takes. */
apr_size_t uc_metrics_size(int families, int processes);

/* The metrics in `block` (`size` bytes, zeroed when it was made): set up
 * when it is new, reused as it is when it already holds metrics of the
 * same shape (a restart), refused (NULL) otherwise. */
uc_metrics_t *uc_metrics_attach(apr_pool_t *pool, void *block,
                                apr_size_t size, int families,
                                int processes);

/* A request answered: its family (an index below `families`), method
 * index, HTTP status and time taken. NULL `m` counts nothing. */
void uc_metrics_request(uc_metrics_t *m, int family, int method,
                        int status, apr_interval_time_t took);

void uc_metrics_add(uc_metrics_t *m, uc_metric_t which, apr_uint64_t n);

/* The slot of process `pid`: a free one, or one whose process is gone
 * (`alive` says it no longer runs); -1 when every slot is taken. */
int uc_metrics_claim(uc_metrics_t *m, long pid, int (*alive)(long pid));
/* The process' figures, as they are now. */
void uc_metrics_publish(uc_metrics_t *m, int slot,
                        const uc_metrics_process_t *now);
/* The process leaves: its counters are kept, its gauges go. */
void uc_metrics_release(uc_metrics_t *m, int slot);

/* The labels of a route family: the API and the family's name. */
typedef struct uc_metrics_family {
    const char *api;
    const char *name;
} uc_metrics_family_t;

/* Every metric in the text exposition format (version 0.0.4), from
 * `pool`; a family is shown once it has answered a request. `alive` tells
 * whether a process still runs. */
const char *uc_metrics_render(apr_pool_t *pool, uc_metrics_t *m,
                              const uc_metrics_family_t *names,
                              int (*alive)(long pid), apr_size_t *len);

#endif
