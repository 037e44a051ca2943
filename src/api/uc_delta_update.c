/* SPDX-License-Identifier: Apache-2.0 */
/* Updating a table through the UC Delta API: requirements (the table's
 * id, always; its etag, maybe) and actions, at most one of each, applied
 * together in one transaction with the table's row held, in the order
 * Unity Catalog applies them (columns and partitions, protocol,
 * properties, domain metadata, comment, snapshot version), then the
 * commit and the backfill report, ratified as the preview API ratifies
 * them (uc_ratify.h). A commit ratified already makes the whole request
 * a no-op that answers the table as it is; the etag is checked last,
 * against the table before the request, so such a replay passes it. A
 * commit whose file carries a metadata change rides in the same request
 * as the actions that say it, and dates it (delta.lastUpdateVersion). */
#include "uc_delta_api.h"

#include <string.h>
#include <strings.h>
#include <apr_strings.h>

#include "uc_commit_uniform.h"
#include "uc_delta_contract.h"
#include "uc_delta_schema.h"
#include "uc_ratify.h"
#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"

#define ROW_TRACKING_DOMAIN "delta.rowTracking"

enum {
    SET_COLUMNS, SET_PARTITIONS, SET_PROTOCOL, SET_PROPERTIES,
    REMOVE_PROPERTIES, SET_DOMAINS, REMOVE_DOMAINS, SET_COMMENT,
    SNAPSHOT_VERSION, ADD_COMMIT, SET_BACKFILLED, ACTIONS
};
static const char *const action_names[ACTIONS] = {
    "set-columns", "set-partition-columns", "set-protocol", "set-properties",
    "remove-properties", "set-domain-metadata", "remove-domain-metadata",
    "set-table-comment", "update-metadata-snapshot-version", "add-commit",
    "set-latest-backfilled-version"
};

enum { ASSERT_UUID, ASSERT_ETAG, REQUIREMENTS };
static const char *const requirement_names[REQUIREMENTS] = {
    "assert-table-uuid", "assert-etag"
};

typedef struct update {
    json_t *action[ACTIONS];           /* NULL when not asked for */
    json_t *requirement[REQUIREMENTS];
    uc_securable_t *table;             /* held, changed in memory */
    json_t *properties;
    json_t *details;
    uc_commit_request_t commit;
    uc_ratified_commit_t ratified;
    uc_commit_uniform_t *uniform;
    /* The table's ratified commits once the commit is carried out, for
     * the answer; NULL when the request had none. */
    apr_array_header_t *commits;
} update_t;

/* Each item of `list` (the body's `field`) into its slot by its `key`. */
static uc_error_t *collect(uc_call_t *call, const char *field,
                           const char *key, const char *const *names,
                           int count, json_t **slots)
{
    json_t *list = json_object_get(call->body, field), *item;
    size_t i;
    int n;

    if (list && !json_is_null(list) && !json_is_array(list))
        return uc_error_invalid(call->pool, "Field '%s' must be an array.",
                                field);
    json_array_foreach(list, i, item) {
        const char *name = json_string_value(json_object_get(item, key));
        for (n = 0; name && n < count && strcmp(name, names[n]); n++)
            ;
        if (!name || n == count)
            return uc_error_invalid(call->pool, "Unknown %s: %s",
                                    strcmp(field, "updates")
                                    ? "requirement type" : "update action",
                                    name ? name : "(none)");
        if (slots[n])
            return uc_error_invalid(call->pool, "At most one %s is allowed "
                                    "per request.", name);
        slots[n] = item;
    }
    return NULL;
}

/* Names both `set` (an object's keys) and `removed` (an array) hold. */
static uc_error_t *check_overlap(uc_call_t *call, json_t *set,
                                 json_t *removed, const char *what)
{
    json_t *name;
    size_t i;

    json_array_foreach(removed, i, name)
        if (json_is_string(name) &&
            json_object_get(set, json_string_value(name)) &&
            !json_is_null(json_object_get(set, json_string_value(name))))
            return uc_error_invalid(call->pool, "%s overlap on %s",
                                    what, json_string_value(name));
    return NULL;
}

