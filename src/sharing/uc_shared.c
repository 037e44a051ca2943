/* SPDX-License-Identifier: Apache-2.0 */
/* The shared table a call is about: found in the share as the recipient
 * names it, its Delta log opened with the credentials of its storage; its
 * snapshots, held for the call; the one check of which versions a
 * recipient may read (uc_shared_may_read); the reader's errors as a
 * recipient may see them; and the routes that answer with the table's
 * version and metadata. */
#include "uc_shared.h"
#include "uc_sharing_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_time.h"
#include "../http/uc_out.h"

static int history_shared(const uc_shared_t *s)
{
    return !strcmp(s->t->object->history_data_sharing_status, "ENABLED");
}

static apr_int64_t start_version(const uc_shared_t *s)
{
    return s->t->object->start_version
           ? apr_atoi64(s->t->object->start_version) : 0;
}

/* The recipient gets `message`, which names the table as the share does;
 * the provider's side of it (paths, locations, credentials) goes to the
 * cause, for the log. */
static uc_error_t *hide_cause(uc_shared_t *s, uc_error_t *err,
                              const char *message)
{
    uc_error_because(s->call->pool, err, "table %s: %s", s->label,
                     err->cause ? err->cause : err->message);
    err->message = apr_psprintf(s->call->pool, message, s->label);
    return err;
}

/* Whether `message` says where the table's data lies: a URL, or the
 * table's location or its path. The reader names "the table" only, but
 * what the stores and the clouds below it say is theirs. */
static int names_storage(const uc_shared_t *s, const char *message)
{
    const char *location = s->t->table->storage_location;
    const char *authority = strstr(location, "://");
    const char *path = authority ? strchr(authority + 3, '/') : NULL;

    return strstr(message, "://") || strstr(message, location) ||
           (path && path[1] && strstr(message, path));
}

uc_error_t *uc_shared_error(uc_shared_t *s, uc_error_t *err)
{
    if (!err)
        return NULL;
    if (err->kind == UC_E_NOT_FOUND)
        uc_error_recast(err, UC_E_RESOURCE_DOES_NOT_EXIST);
    if (err->status >= 500) {
        if (err->kind != UC_E_UNAVAILABLE)
            uc_error_recast(err, UC_E_MALFORMED_REQUEST);
        return hide_cause(s, err, "The data of table %s cannot be read; "
                          "please contact your share provider.");
    }
    if (names_storage(s, err->message))
        return hide_cause(s, err, "Table %s cannot be read as asked; "
                          "please contact your share provider.");
    return err;
}

uc_error_t *uc_shared_storage_error(uc_shared_t *s, uc_error_t *err)
{
    if (err->kind == UC_E_UNSUPPORTED_OPERATION &&
        !names_storage(s, err->message))
        return err;
    if (err->kind != UC_E_UNAVAILABLE)
        uc_error_recast(err, UC_E_MALFORMED_REQUEST);
    return hide_cause(s, err, "The storage of table %s cannot be reached; "
                      "please contact your share provider.");
}

uc_error_t *uc_shared_not_found(uc_call_t *call)
{
    return uc_error_make(call->pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                         "[Share/Schema/Table] '%s/%s/%s' does not exist, "
                         "please contact your share provider for further "
                         "information.", call->params[0], call->params[1],
                         call->params[2]);
}

uc_error_t *uc_shared_open(uc_call_t *call, uc_shared_t *s)
{
    uc_shared_table_t *t;
    uc_error_t *err;

    memset(s, 0, sizeof(*s));
    s->call = call;
    if ((err = uc_sharing_table_find(call, call->chain.sec[UC_LEVEL_CATALOG],
                                     call->params[1], call->params[2], &t)))
        return err;
    if (!t)
        return uc_shared_not_found(call);
    s->t = t;
    s->label = apr_pstrcat(call->pool, call->params[0], ".", call->params[1],
                           ".", call->params[2], NULL);
    if ((err = uc_table_log_open(call, t->table, &s->log)))
        return s->log.config ? uc_shared_error(s, err)
                             : uc_shared_storage_error(s, err);
    return NULL;
}

uc_error_t *uc_shared_latest(uc_shared_t *s, uc_delta_snapshot_t **out)
{
    return uc_shared_error(s, uc_table_log_latest(&s->log, out));
}

