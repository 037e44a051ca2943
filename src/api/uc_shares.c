/* SPDX-License-Identifier: Apache-2.0 */
/* Shares (/shares): named groups of tables and schemas that a provider
 * shares with recipients through Delta Sharing. A share is a securable
 * under the metastore; its data objects are rows of share_objects
 * (uc_share_objects.h), changed by the `updates` of a PATCH, all of them
 * or none in the route's one transaction. A shared schema shares every
 * table it holds, now and later: it is kept as the schema, and its tables
 * are found when the share is read. */
#include "uc_api.h"
#include "../vend/uc_table_log.h"
#include "../vend/uc_table_store.h"

#include <string.h>
#include <strings.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../core/uc_validate.h"
#include "../delta/uc_delta.h"
#include "../store/uc_abac_policies.h"
#include "../store/uc_grants.h"
#include "../store/uc_share_objects.h"

#define P UC_PRIV

/* Privileges that show a share: the metastore's USE SHARE and SET SHARE
 * PERMISSION reach every share (uc_authz.c), MANAGE is granted on one. */
#define SEE_SHARE (P(UC_PRIV_USE_SHARE) | P(UC_PRIV_SET_SHARE_PERMISSION) | \
                   P(UC_PRIV_MANAGE))

/* Databricks caps a share at 1000 data objects; so does one PATCH. */
#define MAX_UPDATES 1000
#define MAX_PARTITIONS 100

static const char *const actions[] = { "ADD", "REMOVE", "UPDATE", NULL };
/* The data object types of the spec that exist here, each with the
 * securable it names and the privilege that reads it. */
static const char *const object_types[] = { "TABLE", "SCHEMA", "VOLUME",
                                            "AGENT_SKILL", NULL };
static const struct {
    const char *kind;
    uc_privilege_t read;
} object_kinds[] = {
    { UC_KIND_TABLE, UC_PRIV_SELECT },
    { UC_KIND_SCHEMA, UC_PRIV_SELECT },
    { UC_KIND_VOLUME, UC_PRIV_READ_VOLUME },
    /* A skill's files are read as a volume's are. */
    { UC_KIND_AGENT_SKILL, UC_PRIV_READ_VOLUME },
};
static const char *const history_statuses[] = { "ENABLED", "DISABLED",
                                                 NULL };
static const char *const partition_ops[] = { "EQUAL", "LIKE", NULL };

static void write_object(uc_jw_t *out, const uc_share_object_t *o)
{
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", o->current_name);
    uc_jw_field_string(out, "data_object_type", o->data_object_type);
    uc_jw_field_string(out, "shared_as", o->shared_as);
    uc_jw_field_string(out, "comment", o->comment);
    if (o->partitions)
        uc_jw_field_raw(out, "partitions", o->partitions);
    uc_jw_key(out, "enable_cdf");
    uc_jw_bool(out, !strcmp(o->cdf_enabled, "1"));
    uc_jw_field_string(out, "history_data_sharing_status",
                       o->history_data_sharing_status);
    if (o->start_version)
        uc_jw_field_int_text(out, "start_version", o->start_version);
    uc_jw_field_int_text(out, "added_at", o->added_at);
    uc_jw_field_string(out, "added_by", o->added_by);
    uc_jw_end_object(out);
}

/* `context` is the share's data objects when the answer shows them, NULL
 * when it does not. */
static void render(uc_call_t *call, uc_jw_t *out, const uc_securable_t *sec,
                   const void *context)
{
    const apr_array_header_t *objects = context;
    int i;

    uc_jw_begin_object(out);
    uc_jw_field_string(out, "name", sec->name);
    uc_jw_field_string(out, "comment", sec->comment);
    if (objects) {
        uc_jw_key(out, "objects");
        uc_jw_begin_array(out);
        for (i = 0; i < objects->nelts; i++)
            write_object(out, APR_ARRAY_IDX(objects, i,
                                            uc_share_object_t *));
        uc_jw_end_array(out);
    }
    uc_api_write_tail(call, out, sec, "id", 0);
}

