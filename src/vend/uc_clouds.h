/* SPDX-License-Identifier: Apache-2.0 */
/* The clouds the catalog governs storage in, each one provider: the URL
 * schemes of its storage, the types of credential that reach it (their
 * fields, which of them are secret, what a valid one holds), how
 * temporary credentials for a place there are made, and how the server
 * itself reads a table there (the object store it opens, objstore/, and
 * with what). One file per cloud (uc_cloud_<name>.c) and one line in the
 * table of uc_clouds.c; the rest of the core finds a cloud by a URL's
 * scheme or by a credential's type, as httpd finds its providers by name
 * and curl its TLS backends. */
#ifndef UC_CLOUDS_H
#define UC_CLOUDS_H

#include "uc_credentials.h"
#include "../cloud/uc_vend_cache.h"
#include "../objstore/uc_objstore.h"

/* What a field of a credential type is. */
enum {
    UC_CREDENTIAL_REQUIRED = 1 << 0,
    UC_CREDENTIAL_SECRET = 1 << 1,   /* sealed, never answered */
    UC_CREDENTIAL_SERVER = 1 << 2,   /* made by the server: ignored in
                                      * requests */
};

typedef struct uc_credential_field {
    const char *name;
    unsigned flags;
    /* What a value must be beyond 1 to 2,048 (a secret: 8,192) bytes of
     * text, NULL for nothing; secrets are checked before they are
     * sealed. */
    uc_error_t *(*valid)(uc_call_t *call, const char *type,
                         const char *field, const char *value);
} uc_credential_field_t;

#define UC_CREDENTIAL_FIELDS 6

struct uc_credential_type {
    const char *name;              /* the member of request bodies */
    uc_credential_field_t fields[UC_CREDENTIAL_FIELDS];
    /* What the type checks beyond presence and size, NULL for nothing. */
    uc_error_t *(*check)(uc_call_t *call, json_t *config, json_t *secrets);
};

/* What a cloud's vendor is asked for. */
typedef struct uc_vend_request {
    uc_call_t *call;
    const uc_credential_t *cred;   /* of one of the cloud's types */
    const char *url;               /* normalised, not a bucket root */
    int write;
    /* For someone who may read that place alone (a recipient): the
     * credentials must reach nothing beside it (see vend_scoped). */
    int scoped;
} uc_vend_request_t;

typedef struct uc_cloud {
    const char *name;
    const char *const *schemes;    /* of its storage URLs, NULL-ended */
    /* Its URLs' hosts are <container or bucket>@<account>: '@' parts
     * them and is no user name's end. */
    int account_in_host;
    /* The types of credential that reach it, ended by one without a name;
     * NULL: it needs none (the server's own file system). */
    const uc_credential_type_t *types;
    /* Temporary credentials for req->url, into `out` (kind, values,
     * expiry); every call it makes has the server's timeout. NULL with no
     * types. */
    uc_error_t *(*vend)(const uc_vend_request_t *req, apr_pool_t *pool,
                        uc_vended_t *out);
    /* How the server reads a table at `location` itself: what it opens
     * the object store with, and until when that lasts (0: it does not
     * expire). NULL: the server does not read tables there. */
    uc_error_t *(*table_store)(uc_call_t *call, const char *location,
                               uc_objstore_config_t *config,
                               apr_time_t *valid_until);
    /* What `vend` makes for a scoped request reads the place asked for
     * and nothing beside it (a prefix, not a whole bucket or container):
     * such credentials may go to whoever may read that place alone (Delta
     * Sharing's directory access, Open Sharing's volumes and skills). */
    int vend_scoped;
} uc_cloud_t;

/* Every cloud, NULL-ended, in the order messages list them. */
extern const uc_cloud_t *const uc_clouds[];

/* The cloud of a URL scheme (lower case), of a URL ("s3://…"; an
 * absolute path is a file:// one), or of a credential type (and the type
 * itself in *type when `type` is not NULL); NULL when none is. */
const uc_cloud_t *uc_clouds_of_scheme(const char *scheme);
const uc_cloud_t *uc_clouds_of_url(const char *url);
const uc_cloud_t *uc_clouds_of_type(const char *name,
                                    const uc_credential_type_t **type);

/* The schemes of the clouds whose `want` is set ("file://, s3://"), or
 * of all of them (`want` NULL), as messages list them. */
const char *uc_clouds_schemes(apr_pool_t *pool,
                              int (*want)(const uc_cloud_t *cloud));

#endif
