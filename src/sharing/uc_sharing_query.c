/* SPDX-License-Identifier: Apache-2.0 */
/* The query route: its body, its pages and refresh tokens
 * (uc_sharing_token.h), the snapshot it reads, and the answer of a
 * snapshot's files; startingVersion queries go to uc_sharing_changes.c,
 * the files are rendered by uc_sharing_files.c. */
#include "uc_shared.h"
#include "uc_sharing_api.h"
#include "uc_sharing_token.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../http/uc_out.h"

#define MAX_FILES_CAP 10000

int uc_sharing_page_full(const uc_sharing_query_t *q,
                         const uc_sharing_span_t *span)
{
    return q && q->has_max_files && span->written == (apr_size_t)q->max_files;
}

uc_error_t *uc_sharing_end_answer(uc_call_t *call, const char *next_page,
                                  const char *refresh_token,
                                  const uc_sharing_span_t *span,
                                  const uc_sharing_signer_t *signer)
{
    uc_error_t *err = uc_sharing_write_end_stream(
        call->out->jw, next_page, refresh_token,
        span->written ? signer->expiration_ms : UC_DELTA_NONE);

    return err ? err : uc_out_end_line(call->out);
}

/* --- query ------------------------------------------------------------- */

static uc_error_t *malformed(uc_call_t *call, const char *field,
                             const char *expected)
{
    return uc_error_make(call->pool, UC_E_MALFORMED_REQUEST, "Expected %s "
                         "for field %s of QueryTableRequest", expected,
                         field);
}

/* An integer field of the body, as every body of the server takes one
 * (uc_json_int_field: a JSON number or a digit string); *present 0 when
 * absent or null. A value of another kind is the protocol's
 * MALFORMED_REQUEST. */
static uc_error_t *body_int(uc_call_t *call, const char *field, apr_int64_t *v,
                            int *present)
{
    uc_error_t *err = uc_json_int_field(call->pool, call->body, field,
                                        APR_INT64_MIN, APR_INT64_MAX, v,
                                        present);

    if (err)
        uc_error_recast(err, UC_E_MALFORMED_REQUEST);
    return err;
}

static uc_error_t *body_string(uc_call_t *call, const char *field,
                               const char **v)
{
    json_t *j = json_object_get(call->body, field);

    *v = NULL;
    if (!j || json_is_null(j))
        return NULL;
    if (!json_is_string(j))
        return malformed(call, field, "a string");
    *v = json_string_value(j);
    return NULL;
}

static uc_error_t *body_type(uc_call_t *call, const char *field,
                             int (*is)(const json_t *), const char *expected)
{
    json_t *j = json_object_get(call->body, field);

    return !j || json_is_null(j) || is(j) ? NULL
                                          : malformed(call, field, expected);
}

static int is_bool(const json_t *j) { return json_is_boolean(j); }

static int is_array(const json_t *j) { return json_is_array(j); }

static uc_error_t *body_bool(uc_call_t *call, const char *field, int *v)
{
    *v = json_is_true(json_object_get(call->body, field));
    return body_type(call, field, is_bool, "a boolean");
}

int uc_sharing_first_page(const uc_sharing_query_t *q)
{
    return !q->page_token || !*q->page_token;
}

uc_error_t *uc_sharing_query_restart(uc_call_t *call)
{
    return uc_error_invalid(call->pool, "The next page of this query "
                            "cannot be read any more; please restart the "
                            "query.");
}

uc_error_t *uc_sharing_check_pages(uc_call_t *call,
                                   const uc_sharing_query_t *q)
{
    return q->has_max_files ? uc_sharing_token_ready(call->pool,
                                                     call->secrets,
                                                     "page token")
                            : NULL;
}

/* One way to name the version(s) at most; endingVersion only bounds a
 * startingVersion. */
static uc_error_t *check_versions(uc_call_t *call, const uc_sharing_query_t *q)
{
    if (q->has_version + !!q->timestamp + q->has_starting > 1)
        return uc_error_invalid(call->pool, "Please only provide one of: "
                                "version,timestamp,startingVersion");
    if (q->has_version && q->version < 0)
        return uc_error_invalid(call->pool, "version must be non-negative.");
    if (q->has_starting && q->starting < 0)
        return uc_error_invalid(call->pool, "startingVersion cannot be "
                                "negative.");
    if (q->has_ending && !q->has_starting)
        return uc_error_invalid(call->pool, "endingVersion bounds a "
                                "startingVersion, which is missing.");
    if (q->has_ending && q->starting > q->ending)
        return uc_error_invalid(call->pool, "startingVersion(%"
                                APR_INT64_T_FMT ") must be smaller than or "
                                "equal to endingVersion(%" APR_INT64_T_FMT
                                ").", q->starting, q->ending);
    return NULL;
}

