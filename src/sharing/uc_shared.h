/* SPDX-License-Identifier: Apache-2.0 */
/* The table a call of the sharing server is about, within the room: what
 * the files of the table routes (uc_shared.c, uc_sharing_query.c,
 * uc_sharing_files.c, uc_sharing_changes.c, uc_sharing_sign.c,
 * uc_sharing_filter.c) share. The table as the recipient names
 * it and its Delta log; the one check of which versions a recipient may
 * read (uc_shared_may_read); what a query asks for and the span of a page;
 * the share object's partitions. */
#ifndef UC_SHARED_H
#define UC_SHARED_H

#include "uc_sharing_lines.h"
#include "uc_sharing_predicate.h"
#include "uc_sharing_tables.h"
#include "../delta/uc_delta.h"
#include "../vend/uc_table_log.h"

/* The table a call is about, as the recipient names it, and its log. */
typedef struct shared {
    uc_call_t *call;
    const uc_shared_table_t *t;
    const char *label;             /* share.schema.table, as named */
    uc_table_log_t log;            /* its log, snapshots and storage */
} uc_shared_t;

/* How a request reaches a version of the table. */
typedef enum reach {
    /* The latest snapshot, or the version that a page token or a refresh
     * token of a query of the latest snapshot continues. */
    UC_REACH_LATEST,
    /* A version the request names: time travel, startingVersion. */
    UC_REACH_HISTORY,
    /* The change data feed from a version on. */
    UC_REACH_CHANGES
} uc_shared_reach_t;

/* Which files a recipient sees of a table shared with partitions: those
 * whose partition values match every value of one of them. */
typedef struct filter {
    json_t *partitions;            /* NULL: every file */
    json_t *recipient_properties;
} uc_sharing_filter_t;

/* What a query asks for. jsonPredicateHints prune by partition values
 * (uc_sharing_predicate.h); the legacy SQL predicateHints are accepted
 * and not applied: the protocol makes both best effort. */
typedef struct query {
    int has_version, has_limit, has_max_files, has_starting, has_ending;
    int include_refresh, include_protocol;
    apr_int64_t version, limit, max_files, starting, ending;
    const char *timestamp;
    const char *page_token;
    const char *refresh_token;
    const char *hints;             /* jsonPredicateHints, or NULL */
    uc_sharing_predicate_t *predicate;   /* parsed against the metaData */
    /* An asynchronous query's result (uc_sharing_async.c): its id, which
     * its page tokens are bound to, and the latest version it was pinned
     * to when it was prepared (has_pinned 0: none yet). */
    const char *query_id;
    int has_pinned;
    apr_int64_t pinned;
} uc_sharing_query_t;

/* The files or changes of one page: it starts at index `first`; `next`
 * is where the following page resumes (0: there is none). */
typedef struct span {
    apr_size_t first, next;
    apr_size_t written;            /* file lines */
} uc_sharing_span_t;

/* A line's memory is given back every this many lines. */
#define UC_SHARING_LINES_PER_POOL 256

/* --- the table (uc_shared.c) ------------------------------------------ */

/* The table of the call's path (share, schema, table) in the share the
 * rule resolved, its storage's credentials and its Delta log; a table the
 * share does not show is 404 as a missing one. */
uc_error_t *uc_shared_open(uc_call_t *call, uc_shared_t *s);
/* The 404 of a table the share does not hold (the path's share, schema
 * and table), in the reference server's words. */
uc_error_t *uc_shared_not_found(uc_call_t *call);

/* The reader's errors in the protocol's terms, as a recipient may see
 * them: permanent conditions of the table are 4xx (503 only while the
 * storage cannot be reached: clients retry 5xx for minutes), and no
 * message tells where the provider keeps the table, whatever its status. */
uc_error_t *uc_shared_error(uc_shared_t *s, uc_error_t *err);

/* Getting the credentials of the table's storage failed. A scheme the
 * server cannot read says which. */
