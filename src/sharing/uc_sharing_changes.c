/* SPDX-License-Identifier: Apache-2.0 */
/* What changed between versions: the change data feed (the changes
 * route) and the data changes of a startingVersion query, as Spark's
 * streaming source replays them, with the protocol and metaData lines of
 * the versions that changed them. */
#include "uc_shared.h"
#include "uc_sharing_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_validate.h"
#include "../http/uc_out.h"

/* --- changes ----------------------------------------------------------- */

/* One bound of a change range: a version or a timestamp, not both. */
static uc_error_t *read_bound(uc_shared_t *s, const char *which,
                              uc_delta_time_match_t match, int *given,
                              apr_int64_t *version)
{
    uc_call_t *call = s->call;
    const char *vname = apr_pstrcat(call->pool, which, "Version", NULL);
    const char *tname = apr_pstrcat(call->pool, which, "Timestamp", NULL);
    const char *ts = apr_table_get(call->query, tname);
    int has_version;
    uc_error_t *err;

    if ((err = uc_sharing_version_param(call, vname, version, &has_version)))
        return err;
    if (has_version && ts)
        return uc_error_invalid(call->pool, "Multiple %s arguments provided "
                                "for CDF read. Please provide one of either "
                                "%s or %s.", !strcmp(which, "starting")
                                ? "starting" : "ending", tname, vname);
    *given = has_version || ts;
    if (ts)
        return uc_shared_version_at(s, tname, ts, match, version);
    return NULL;
}

static uc_error_t *change_range(uc_shared_t *s, apr_int64_t *start,
                                apr_int64_t *end)
{
    uc_call_t *call = s->call;
    uc_delta_snapshot_t *last;
    int has_start, has_end;
    uc_error_t *err;

    if ((err = read_bound(s, "starting", UC_DELTA_AT_OR_AFTER, &has_start,
                          start)))
        return err;
    if (!has_start)
        return uc_error_invalid(call->pool, "No startingVersion or "
                                "startingTimestamp provided for CDF read.");
    if ((err = read_bound(s, "ending", UC_DELTA_AT_OR_BEFORE, &has_end,
                          end)) ||
        (err = uc_shared_latest(s, &last)))
        return err;
    if ((err = uc_shared_check_start(s, *start, last->version)))
        return err;
    if (!has_end || *end > last->version)
        *end = last->version;
    if (*end < *start)
        return uc_error_invalid(call->pool, "CDF range from start %"
                                APR_INT64_T_FMT " to end %" APR_INT64_T_FMT
                                " was invalid. End cannot be before start.",
                                *start, *end);
    return uc_shared_may_read(s, UC_REACH_CHANGES, *start);
}

/* Which actions of a range that changed the table go out before the
 * changes of their version (includeHistoricalMetadata, and in the delta
 * format includeHistoricalProtocol), and the next of each to write. */
typedef struct history {
    int metadata, protocol;
    int next_metadata, next_protocol;
} history_t;

static apr_int64_t next_of(const apr_array_header_t *versions, int wanted,
                           int next)
{
    return wanted && next < versions->nelts
           ? APR_ARRAY_IDX(versions, next, apr_int64_t) : APR_INT64_MAX;
}

/* The protocol and metaData lines of the versions of the range that
 * changed them, up to `version` (all of them with APR_INT64_MAX), each
 * with its version. */
static uc_error_t *write_history_until(uc_shared_t *s,
                                       uc_sharing_format_t format,
                                       const uc_delta_changes_t *changes,
                                       apr_int64_t version, history_t *h)
{
    uc_jw_t *jw = s->call->out->jw;
    uc_delta_snapshot_t *snap;
    uc_error_t *err;

    for (;;) {
        apr_int64_t pv = next_of(changes->protocol_versions, h->protocol,
                                 h->next_protocol);
        apr_int64_t mv = next_of(changes->metadata_versions, h->metadata,
                                 h->next_metadata);
        apr_int64_t v = pv < mv ? pv : mv;

        if (v == APR_INT64_MAX || v > version)
            return NULL;
        if ((err = uc_shared_snapshot_at(s, v, &snap)))
            return err;
        if (pv == v && ((err = uc_sharing_write_protocol_at(
                             jw, s->call->pool, format, snap->protocol, v)) ||
                        (err = uc_out_end_line(s->call->out))))
            return err;
        h->next_protocol += pv == v;
        if (mv == v && ((err = uc_sharing_write_metadata(
                             jw, s->call->pool, format, snap->metadata, v,
                             uc_shared_cdf(s), UC_DELTA_NONE,
                             UC_DELTA_NONE)) ||
                        (err = uc_out_end_line(s->call->out))))
            return err;
        h->next_metadata += mv == v;
    }
}