uc_error_t *uc_shared_snapshot_at(uc_shared_t *s, apr_int64_t version,
                                  uc_delta_snapshot_t **out)
{
    return uc_shared_error(s, uc_table_log_at(&s->log, version, out));
}

int uc_shared_cdf(const uc_shared_t *s)
{
    return !strcmp(s->t->object->cdf_enabled, "1") && history_shared(s);
}

uc_error_t *uc_shared_may_read(uc_shared_t *s, uc_shared_reach_t how,
                               apr_int64_t version)
{
    uc_delta_snapshot_t *last;
    uc_error_t *err;

    if (how == UC_REACH_CHANGES && !uc_shared_cdf(s))
        return uc_error_invalid(s->call->pool, "cdf is not enabled on "
                                "table %s", s->label);
    if (how == UC_REACH_HISTORY && !history_shared(s))
        return uc_error_invalid(s->call->pool, "Reading table by version "
                                "or timestamp is not supported because "
                                "history sharing is not enabled on table: "
                                "%s", s->label);
    if (version == UC_DELTA_NONE || version >= start_version(s))
        return NULL;
    if (how == UC_REACH_LATEST) {
        if ((err = uc_shared_latest(s, &last)))
            return err;
        if (last->version == version)
            return NULL;
    }
    return uc_error_invalid(s->call->pool, "You can only query table %s "
                            "since version %" APR_INT64_T_FMT ".",
                            how == UC_REACH_CHANGES ? "changes" : "data",
                            start_version(s));
}

uc_error_t *uc_shared_check_start(uc_shared_t *s, apr_int64_t start,
                                  apr_int64_t latest_version)
{
    if (start <= latest_version)
        return NULL;
    return uc_error_invalid(s->call->pool, "Provided Start version(%"
                            APR_INT64_T_FMT ") for reading change data is "
                            "invalid. Start version cannot be greater than "
                            "the latest version of the table(%"
                            APR_INT64_T_FMT ").", start, latest_version);
}

uc_error_t *uc_sharing_version_param(uc_call_t *call, const char *name,
                                     apr_int64_t *v, int *present)
{
    const char *text = apr_table_get(call->query, name), *p;

    *present = text != NULL;
    *v = 0;
    if (!text)
        return NULL;
    for (p = text; *p >= '0' && *p <= '9' && p - text < 18; p++)
        *v = *v * 10 + (*p - '0');
    if (!*text || *p)
        return uc_error_invalid(call->pool, "%s is not a valid number.",
                                name);
    return NULL;
}

static uc_error_t *parse_timestamp(uc_call_t *call, const char *name,
                                   const char *text, apr_int64_t *ms)
{
    if (uc_time_parse_iso8601(text, ms))
        return NULL;
    return uc_error_invalid(call->pool, "Invalid %s: '%s' is not an "
                            "ISO-8601 timestamp such as "
                            "2022-01-01T00:00:00Z.", name, text);
}

uc_error_t *uc_shared_version_at(uc_shared_t *s, const char *name,
                                 const char *text, uc_delta_time_match_t match,
                                 apr_int64_t *version)
{
    uc_delta_snapshot_t *last;
    apr_int64_t ms;
    uc_error_t *err;

    if ((err = parse_timestamp(s->call, name, text, &ms)) ||
        (err = uc_shared_latest(s, &last)))
        return err;
    return uc_shared_error(s, uc_delta_version_at(s->log.delta, last, ms, match,
                                                  version));
}

uc_error_t *uc_shared_snapshot_as_of(uc_shared_t *s, int has_version,
                                     apr_int64_t version,
                                     const char *timestamp,
                                     uc_delta_snapshot_t **out, int *travelled)
{
    uc_error_t *err;

    *travelled = has_version || timestamp;
    if (!*travelled)
        return uc_shared_latest(s, out);
    if ((err = uc_shared_may_read(s, UC_REACH_HISTORY, UC_DELTA_NONE)) ||
        (timestamp &&
         (err = uc_shared_version_at(s, "timestamp", timestamp,
                                     UC_DELTA_AT_OR_BEFORE, &version))) ||
        (err = uc_shared_may_read(s, UC_REACH_HISTORY, version)))
        return err;
    return uc_shared_snapshot_at(s, version, out);
}

