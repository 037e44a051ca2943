/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_share_recipients.h"

#include <apr_strings.h>

#include "uc_statements.h"

uc_error_t *uc_share_recipients_page(uc_store_t *store, apr_pool_t *pool,
                                     const char *share_id, const char *after,
                                     int limit, apr_array_header_t **names,
                                     int *more)
{
    const char *args[] = { share_id, after, apr_itoa(pool, limit + 1) };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool,
                                      UC_STMT_SHARE_RECIPIENTS_PAGE, args,
                                      &rows);

    if (err)
        return err;
    *more = rows.nrows > limit;
    *names = apr_array_make(pool, limit + 1, sizeof(const char *));
    for (i = 0; i < rows.nrows && i < limit; i++)
        APR_ARRAY_PUSH(*names, const char *) = rows.rows[i][0];
    return NULL;
}

uc_error_t *uc_share_recipient_add(uc_store_t *store, const char *share_id,
                                   const char *recipient_id, const char *at,
                                   const char *by, int *changed)
{
    const char *args[] = { share_id, recipient_id, at, by };

    return uc_store_exec(store, UC_STMT_SHARE_RECIPIENT_ADD, args, changed);
}

uc_error_t *uc_share_recipient_remove(uc_store_t *store, const char *share_id,
                                      const char *recipient_id, int *changed)
{
    const char *args[] = { share_id, recipient_id };

    return uc_store_exec(store, UC_STMT_SHARE_RECIPIENT_REMOVE, args,
                         changed);
}

uc_error_t *uc_share_recipient_shares_page(uc_store_t *store,
                                           apr_pool_t *pool,
                                           const char *recipient_id,
                                           const char *after, int limit,
                                           apr_array_header_t **shares,
                                           int *more)
{
    const char *args[] = { recipient_id, after, apr_itoa(pool, limit + 1) };
    uc_rows_t rows;
    int i;
    uc_error_t *err = uc_store_select(store, pool,
                                      UC_STMT_SHARES_OF_RECIPIENT_PAGE, args,
                                      &rows);

    if (err)
        return err;
    *more = rows.nrows > limit;
    *shares = apr_array_make(pool, limit + 1, sizeof(uc_securable_t *));
    for (i = 0; i < rows.nrows && i < limit; i++) {
        uc_securable_t *s = apr_pcalloc(pool, sizeof(*s));
        s->kind = UC_KIND_SHARE;
        s->id = rows.rows[i][0];
        s->name = rows.rows[i][1];
        APR_ARRAY_PUSH(*shares, uc_securable_t *) = s;
    }
    return NULL;
}

uc_error_t *uc_share_recipient_share(uc_store_t *store, apr_pool_t *pool,
                                     const char *recipient_id,
                                     const char *name, uc_securable_t **out)
{
    const char *args[] = { recipient_id, name };
    uc_rows_t rows;
    uc_error_t *err = uc_store_select(store, pool, UC_STMT_SHARE_OF_RECIPIENT,
                                      args, &rows);

    if (err)
        return err;
    *out = rows.nrows
           ? uc_securable_from_row(pool, UC_KIND_SHARE,
                                   rows.rows[0][UC_SECURABLE_NCOLS],
                                   rows.rows[0])
           : NULL;
    return NULL;
}