/* A get shows the data objects with include_shared_data=true, an update
 * always (the answer to a change shows it); lists and creates never. */
static uc_error_t *read_context(uc_call_t *call, int listing,
                                const void **out)
{
    int with = call->method == UC_PATCH;
    apr_array_header_t *objects;
    uc_error_t *err;

    *out = NULL;
    if (listing || call->method == UC_POST)
        return NULL;
    if (call->method == UC_GET &&
        (err = uc_api_query_flag(call, "include_shared_data", &with)))
        return err;
    if (!with)
        return NULL;
    if ((err = uc_share_objects_of(call->store, call->pool,
                                   UC_TARGET_OF(call)->id, &objects)))
        return err;
    *out = objects;
    return NULL;
}

/* --- one data object update ---------------------------------------------- */

/* What an update names: the object, its chain, and the share's entry. */
typedef struct target {
    const char *action;
    json_t *body;                  /* the data_object */
    const char *type;              /* one of object_types */
    int kind;                      /* its index there */
    const char *name;              /* its full name, normalised */
    uc_chain_t chain;
    uc_access_t access;            /* the caller's rights on it */
    uc_share_object_t *entry;      /* NULL when not in the share */
} target_t;

static const uc_securable_t *object_of(const target_t *t)
{
    return t->chain.sec[t->chain.n - 1];
}

static int is_table(const target_t *t)
{
    return !strcmp(t->type, "TABLE");
}

static int is_schema(const target_t *t)
{
    return !strcmp(t->type, "SCHEMA");
}

static int dots_in(const char *name)
{
    int n = 0;

    while ((name = strchr(name, '.')))
        n++, name++;
    return n;
}

/* The data object's type (when not given, a two-part name is a schema,
 * a three-part one a table) and the object it names, which must exist
 * for the caller: one it may not know of is as missing, unless the share
 * holds it already (a share shows its objects to those who manage it). */
static uc_error_t *resolve_object(uc_call_t *call, target_t *t)
{
    const char *name = NULL;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, t->body, "name", 1,
                                    &name)) ||
        (err = uc_json_enum_field(call->pool, t->body, "data_object_type",
                                  object_types, 0, &t->type)))
        return err;
    if (!t->type)
        t->type = dots_in(name) == 1 ? "SCHEMA" : "TABLE";
    while (strcmp(object_types[t->kind], t->type) != 0)
        t->kind++;
    if ((err = uc_authz_resolve_named(call, object_kinds[t->kind].kind,
                                      name, UC_LOCK_SHARE, &t->chain,
                                      &t->access)))
        return err;
    t->name = uc_api_chain_name(call, &t->chain, t->chain.n - 1);
    if ((err = uc_share_object_get(call->store, call->pool,
                                   UC_TARGET_OF(call)->id, object_of(t)->id,
                                   &t->entry)))
        return err;
    return t->entry ? NULL : uc_authz_unseen(call, &t->chain, &t->access);
}

/* Sharing an object hands out its data: the caller must be able to read
 * it (SELECT, READ VOLUME for a volume or a skill, with USE CATALOG and USE SCHEMA),
 * as Databricks requires. */
static uc_error_t *check_readable(uc_call_t *call, const target_t *t)
{
    const uc_access_t *a = &t->access;

    if (uc_access_has(a, UC_LEVEL_CATALOG, P(UC_PRIV_USE_CATALOG)) &&
        uc_access_has(a, UC_LEVEL_SCHEMA, P(UC_PRIV_USE_SCHEMA)) &&
        uc_access_has(a, t->chain.n - 1, P(object_kinds[t->kind].read)))
        return NULL;
    return uc_error_make(call->pool, UC_E_PERMISSION_DENIED, "Access denied: "
                         "sharing %s '%s' needs %s on it with USE CATALOG "
                         "and USE SCHEMA.", object_kinds[t->kind].kind,
                         t->name,
                         uc_privilege_name(object_kinds[t->kind].read));
}

/* Delta Sharing hands out files and cannot filter rows or mask columns:
 * data that a row-filter or column-mask policy governs (one defined on
 * the object, above it, or on a table of a shared schema) is not
 * shared, as Databricks refuses it. */