/* How many of `versions` a page from change `first` on has already
 * written: each went out before the changes of its version. */
static int versions_before(const uc_delta_changes_t *changes,
                           const apr_array_header_t *versions,
                           apr_size_t first)
{
    apr_int64_t done;
    int i;

    if (!first)
        return 0;
    done = APR_ARRAY_IDX(changes->changes, first - 1,
                         uc_delta_change_t).version;
    for (i = 0; i < versions->nelts &&
                APR_ARRAY_IDX(versions, i, apr_int64_t) <= done; i++)
        ;
    return i;
}

static history_t history_of(const uc_delta_changes_t *changes,
                            uc_sharing_format_t format, int metadata,
                            int protocol, apr_size_t first)
{
    history_t h;

    h.metadata = metadata;
    h.protocol = protocol && format == UC_SHARING_DELTA;
    h.next_metadata = versions_before(changes, changes->metadata_versions,
                                      first);
    h.next_protocol = versions_before(changes, changes->protocol_versions,
                                      first);
    return h;
}

/* The changes of the span that the share object's partitions and the
 * query's hints keep (`q` NULL: the changes route, no hints, no pages),
 * with the protocol and metaData lines of the range `h` asks for. */
static uc_error_t *write_changes(uc_shared_t *s, uc_sharing_format_t format,
                                 const uc_sharing_caps_t *caps,
                                 const uc_delta_changes_t *changes,
                                 history_t *h, const uc_sharing_query_t *q,
                                 const uc_sharing_signer_t *signer,
                                 uc_sharing_span_t *span)
{
    uc_call_t *call = s->call;
    apr_pool_t *lines;
    uc_sharing_filter_t filter;
    apr_size_t i;
    uc_error_t *err;

    if ((err = uc_sharing_filter_make(s, &filter)))
        return err;
    apr_pool_create(&lines, call->pool);
    for (i = span->first; i < (apr_size_t)changes->changes->nelts; i++) {
        const uc_delta_change_t *c = &APR_ARRAY_IDX(changes->changes, i,
                                                    uc_delta_change_t);
        if (uc_sharing_page_full(q, span)) {
            span->next = i;
            return NULL;
        }
        if (i % UC_SHARING_LINES_PER_POOL == 0)
            apr_pool_clear(lines);
        if ((err = write_history_until(s, format, changes, c->version, h)))
            return err;
        if (!uc_sharing_filter_keeps(&filter, q, lines, c->partition_values))
            continue;
        if ((err = uc_sharing_write_change(call->out->jw, lines, format,
                                           caps, c, signer)) ||
            (err = uc_out_end_line(call->out)))
            return uc_shared_error(s, err);
        ++span->written;
    }
    return write_history_until(s, format, changes, APR_INT64_MAX, h);
}