static uc_error_t *read_update(uc_call_t *call, update_t *u)
{
    uc_error_t *err;

    memset(u, 0, sizeof(*u));
    u->commit.backfilled = -1;
    if ((err = collect(call, "requirements", "type", requirement_names,
                       REQUIREMENTS, u->requirement)) ||
        (err = collect(call, "updates", "action", action_names, ACTIONS,
                       u->action)))
        return err;
    if (!json_array_size(json_object_get(call->body, "updates")))
        return uc_error_invalid(call->pool, "At least one update is "
                                "required.");
    if (!u->requirement[ASSERT_UUID])
        return uc_error_invalid(call->pool, "assert-table-uuid requirement "
                                "is required.");
    if ((err = check_overlap(call, json_object_get(u->action[SET_PROPERTIES],
                                                   "updates"),
                             json_object_get(u->action[REMOVE_PROPERTIES],
                                             "removals"),
                             "set-properties and remove-properties")))
        return err;
    return check_overlap(call, json_object_get(u->action[SET_DOMAINS],
                                               "updates"),
                         json_object_get(u->action[REMOVE_DOMAINS],
                                         "domains"),
                         "set-domain-metadata and remove-domain-metadata");
}

/* A requirement's string member, required. */
static uc_error_t *requirement(uc_call_t *call, json_t *req,
                               const char *field, const char **out)
{
    return uc_json_string_field(call->pool, req, field, 1, out);
}

static uc_error_t *unmet(uc_call_t *call, const char *what,
                         const char *expected, const char *actual)
{
    return uc_error_make(call->pool, UC_E_UPDATE_REQUIREMENT_CONFLICT,
                         "%s failed: expected %s but table has %s", what,
                         expected, actual);
}

/* set-columns and set-partition-columns: each keeps what the other
 * does not say. */
static uc_error_t *apply_schema(uc_call_t *call, update_t *u)
{
    json_t *set = u->action[SET_COLUMNS], *part = u->action[SET_PARTITIONS];
    json_t *current = json_object_get(u->details, "columns");
    json_t *names, *columns;
    uc_error_t *err;

    if (!set && !part)
        return NULL;
    names = part ? json_object_get(part, "partition-columns")
                 : uc_delta_schema_partitions(call->pool, current);
    if (!json_is_array(names))
        return uc_error_invalid(call->pool, "set-partition-columns requires "
                                "a partition-columns list.");
    if (set)
        err = uc_delta_schema_read(call->pool, "set-columns.columns",
                                   json_object_get(set, "columns"), names,
                                   &columns);
    else {
        columns = uc_json_own(call->pool, json_deep_copy(current));
        err = uc_delta_schema_partition(call->pool, columns, names);
    }
    if (!err)
        json_object_set(u->details, "columns", columns);
    return err;
}

static uc_error_t *apply_property_changes(uc_call_t *call, update_t *u)
{
    json_t *set = NULL, *removals = NULL, *name;
    size_t i;
    uc_error_t *err;

    if ((u->action[SET_PROPERTIES] &&
         (err = uc_json_string_map_field(call->pool, u->action[SET_PROPERTIES],
                                         "updates", &set))) ||
        (u->action[REMOVE_PROPERTIES] &&
         (err = uc_json_string_array_field(call->pool,
                                           u->action[REMOVE_PROPERTIES],
                                           "removals", UC_PROPERTIES_MAX,
                                           UC_PROPERTY_KEY_MAX, &removals))))
        return err;
    if ((u->action[SET_PROPERTIES] && !set) ||
        (u->action[REMOVE_PROPERTIES] && !removals))
        return uc_error_invalid(call->pool, "%s requires %s.",
                                set || !u->action[SET_PROPERTIES]
                                ? "remove-properties" : "set-properties",
                                set || !u->action[SET_PROPERTIES]
                                ? "removals" : "updates");
    if (set)
        json_object_update(u->properties, set);
    json_array_foreach(removals, i, name)
        json_object_del(u->properties, json_string_value(name));
    return NULL;
}

/* A post-commit hook's record of an EXTERNAL table's version. */
static uc_error_t *apply_snapshot_version(uc_call_t *call, update_t *u)
{
    static const char *const fields[][2] = {
        { "last-commit-version", UC_DELTA_LAST_UPDATE_VERSION },
        { "last-commit-timestamp-ms", UC_DELTA_LAST_COMMIT_TIMESTAMP },
    };
    const char *type = uc_json_stored_string(call->pool, u->table->details,
                                             "table_type");
    apr_int64_t n;
    int i, present;
    uc_error_t *err;

    if (!type || strcmp(type, "EXTERNAL"))
        return uc_error_invalid(call->pool, "update-metadata-snapshot-"
                                "version is only supported for EXTERNAL "
                                "Delta tables; MANAGED ones are dated by "
                                "their commits.");
    for (i = 0; i < 2; i++) {
        if ((err = uc_json_int_field(call->pool, u->action[SNAPSHOT_VERSION],
                                     fields[i][0], 0, APR_INT64_MAX, &n,
                                     &present)))
            return err;
        if (!present)
            return uc_error_invalid(call->pool, "update-metadata-snapshot-"
                                    "version requires %s.", fields[i][0]);
        json_object_set_new(u->properties, fields[i][1], json_string(
            apr_psprintf(call->pool, "%" APR_INT64_T_FMT, n)));
    }
    return NULL;
}