static uc_error_t *check_no_policy(uc_call_t *call, const target_t *t)
{
    const uc_chain_t *c = &t->chain;
    const char *ancestors[2] = { c->sec[c->n - 2]->id,
                                 c->n > 2 ? c->sec[c->n - 3]->id : NULL };
    const char *policy, *on;
    uc_securable_t *holder;
    uc_error_t *err;

    if (!is_table(t) && !is_schema(t))
        return NULL;
    if ((err = uc_abac_policy_over(call->store, call->pool, object_of(t)->id,
                                   is_schema(t), ancestors, &policy, &on)) ||
        !policy ||
        (err = uc_securable_by_id(call->store, call->pool, on, &holder)))
        return err;
    return uc_error_make(call->pool, UC_E_FAILED_PRECONDITION, "%s '%s' is "
                         "governed by policy '%s' of %s '%s': Delta Sharing "
                         "cannot filter rows or mask columns, so it cannot "
                         "be shared.", is_table(t) ? "Table" : "Schema",
                         t->name, policy, holder ? holder->kind : "?",
                         holder ? holder->name : "?");
}

/* shared_as: schema.name for an object of a schema, a schema name for a
 * schema; by default the object's own. */
static uc_error_t *read_shared_as(uc_call_t *call, const target_t *t,
                                  const char **out)
{
    const char *given = NULL, *names[2];
    const uc_chain_t *c = &t->chain;
    uc_error_t *err = uc_json_string_field(call->pool, t->body, "shared_as",
                                           0, &given);

    if (err)
        return err;
    if (given && is_schema(t))
        return uc_validate_name(call->pool, "shared_as", given, out);
    if (given && (err = uc_validate_full_name(call->pool, "shared_as",
                                              given, 2, names)))
        return err;
    if (!given) {
        names[0] = c->sec[UC_LEVEL_SCHEMA]->name;
        names[1] = is_schema(t) ? NULL : c->sec[UC_LEVEL_OBJECT]->name;
    }
    *out = names[1] ? apr_pstrcat(call->pool, names[0], ".", names[1], NULL)
                    : names[0];
    return NULL;
}

/* One {name, op, value | recipient_property_key} of a partition. */
static uc_error_t *read_partition_value(uc_call_t *call, json_t *v,
                                        json_t *into)
{
    const char *name = NULL, *op = NULL, *value = NULL, *key = NULL;
    uc_error_t *err;

    if (!json_is_object(v))
        return uc_error_invalid(call->pool, "Each partition value must be "
                                "an object.");
    if ((err = uc_json_string_field(call->pool, v, "name", 1, &name)) ||
        (err = uc_validate_label(call->pool, "name", name, UC_NAME_MAX)) ||
        (err = uc_json_enum_field(call->pool, v, "op", partition_ops, 1,
                                  &op)) ||
        (err = uc_json_string_field(call->pool, v, "value", 0, &value)) ||
        (err = uc_validate_text(call->pool, "value", value,
                                UC_PROPERTY_VALUE_MAX)) ||
        (err = uc_json_string_field(call->pool, v, "recipient_property_key",
                                    0, &key)) ||
        (key && (err = uc_validate_label(call->pool,
                                         "recipient_property_key", key,
                                         UC_PROPERTY_KEY_MAX))))
        return err;
    if (!value == !key)
        return uc_error_invalid(call->pool, "A partition value on '%s' takes "
                                "one of 'value' and "
                                "'recipient_property_key'.", name);
    if (key && !strcmp(op, "LIKE"))
        return uc_error_invalid(call->pool, "A LIKE partition value on '%s' "
                                "takes a 'value'.", name);
    json_array_append_new(into, json_pack("{ssssss}", "name", name,
                                          "op", op, value ? "value"
                                          : "recipient_property_key",
                                          value ? value : key));
    return NULL;
}