uc_error_t *uc_sharing_table_changes(uc_call_t *call, uc_jw_t *out)
{
    uc_sharing_caps_t caps;
    uc_sharing_format_t format;
    uc_sharing_signer_t signer;
    uc_delta_snapshot_t *last;
    uc_delta_changes_t *changes;
    apr_int64_t start, end;
    uc_sharing_span_t span = { 0, 0, 0 };
    int historical, with_protocol;
    history_t h;
    uc_shared_t s;
    uc_error_t *err;

    (void)out;
    if ((err = uc_sharing_read_caps(call, &caps)) ||
        (err = uc_validate_query_bool(call->pool,
                                      "includeHistoricalMetadata",
                                      apr_table_get(
                                          call->query,
                                          "includeHistoricalMetadata"),
                                      0, &historical)) ||
        (err = uc_validate_query_bool(call->pool,
                                      "includeHistoricalProtocol",
                                      apr_table_get(
                                          call->query,
                                          "includeHistoricalProtocol"),
                                      0, &with_protocol)) ||
        (err = uc_shared_open(call, &s)) ||
        (err = uc_shared_may_read(&s, UC_REACH_CHANGES, UC_DELTA_NONE)) ||
        (err = change_range(&s, &start, &end)) ||
        (err = uc_shared_latest(&s, &last)) ||
        (err = uc_sharing_choose_format(call->pool, &caps, &last->features,
                                        last->metadata, &format)))
        return err;
    if ((err = uc_delta_changes(s.log.delta, call->pool, start, end, &changes)))
        return uc_shared_error(&s, err);
    if ((err = uc_sharing_sign_make(&s, &signer)))
        return err;
    uc_sharing_answer_headers(call, start, format, &caps, 1);
    h = history_of(changes, format, historical, with_protocol, 0);
    if ((err = uc_shared_write_head(&s, format,
                                    h.protocol || historical
                                        ? changes->protocol : last->protocol,
                                    historical ? changes->metadata
                                               : last->metadata,
                                    historical ? start : last->version,
                                    h.protocol ? start : UC_DELTA_NONE)) ||
        (err = write_changes(&s, format, &caps, changes, &h, NULL, &signer,
                             &span)))
        return err;
    if (!caps.include_end_stream)
        return NULL;
    return uc_sharing_end_answer(call, NULL, NULL, &span, &signer);
}

/* --- startingVersion ----------------------------------------------------- */

/* The last version a startingVersion query reads: its endingVersion or
 * the latest, whichever comes first; a later page reads to where its
 * first page did, and resumes at change *first. */
static uc_error_t *stream_end(uc_shared_t *s, const uc_sharing_query_t *q,
                              apr_int64_t *end, apr_size_t *first)
{
    uc_delta_snapshot_t *last;
    apr_int64_t at, index;
    uc_error_t *err;

    *first = 0;
    if ((err = uc_shared_may_read(s, UC_REACH_HISTORY, q->starting)) ||
        (err = uc_shared_latest(s, &last)) ||
        (err = uc_shared_check_start(s, q->starting, last->version)))
        return err;
    *end = q->has_ending && q->ending < last->version ? q->ending
                                                      : last->version;
    if (uc_sharing_first_page(q))
        return NULL;
    /* Later pages read to where the first did: within the range the
     * parameters (bound by the token) still name. */
    if ((err = uc_sharing_query_page_token(s, q, &at, &index)))
        return err;
    if (at < q->starting || at > *end)
        return uc_sharing_query_restart(s->call);
    *end = at;
    *first = (apr_size_t)index;
    return NULL;
}

uc_error_t *uc_sharing_changes_stream(uc_shared_t *s, uc_sharing_query_t *q,
                                      const uc_sharing_caps_t *caps)
{
    uc_call_t *call = s->call;
    uc_sharing_format_t format;
    uc_sharing_signer_t signer;
    uc_delta_changes_t *changes;
    uc_sharing_span_t span = { 0, 0, 0 };
    apr_int64_t end;
    history_t h;
    uc_error_t *err;

    if ((err = stream_end(s, q, &end, &span.first)))
        return err;
    if ((err = uc_delta_data_changes(s->log.delta, call->pool, q->starting, end,
                                     &changes)))
        return uc_shared_error(s, err);
    if (span.first > (apr_size_t)changes->changes->nelts)
        return uc_sharing_query_restart(call);
    if ((err = uc_sharing_choose_format(call->pool, caps, &changes->features,
                                        changes->metadata, &format)) ||
        (err = uc_sharing_read_hints(call, q, changes->metadata)) ||
        (err = uc_sharing_check_pages(call, q)) ||
        (err = uc_sharing_sign_make(s, &signer)))
        return err;
    uc_sharing_answer_headers(call, q->starting, format, caps, 1);
    h = history_of(changes, format, 1, q->include_protocol, span.first);
    if ((err = uc_shared_write_head(s, format, changes->protocol,
                                    changes->metadata, q->starting,
                                    h.protocol ? q->starting
                                               : UC_DELTA_NONE)) ||
        (err = write_changes(s, format, caps, changes, &h, q, &signer,
                             &span)))
        return err;
    if (!q->has_max_files && !caps->include_end_stream)
        return NULL;
    return uc_sharing_query_end(s, q, end, NULL, &span, &signer);
}
