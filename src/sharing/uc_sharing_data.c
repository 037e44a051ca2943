/* SPDX-License-Identifier: Apache-2.0 */
/* The routes on one shared table: its version, its metadata, the files of
 * a snapshot or the data changes since a version (query) and its change
 * data feed (changes). The table's Delta log is read here; the lines are
 * written by uc_sharing_lines.h, the file URLs signed by uc_file_url.h,
 * page and refresh tokens made and checked by uc_sharing_token.h.
 *
 * What the share object says is enforced: time travel and changes need
 * history sharing, nothing before its start_version is shown, changes
 * need its change data feed (may_read decides, whatever named the
 * version: the request or a token), and its partitions filter the
 * files. */
#include "uc_sharing_api.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <apr_strings.h>

#include "uc_file_url.h"
#include "uc_sharing_predicate.h"
#include "uc_sharing_lines.h"
#include "uc_sharing_tables.h"
#include "uc_sharing_token.h"
#include "../core/uc_in_order.h"
#include "../core/uc_json.h"
#include "../core/uc_metrics.h"
#include "../core/uc_percent.h"
#include "../core/uc_time.h"
#include "../core/uc_validate.h"
#include "../delta/uc_delta.h"
#include "../http/uc_out.h"
#include "../vend/uc_table_store.h"

#define MAX_FILES_CAP 10000
/* A line's memory is given back every this many lines. */
#define LINES_PER_POOL 256

/* The table a call is about, as the recipient names it, and its log. */
typedef struct shared {
    uc_call_t *call;
    const uc_shared_table_t *t;
    const char *label;             /* share.schema.table, as named */
    uc_delta_table_t *delta;
    uc_delta_snapshot_t *latest;   /* read once, when needed */
    const uc_objstore_config_t *config;  /* how its files are reached */
    apr_time_t valid_until;        /* when config's credentials expire; 0:
                                    * they do not */
} shared_t;

static int history_shared(const shared_t *s)
{
    return !strcmp(s->t->object->history_data_sharing_status, "ENABLED");
}

static apr_int64_t start_version(const shared_t *s)
{
    return s->t->object->start_version
           ? apr_atoi64(s->t->object->start_version) : 0;
}

/* The recipient gets `message`, which names the table as the share does;
 * the provider's side of it (paths, locations, credentials) goes to the
 * cause, for the log. */
