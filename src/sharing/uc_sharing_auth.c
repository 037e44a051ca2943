/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_sharing_auth.h"

#include <jansson.h>

#include "../core/uc_ip_list.h"
#include "../store/uc_recipient_tokens.h"

static int admits(apr_pool_t *pool, const uc_securable_t *recipient,
                  const char *ip)
{
    json_t *props = recipient->properties
                    ? json_loads(recipient->properties, 0, NULL) : NULL;
    json_t *v = json_object_get(props, UC_RECIPIENT_IP_ACCESS_LIST);
    uc_ip_list_t *list;
    int in = 1;

    if (json_is_string(v))
        in = !uc_ip_list_parse(pool, UC_RECIPIENT_IP_ACCESS_LIST,
                               json_string_value(v), &list) &&
             uc_ip_list_allows(list, ip);
    json_decref(props);
    return in;
}

uc_error_t *uc_sharing_authenticate(uc_store_t *store, apr_pool_t *pool,
                                    const uc_secret_keys_t *keys,
                                    const char *token, apr_time_t now,
                                    const char *ip,
                                    const uc_securable_t **recipient,
                                    int *admitted)
{
    uc_securable_t *found = NULL;
    const char *id = NULL;
    uc_error_t *err;

    *recipient = NULL;
    *admitted = 0;
    if ((err = uc_recipient_token_lookup(store, pool, keys, token, now,
                                         &id)) ||
        (id && (err = uc_securable_by_id(store, pool, id, &found))) ||
        !found)
        return err;
    *recipient = found;
    *admitted = admits(pool, found, ip);
    return NULL;
}
