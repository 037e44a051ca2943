/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_access.h"

#include <string.h>
#include <apr_hash.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <jansson.h>

#include "../core/uc_json.h"
#include "../core/uc_jw.h"
#include "../core/uc_validate.h"

static int listed(const apr_array_header_t *list, const char *name)
{
    int i;

    for (i = 0; list && i < list->nelts; i++)
        if (strcmp(APR_ARRAY_IDX(list, i, const char *), name) == 0)
            return 1;
    return 0;
}

uc_principal_t *uc_principal_make(apr_pool_t *pool, const char *name,
                                  apr_array_header_t *groups,
                                  const apr_array_header_t *admins)
{
    uc_principal_t *p = apr_pcalloc(pool, sizeof(*p));
    /* Written, not built as jansson values and dumped: one principal is
     * made on every request. */
    uc_jw_t *all = uc_jw_make(pool, 64);
    int i;

    p->name = name;
    p->groups = groups ? groups : apr_array_make(pool, 1,
                                                 sizeof(const char *));
    p->admin = listed(admins, name);
    uc_jw_begin_array(all);
    uc_jw_string(all, name);
    for (i = 0; i < p->groups->nelts; i++) {
        const char *g = APR_ARRAY_IDX(p->groups, i, const char *);
        if (listed(admins, g))
            p->admin = 1;
        uc_jw_string(all, g);
    }
    uc_jw_end_array(all);
    p->json = uc_jw_text(all);
    return p;
}

int uc_principal_is(const uc_principal_t *p, const char *name)
{
    return name && (strcmp(p->name, name) == 0 || listed(p->groups, name));
}

uc_error_t *uc_principal_normalize(apr_pool_t *pool, const char *field,
                                   const char *name, const char **out)
{
    apr_size_t len;
    char *folded, *p;

    /* Only spaces are trimmed: any other blank is a control character,
     * which no name may hold. */
    while (*name == ' ')
        name++;
    len = strlen(name);
    while (len && name[len - 1] == ' ')
        len--;
    folded = apr_pstrmemdup(pool, name, len);
    for (p = folded; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    *out = folded;
    return uc_validate_principal_name(pool, field, folded);
}

static void add_group(apr_pool_t *pool, apr_array_header_t *into,
                      const char *start, apr_size_t len)
{
    const char *g;

    if (into->nelts < UC_MAX_GROUPS &&
        !uc_principal_normalize(pool, "group", apr_pstrmemdup(pool, start,
                                                               len), &g) &&
        !listed(into, g))
        APR_ARRAY_PUSH(into, const char *) = g;
}

void uc_groups_from_claim(apr_pool_t *pool, const char *claim,
                          apr_array_header_t *into)
{
    const char *p;

    if (!claim)
        return;
    while (apr_isspace(*claim))
        claim++;
    if (*claim == '[') {
        json_t *list = json_loads(claim, 0, NULL), *item;
        size_t i;

        json_array_foreach(list, i, item)
            if (json_is_string(item))
                add_group(pool, into, json_string_value(item),
                          strlen(json_string_value(item)));
        json_decref(list);
        return;
    }
    for (p = claim; *p; ) {
        const char *end = strchr(p, ',');
        apr_size_t len = end ? (apr_size_t)(end - p) : strlen(p);
        add_group(pool, into, p, len);
        p += len + (end ? 1 : 0);
    }
}

apr_hash_t *uc_groups_from_file_text(apr_pool_t *pool, const char *text)
{
    apr_hash_t *users = apr_hash_make(pool);
    char *copy = apr_pstrdup(pool, text), *line, *state;

    for (line = apr_strtok(copy, "\n", &state); line;
         line = apr_strtok(NULL, "\n", &state)) {
        char *colon = strchr(line, ':'), *member, *mstate;
        const char *group;

        if (line[0] == '#' || !colon)
            continue;
        *colon = '\0';
        {
            char *trimmed = apr_pstrdup(pool, line);
            apr_collapse_spaces(trimmed, line);
            group = trimmed;
        }
        if (!*group)
            continue;
        for (member = apr_strtok(colon + 1, " \t\r", &mstate); member;
             member = apr_strtok(NULL, " \t\r", &mstate)) {
            apr_array_header_t *groups;
            const char *user;

            if (uc_principal_normalize(pool, "user", member, &user))
                continue;
            groups = apr_hash_get(users, user, APR_HASH_KEY_STRING);
            if (!groups) {
                groups = apr_array_make(pool, 2, sizeof(const char *));
                apr_hash_set(users, user, APR_HASH_KEY_STRING, groups);
            }
            add_group(pool, groups, group, strlen(group));
        }
    }
    return users;
}