uc_error_t *uc_shared_storage_error(uc_shared_t *s, uc_error_t *err);

/* The latest snapshot (from the process's cache), and the one at
 * `version`; both held until the call ends. */
uc_error_t *uc_shared_latest(uc_shared_t *s, uc_delta_snapshot_t **out);
uc_error_t *uc_shared_snapshot_at(uc_shared_t *s, apr_int64_t version,
                                  uc_delta_snapshot_t **out);

/* Whether the share gives the table's change data feed (which needs its
 * history too). */
int uc_shared_cdf(const uc_shared_t *s);

/* The one place that decides which versions a recipient may read. It is
 * asked before a version is resolved (UC_DELTA_NONE: may the recipient
 * read this way at all; nothing of the table's history is looked at
 * unless so) and again for the version: whatever is not the latest
 * snapshot needs history sharing, the change data feed needs the share's
 * too, and no version before the share's start_version is shown but the
 * latest. A version a token continues is the latest a first page read,
 * served on as the reference server does. */
uc_error_t *uc_shared_may_read(uc_shared_t *s, uc_shared_reach_t how,
                               apr_int64_t version);

/* The reference's words for a start past the table's end, in changes and
 * in startingVersion queries alike. */
uc_error_t *uc_shared_check_start(uc_shared_t *s, apr_int64_t start,
                                  apr_int64_t latest_version);

/* A non-negative decimal number of a query parameter; *present 0 when
 * absent. */
uc_error_t *uc_sharing_version_param(uc_call_t *call, const char *name,
                                     apr_int64_t *v, int *present);

/* The version commits at the ISO-8601 timestamp `text` (the parameter
 * `name`) resolve to, as `match` picks. */
uc_error_t *uc_shared_version_at(uc_shared_t *s, const char *name,
                                 const char *text, uc_delta_time_match_t match,
                                 apr_int64_t *version);

/* The snapshot a version or a timestamp names (both NULL / absent: the
 * latest); *travelled tells whether it was asked for. */
uc_error_t *uc_shared_snapshot_as_of(uc_shared_t *s, int has_version,
                                     apr_int64_t version,
                                     const char *timestamp,
                                     uc_delta_snapshot_t **out,
                                     int *travelled);

/* The capabilities and fileidhash headers of the request. */
uc_error_t *uc_sharing_read_caps(uc_call_t *call, uc_sharing_caps_t *caps);

/* The headers of an NDJSON answer: its version, its format (the echo of
 * includeendstreamaction only where `echo_caps`), the fileidhash echo. */
void uc_sharing_answer_headers(uc_call_t *call, apr_int64_t version,
                               uc_sharing_format_t format,
                               const uc_sharing_caps_t *caps, int echo_caps);

/* The protocol and metaData lines an answer starts with; `version` goes
 * on the metaData line, `protocol_version` on the protocol line (both
 * UC_DELTA_NONE: none). */
uc_error_t *uc_shared_write_head(uc_shared_t *s, uc_sharing_format_t format,
                                 const char *protocol, const char *metadata,
                                 apr_int64_t version,
                                 apr_int64_t protocol_version);

/* --- file URLs (uc_sharing_sign.c) and filters (uc_sharing_filter.c) --- */

/* The signer of the answer's file URLs (the files route for local
 * tables, the store's pre-signed URLs for cloud ones) and when they
 * expire. */
uc_error_t *uc_sharing_sign_make(uc_shared_t *s, uc_sharing_signer_t *signer);
/* The absolute URL of the signed files route (uc_file_url.h), under the
 * sharing mount, without a trailing '/'. */
const char *uc_sharing_sign_files_base(const uc_call_t *call);

/* The share object's partitions of the table, with the recipient's
 * properties they may name. */
uc_error_t *uc_sharing_filter_make(uc_shared_t *s, uc_sharing_filter_t *f);

/* Whether a file with these partition values goes to the recipient: the
 * share object's partitions and the query's hints (`q` NULL: none) keep
 * it. */