static uc_error_t *hide_cause(shared_t *s, uc_error_t *err,
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
static int names_storage(const shared_t *s, const char *message)
{
    const char *location = s->t->table->storage_location;
    const char *authority = strstr(location, "://");
    const char *path = authority ? strchr(authority + 3, '/') : NULL;

    return strstr(message, "://") || strstr(message, location) ||
           (path && path[1] && strstr(message, path));
}

/* The reader's errors in the protocol's terms, as a recipient may see
 * them: permanent conditions of the table are 4xx (503 only while the
 * storage cannot be reached: clients retry 5xx for minutes), and no
 * message tells where the provider keeps the table, whatever its status. */
static uc_error_t *table_error(shared_t *s, uc_error_t *err)
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

/* Getting the credentials of the table's storage failed. A scheme the
 * server cannot read says which. */
static uc_error_t *storage_error(shared_t *s, uc_error_t *err)
{
    if (err->kind == UC_E_UNSUPPORTED_OPERATION &&
        !names_storage(s, err->message))
        return err;
    if (err->kind != UC_E_UNAVAILABLE)
        uc_error_recast(err, UC_E_MALFORMED_REQUEST);
    return hide_cause(s, err, "The storage of table %s cannot be reached; "
                      "please contact your share provider.");
}

static uc_error_t *not_found(uc_call_t *call)
{
    return uc_error_make(call->pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                         "[Share/Schema/Table] '%s/%s/%s' does not exist, "
                         "please contact your share provider for further "
                         "information.", call->params[0], call->params[1],
                         call->params[2]);
}

static uc_error_t *open_shared(uc_call_t *call, shared_t *s)
{
    uc_shared_table_t *t;
    uc_error_t *err;

    memset(s, 0, sizeof(*s));
    s->call = call;
    if ((err = uc_sharing_table_find(call, call->chain.sec[UC_LEVEL_CATALOG],
                                     call->params[1], call->params[2], &t)))
        return err;
    if (!t)
        return not_found(call);
    s->t = t;
    s->label = apr_pstrcat(call->pool, call->params[0], ".", call->params[1],
                           ".", call->params[2], NULL);
    if ((err = uc_table_store_config(call, t->table->storage_location,
                                     &s->config, &s->valid_until)))
        return storage_error(s, err);
    return table_error(s, uc_delta_table_open(call->pool,
                                              t->table->storage_location,
                                              s->config, &s->delta));
}

static apr_status_t release_snapshot(void *snapshot)
{
    uc_delta_snapshot_release(snapshot);
    return APR_SUCCESS;
}

/* The call holds the snapshot until its pool goes. */
static uc_delta_snapshot_t *held(shared_t *s, uc_delta_snapshot_t *snap)
{
    apr_pool_cleanup_register(s->call->pool, snap, release_snapshot,
                              apr_pool_cleanup_null);
    return snap;
}

static uc_error_t *latest(shared_t *s, uc_delta_snapshot_t **out)
{
    uc_delta_snapshot_t *snap;
    uc_error_t *err;

    if (!s->latest) {
        err = s->call->snapshots
              ? uc_delta_cache_latest(s->call->snapshots, s->delta, &snap)
              : uc_delta_snapshot(s->delta, UC_DELTA_LATEST, &snap);
        if (err)
            return table_error(s, err);
        s->latest = held(s, snap);
    }
    *out = s->latest;
    return NULL;
}

static uc_error_t *snapshot_at(shared_t *s, apr_int64_t version,
                               uc_delta_snapshot_t **out)
{
    uc_delta_snapshot_t *snap;
    uc_error_t *err;

    if (s->latest && s->latest->version == version) {
        *out = s->latest;
        return NULL;
    }
    if ((err = uc_delta_snapshot(s->delta, version, &snap)))
        return table_error(s, err);
    *out = held(s, snap);
    return NULL;
}

static int cdf_shared(const shared_t *s)
{
    return !strcmp(s->t->object->cdf_enabled, "1") && history_shared(s);
}

/* How a request reaches a version of the table. */
typedef enum reach {
    /* The latest snapshot, or the version that a page token or a refresh
     * token of a query of the latest snapshot continues. */
    REACH_LATEST,
    /* A version the request names: time travel, startingVersion. */
    REACH_HISTORY,
    /* The change data feed from a version on. */
    REACH_CHANGES
} reach_t;

/* The one place that decides which versions a recipient may read. It is
 * asked before a version is resolved (UC_DELTA_NONE: may the recipient
 * read this way at all; nothing of the table's history is looked at
 * unless so) and again for the version: whatever is not the latest
 * snapshot needs history sharing, the change data feed needs the share's
 * too, and no version before the share's start_version is shown but the
 * latest. A version a token continues is the latest a first page read,
 * served on as the reference server does. */
static uc_error_t *may_read(shared_t *s, reach_t how, apr_int64_t version)
{
    uc_delta_snapshot_t *last;
    uc_error_t *err;

    if (how == REACH_CHANGES && !cdf_shared(s))
        return uc_error_invalid(s->call->pool, "cdf is not enabled on "
                                "table %s", s->label);
    if (how == REACH_HISTORY && !history_shared(s))
        return uc_error_invalid(s->call->pool, "Reading table by version "
                                "or timestamp is not supported because "
                                "history sharing is not enabled on table: "
                                "%s", s->label);
    if (version == UC_DELTA_NONE || version >= start_version(s))
        return NULL;
    if (how == REACH_LATEST) {
        if ((err = latest(s, &last)))
            return err;
        if (last->version == version)
            return NULL;
    }
    return uc_error_invalid(s->call->pool, "You can only query table %s "
                            "since version %" APR_INT64_T_FMT ".",
                            how == REACH_CHANGES ? "changes" : "data",
                            start_version(s));
}

/* The reference's words for a start past the table's end, in changes and
 * in startingVersion queries alike. */
static uc_error_t *check_not_after_latest(shared_t *s, apr_int64_t start,
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

/* A non-negative decimal number of a query parameter; *present 0 when
 * absent. */
static uc_error_t *query_version(uc_call_t *call, const char *name,
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

/* The version commits at `ms` resolve to, as `match` picks. */
static uc_error_t *version_at(shared_t *s, const char *name,
                              const char *text, uc_delta_time_match_t match,
                              apr_int64_t *version)
{
    uc_delta_snapshot_t *last;
    apr_int64_t ms;
    uc_error_t *err;

    if ((err = parse_timestamp(s->call, name, text, &ms)) ||
        (err = latest(s, &last)))
        return err;
    return table_error(s, uc_delta_version_at(s->delta, last, ms, match,
                                              version));
}

/* The snapshot a version or a timestamp names (both NULL / absent: the
 * latest); *travelled tells whether it was asked for. */
static uc_error_t *snapshot_as_of(shared_t *s, int has_version,
                                  apr_int64_t version, const char *timestamp,
                                  uc_delta_snapshot_t **out, int *travelled)
{
    uc_error_t *err;

    *travelled = has_version || timestamp;
    if (!*travelled)
        return latest(s, out);
    if ((err = may_read(s, REACH_HISTORY, UC_DELTA_NONE)) ||
        (timestamp && (err = version_at(s, "timestamp", timestamp,
                                        UC_DELTA_AT_OR_BEFORE, &version))) ||
        (err = may_read(s, REACH_HISTORY, version)))
        return err;
    return snapshot_at(s, version, out);
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
    shared_t s;
    uc_error_t *err;

    (void)out;
    if ((err = open_shared(call, &s)))
        return err;
    if (!since) {
        if ((err = latest(&s, &snap)))
            return err;
        set_version_header(call, snap->version);
        return NULL;
    }
    if ((err = may_read(&s, REACH_HISTORY, UC_DELTA_NONE)) ||
        (err = version_at(&s, "startingTimestamp", since,
                          UC_DELTA_AT_OR_AFTER, &version)) ||
        (err = may_read(&s, REACH_HISTORY, version)))
        return err;
    set_version_header(call, version);
    return NULL;
}

/* --- capabilities and headers ------------------------------------------ */

static uc_error_t *read_caps(uc_call_t *call, uc_sharing_caps_t *caps)
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

/* The headers of an NDJSON answer: its version, its format (the echo of
 * includeendstreamaction only where `echo_caps`), the fileidhash echo. */
static void set_answer_headers(uc_call_t *call, apr_int64_t version,
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

/* The protocol and metaData lines an answer starts with; `version` goes
 * on the metaData line, `protocol_version` on the protocol line (both
 * UC_DELTA_NONE: none). */
static uc_error_t *write_head_at(shared_t *s, uc_sharing_format_t format,
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
                                         metadata, version, cdf_shared(s),
                                         UC_DELTA_NONE, UC_DELTA_NONE)))
        return err;
    return uc_out_end_line(call->out);
}

static uc_error_t *write_head(shared_t *s, uc_sharing_format_t format,
                              const char *protocol, const char *metadata,
                              apr_int64_t version)
{
    return write_head_at(s, format, protocol, metadata, version,
                         UC_DELTA_NONE);
}

uc_error_t *uc_sharing_table_metadata(uc_call_t *call, uc_jw_t *out)
{
    uc_sharing_caps_t caps;
    uc_sharing_format_t format;
    uc_delta_snapshot_t *snap;
    apr_int64_t version;
    int has_version, travelled;
    const char *timestamp = apr_table_get(call->query, "timestamp");
    shared_t s;
    uc_error_t *err;

    (void)out;
    if ((err = read_caps(call, &caps)) ||
        (err = query_version(call, "version", &version, &has_version)))
        return err;
    if (has_version && timestamp)
        return uc_error_invalid(call->pool, "Please only provide one of: "
                                "version,timestamp");
    if ((err = open_shared(call, &s)) ||
        (err = snapshot_as_of(&s, has_version, version, timestamp, &snap,
                              &travelled)) ||
        (err = uc_sharing_choose_format(call->pool, &caps, &snap->features,
                                        snap->metadata, &format)))
        return err;
    set_answer_headers(call, snap->version, format, &caps, 0);
    return write_head(&s, format, snap->protocol, snap->metadata,
                      travelled ? snap->version : UC_DELTA_NONE);
}

/* --- signing ----------------------------------------------------------- */

/* Local files go out through the module's signed files route, under the
 * sharing mount. */
static uc_error_t *sign_local(void *baton, apr_pool_t *pool,
                              const char *log_path, apr_size_t path_len,
                              const char **url, apr_size_t *url_len)
{
    /* Most paths hold no escape: they are their own key. */
    const char *key = log_path;
    apr_size_t key_len = path_len;

    if (memchr(log_path, '%', path_len) &&
        (key = uc_percent_decode(pool, log_path)))
        key_len = strlen(key);
    if (!key || !*key || *key == '/')
        return uc_error_make(pool, UC_E_UNSUPPORTED_OPERATION,
                             "table containing absolute paths cannot be "
                             "shared");
    return uc_file_url_sign(baton, pool, key, key_len, url, url_len);
}

/* Cloud files go out as the store's own pre-signed URLs. */
typedef struct cloud_signer {
    uc_objstore_t *store;
    apr_int64_t seconds;           /* how long each URL stays valid */
    apr_time_t now;
} cloud_signer_t;

static uc_error_t *sign_cloud(void *baton, apr_pool_t *pool,
                              const char *log_path, apr_size_t path_len,
                              const char **url, apr_size_t *url_len)
{
    const cloud_signer_t *c = baton;
    const char *key = uc_percent_decode(pool, log_path);
    uc_error_t *err;

    (void)path_len;
    if (!key || !uc_objstore_key_is_safe(key) || !*key)
        return uc_error_make(pool, UC_E_MALFORMED_DELTA_LOG, "The table's "
                             "log names the file '%s', which is not inside "
                             "the table.", log_path);
    if ((err = uc_objstore_presign(c->store, pool, key, c->seconds, c->now,
                                   url)))
        return err;
    *url_len = strlen(*url);
    return NULL;
}

/* The first second no file URL of this answer is good at: the server's
 * lifetime for them, cut short by the credentials that sign cloud ones. */
static apr_int64_t urls_expire(const shared_t *s)
{
    apr_int64_t at = apr_time_sec(s->call->now) + s->call->url_lifetime;

    if (s->valid_until && apr_time_sec(s->valid_until) < at)
        at = apr_time_sec(s->valid_until);
    return at;
}

static uc_error_t *make_cloud_signer(shared_t *s, apr_int64_t expires,
                                     uc_sharing_signer_t *signer)
{
    uc_call_t *call = s->call;
    cloud_signer_t *c = apr_pcalloc(call->pool, sizeof(*c));
    uc_error_t *err;

    c->now = call->now;
    c->seconds = expires - apr_time_sec(call->now);
    if (c->seconds < 1)
        return uc_error_make(call->pool, UC_E_UNAVAILABLE, "The table's "
                             "storage credentials are expiring; please "
                             "try again.");
    if ((err = uc_objstore_open(call->pool, s->t->table->storage_location,
                                s->config, &c->store)))
        return storage_error(s, err);
    signer->sign = sign_cloud;
    signer->baton = c;
    return NULL;
}

static uc_error_t *make_signer(shared_t *s, uc_sharing_signer_t *signer)
{
    uc_call_t *call = s->call;
    apr_int64_t expires = urls_expire(s);
    uc_file_url_signer_t *files;
    uc_error_t *err;

    uc_sharing_signer_expire(signer, expires * 1000);
    signer->metrics = call->metrics;
    signer->tally = NULL;
    signer->plain_urls = 0;
    if (strncmp(s->t->table->storage_location, "file:", 5))
        return make_cloud_signer(s, expires, signer);
    if ((err = uc_file_url_signer_make(call->pool, call->secrets,
                                       apr_pstrcat(call->pool, call->api_url,
                                                   "/files", NULL),
                                       s->t->table->id, expires, &files)))
        return err;
    signer->sign = sign_local;
    signer->baton = files;
    signer->plain_urls = uc_file_url_signer_plain(files);
    return NULL;
}

/* --- partitions of the share object ------------------------------------ */

/* SQL LIKE: % any run, _ any one byte. */
static int like(const char *s, const char *p)
{
    for (; *p; p++, s++) {
        if (*p == '%') {
            while (*p == '%')
                p++;
            if (!*p)
                return 1;
            for (; *s; s++)
                if (like(s, p))
                    return 1;
            return 0;
        }
        if (!*s || (*p != '_' && *p != *s))
            return 0;
    }
    return !*s;
}

/* The value of a partition column, matched without case as Delta does;
 * NULL for a null or a missing one. */
static const char *partition_value(json_t *values, const char *column)
{
    const char *key;
    json_t *v;

    json_object_foreach(values, key, v)
        if (!strcasecmp(key, column))
            return json_string_value(v);
    return NULL;
}

/* Which files a recipient sees of a table shared with partitions: those
 * whose partition values match every value of one of them. */
typedef struct filter {
    json_t *partitions;            /* NULL: every file */
    json_t *recipient_properties;
} filter_t;

static uc_error_t *make_filter(shared_t *s, filter_t *f)
{
    uc_call_t *call = s->call;
    uc_securable_t *recipient;
    uc_error_t *err;

    memset(f, 0, sizeof(*f));
    if (!s->t->object->partitions)
        return NULL;
    f->partitions = uc_json_own(call->pool,
                                json_loads(s->t->object->partitions, 0,
                                           NULL));
    if ((err = uc_securable_by_id(call->store, call->pool,
                                  call->recipient_id, &recipient)))
        return err;
    f->recipient_properties = recipient && recipient->properties
        ? uc_json_own(call->pool, json_loads(recipient->properties, 0, NULL))
        : NULL;
    return NULL;
}

static int value_matches(const filter_t *f, json_t *values, json_t *want)
{
    const char *column = json_string_value(json_object_get(want, "name"));
    const char *op = json_string_value(json_object_get(want, "op"));
    const char *expected = json_string_value(json_object_get(want, "value"));
    const char *key = json_string_value(json_object_get(
        want, "recipient_property_key"));
    const char *actual = partition_value(values, column);

    if (key)
        expected = json_string_value(json_object_get(
            f->recipient_properties, key));
    if (!actual || !expected)
        return 0;
    return !strcmp(op, "LIKE") ? like(actual, expected)
                               : !strcmp(actual, expected);
}

static int passes(const filter_t *f, apr_pool_t *pool,
                  const char *partition_values)
{
    json_t *values, *p, *v;
    size_t i, j;
    int ok = 0;

    if (!f->partitions)
        return 1;
    values = uc_json_own(pool, json_loads(partition_values, 0, NULL));
    json_array_foreach(f->partitions, i, p) {
        ok = 1;
        json_array_foreach(json_object_get(p, "values"), j, v)
            ok = ok && value_matches(f, values, v);
        if (ok)
            break;
    }
    return ok;
}

/* --- what a page writes ------------------------------------------------ */

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
} query_t;