/* A refresh token stands for the latest snapshot a first page read. */
static uc_error_t *check_refresh(uc_call_t *call, const uc_sharing_query_t *q)
{
    const char *field = q->include_refresh ? "includeRefreshToken"
                        : q->refresh_token ? "refreshToken" : NULL;

    if (field && (q->has_version || q->timestamp || q->has_starting))
        return uc_error_invalid(call->pool, "%s cannot be used when "
                                "querying a specific version.", field);
    if (field && !uc_sharing_first_page(q))
        return uc_error_invalid(call->pool, "%s must be used in the first "
                                "page request.", field);
    return NULL;
}

uc_error_t *uc_sharing_query_read(uc_call_t *call, uc_sharing_query_t *q)
{
    uc_error_t *err;

    memset(q, 0, sizeof(*q));
    if ((err = body_int(call, "version", &q->version, &q->has_version)) ||
        (err = body_string(call, "timestamp", &q->timestamp)) ||
        (err = body_int(call, "startingVersion", &q->starting,
                        &q->has_starting)) ||
        (err = body_int(call, "endingVersion", &q->ending,
                        &q->has_ending)) ||
        (err = body_int(call, "limitHint", &q->limit, &q->has_limit)) ||
        (err = body_int(call, "maxFiles", &q->max_files,
                        &q->has_max_files)) ||
        (err = body_string(call, "pageToken", &q->page_token)) ||
        (err = body_string(call, "refreshToken", &q->refresh_token)) ||
        (err = body_string(call, "jsonPredicateHints", &q->hints)) ||
        (err = body_type(call, "predicateHints", is_array, "an array")) ||
        (err = body_bool(call, "includeRefreshToken", &q->include_refresh)) ||
        (err = body_bool(call, "includeHistoricalProtocol",
                         &q->include_protocol)) ||
        (err = check_versions(call, q)) ||
        (err = check_refresh(call, q)))
        return err;
    if (q->has_limit && q->limit < 0)
        return uc_error_invalid(call->pool, "limitHint must be "
                                "non-negative.");
    /* With a filter the rows a file holds are not the rows the client
     * keeps: the limit would cut the answer short of them (the reference
     * ignores it then too). */
    if (q->hints || json_array_size(json_object_get(call->body,
                                                    "predicateHints")))
        q->has_limit = 0;
    if (q->has_max_files && (q->max_files <= 0 ||
                             q->max_files > APR_INT32_MAX))
        return uc_error_invalid(call->pool, "maxFiles must be positive.");
    if (q->max_files > MAX_FILES_CAP)
        q->max_files = MAX_FILES_CAP;
    return NULL;
}

/* The parameters that decide which lines the pages of a query hold, as
 * the reference server's checksum of them has them: a page token binds
 * them (maxFiles may change from page to page). */
static const char *page_params(uc_call_t *call, const uc_sharing_query_t *q)
{
    json_t *params = uc_json_own(call->pool, json_object());

    json_object_set_new(params, "version", q->has_version
                        ? json_integer(q->version) : json_null());
    json_object_set_new(params, "timestamp",
                        uc_json_string_or_null(q->timestamp));
    json_object_set_new(params, "startingVersion", q->has_starting
                        ? json_integer(q->starting) : json_null());
    json_object_set_new(params, "endingVersion", q->has_ending
                        ? json_integer(q->ending) : json_null());
    json_object_set_new(params, "limitHint", q->has_limit
                        ? json_integer(q->limit) : json_null());
    json_object_set_new(params, "jsonPredicateHints",
                        uc_json_string_or_null(q->hints));
    json_object_set(params, "predicateHints",
                    json_object_get(call->body, "predicateHints"));
    /* An asynchronous query's pages are its own: neither another's nor
     * the synchronous query's. */
    if (q->query_id)
        json_object_set_new(params, "queryId", json_string(q->query_id));
    return uc_json_dump(call->pool, params);
}

/* What a token of this query is bound to: the recipient, the share, the
 * table, the route (a snapshot's pages or a startingVersion range's) and,
 * for a page token, the parameters of its pages. A refresh token serves
 * the same version to whatever hints the later query has, as the
 * reference server's does. */