int uc_sharing_filter_keeps(const uc_sharing_filter_t *f,
                            const uc_sharing_query_t *q, apr_pool_t *pool,
                            const char *partition_values);

/* --- pages (uc_sharing_query.c) ------------------------------------------ */

/* maxFiles lines are out: the page ends before the next one. */
int uc_sharing_page_full(const uc_sharing_query_t *q,
                         const uc_sharing_span_t *span);

/* Whether the query asks for its first page (no pageToken). */
int uc_sharing_first_page(const uc_sharing_query_t *q);

/* The last line of an answer that tells its end: the page to ask for
 * next, the refresh token, and when the first of its URLs expires. */
uc_error_t *uc_sharing_end_answer(uc_call_t *call, const char *next_page,
                                  const char *refresh_token,
                                  const uc_sharing_span_t *span,
                                  const uc_sharing_signer_t *signer);

/* The end of a query's answer: the token of the page after the span
 * (none after the last) read from `at` on. */
uc_error_t *uc_sharing_query_end(uc_shared_t *s, const uc_sharing_query_t *q,
                                 apr_int64_t at, const char *refresh_token,
                                 const uc_sharing_span_t *span,
                                 const uc_sharing_signer_t *signer);

/* Where the page of the query's pageToken resumes: at a file of the
 * snapshot of version `at`, or at a change of the range that ends at
 * `at`; a token the server did not make for this query is a 400. */
uc_error_t *uc_sharing_query_page_token(uc_shared_t *s,
                                        const uc_sharing_query_t *q,
                                        apr_int64_t *at, apr_int64_t *index);

/* A token the server made, of a query the table can no longer be read on
 * at: its log has lost the version since. */
uc_error_t *uc_sharing_query_restart(uc_call_t *call);

/* An answer that pages ends with a token: whether one can be made is
 * known before the answer begins. */
uc_error_t *uc_sharing_check_pages(uc_call_t *call,
                                   const uc_sharing_query_t *q);

/* The query of the call's body (a JSON object), checked as the protocol
 * says; its errors are 400s. */
uc_error_t *uc_sharing_query_read(uc_call_t *call, uc_sharing_query_t *q);

/* The answer of a query: a snapshot's files, or a startingVersion range's
 * changes. */
uc_error_t *uc_sharing_query_answer(uc_shared_t *s, uc_sharing_query_t *q,
                                    const uc_sharing_caps_t *caps);

/* --- asynchronous queries (uc_sharing_async.c) --------------------------- */

/* A query of a client that stated asyncquery=true: answered at once when
 * its snapshot is ready within UnicatSharingAsyncWait, else one
 * queryStatus line of the query it is prepared as. */
uc_error_t *uc_sharing_async_submit(uc_shared_t *s, uc_sharing_query_t *q,
                                    const uc_sharing_caps_t *caps);

/* jsonPredicateHints are read against the schema of the metaData the
 * answer starts with. */
uc_error_t *uc_sharing_read_hints(uc_call_t *call, uc_sharing_query_t *q,
                                  const char *metadata);

/* --- what the answers hold (uc_sharing_files.c, uc_sharing_changes.c) -- */

/* Writes the files of `snap` of the span that pass the filter: all, or
 * up to maxFiles, or until limitHint rows are reached. A long answer of
 * all of them is rendered by several threads. */
uc_error_t *uc_sharing_files_write(uc_shared_t *s, const uc_sharing_query_t *q,
                                   uc_sharing_format_t format,
                                   const uc_sharing_caps_t *caps,
                                   const uc_delta_snapshot_t *snap,
                                   int travelled,
                                   const uc_sharing_signer_t *signer,
                                   uc_sharing_span_t *span);

/* A startingVersion query: the protocol and metaData of the start, then
 * what each commit of the range changed, as Spark's streaming source
 * replays it. */
uc_error_t *uc_sharing_changes_stream(uc_shared_t *s, uc_sharing_query_t *q,
                                      const uc_sharing_caps_t *caps);

#endif
