/* SPDX-License-Identifier: Apache-2.0 */
/* Share permissions (/shares/{name}/permissions): which recipients may
 * read a share. The one privilege is SELECT; the principals are
 * recipients, kept apart from the grants of users and groups so that a
 * user and a recipient of one name are never taken for each other. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_id.h"
#include "../core/uc_json.h"
#include "../store/uc_grants.h"
#include "../store/uc_share_recipients.h"

#define P UC_PRIV

/* One page of the share's recipients as privilege assignments, inside
 * the array; *last is the last name written, NULL for none. */
static uc_error_t *write_page(uc_call_t *call, uc_jw_t *out,
                              const uc_page_t *page, const char **last,
                              int *more)
{
    apr_array_header_t *names;
    int i;
    uc_error_t *err = uc_share_recipients_page(
        call->store, call->pool, UC_TARGET_OF(call)->id,
        page->after ? page->after : "", page->limit, &names, more);

    if (err)
        return err;
    for (i = 0; i < names->nelts; i++) {
        uc_jw_begin_object(out);
        uc_jw_field_string(out, "principal",
                           APR_ARRAY_IDX(names, i, const char *));
        uc_jw_key(out, "privileges");
        uc_jw_raw(out, "[\"SELECT\"]");
        uc_jw_end_object(out);
    }
    *last = names->nelts ? APR_ARRAY_IDX(names, names->nelts - 1,
                                         const char *) : NULL;
    return NULL;
}

/* {"privilege_assignments":[{"principal":r,"privileges":["SELECT"]}...]}:
 * one page and its next_page_token, or (`whole`) every page. */
static uc_error_t *write_assignments(uc_call_t *call, uc_jw_t *out,
                                     uc_page_t page, int whole)
{
    const char *last;
    int more;
    uc_error_t *err;

    uc_jw_begin_object(out);
    uc_jw_key(out, "privilege_assignments");
    uc_jw_begin_array(out);
    do {
        if ((err = write_page(call, out, &page, &last, &more)))
            return err;
        page.after = last;
    } while (whole && more && last);
    uc_jw_end_array(out);
    if (!whole)
        uc_jw_field_string(out, "next_page_token", more && last
                           ? uc_page_token(call->pool, last) : NULL);
    uc_jw_end_object(out);
    return NULL;
}

static uc_error_t *get_permissions(uc_call_t *call, uc_jw_t *out)
{
    uc_page_t page;
    uc_error_t *err = uc_api_page(call, &page);

    return err ? err : write_assignments(call, out, page, 0);
}

/* SELECT is the one privilege a recipient holds on a share. */
static uc_error_t *wants_select(uc_call_t *call, json_t *change,
                                const char *field, int *wanted)
{
    json_t *list = json_object_get(change, field), *v;
    size_t i;

    *wanted = 0;
    if (list && !json_is_null(list) && !json_is_array(list))
        return uc_error_invalid(call->pool, "Field '%s' must be an array.",
                                field);
    json_array_foreach(list, i, v) {
        const char *name = json_string_value(v);
        if (!name || uc_privilege_parse(name) != UC_PRIV_SELECT)
            return uc_error_invalid(call->pool, "A share grants recipients "
                                    "SELECT only, not '%s'.",
                                    name ? name : "(not a string)");
        *wanted = 1;
    }
    return NULL;
}

/* The recipient named by a change, which the caller must be able to
 * hand a share: USE RECIPIENT on the metastore, or ownership or MANAGE of
 * the recipient. Those are the only privileges a recipient takes, so a
 * caller without them may not know of it either: it is as missing. */
static uc_error_t *grantee(uc_call_t *call, const char *name,
                           const uc_securable_t **out)
{
    uc_chain_t chain;
    uc_access_t access;
    uc_error_t *err;

    if ((err = uc_authz_resolve_named(call, "recipient", name,
                                      UC_LOCK_SHARE, &chain, &access)) ||
        (err = uc_authz_unseen(call, &chain, &access)))
        return err;
    *out = chain.sec[UC_LEVEL_CATALOG];
    return NULL;
}

static uc_error_t *audit(uc_call_t *call, const char *action,
                         const uc_securable_t *recipient, const char *at)
{
    const uc_securable_t *share = UC_TARGET_OF(call);
    uc_audit_t entry = {
        at, call->principal, action, "share", share->id, share->name,
        recipient->name, "SELECT"
    };

    return uc_audit_add(call->store, &entry);
}

static uc_error_t *apply(uc_call_t *call, json_t *change, const char *at)
{
    const char *name = NULL, *share = UC_TARGET_OF(call)->id;
    const uc_securable_t *recipient = NULL;
    int add, remove, changed = 0;
    uc_error_t *err;

    if (!json_is_object(change))
        return uc_error_invalid(call->pool, "Each change must be an "
                                "object.");
    if ((err = uc_json_string_field(call->pool, change, "principal", 1,
                                    &name)) ||
        (err = wants_select(call, change, "add", &add)) ||
        (err = wants_select(call, change, "remove", &remove)) ||
        (err = grantee(call, name, &recipient)))
        return err;
    if (add && (err = uc_share_recipient_add(call->store, share,
                                             recipient->id, at,
                                             call->principal, &changed)))
        return err;
    if (add && changed && (err = audit(call, "SHARE_GRANT", recipient, at)))
        return err;
    if (remove &&
        (err = uc_share_recipient_remove(call->store, share, recipient->id,
                                         &changed)))
        return err;
    if (remove && changed)
        return audit(call, "SHARE_REVOKE", recipient, at);
    return NULL;
}