static uc_sharing_token_scope_t token_scope(const uc_shared_t *s,
                                            const uc_sharing_query_t *q,
                                            const char *kind)
{
    uc_call_t *call = s->call;
    uc_sharing_token_scope_t scope;

    scope.kind = kind;
    scope.route = q->has_starting ? "query-changes" : "query-files";
    scope.recipient = call->recipient_id ? call->recipient_id : "";
    scope.share = call->chain.sec[UC_LEVEL_CATALOG]->id;
    scope.object = s->t->table->id;
    scope.params = strcmp(kind, "page token") ? "" : page_params(call, q);
    return scope;
}

/* A query page resumes where the first page's reading went on: at a file
 * of a snapshot ("<version>:<index>") or at a change of a startingVersion
 * range ("<end>:<index>"). */
static uc_error_t *page_token(const uc_shared_t *s,
                              const uc_sharing_query_t *q, apr_int64_t at,
                              apr_size_t index, const char **token)
{
    uc_call_t *call = s->call;
    uc_sharing_token_scope_t scope = token_scope(s, q, "page token");

    return uc_sharing_token_make(call->pool, call->secrets, &scope,
                                 apr_psprintf(call->pool, "%" APR_INT64_T_FMT
                                              ":%" APR_SIZE_T_FMT, at, index),
                                 apr_time_sec(call->now)
                                 + UC_SHARING_PAGE_TOKEN_SECONDS, token);
}

uc_error_t *uc_sharing_query_end(uc_shared_t *s, const uc_sharing_query_t *q,
                                 apr_int64_t at, const char *refresh_token,
                                 const uc_sharing_span_t *span,
                                 const uc_sharing_signer_t *signer)
{
    const char *next = NULL;
    uc_error_t *err;

    if (span->next && (err = page_token(s, q, at, span->next, &next)))
        return err;
    return uc_sharing_end_answer(s->call, next, refresh_token, span, signer);
}

uc_error_t *uc_sharing_query_page_token(uc_shared_t *s,
                                        const uc_sharing_query_t *q,
                                        apr_int64_t *at, apr_int64_t *index)
{
    uc_call_t *call = s->call;
    uc_sharing_token_scope_t scope = token_scope(s, q, "page token");
    const char *state;
    char *end;
    uc_error_t *err;

    if ((err = uc_sharing_token_read(call->pool, call->secrets, &scope,
                                     q->page_token, apr_time_sec(call->now),
                                     &state)))
        return err;
    /* The server wrote the state: a shape of its own is all it can be. */
    *at = apr_strtoi64(state, &end, 10);
    *index = *end == ':' ? apr_strtoi64(end + 1, &end, 10) : -1;
    if (*end || *at < 0 || *index < 0)
        return uc_error_because(call->pool, uc_error_internal(call->pool),
                                "page token state '%s'", state);
    return NULL;
}

/* The snapshot of `version`, which was the latest when a token or an
 * asynchronous query named it: read as the latest, if the recipient may
 * still read it. */
static uc_error_t *latest_at(uc_shared_t *s, apr_int64_t version,
                             uc_delta_snapshot_t **snap)
{
    uc_error_t *err = uc_shared_may_read(s, UC_REACH_LATEST, version);

    return err ? err : uc_shared_snapshot_at(s, version, snap);
}

/* The version a refresh token names: the latest when it was made. */
static uc_error_t *refreshed_snapshot(uc_shared_t *s,
                                      const uc_sharing_query_t *q,
                                      uc_delta_snapshot_t **snap)
{
    uc_call_t *call = s->call;
    uc_sharing_token_scope_t scope = token_scope(s, q, "refresh token");
    const char *state;
    apr_int64_t version;
    char *end;
    uc_error_t *err;

    if ((err = uc_sharing_token_read(call->pool, call->secrets, &scope,
                                     q->refresh_token,
                                     apr_time_sec(call->now), &state)))
        return err;
    version = apr_strtoi64(state, &end, 10);
    if (*end || version < 0)
        return uc_error_because(call->pool, uc_error_internal(call->pool),
                                "refresh token state '%s'", state);
    return latest_at(s, version, snap);
}

/* The snapshot a query reads: the one its page token names, else the
 * one its refresh token names, else what version or timestamp say. */
