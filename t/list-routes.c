/* SPDX-License-Identifier: Apache-2.0 */
/* Every route of every API the module mounts (src/mounts/uc_mounts.h),
 * with its rule in words, as Markdown tables: what the README's section
 * "Every route and its rule" holds, word for word (t/check-routes.sh
 * compares them). Generated from the route tables themselves, so the
 * listing cannot drift from what the server does. */
#include <stdio.h>
#include <string.h>
#include <apr_general.h>
#include <apr_strings.h>

#include "../src/authz/uc_rules.h"
#include "../src/http/uc_router.h"
#include "../src/mounts/uc_mounts.h"

static const char *const targets[] = {
    [UC_TARGET_CALLER] = "any caller",
    [UC_TARGET_METASTORE] = "the metastore",
    [UC_TARGET_CATALOG] = "the catalog of the path",
    [UC_TARGET_TOP_OBJECT] = "the %s of the path",
    [UC_TARGET_CATALOG_FIELD] = "the body's catalog",
    [UC_TARGET_CATALOG_QUERY] = "the query's catalog",
    [UC_TARGET_SCHEMA] = "the schema of the path",
    [UC_TARGET_SCHEMA_FIELDS] = "the body's schema",
    [UC_TARGET_SCHEMA_QUERY] = "the query's schema",
    [UC_TARGET_SCHEMA_PATH] = "the schema of the path",
    [UC_TARGET_SCHEMA_QUERY_OR_METASTORE] = "the query's schema, or the "
                                            "metastore",
    [UC_TARGET_OBJECT_SCHEMA] = "the schema of the path's object",
    [UC_TARGET_OBJECT] = "the %s of the path",
    [UC_TARGET_OBJECT_FIELDS] = "the body's %s",
    [UC_TARGET_OBJECT_PATH] = "the %s of the path",
    [UC_TARGET_OBJECT_ID] = "the %s of the body's id",
    [UC_TARGET_OBJECT_ID_PATH] = "the %s of the path's id",
    [UC_TARGET_SECURABLE] = "the securable of the path",
    [UC_TARGET_TAGGED_ENTITY] = "the tagged entity of the path",
    [UC_TARGET_TAGGED_ENTITY_FIELDS] = "the body's tagged entity",
    [UC_TARGET_POLICY_SCOPE] = "the securable of the path",
    [UC_TARGET_RECIPIENT] = "the recipient",
    [UC_TARGET_RECIPIENT_SHARE] = "a share granted to the recipient",
    [UC_TARGET_PUBLIC] = "anyone, unauthenticated",
};

static const char *const levels[] = {
    "the metastore", "the catalog", "the schema", NULL
};

/* A securable type in words: "registered model". */
static const char *type_of(apr_pool_t *pool, const uc_rule_t *rule)
{
    char *name, *p;

    if (rule->type == UC_TYPE_METASTORE)
        return "object";
    name = apr_pstrdup(pool, uc_securable_type_name(rule->type));
    for (p = name; *p; p++)
        if (*p == '_')
            *p = ' ';
    return name;
}

/* Where a need applies: its level, named after the rule's type at the
 * object's. */
static const char *level_of(apr_pool_t *pool, const uc_rule_t *rule,
                            int level)
{
    if (level == UC_LEVEL_TARGET)
        return "it";
    if (levels[level])
        return levels[level];
    return apr_pstrcat(pool, "the ", type_of(pool, rule), NULL);
}

static const char *target_of(apr_pool_t *pool, const uc_rule_t *rule)
{
    const char *t = targets[rule->target];

    return strstr(t, "%s") ? apr_psprintf(pool, t, type_of(pool, rule)) : t;
}

/* "USE CATALOG on the catalog, one of SELECT, MODIFY on the object" */
static const char *needs_of(apr_pool_t *pool, const uc_rule_t *rule)
{
    const char *text = "";
    int i;

    for (i = 0; i < 3 && rule->needs[i].any; i++) {
        const uc_need_t *n = &rule->needs[i];
        apr_array_header_t *names;
        const char *privs;
        int k;

        if (n->any == UC_ANY_PRIVILEGE)
            privs = "any privilege";
        else {
            names = uc_privileges_names(pool, n->any);
            privs = names->nelts > 1 ? "one of " : "";
            for (k = 0; k < names->nelts; k++)
                privs = apr_pstrcat(pool, privs, k ? ", " : "",
                                    APR_ARRAY_IDX(names, k, const char *),
                                    NULL);
        }
        text = apr_pstrcat(pool, text, *text ? "; " : "", privs, " on ",
                           level_of(pool, rule, n->level), NULL);
    }
    return text;
}

static void print_rule(apr_pool_t *pool, const uc_rule_t *rule)
{
    const char *needs = needs_of(pool, rule);

    printf("%s%s%s%s%s", target_of(pool, rule), *needs ? ": " : "", needs,
           rule->browse == UC_BROWSE_ALWAYS ? "; BROWSE shows it"
           : rule->browse ? "; BROWSE with include_browse" : "",
           rule->visible ? "; seen by all" : "");
}

int main(void)
{
    apr_pool_t *pool;
    int m;

    apr_initialize();
    apr_pool_create(&pool, NULL);
    for (m = 0; m < UC_MOUNT_COUNT; m++) {
        const uc_route_t *const *t;
        const uc_route_t *r;

        printf("%s`%s` (`SetHandler %s`):\n\n| Route | Who may call it |\n"
               "|---|---|\n", m ? "\n" : "", uc_mounts[m].name,
               uc_mounts[m].handler);
        for (t = uc_mounts[m].routes; *t; t++)
            for (r = *t; r->pattern; r++) {
                printf("| `%s %s` | ", uc_method_name(r->method),
                       r->pattern);
                print_rule(pool, r->rule);
                printf(" |\n");
            }
    }
    apr_pool_destroy(pool);
    apr_terminate();
    return 0;
}