static void set_version_header(uc_call_t *call, apr_int64_t version)
{
    apr_table_set(call->headers_out, "Delta-Table-Version",
                  apr_psprintf(call->pool, "%" APR_INT64_T_FMT, version));
}

uc_error_t *uc_sharing_table_version(uc_call_t *call, uc_jw_t *out)
{
    const char *since = apr_table_get(call->query, "startingTimestamp");
    uc_delta_snapshot_t *snap;
    apr_int64_t version;
    uc_shared_t s;
    uc_error_t *err;

    (void)out;
    if ((err = uc_shared_open(call, &s)))
        return err;
    if (!since) {
        if ((err = uc_shared_latest(&s, &snap)))
            return err;
        set_version_header(call, snap->version);
        return NULL;
    }
    if ((err = uc_shared_may_read(&s, UC_REACH_HISTORY, UC_DELTA_NONE)) ||
        (err = uc_shared_version_at(&s, "startingTimestamp", since,
                                    UC_DELTA_AT_OR_AFTER, &version)) ||
        (err = uc_shared_may_read(&s, UC_REACH_HISTORY, version)))
        return err;
    set_version_header(call, version);
    return NULL;
}

uc_error_t *uc_sharing_read_caps(uc_call_t *call, uc_sharing_caps_t *caps)
{
    uc_error_t *err;

    memset(caps, 0, sizeof(*caps));
    if ((err = uc_sharing_caps_parse(call->pool,
                                     apr_table_get(call->headers_in,
                                                   "delta-sharing-"
                                                   "capabilities"),
                                     caps)))
        return err;
    return uc_sharing_fileidhash_parse(call->pool,
                                       apr_table_get(call->headers_in,
                                                     "fileidhash"),
                                       caps);
}

void uc_sharing_answer_headers(uc_call_t *call, apr_int64_t version,
                               uc_sharing_format_t format,
                               const uc_sharing_caps_t *caps, int echo_caps)
{
    set_version_header(call, version);
    apr_table_set(call->headers_out, "delta-sharing-capabilities",
                  uc_sharing_caps_answer(call->pool, format,
                                         echo_caps ? caps : NULL));
    if (caps->file_id_hash)
        apr_table_set(call->headers_out, "fileidhash", caps->file_id_hash);
}

uc_error_t *uc_shared_write_head(uc_shared_t *s, uc_sharing_format_t format,
                                 const char *protocol, const char *metadata,
                                 apr_int64_t version,
                                 apr_int64_t protocol_version)
{
    uc_call_t *call = s->call;
    uc_error_t *err;

    if ((err = uc_sharing_write_protocol_at(call->out->jw, call->pool,
                                            format, protocol,
                                            protocol_version)) ||
        (err = uc_out_end_line(call->out)) ||
        (err = uc_sharing_write_metadata(call->out->jw, call->pool, format,
                                         metadata, version, uc_shared_cdf(s),
                                         UC_DELTA_NONE, UC_DELTA_NONE)))
        return err;
    return uc_out_end_line(call->out);
}

uc_error_t *uc_sharing_table_metadata(uc_call_t *call, uc_jw_t *out)
{
    uc_sharing_caps_t caps;
    uc_sharing_format_t format;
    uc_delta_snapshot_t *snap;
    apr_int64_t version;
    int has_version, travelled;
    const char *timestamp = apr_table_get(call->query, "timestamp");
    uc_shared_t s;
    uc_error_t *err;

    (void)out;
    if ((err = uc_sharing_read_caps(call, &caps)) ||
        (err = uc_sharing_version_param(call, "version", &version,
                                        &has_version)))
        return err;
    if (has_version && timestamp)
        return uc_error_invalid(call->pool, "Please only provide one of: "
                                "version,timestamp");
    if ((err = uc_shared_open(call, &s)) ||
        (err = uc_shared_snapshot_as_of(&s, has_version, version, timestamp,
                                        &snap, &travelled)) ||
        (err = uc_sharing_choose_format(call->pool, &caps, &snap->features,
                                        snap->metadata, &format)))
        return err;
    uc_sharing_answer_headers(call, snap->version, format, &caps, 0);
    return uc_shared_write_head(&s, format, snap->protocol, snap->metadata,
                                travelled ? snap->version : UC_DELTA_NONE,
                                UC_DELTA_NONE);
}