static uc_error_t *query_snapshot(uc_shared_t *s, const uc_sharing_query_t *q,
                                  uc_delta_snapshot_t **snap,
                                  apr_size_t *first, int *travelled)
{
    apr_int64_t version = 0, index = 0;
    uc_error_t *err;

    *first = 0;
    *travelled = 0;
    if (q->refresh_token)
        return refreshed_snapshot(s, q, snap);
    if (q->has_pinned && uc_sharing_first_page(q))
        return latest_at(s, q->pinned, snap);
    if ((err = uc_shared_snapshot_as_of(s, q->has_version, q->version,
                                        q->timestamp, snap, travelled)) ||
        uc_sharing_first_page(q) ||
        (err = uc_sharing_query_page_token(s, q, &version, &index)))
        return err;
    /* Pages of the latest snapshot stay at the version of the first and
     * keep its lines unversioned, whatever was committed since: a client
     * that pages checks that every page starts as the first did. A
     * travelling query's version is its parameters', which the token
     * binds; the log may still have lost it since. */
    if (*travelled ? (*snap)->version != version
                   : (err = latest_at(s, version, snap)) != NULL)
        return err ? err : uc_sharing_query_restart(s->call);
    if ((apr_size_t)index > (*snap)->num_files)
        return uc_sharing_query_restart(s->call);
    *first = (apr_size_t)index;
    return NULL;
}

uc_error_t *uc_sharing_read_hints(uc_call_t *call, uc_sharing_query_t *q,
                                  const char *metadata)
{
    if (!q->hints)
        return NULL;
    return uc_sharing_predicate_parse(call->pool, q->hints, metadata,
                                      &q->predicate);
}

/* The refresh token of the answer, when asked for: made before the
 * answer begins, as it can fail. */
static uc_error_t *make_refresh_token(uc_shared_t *s,
                                      const uc_sharing_query_t *q,
                                      apr_int64_t version, const char **token)
{
    uc_call_t *call = s->call;
    uc_sharing_token_scope_t scope;

    *token = NULL;
    if (!q->include_refresh)
        return NULL;
    scope = token_scope(s, q, "refresh token");
    return uc_sharing_token_make(call->pool, call->secrets, &scope,
                                 apr_psprintf(call->pool, "%" APR_INT64_T_FMT,
                                              version),
                                 apr_time_sec(call->now)
                                 + UC_SHARING_REFRESH_TOKEN_SECONDS, token);
}

/* The files of a snapshot. */
static uc_error_t *query_files(uc_shared_t *s, uc_sharing_query_t *q,
                               const uc_sharing_caps_t *caps)
{
    uc_call_t *call = s->call;
    uc_sharing_format_t format;
    uc_sharing_signer_t signer;
    uc_delta_snapshot_t *snap;
    uc_sharing_span_t span = { 0, 0, 0 };
    const char *refresh;
    int travelled;
    uc_error_t *err;

    if ((err = uc_shared_latest(s, &snap)) ||
        (err = query_snapshot(s, q, &snap, &span.first, &travelled)) ||
        (err = uc_sharing_choose_format(call->pool, caps, &snap->features,
                                        snap->metadata, &format)) ||
        (err = uc_sharing_read_hints(call, q, snap->metadata)) ||
        (err = make_refresh_token(s, q, snap->version, &refresh)) ||
        (err = uc_sharing_check_pages(call, q)))
        return err;
    if ((err = uc_sharing_sign_make(s, &signer)))
        return err;
    uc_sharing_answer_headers(call, snap->version, format, caps, 1);
    if ((err = uc_shared_write_head(s, format, snap->protocol,
                                    snap->metadata, travelled ? snap->version
                                    : UC_DELTA_NONE,
                                    UC_DELTA_NONE)) ||
        (err = uc_sharing_files_write(s, q, format, caps, snap, travelled,
                                      &signer, &span)))
        return err;
    /* Python takes every line after the metaData for a file: the end of
     * the stream is told only to clients that page or ask for it. */
    if (!q->has_max_files && !caps->include_end_stream && !refresh)
        return NULL;
    return uc_sharing_query_end(s, q, snap->version, refresh, &span, &signer);
}

uc_error_t *uc_sharing_query_answer(uc_shared_t *s, uc_sharing_query_t *q,
                                    const uc_sharing_caps_t *caps)
{
    return q->has_starting ? uc_sharing_changes_stream(s, q, caps)
                           : query_files(s, q, caps);
}

uc_error_t *uc_sharing_table_query(uc_call_t *call, uc_jw_t *out)
{
    uc_sharing_caps_t caps;
    uc_sharing_query_t q;
    uc_shared_t s;
    uc_error_t *err;

    (void)out;
    if ((err = uc_sharing_read_caps(call, &caps)) ||
        (err = uc_sharing_query_read(call, &q)) ||
        (err = uc_shared_open(call, &s)))
        return err;
    /* Only a client that said it reads queryStatus lines may get one:
     * Python's takes every line for a file. */
    if (caps.async_query)
        return uc_sharing_async_submit(&s, &q, &caps);
    return uc_sharing_query_answer(&s, &q, &caps);
}