/* Whether a file with these partition values goes to the recipient: the
 * share object's partitions and the query's hints (`q` NULL: none) keep
 * it. */
static int keeps(const filter_t *f, const query_t *q, apr_pool_t *pool,
                 const char *partition_values)
{
    return passes(f, pool, partition_values) &&
           (!q || !q->predicate ||
            uc_sharing_predicate_keeps(q->predicate, pool, partition_values));
}

/* The files or changes of one page: it starts at index `first`; `next`
 * is where the following page resumes (0: there is none). */
typedef struct span {
    apr_size_t first, next;
    apr_size_t written;            /* file lines */
} span_t;

/* maxFiles lines are out: the page ends before the next one. */
static int page_full(const query_t *q, const span_t *span)
{
    return q && q->has_max_files && span->written == (apr_size_t)q->max_files;
}

/* The last line of an answer that tells its end: the page to ask for
 * next, the refresh token, and when the first of its URLs expires. */
static uc_error_t *write_end_stream(uc_call_t *call, const char *next_page,
                                    const char *refresh_token,
                                    const span_t *span,
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
static uc_error_t *body_int(uc_call_t *call, const char *field,
                            apr_int64_t *v, int *present)
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

static int is_first_page(const query_t *q)
{
    return !q->page_token || !*q->page_token;
}

/* A token the server made, of a query the table can no longer be read on
 * at: its log has lost the version since. */
static uc_error_t *query_restart(uc_call_t *call)
{
    return uc_error_invalid(call->pool, "The next page of this query "
                            "cannot be read any more; please restart the "
                            "query.");
}

/* An answer that pages ends with a token: whether one can be made is
 * known before the answer begins. */
static uc_error_t *check_pages(uc_call_t *call, const query_t *q)
{
    return q->has_max_files ? uc_sharing_token_ready(call->pool,
                                                     call->secrets,
                                                     "page token")
                            : NULL;
}

/* One way to name the version(s) at most; endingVersion only bounds a
 * startingVersion. */
static uc_error_t *check_versions(uc_call_t *call, const query_t *q)
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
static uc_error_t *check_refresh(uc_call_t *call, const query_t *q)
{
    const char *field = q->include_refresh ? "includeRefreshToken"
                        : q->refresh_token ? "refreshToken" : NULL;

    if (field && (q->has_version || q->timestamp || q->has_starting))
        return uc_error_invalid(call->pool, "%s cannot be used when "
                                "querying a specific version.", field);
    if (field && !is_first_page(q))
        return uc_error_invalid(call->pool, "%s must be used in the first "
                                "page request.", field);
    return NULL;
}

static uc_error_t *read_query(uc_call_t *call, query_t *q)
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
static const char *page_params(uc_call_t *call, const query_t *q)
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
    return uc_json_dump(call->pool, params);
}