/* One {values: [...]} of partitions, into `into`. */
static uc_error_t *read_partition(uc_call_t *call, json_t *p, json_t *into)
{
    json_t *values = json_object_get(p, "values"), *out, *v;
    size_t i;
    uc_error_t *err;

    if (!json_is_array(values) || !json_array_size(values) ||
        json_array_size(values) > MAX_PARTITIONS)
        return uc_error_invalid(call->pool, "Each partition needs 'values': "
                                "1 to %d partition values.", MAX_PARTITIONS);
    out = json_array();
    json_array_append_new(into, json_pack("{so}", "values", out));
    json_array_foreach(values, i, v)
        if ((err = read_partition_value(call, v, out)))
            return err;
    return NULL;
}

/* partitions, normalised as JSON text; [] clears them (NULL). */
static uc_error_t *read_partitions(uc_call_t *call, json_t *given,
                                   const char **out)
{
    json_t *all = uc_json_own(call->pool, json_array()), *p;
    size_t i;
    uc_error_t *err;

    if (!json_is_array(given) || json_array_size(given) > MAX_PARTITIONS)
        return uc_error_invalid(call->pool, "Field 'partitions' must be an "
                                "array of at most %d partitions.",
                                MAX_PARTITIONS);
    json_array_foreach(given, i, p)
        if ((err = read_partition(call, p, all)))
            return err;
    *out = json_array_size(all) ? uc_json_dump(call->pool, all) : NULL;
    return NULL;
}

/* The fields of a data object besides its name and shared_as, those
 * present over what `o` holds; partitions, enable_cdf and start_version
 * are a table's. */
static uc_error_t *read_options(uc_call_t *call, const target_t *t,
                                uc_share_object_t *o)
{
    json_t *partitions = json_object_get(t->body, "partitions");
    int cdf = !strcmp(o->cdf_enabled, "1"), present = 0;
    apr_int64_t start = 0;
    uc_error_t *err;

    if ((err = uc_json_string_field(call->pool, t->body, "comment", 0,
                                    &o->comment)) ||
        (err = uc_validate_text(call->pool, "comment", o->comment,
                                UC_COMMENT_MAX)) ||
        (err = uc_json_enum_field(call->pool, t->body,
                                  "history_data_sharing_status",
                                  history_statuses, 0,
                                  &o->history_data_sharing_status)) ||
        (err = uc_json_bool_field(call->pool, t->body, "enable_cdf", &cdf)) ||
        (err = uc_json_int_field(call->pool, t->body, "start_version", 0,
                                 APR_INT64_MAX, &start, &present)) ||
        (partitions && !json_is_null(partitions) &&
         (err = read_partitions(call, partitions, &o->partitions))))
        return err;
    if (!is_table(t) && (cdf || present || o->partitions))
        return uc_error_invalid(call->pool, "Fields 'partitions', "
                                "'enable_cdf' and 'start_version' are those "
                                "of a shared table, not of %s '%s'.",
                                object_kinds[t->kind].kind, t->name);
    o->cdf_enabled = cdf ? "1" : "0";
    if (present)
        o->start_version = apr_psprintf(call->pool, "%" APR_INT64_T_FMT,
                                        start);
    return NULL;
}

/* --- what the table's Delta log says ------------------------------------- */

/* Delta keeps the case of column names and matches them without it. */
static int is_partition_column(json_t *columns, const char *name)
{
    json_t *c;
    size_t i;

    json_array_foreach(columns, i, c)
        if (json_is_string(c) && !strcasecmp(json_string_value(c), name))
            return 1;
    return 0;
}

/* Every partition value names one of the table's partition columns. */
static uc_error_t *check_partition_columns(uc_call_t *call, const char *name,
                                           const char *partitions,
                                           const char *metadata)
{
    json_t *meta = uc_json_own(call->pool, json_loads(metadata, 0, NULL));
    json_t *all = uc_json_own(call->pool, json_loads(partitions, 0, NULL));
    json_t *columns = json_object_get(meta, "partitionColumns"), *p, *v;
    size_t i, j;

    json_array_foreach(all, i, p)
        json_array_foreach(json_object_get(p, "values"), j, v) {
            const char *column = json_string_value(json_object_get(v,
                                                                   "name"));
            if (!is_partition_column(columns, column))
                return uc_error_invalid(call->pool, "'%s' is not a "
                                        "partition column of table '%s'.",
                                        column, name);
        }
    return NULL;
}