static uc_error_t *apply_comment(uc_call_t *call, update_t *u)
{
    const char *comment = NULL;
    uc_error_t *err = uc_json_string_field(call->pool,
                                           u->action[SET_COMMENT],
                                           "comment", 1, &comment);

    if (!err)
        err = uc_validate_text(call->pool, "comment", comment,
                               UC_COMMENT_MAX);
    if (!err)
        u->table->comment = comment;
    return err;
}

/* The whole protocol, replaced. */
static uc_error_t *apply_protocol(uc_call_t *call, update_t *u,
                                  uc_delta_protocol_t *protocol)
{
    uc_error_t *err = uc_delta_protocol_read(
        call->pool, "set-protocol.protocol",
        json_object_get(u->action[SET_PROTOCOL], "protocol"), protocol);

    if (!err)
        uc_delta_protocol_apply(u->properties, protocol);
    return err;
}

/* Every action but the commit's, in Unity Catalog's order; a managed
 * table keeps its contract. */
static uc_error_t *apply_actions(uc_call_t *call, update_t *u)
{
    const char *type = uc_json_stored_string(call->pool, u->table->details,
                                             "table_type");
    uc_delta_protocol_t protocol;
    uc_error_t *err;

    if ((err = apply_schema(call, u)) ||
        (u->action[SET_PROTOCOL] &&
         (err = apply_protocol(call, u, &protocol))) ||
        (err = apply_property_changes(call, u)) ||
        (u->action[SET_DOMAINS] &&
         (err = uc_delta_domains_set(call->pool, json_object_get(
                                         u->action[SET_DOMAINS], "updates"),
                                     u->properties))) ||
        (u->action[REMOVE_DOMAINS] &&
         (err = uc_delta_domains_remove(call->pool, json_object_get(
                                            u->action[REMOVE_DOMAINS],
                                            "domains"), u->properties))) ||
        (u->action[SET_COMMENT] && (err = apply_comment(call, u))) ||
        (u->action[SNAPSHOT_VERSION] &&
         (err = apply_snapshot_version(call, u))))
        return err;
    if (!type || strcmp(type, "MANAGED"))
        return NULL;
    if (u->action[SET_PROTOCOL])
        return uc_delta_contract_check(call->pool, &protocol, u->properties);
    return u->action[SET_DOMAINS] ? uc_delta_domains_check(call->pool,
                                                           u->properties)
                                  : NULL;
}

/* A change of what the catalog shows of the table, which dates it; a
 * row-tracking high-water mark alone is a data commit's bookkeeping. */
static int changes_metadata(const update_t *u)
{
    static const int actions[] = {
        SET_COLUMNS, SET_PARTITIONS, SET_PROTOCOL, SET_PROPERTIES,
        REMOVE_PROPERTIES, REMOVE_DOMAINS, SET_COMMENT
    };
    size_t i;

    for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
        if (u->action[actions[i]])
            return 1;
    return u->action[SET_DOMAINS] &&
           !uc_delta_domains_only(json_object_get(u->action[SET_DOMAINS],
                                                  "updates"),
                                  ROW_TRACKING_DOMAIN);
}

static void set_number(apr_pool_t *pool, json_t *properties, const char *key,
                       apr_int64_t n)
{
    json_object_set_new(properties, key, json_string(
        apr_psprintf(pool, "%" APR_INT64_T_FMT, n)));
}