/* What a token of this query is bound to: the recipient, the share, the
 * table, the route (a snapshot's pages or a startingVersion range's) and,
 * for a page token, the parameters of its pages. A refresh token serves
 * the same version to whatever hints the later query has, as the
 * reference server's does. */
static uc_sharing_token_scope_t token_scope(const shared_t *s,
                                            const query_t *q,
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
static uc_error_t *page_token(const shared_t *s, const query_t *q,
                              apr_int64_t at, apr_size_t index,
                              const char **token)
{
    uc_call_t *call = s->call;
    uc_sharing_token_scope_t scope = token_scope(s, q, "page token");

    return uc_sharing_token_make(call->pool, call->secrets, &scope,
                                 apr_psprintf(call->pool, "%" APR_INT64_T_FMT
                                              ":%" APR_SIZE_T_FMT, at, index),
                                 apr_time_sec(call->now)
                                 + UC_SHARING_PAGE_TOKEN_SECONDS, token);
}

/* The end of a query's answer: the token of the page after the span
 * (none after the last) read from `at` on. */
static uc_error_t *end_query(shared_t *s, const query_t *q, apr_int64_t at,
                             const char *refresh_token, const span_t *span,
                             const uc_sharing_signer_t *signer)
{
    const char *next = NULL;
    uc_error_t *err;

    if (span->next && (err = page_token(s, q, at, span->next, &next)))
        return err;
    return write_end_stream(s->call, next, refresh_token, span, signer);
}

static uc_error_t *read_page_token(shared_t *s, const query_t *q,
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

/* The version a refresh token names: the latest when it was made. */
static uc_error_t *refreshed_snapshot(shared_t *s, const query_t *q,
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
    if ((err = may_read(s, REACH_LATEST, version)))
        return err;
    return snapshot_at(s, version, snap);
}

/* The snapshot a query reads: the one its page token names, else the
 * one its refresh token names, else what version or timestamp say. */
static uc_error_t *query_snapshot(shared_t *s, const query_t *q,
                                  uc_delta_snapshot_t **snap,
                                  apr_size_t *first, int *travelled)
{
    apr_int64_t version = 0, index = 0;
    uc_error_t *err;

    *first = 0;
    *travelled = 0;
    if (q->refresh_token)
        return refreshed_snapshot(s, q, snap);
    if ((err = snapshot_as_of(s, q->has_version, q->version, q->timestamp,
                              snap, travelled)) ||
        is_first_page(q) ||
        (err = read_page_token(s, q, &version, &index)))
        return err;
    /* Pages of the latest snapshot stay at the version of the first and
     * keep its lines unversioned, whatever was committed since: a client
     * that pages checks that every page starts as the first did. A
     * travelling query's version is its parameters', which the token
     * binds; the log may still have lost it since. */
    if (*travelled ? (*snap)->version != version
                   : ((err = may_read(s, REACH_LATEST, version)) ||
                      (err = snapshot_at(s, version, snap))))
        return err ? err : query_restart(s->call);
    if ((apr_size_t)index > (*snap)->num_files)
        return query_restart(s->call);
    *first = (apr_size_t)index;
    return NULL;
}

/* With a filter, the files it keeps, judged a partition at a time (one
 * bit per file of the snapshot); NULL without a filter, or when the
 * snapshot's files cannot be grouped (then each file is judged). */
static apr_uint64_t *kept_files(const filter_t *f, const query_t *q,
                                apr_pool_t *pool,
                                const uc_delta_snapshot_t *snap)
{
    const uc_delta_partitions_t *parts;
    apr_uint64_t *kept;
    apr_size_t g, k;

    if ((!f->partitions && !q->predicate) ||
        !(parts = uc_delta_snapshot_partitions(snap)))
        return NULL;
    kept = apr_pcalloc(pool, sizeof(apr_uint64_t)
                             * (snap->num_files / 64 + 1));
    for (g = 0; g < parts->num_groups; g++) {
        const uc_delta_partition_group_t *group = &parts->groups[g];

        if (!keeps(f, q, pool, group->values))
            continue;
        for (k = 0; k < group->count; k++)
            kept[group->files[k] / 64] |=
                (apr_uint64_t)1 << (group->files[k] % 64);
    }
    return kept;
}

/* The first file from `i` on that `kept` keeps (every one without it);
 * `n` when none is left. */
static apr_size_t next_kept(const apr_uint64_t *kept, apr_size_t n,
                            apr_size_t i)
{
    apr_uint64_t word;

    if (!kept || i >= n)
        return i;
    word = kept[i / 64] >> (i % 64);
    if (word)
        return i + (apr_size_t)__builtin_ctzll(word);
    for (i = (i / 64 + 1) * 64; i < n; i += 64)
        if (kept[i / 64])
            return i + (apr_size_t)__builtin_ctzll(kept[i / 64]);
    return n;
}

/* What every thread renders a snapshot's file lines with. */
typedef struct files_job {
    shared_t *s;
    const query_t *q;
    const filter_t *filter;
    const apr_uint64_t *kept;      /* NULL: each file is judged */
    uc_sharing_format_t format;
    const uc_sharing_caps_t *caps;
    const uc_delta_snapshot_t *snap;
    const uc_sharing_signer_t *signer;
    apr_int64_t version, timestamp;
    apr_size_t first;              /* the span's first file */
    const apr_size_t *starts;      /* rendered together: each segment's
                                    * first file, then the end */
} files_job_t;

/* One thread's stats reader, the pool its lines use, and its signer:
 * the job's, counting the URLs it signs in `signed_urls` when the thread
 * renders together with others (renderer_count adds them up). */
typedef struct files_renderer {
    const files_job_t *job;
    uc_delta_stats_reader_t *reader;
    apr_pool_t *lines;
    apr_size_t visited;
    uc_sharing_signer_t signer;
    apr_uint64_t signed_urls;
} files_renderer_t;

static files_renderer_t *renderer_make(apr_pool_t *pool,
                                       const files_job_t *job, int together)
{
    files_renderer_t *r = apr_pcalloc(pool, sizeof(*r));

    r->job = job;
    r->reader = uc_delta_stats_reader_make(pool, job->s->call->snapshots);
    apr_pool_create(&r->lines, pool);
    r->signer = *job->signer;
    if (together)
        r->signer.tally = &r->signed_urls;
    return r;
}

static void renderer_count(files_renderer_t *r)
{
    uc_metrics_add(r->signer.metrics, UC_M_SIGNED_URLS, r->signed_urls);
    r->signed_urls = 0;
}

/* The line of file `i` when the filter keeps it (*written 1). */
static uc_error_t *render_file(files_renderer_t *r, uc_jw_t *jw,
                               apr_size_t i, int *written)
{
    const files_job_t *job = r->job;
    const uc_delta_file_t *file = &job->snap->files[i];
    uc_delta_stats_text_t stats;
    uc_error_t *err;

    *written = 0;
    if (++r->visited % LINES_PER_POOL == 0)
        apr_pool_clear(r->lines);
    if (!job->kept &&
        !keeps(job->filter, job->q, r->lines, file->partition_values))
        return NULL;
    if ((err = uc_delta_file_stats_text(r->reader, file, &stats)) ||
        (err = uc_sharing_write_snapshot_file(jw, r->lines, job->format,
                                              job->caps, job->snap, i,
                                              &stats, &r->signer,
                                              job->version, job->timestamp)))
        return err;
    *written = 1;
    return NULL;
}

/* Adds the rows file `i` holds, for limitHint: numRecords of its stats
 * (0 when they do not say) less those its deletion vector deletes. */
static uc_error_t *count_records(files_renderer_t *r, apr_size_t i,
                                 apr_int64_t *records)
{
    const uc_delta_file_t *file = &r->job->snap->files[i];
    const char *stats, *dv = file->extras ? file->extras->deletion_vector
                                          : NULL;
    json_t *j, *d;
    uc_error_t *err;

    if ((err = uc_delta_file_stats(r->reader, file, &stats)))
        return err;
    j = stats ? uc_json_own(r->lines, json_loads(stats, 0, NULL)) : NULL;
    d = dv ? uc_json_own(r->lines, json_loads(dv, 0, NULL)) : NULL;
    *records += json_integer_value(json_object_get(j, "numRecords")) -
                json_integer_value(json_object_get(d, "cardinality"));
    return NULL;
}

/* The files a filter keeps lie far apart in the snapshot, each a few
 * cache misses: while one is rendered, the next three are fetched in
 * stages (uc_delta_prefetch_file). */
#define PREFETCH_DISTANCE 3

static void prefetch_ahead(const uc_delta_snapshot_t *snap,
                           const apr_size_t *ahead)
{
    int k;

    for (k = 0; k < PREFETCH_DISTANCE; k++)
        uc_delta_prefetch_file(snap, ahead[k], k);
}

/* The first file from `from`, the PREFETCH_DISTANCE after it ahead. */
static apr_size_t start_ahead(const apr_uint64_t *kept, apr_size_t n,
                              apr_size_t from, apr_size_t *ahead)
{
    apr_size_t first = next_kept(kept, n, from), at = first;
    int k;

    for (k = 0; k < PREFETCH_DISTANCE; k++)
        at = ahead[k] = next_kept(kept, n, at + 1);
    return first;
}

/* The next file, the others ahead moved up and the last found. */
static apr_size_t step_ahead(const apr_uint64_t *kept, apr_size_t n,
                             apr_size_t *ahead)
{
    apr_size_t next = ahead[0];

    memmove(ahead, ahead + 1, sizeof(*ahead) * (PREFETCH_DISTANCE - 1));
    ahead[PREFETCH_DISTANCE - 1] = next_kept(kept, n,
                                             ahead[PREFETCH_DISTANCE - 2] + 1);
    return next;
}

/* One after the other, up to maxFiles or until limitHint rows are
 * reached. */
static uc_error_t *write_files_in_turn(const files_job_t *job, span_t *span)
{
    uc_call_t *call = job->s->call;
    const query_t *q = job->q;
    files_renderer_t *r = renderer_make(call->pool, job, 0);
    apr_size_t i, n = job->snap->num_files, ahead[PREFETCH_DISTANCE];
    apr_int64_t records = 0;
    int written;
    uc_error_t *err;

    for (i = start_ahead(job->kept, n, job->first, ahead); i < n;
         i = step_ahead(job->kept, n, ahead)) {
        if (job->kept)
            prefetch_ahead(job->snap, ahead);
        if (page_full(q, span)) {
            span->next = i;
            break;
        }
        if (q->has_limit && records >= q->limit)
            break;
        if ((err = render_file(r, call->out->jw, i, &written)) ||
            (written && (err = uc_out_end_line(call->out))) ||
            (written && q->has_limit &&
             (err = count_records(r, i, &records))))
            return table_error(job->s, err);
        if (written)
            ++span->written;
    }
    return NULL;
}

/* Files rendered together, a segment (this many the filter keeps) at a
 * time: a segment's lines fill about two flushes of the stream. Answers
 * of fewer segments than SEGMENTS_TOGETHER are written by the request's
 * thread alone: starting threads and their memory would cost more than
 * they save. */
#define FILES_PER_SEGMENT 256
#define SEGMENTS_TOGETHER 16
/* A line's bytes, about: the buffer of a segment is made that big. */
#define LINE_BYTES 640

typedef struct files_together {
    const files_job_t *job;
    span_t *span;
} files_together_t;

static uc_error_t *start_renderer(void *baton, apr_pool_t *pool,
                                  void **state)
{
    const files_together_t *t = baton;

    *state = renderer_make(pool, t->job, 1);
    return NULL;
}

static uc_error_t *render_segment(void *state, apr_size_t k, uc_jw_t *jw,
                                  apr_pool_t *pool, apr_size_t *lines)
{
    files_renderer_t *r = state;
    const files_job_t *job = r->job;
    apr_size_t i, to = job->starts[k + 1];
    int written;
    uc_error_t *err;

    for (i = job->starts[k]; i < to; i = next_kept(job->kept, to, i + 1)) {
        if ((err = render_file(r, jw, i, &written))) {
            renderer_count(r);
            return uc_error_copy(pool, err);
        }
        if (written) {
            uc_jw_newline(jw);
            ++*lines;
        }
    }
    renderer_count(r);
    return NULL;
}

static uc_error_t *deliver_segment(void *baton, const char *text,
                                   apr_size_t len, apr_size_t lines)
{
    files_together_t *t = baton;

    t->span->written += lines;
    return uc_out_put_lines(t->job->s->call->out, text, len, lines);
}

/* Where the segments of the span begin: at every FILES_PER_SEGMENT-th
 * file the filter keeps (a filtered answer is cut into as few segments
 * as an unfiltered one of its size), the end of the snapshot last.
 * Returns how many there are. */
static apr_size_t segment_starts(const files_job_t *job, apr_pool_t *pool,
                                 apr_size_t **out)
{
    apr_size_t n = job->snap->num_files, i, kept = 0, k = 0;
    apr_size_t *starts = apr_palloc(pool, sizeof(*starts)
                                          * (n / FILES_PER_SEGMENT + 2));

    if (!job->kept)
        for (i = job->first; i < n; i += FILES_PER_SEGMENT)
            starts[k++] = i;
    else
        for (i = next_kept(job->kept, n, job->first); i < n;
             i = next_kept(job->kept, n, i + 1))
            if (kept++ % FILES_PER_SEGMENT == 0)
                starts[k++] = i;
    starts[k] = n;
    *out = starts;
    return k;
}

/* Every file of the span, rendered by the threads a request may use while
 * the calling thread streams them in order. */
static uc_error_t *write_files_together(const files_job_t *job,
                                        apr_size_t segments, span_t *span,
                                        int threads)
{
    files_together_t t = { job, span };
    uc_in_order_job_t run;

    run.segments = segments;
    run.threads = threads;
    run.segment_bytes = FILES_PER_SEGMENT * LINE_BYTES;
    run.baton = &t;
    run.start = start_renderer;
    run.render = render_segment;
    run.deliver = deliver_segment;
    return table_error(job->s, uc_in_order_run(job->s->call->pool, &run));
}

/* Writes the files of `snap` of the span that pass the filter: all, or
 * up to maxFiles, or until limitHint rows are reached. A long answer of
 * all of them is rendered by several threads. */
static uc_error_t *write_files(shared_t *s, const query_t *q,
                               uc_sharing_format_t format,
                               const uc_sharing_caps_t *caps,
                               const uc_delta_snapshot_t *snap,
                               int travelled,
                               const uc_sharing_signer_t *signer,
                               span_t *span)
{
    uc_call_t *call = s->call;
    int threads = uc_delta_answer_threads();
    apr_size_t segments, *starts;
    filter_t filter;
    files_job_t job;
    uc_error_t *err;

    if ((err = make_filter(s, &filter)))
        return err;
    job.s = s;
    job.q = q;
    job.filter = &filter;
    job.kept = kept_files(&filter, q, call->pool, snap);
    job.format = format;
    job.caps = caps;
    job.snap = snap;
    job.signer = signer;
    job.version = travelled ? snap->version : UC_DELTA_NONE;
    job.timestamp = travelled ? snap->timestamp : UC_DELTA_NONE;
    job.first = span->first;
    job.starts = NULL;
    /* Judging a file alone reads the share's partitions: only the
     * calling thread does that. A short answer is not worth the threads. */
    if (threads > 1 && !q->has_limit && !q->has_max_files &&
        (job.kept || (!filter.partitions && !q->predicate)) &&
        span->first < snap->num_files &&
        (segments = segment_starts(&job, call->pool, &starts))
            >= SEGMENTS_TOGETHER) {
        job.starts = starts;
        return write_files_together(&job, segments, span, threads);
    }
    return write_files_in_turn(&job, span);
}

/* jsonPredicateHints are read against the schema of the metaData the
 * answer starts with. */
static uc_error_t *read_hints(uc_call_t *call, query_t *q,
                              const char *metadata)
{
    if (!q->hints)
        return NULL;
    return uc_sharing_predicate_parse(call->pool, q->hints, metadata,
                                      &q->predicate);
}

/* The refresh token of the answer, when asked for: made before the
 * answer begins, as it can fail. */
static uc_error_t *make_refresh_token(shared_t *s, const query_t *q,
                                      apr_int64_t version,
                                      const char **token)
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
static uc_error_t *query_files(shared_t *s, query_t *q,
                               const uc_sharing_caps_t *caps)
{
    uc_call_t *call = s->call;
    uc_sharing_format_t format;
    uc_sharing_signer_t signer;
    uc_delta_snapshot_t *snap;
    span_t span = { 0, 0, 0 };
    const char *refresh;
    int travelled;
    uc_error_t *err;

    if ((err = latest(s, &snap)) ||
        (err = query_snapshot(s, q, &snap, &span.first, &travelled)) ||
        (err = uc_sharing_choose_format(call->pool, caps, &snap->features,
                                        snap->metadata, &format)) ||
        (err = read_hints(call, q, snap->metadata)) ||
        (err = make_refresh_token(s, q, snap->version, &refresh)) ||
        (err = check_pages(call, q)))
        return err;
    if ((err = make_signer(s, &signer)))
        return err;
    set_answer_headers(call, snap->version, format, caps, 1);
    if ((err = write_head(s, format, snap->protocol, snap->metadata,
                          travelled ? snap->version : UC_DELTA_NONE)) ||
        (err = write_files(s, q, format, caps, snap, travelled, &signer,
                           &span)))
        return err;
    /* Python takes every line after the metaData for a file: the end of
     * the stream is told only to clients that page or ask for it. */
    if (!q->has_max_files && !caps->include_end_stream && !refresh)
        return NULL;
    return end_query(s, q, snap->version, refresh, &span, &signer);
}

/* --- changes ----------------------------------------------------------- */

/* One bound of a change range: a version or a timestamp, not both. */
static uc_error_t *read_bound(shared_t *s, const char *which,
                              uc_delta_time_match_t match, int *given,
                              apr_int64_t *version)
{
    uc_call_t *call = s->call;
    const char *vname = apr_pstrcat(call->pool, which, "Version", NULL);
    const char *tname = apr_pstrcat(call->pool, which, "Timestamp", NULL);
    const char *ts = apr_table_get(call->query, tname);
    int has_version;
    uc_error_t *err;

    if ((err = query_version(call, vname, version, &has_version)))
        return err;
    if (has_version && ts)
        return uc_error_invalid(call->pool, "Multiple %s arguments provided "
                                "for CDF read. Please provide one of either "
                                "%s or %s.", !strcmp(which, "starting")
                                ? "starting" : "ending", tname, vname);
    *given = has_version || ts;
    if (ts)
        return version_at(s, tname, ts, match, version);
    return NULL;
}

static uc_error_t *change_range(shared_t *s, apr_int64_t *start,
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
        (err = latest(s, &last)))
        return err;
    if ((err = check_not_after_latest(s, *start, last->version)))
        return err;
    if (!has_end || *end > last->version)
        *end = last->version;
    if (*end < *start)
        return uc_error_invalid(call->pool, "CDF range from start %"
                                APR_INT64_T_FMT " to end %" APR_INT64_T_FMT
                                " was invalid. End cannot be before start.",
                                *start, *end);
    return may_read(s, REACH_CHANGES, *start);
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
static uc_error_t *write_history_until(shared_t *s,
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
        if ((err = snapshot_at(s, v, &snap)))
            return err;
        if (pv == v && ((err = uc_sharing_write_protocol_at(
                             jw, s->call->pool, format, snap->protocol, v)) ||
                        (err = uc_out_end_line(s->call->out))))
            return err;
        h->next_protocol += pv == v;
        if (mv == v && ((err = uc_sharing_write_metadata(
                             jw, s->call->pool, format, snap->metadata, v,
                             cdf_shared(s), UC_DELTA_NONE, UC_DELTA_NONE)) ||
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
static uc_error_t *write_changes(shared_t *s, uc_sharing_format_t format,
                                 const uc_sharing_caps_t *caps,
                                 const uc_delta_changes_t *changes,
                                 history_t *h, const query_t *q,
                                 const uc_sharing_signer_t *signer,
                                 span_t *span)
{
    uc_call_t *call = s->call;
    apr_pool_t *lines;
    filter_t filter;
    apr_size_t i;
    uc_error_t *err;

    if ((err = make_filter(s, &filter)))
        return err;
    apr_pool_create(&lines, call->pool);
    for (i = span->first; i < (apr_size_t)changes->changes->nelts; i++) {
        const uc_delta_change_t *c = &APR_ARRAY_IDX(changes->changes, i,
                                                    uc_delta_change_t);
        if (page_full(q, span)) {
            span->next = i;
            return NULL;
        }
        if (i % LINES_PER_POOL == 0)
            apr_pool_clear(lines);
        if ((err = write_history_until(s, format, changes, c->version, h)))
            return err;
        if (!keeps(&filter, q, lines, c->partition_values))
            continue;
        if ((err = uc_sharing_write_change(call->out->jw, lines, format,
                                           caps, c, signer)) ||
            (err = uc_out_end_line(call->out)))
            return table_error(s, err);
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
    span_t span = { 0, 0, 0 };
    int historical, with_protocol;
    history_t h;
    shared_t s;
    uc_error_t *err;

    (void)out;
    if ((err = read_caps(call, &caps)) ||
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
        (err = open_shared(call, &s)) ||
        (err = may_read(&s, REACH_CHANGES, UC_DELTA_NONE)) ||
        (err = change_range(&s, &start, &end)) ||
        (err = latest(&s, &last)) ||
        (err = uc_sharing_choose_format(call->pool, &caps, &last->features,
                                        last->metadata, &format)))
        return err;
    if ((err = uc_delta_changes(s.delta, call->pool, start, end, &changes)))
        return table_error(&s, err);
    if ((err = make_signer(&s, &signer)))
        return err;
    set_answer_headers(call, start, format, &caps, 1);
    h = history_of(changes, format, historical, with_protocol, 0);
    if ((err = write_head_at(&s, format,
                             h.protocol || historical ? changes->protocol
                                                      : last->protocol,
                             historical ? changes->metadata : last->metadata,
                             historical ? start : last->version,
                             h.protocol ? start : UC_DELTA_NONE)) ||
        (err = write_changes(&s, format, &caps, changes, &h, NULL, &signer,
                             &span)))
        return err;
    if (!caps.include_end_stream)
        return NULL;
    return write_end_stream(call, NULL, NULL, &span, &signer);
}

/* --- startingVersion ----------------------------------------------------- */

/* The last version a startingVersion query reads: its endingVersion or
 * the latest, whichever comes first; a later page reads to where its
 * first page did, and resumes at change *first. */
static uc_error_t *stream_end(shared_t *s, const query_t *q,
                              apr_int64_t *end, apr_size_t *first)
{
    uc_delta_snapshot_t *last;
    apr_int64_t at, index;
    uc_error_t *err;

    *first = 0;
    if ((err = may_read(s, REACH_HISTORY, q->starting)) ||
        (err = latest(s, &last)) ||
        (err = check_not_after_latest(s, q->starting, last->version)))
        return err;
    *end = q->has_ending && q->ending < last->version ? q->ending
                                                      : last->version;
    if (is_first_page(q))
        return NULL;
    /* Later pages read to where the first did: within the range the
     * parameters (bound by the token) still name. */
    if ((err = read_page_token(s, q, &at, &index)))
        return err;
    if (at < q->starting || at > *end)
        return query_restart(s->call);
    *end = at;
    *first = (apr_size_t)index;
    return NULL;
}

/* Streaming mode: the protocol and metaData of the start, then what each
 * commit of the range changed, as Spark's streaming source replays it. */
static uc_error_t *query_changes(shared_t *s, query_t *q,
                                 const uc_sharing_caps_t *caps)
{
    uc_call_t *call = s->call;
    uc_sharing_format_t format;
    uc_sharing_signer_t signer;
    uc_delta_changes_t *changes;
    span_t span = { 0, 0, 0 };
    apr_int64_t end;
    history_t h;
    uc_error_t *err;

    if ((err = stream_end(s, q, &end, &span.first)))
        return err;
    if ((err = uc_delta_data_changes(s->delta, call->pool, q->starting, end,
                                     &changes)))
        return table_error(s, err);
    if (span.first > (apr_size_t)changes->changes->nelts)
        return query_restart(call);
    if ((err = uc_sharing_choose_format(call->pool, caps, &changes->features,
                                        changes->metadata, &format)) ||
        (err = read_hints(call, q, changes->metadata)) ||
        (err = check_pages(call, q)) ||
        (err = make_signer(s, &signer)))
        return err;
    set_answer_headers(call, q->starting, format, caps, 1);
    h = history_of(changes, format, 1, q->include_protocol, span.first);
    if ((err = write_head_at(s, format, changes->protocol, changes->metadata,
                             q->starting,
                             h.protocol ? q->starting : UC_DELTA_NONE)) ||
        (err = write_changes(s, format, caps, changes, &h, q, &signer,
                             &span)))
        return err;
    if (!q->has_max_files && !caps->include_end_stream)
        return NULL;
    return end_query(s, q, end, NULL, &span, &signer);
}

uc_error_t *uc_sharing_table_query(uc_call_t *call, uc_jw_t *out)
{
    uc_sharing_caps_t caps;
    query_t q;
    shared_t s;
    uc_error_t *err;

    (void)out;
    if ((err = read_caps(call, &caps)) ||
        (err = read_query(call, &q)) ||
        (err = open_shared(call, &s)))
        return err;
    return q.has_starting ? query_changes(&s, &q, &caps)
                          : query_files(&s, &q, &caps);
}