#define MAX_CHANGES 100

static uc_error_t *update_permissions(uc_call_t *call, uc_jw_t *out)
{
    json_t *changes = json_object_get(call->body, "changes"), *c;
    const char *at = uc_epoch_ms_text(call->pool, call->now);
    uc_page_t all = { UC_PAGE_MAX, NULL };
    int omit = 0;
    size_t i;
    uc_error_t *err;

    if (changes && !json_is_array(changes))
        return uc_error_invalid(call->pool, "Field 'changes' must be an "
                                "array.");
    if (json_array_size(changes) > MAX_CHANGES)
        return uc_error_invalid(call->pool, "At most %d changes at once.",
                                MAX_CHANGES);
    if ((err = uc_json_bool_field(call->pool, call->body,
                                  "omit_permissions_list", &omit)))
        return err;
    json_array_foreach(changes, i, c)
        if ((err = apply(call, c, at)))
            return err;
    if (omit) {
        uc_jw_raw(out, "{}");
        return NULL;
    }
    return write_assignments(call, out, all, 1);
}

/* Whether the caller may know of the share: a share it may not see is
 * left out of a recipient's list, as if it were not granted. */
static uc_error_t *share_seen(uc_call_t *call, const char *name, int *seen)
{
    uc_chain_t chain;
    uc_access_t access;
    uc_error_t *err = uc_authz_resolve_named(call, "share", name,
                                             UC_LOCK_SHARE, &chain, &access);

    if (!err)
        err = uc_authz_unseen(call, &chain, &access);
    *seen = !err;
    return err && !uc_error_is_missing(err) ? err : NULL;
}

/* GET /recipients/{name}/share-permissions: the shares granted to the
 * recipient that the caller may see, a page at a time, as Databricks
 * answers it: {"permissions_out":[{"share_name", "privilege_assignments":
 * [{"principal": recipient, "privileges": ["SELECT"]}]}], ...}. */
static uc_error_t *recipient_shares(uc_call_t *call, uc_jw_t *out)
{
    const uc_securable_t *recipient = UC_TARGET_OF(call);
    apr_array_header_t *shares;
    uc_page_t page;
    int i, more, seen;
    uc_error_t *err;

    if ((err = uc_api_page(call, &page)) ||
        (err = uc_share_recipient_shares_page(
             call->store, call->pool, recipient->id,
             page.after ? page.after : "", page.limit, &shares, &more)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "permissions_out");
    uc_jw_begin_array(out);
    for (i = 0; i < shares->nelts; i++) {
        const char *name = APR_ARRAY_IDX(shares, i, uc_securable_t *)->name;

        if ((err = share_seen(call, name, &seen)))
            return err;
        if (!seen)
            continue;
        uc_jw_begin_object(out);
        uc_jw_field_string(out, "share_name", name);
        uc_jw_key(out, "privilege_assignments");
        uc_jw_begin_array(out);
        uc_jw_begin_object(out);
        uc_jw_field_string(out, "principal", recipient->name);
        uc_jw_key(out, "privileges");
        uc_jw_raw(out, "[\"SELECT\"]");
        uc_jw_end_object(out);
        uc_jw_end_array(out);
        uc_jw_end_object(out);
    }
    uc_jw_end_array(out);
    uc_jw_field_string(out, "next_page_token", more && shares->nelts
        ? uc_page_token(call->pool, APR_ARRAY_IDX(shares, shares->nelts - 1,
                                                  uc_securable_t *)->name)
        : NULL);
    uc_jw_end_object(out);
    return NULL;
}

/* Reading needs sight of the share; changing, SET SHARE PERMISSION (on
 * the metastore) or MANAGE, ownership or admin. */
static const uc_rule_t read_rule = {
    UC_TARGET_TOP_OBJECT,
    { { UC_LEVEL_TARGET, P(UC_PRIV_USE_SHARE) |
                         P(UC_PRIV_SET_SHARE_PERMISSION) |
                         P(UC_PRIV_MANAGE) } },
    UC_TYPE_SHARE };
static const uc_rule_t manage_rule = {
    UC_TARGET_TOP_OBJECT,
    { { UC_LEVEL_TARGET, P(UC_PRIV_SET_SHARE_PERMISSION) |
                         P(UC_PRIV_MANAGE) } },
    UC_TYPE_SHARE };
/* What a recipient reads is seen by those who may hand it shares. */
static const uc_rule_t recipient_rule = {
    UC_TARGET_TOP_OBJECT,
    { { UC_LEVEL_TARGET, P(UC_PRIV_USE_RECIPIENT) | P(UC_PRIV_MANAGE) } },
    UC_TYPE_RECIPIENT };

const uc_route_t uc_share_permission_routes[] = {
    { UC_GET, "/recipients/{name}/share-permissions", recipient_shares, 0,
      &recipient_rule },
    { UC_GET, "/shares/{name}/permissions", get_permissions, 0,
      &read_rule },
    { UC_PATCH, "/shares/{name}/permissions", update_permissions,
      UC_ROUTE_BODY | UC_ROUTE_TXN, &manage_rule,
      .audit = "UPDATE_SHARE_PERMISSIONS" },
    { 0, NULL, NULL, 0, NULL }
};