static uc_error_t *check_snapshot(uc_call_t *call, const char *name,
                                  const uc_share_object_t *o,
                                  const uc_delta_snapshot_t *snap)
{
    if (!strcmp(o->cdf_enabled, "1") && !snap->features.change_data_feed)
        return uc_error_invalid(call->pool, "Table '%s' has no change data "
                                "feed (delta.enableChangeDataFeed): it "
                                "cannot be shared with enable_cdf.", name);
    if (o->start_version &&
        apr_atoi64(o->start_version) > snap->version)
        return uc_error_invalid(call->pool, "Version %s of table '%s' does "
                                "not exist: its latest is %" APR_INT64_T_FMT
                                ".", o->start_version, name, snap->version);
    if (o->partitions)
        return check_partition_columns(call, name, o->partitions,
                                       snap->metadata);
    return NULL;
}

/* Why the log of table `name` could not be read. The store's faults (502,
 * 503) stay the server's, for the client to retry; anything else (no
 * _delta_log, a malformed one) is the table's, a 400. */
static uc_error_t *unreadable_log(uc_call_t *call, const char *name,
                                  const uc_error_t *err)
{
    int server_fault = err->kind == UC_E_STORAGE ||
                       err->kind == UC_E_UNAVAILABLE;
    uc_error_t *out = uc_error_make(call->pool, server_fault ? err->kind
                                                             : UC_E_INVALID,
                                    "The Delta log of table '%s' cannot be "
                                    "read: %s", name, err->message);

    out->cause = err->cause;
    out->retry_after = err->retry_after;
    return out;
}

/* The options of a shared table against its Delta log, when the server
 * reads that log itself: local tables, and cloud ones with the credential of
 * the external location covering them (uc_table_store.h). */
static uc_error_t *check_log(uc_call_t *call, const target_t *t,
                             const uc_share_object_t *o)
{
    const char *location = object_of(t)->storage_location;
    uc_table_log_t log;
    uc_delta_snapshot_t *snap;
    uc_error_t *err;

    if (!is_table(t) || !location || !uc_table_store_reads(location) ||
        (!o->partitions && !o->start_version &&
         strcmp(o->cdf_enabled, "1") != 0))
        return NULL;
    /* Without credentials there is no log to read: the vend's own error
     * says which location or credential is missing. */
    if ((err = uc_table_log_open(call, object_of(t), &log)))
        return log.config ? unreadable_log(call, t->name, err) : err;
    if ((err = uc_table_log_latest(&log, &snap)))
        return unreadable_log(call, t->name, err);
    return check_snapshot(call, t->name, o, snap);
}

/* --- the three actions --------------------------------------------------- */

/* Who changed which object of the share, and how: the object's full name
 * in `principal`, its type in `privilege`. */
static uc_error_t *audit(uc_call_t *call, const char *action,
                         const target_t *t)
{
    const uc_securable_t *share = UC_TARGET_OF(call);
    uc_audit_t entry = {
        uc_epoch_ms_text(call->pool, call->now), call->principal, action,
        UC_KIND_SHARE, share->id, share->name, t->name, t->type
    };
    return uc_audit_add(call->store, &entry);
}

static uc_error_t *not_in_share(uc_call_t *call, const target_t *t)
{
    return uc_error_make(call->pool, UC_E_RESOURCE_DOES_NOT_EXIST,
                         "Data object '%s' is not in share '%s'.", t->name,
                         UC_TARGET_OF(call)->name);
}

static uc_error_t *already_shared(uc_call_t *call, const char *what,
                                  const char *name)
{
    return uc_error_make(call->pool, UC_E_RESOURCE_ALREADY_EXISTS,
                         "%s '%s' is already in share '%s'.", what, name,
                         UC_TARGET_OF(call)->name);
}

