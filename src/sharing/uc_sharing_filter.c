/* SPDX-License-Identifier: Apache-2.0 */
/* What the share object's partitions let a recipient see of a table
 * (a file whose partition values match every value of one partition:
 * EQUAL, LIKE, or a property of the recipient), and with the query's
 * hints, whether a file goes out. */
#include "uc_shared.h"

#include <string.h>
#include <strings.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../store/uc_securables.h"

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

uc_error_t *uc_sharing_filter_make(uc_shared_t *s, uc_sharing_filter_t *f)
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

static int value_matches(const uc_sharing_filter_t *f, json_t *values,
                         json_t *want)
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

static int passes(const uc_sharing_filter_t *f, apr_pool_t *pool,
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

int uc_sharing_filter_keeps(const uc_sharing_filter_t *f,
                            const uc_sharing_query_t *q, apr_pool_t *pool,
                            const char *partition_values)
{
    return passes(f, pool, partition_values) &&
           (!q || !q->predicate ||
            uc_sharing_predicate_keeps(q->predicate, pool, partition_values));
}