static uc_error_t *read_commit(uc_call_t *call, update_t *u)
{
    json_t *add = u->action[ADD_COMMIT], *commit, *uniform;
    uc_error_t *err;

    if ((err = uc_json_object_field(call->pool, add, "commit", &commit)) ||
        (err = uc_json_object_field(call->pool, add, "uniform", &uniform)))
        return err;
    if (!commit)
        return uc_error_invalid(call->pool, "add-commit requires a commit "
                                "block.");
    if ((err = uc_ratify_read_commit(call, commit, &uc_commit_fields_delta,
                                     &u->ratified)) ||
        (uniform && (err = uc_commit_uniform_read(call->pool, uniform,
                                                  u->ratified.version,
                                                  UC_UNIFORM_DELTA_API,
                                                  &u->uniform))) ||
        (err = uc_commit_uniform_check(call->pool, u->uniform, u->properties,
                                       u->table->storage_location)))
        return err;
    u->commit.commit = &u->ratified;
    if (changes_metadata(u)) {
        set_number(call->pool, u->properties, UC_DELTA_LAST_UPDATE_VERSION,
                   u->ratified.version);
        set_number(call->pool, u->properties, UC_DELTA_LAST_COMMIT_TIMESTAMP,
                   u->ratified.timestamp);
    }
    return NULL;
}

/* add-commit and set-latest-backfilled-version, on a catalog-managed
 * table; *replay when the commit was ratified already. */
static uc_error_t *commit(uc_call_t *call, update_t *u, int *replay)
{
    json_t *backfill = u->action[SET_BACKFILLED];
    int present = 0;
    uc_error_t *err;

    *replay = 0;
    if (!u->action[ADD_COMMIT] && !backfill)
        return NULL;
    if ((err = uc_ratify_check_table(call, u->table->id, u->table)) ||
        (u->action[ADD_COMMIT] && (err = read_commit(call, u))) ||
        (backfill && (err = uc_json_int_field(call->pool, backfill,
                                              "latest-published-version", 0,
                                              APR_INT64_MAX,
                                              &u->commit.backfilled,
                                              &present))))
        return err;
    if (backfill && !present)
        return uc_error_invalid(call->pool, "set-latest-backfilled-version "
                                "requires latest-published-version.");
    return uc_ratify(call, u->table, &u->commit, replay, &u->commits);
}

/* Whether an action that changes the table's row was asked for: all but
 * the commit's. */
static int changes_row(const update_t *u)
{
    int a;

    for (a = 0; a < ADD_COMMIT; a++)
        if (u->action[a])
            return 1;
    return u->uniform != NULL;
}

/* The table's row as the actions left it; dated only when what the
 * catalog shows of it changed. */
static uc_error_t *write_table(uc_call_t *call, update_t *u)
{
    int dated = changes_metadata(u) || u->action[SNAPSHOT_VERSION];

    if (!changes_row(u))
        return NULL;
    u->table->properties = uc_json_dump(call->pool, u->properties);
    if (u->uniform)
        json_object_set_new(u->details, UC_TABLE_UNIFORM_DETAIL,
                            uc_commit_uniform_json(u->uniform));
    uc_api_set_details(call, u->table, u->details);
    if (dated) {
        u->table->updated_at = uc_epoch_ms_text(call->pool, call->now);
        u->table->updated_by = call->principal;
    }
    return uc_securable_update(call->store, u->table);
}

uc_error_t *uc_delta_update_table(uc_call_t *call, uc_jw_t *out)
{
    const char *uuid = NULL, *etag = NULL, *before;
    uc_securable_t original;
    update_t u;
    int replay;
    uc_error_t *err;

    if ((err = read_update(call, &u)) ||
        (err = requirement(call, u.requirement[ASSERT_UUID], "uuid",
                           &uuid)) ||
        (u.requirement[ASSERT_ETAG] &&
         (err = requirement(call, u.requirement[ASSERT_ETAG], "etag",
                            &etag))))
        return err;
    /* Held for update since the rule found it. */
    u.table = UC_TARGET_OF(call);
    if ((err = uc_delta_api_check_format(call, u.table)))
        return err;
    if (strcasecmp(uuid, u.table->id) != 0)
        return unmet(call, "assert-table-uuid", uuid, u.table->id);
    original = *u.table;
    before = apr_pstrcat(call->pool, "etag-", original.updated_at, NULL);
    u.properties = uc_json_own(call->pool,
                               uc_json_stored_object(u.table->properties));
    u.details = uc_api_details(call, u.table);
    if ((err = apply_actions(call, &u)) || (err = commit(call, &u, &replay)))
        return err;
    if (replay)
        return uc_delta_api_write_table(call, out, &original, u.commits);
    if (etag && strcmp(etag, before) != 0)
        return unmet(call, "assert-etag", etag, before);
    if ((err = write_table(call, &u)))
        return err;
    return uc_delta_api_write_table(call, out, u.table, u.commits);
}