static uc_error_t *add_object(uc_call_t *call, const target_t *t)
{
    uc_share_object_t *o = apr_pcalloc(call->pool, sizeof(*o));
    uc_error_t *err;

    if (t->entry)
        return already_shared(call, "Data object", t->name);
    if (!(o->id = uc_uuid4(call->pool)))
        return uc_error_internal(call->pool);
    o->share_id = UC_TARGET_OF(call)->id;
    o->object_id = object_of(t)->id;
    o->data_object_type = t->type;
    o->name = t->name;
    o->cdf_enabled = "0";
    o->history_data_sharing_status = "DISABLED";
    o->added_at = uc_epoch_ms_text(call->pool, call->now);
    o->added_by = call->principal;
    if ((err = check_readable(call, t)) ||
        (err = check_no_policy(call, t)) ||
        (err = read_shared_as(call, t, &o->shared_as)) ||
        (err = read_options(call, t, o)) ||
        (err = check_log(call, t, o)))
        return err;
    err = uc_share_object_insert(call->store, o);
    /* The object itself was looked for first: what is taken is the name. */
    if (uc_store_is_duplicate(err))
        return already_shared(call, "Shared name", o->shared_as);
    return err ? err : audit(call, "SHARE_ADD", t);
}

static uc_error_t *update_object(uc_call_t *call, const target_t *t)
{
    const char *shared_as;
    uc_error_t *err;

    if (!t->entry)
        return not_in_share(call, t);
    if ((err = read_shared_as(call, t, &shared_as)))
        return err;
    if (json_object_get(t->body, "shared_as") &&
        strcmp(shared_as, t->entry->shared_as) != 0)
        return uc_error_invalid(call->pool, "The shared_as of '%s' cannot "
                                "change; remove it and add it again.",
                                t->name);
    if ((err = read_options(call, t, t->entry)) ||
        (err = check_log(call, t, t->entry)) ||
        (err = uc_share_object_update(call->store, t->entry)))
        return err;
    return audit(call, "SHARE_UPDATE", t);
}

static uc_error_t *remove_object(uc_call_t *call, const target_t *t)
{
    uc_error_t *err;

    if (!t->entry)
        return not_in_share(call, t);
    if ((err = uc_share_object_delete(call->store, t->entry->id)))
        return err;
    return audit(call, "SHARE_REMOVE", t);
}

static uc_error_t *apply_update(uc_call_t *call, json_t *update)
{
    target_t t = { NULL };
    uc_error_t *err;

    if (!json_is_object(update))
        return uc_error_invalid(call->pool, "Each of 'updates' must be an "
                                "object.");
    if ((err = uc_json_enum_field(call->pool, update, "action", actions, 1,
                                  &t.action)))
        return err;
    t.body = json_object_get(update, "data_object");
    if (!json_is_object(t.body))
        return uc_error_invalid(call->pool, "Field 'data_object' is "
                                "required: an object.");
    if ((err = resolve_object(call, &t)))
        return err;
    return !strcmp(t.action, "ADD") ? add_object(call, &t)
         : !strcmp(t.action, "UPDATE") ? update_object(call, &t)
         : remove_object(call, &t);
}

/* An update applies `updates` in order, then the share's own fields; the
 * first error undoes everything (the route's transaction). */
static uc_error_t *update_share(uc_call_t *call, uc_jw_t *out)
{
    json_t *updates = json_object_get(call->body, "updates"), *u;
    size_t i;
    uc_error_t *err;

    if (updates && !json_is_null(updates) &&
        (!json_is_array(updates) || json_array_size(updates) > MAX_UPDATES))
        return uc_error_invalid(call->pool, "Field 'updates' must be an "
                                "array of at most %d updates.", MAX_UPDATES);
    json_array_foreach(updates, i, u)
        if ((err = apply_update(call, u)))
            return err;
    return uc_family_update(call, out);
}

/* Changed data objects change the share. */
static uc_error_t *prepare_update(uc_call_t *call, uc_securable_t *sec,
                                  int *changed)
{
    (void)sec;
    *changed = json_array_size(json_object_get(call->body, "updates")) > 0;
    return NULL;
}

/* Every share for USE SHARE (or SET SHARE PERMISSION) on the metastore,
 * else those the caller owns or may manage. */
static uc_visibility_t *visible_shares(uc_call_t *call, int include_browse)
{
    int all = uc_access_has(&call->access, UC_LEVEL_METASTORE,
                            P(UC_PRIV_USE_SHARE) |
                            P(UC_PRIV_SET_SHARE_PERMISSION));

    (void)include_browse;
    return uc_api_visibility(call, all, all, P(UC_PRIV_MANAGE),
                             P(UC_PRIV_MANAGE));
}

/* What shares are, whichever API serves them. */
#define SHARE_FAMILY \
    .type = UC_TYPE_SHARE, .level = UC_LEVEL_CATALOG, \
    .rules = UC_RULES_ON_METASTORE_LISTED_AT(UC_TYPE_SHARE, \
                                             UC_PRIV_CREATE_SHARE, SEE_SHARE, \
                                             0, UC_TARGET_METASTORE), \
    .read = SEE_SHARE, \
    .label = "Share", .plural = "shares", \
    .exists = UC_E_RESOURCE_ALREADY_EXISTS, \
    .audited = 1

const uc_api_family_t uc_share_family = {
    SHARE_FAMILY,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER,
    .update_fields = UC_FIELD_COMMENT | UC_FIELD_OWNER | UC_FIELD_NEW_NAME,
    .render = render, .context = read_context,
    .prepare_update = prepare_update, .visibility = visible_shares
};

const uc_route_t uc_share_routes[] = {
    UC_ROUTE_CREATE(uc_share_family, "/shares"),
    UC_ROUTE_LIST(uc_share_family, "/shares"),
    UC_ROUTE_GET(uc_share_family, "/shares/{name}"),
    { UC_PATCH, "/shares/{name}", update_share, UC_ROUTE_BODY | UC_ROUTE_TXN,
      &uc_share_family.rules.manage, NULL, &uc_share_family, "UPDATE" },
    UC_ROUTE_DELETE(uc_share_family, "/shares/{name}"),
    { 0, NULL, NULL, 0, NULL }
};

/* --- the Delta Sharing API's CreateShare and DeleteShare ----------------- */

/* A share as that API's ShareInfo has it: its comment is the
 * description. */
static void render_share_info(uc_call_t *call, uc_jw_t *out,
                              const uc_securable_t *sec, const void *context)
{
    (void)call;
    (void)context;
    uc_jw_begin_object(out);
    uc_jw_field_string(out, "id", sec->id);
    uc_jw_field_string(out, "name", sec->name);
    uc_jw_field_string(out, "description", sec->comment);
    uc_jw_field_raw(out, "properties",
                    sec->properties && *sec->properties ? sec->properties
                                                        : "{}");
    uc_jw_end_object(out);
}

static const uc_api_family_t share_infos = {
    SHARE_FAMILY,
    .create_fields = UC_FIELD_COMMENT | UC_FIELD_PROPERTIES,
    .answers_deleted = 1,
    .render = render_share_info
};

/* A ShareInfo body ({name, description, properties}) creates the share a
 * catalog create would: its description is the comment. */
static uc_error_t *create_share_info(uc_call_t *call, uc_jw_t *out)
{
    json_t *description = json_object_get(call->body, "description");

    if (description && !json_is_null(description) &&
        !json_is_string(description))
        return uc_error_invalid(call->pool, "Field 'description' must be a "
                                "string.");
    if (description && !json_is_null(description))
        json_object_set(call->body, "comment", description);
    else
        json_object_del(call->body, "comment");
    return uc_family_create(call, out);
}

const uc_route_t uc_share_info_routes[] = {
    { UC_POST, "/shares", create_share_info, UC_ROUTE_BODY | UC_ROUTE_TXN,
      &share_infos.rules.create, NULL, &share_infos, "CREATE" },
    UC_ROUTE_DELETE(share_infos, "/shares/{name}"),
    { 0, NULL, NULL, 0, NULL }
};
