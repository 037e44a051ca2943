/* SPDX-License-Identifier: Apache-2.0 */
/* Credentials: the cloud identities the server acts as (an AWS role, an
 * Azure service principal, managed identity or storage key, a GCP service
 * account), for storage (purpose STORAGE, used by external locations) or
 * other services (SERVICE). What is secret in them is stored sealed
 * (core/uc_secret.h) and never answered; this is how the rest of the core
 * reads them. */
#ifndef UC_CREDENTIALS_H
#define UC_CREDENTIALS_H

#include "../call/uc_call.h"

typedef struct uc_credential {
    const uc_securable_t *sec;
    const char *type;              /* "aws_iam_role", ... */
    const char *purpose;           /* "STORAGE" or "SERVICE" */
    int read_only;
    json_t *config;                /* the type's fields that are not secret */
    json_t *sealed;                /* field → sealed secret */
} uc_credential_t;

/* The credential of a row of kind credential. */
uc_error_t *uc_credential_of(uc_call_t *call, const uc_securable_t *sec,
                             uc_credential_t **out);

/* The credential with this id, NULL when there is none (it was deleted
 * with force). */
uc_error_t *uc_credential_by_id(uc_call_t *call, const char *id,
                                uc_credential_t **out);

/* A string of the configuration, NULL when it has none. */
const char *uc_credential_field(const uc_credential_t *cred,
                                const char *field);

/* One secret of the credential, opened: *value is NULL when it holds none.
 * The plaintext lives in the call's pool and is wiped when the call ends. */
uc_error_t *uc_credential_secret(uc_call_t *call, const uc_credential_t *cred,
                                 const char *field, const char **value);

/* A type of credential (aws_iam_role, azure_service_principal, ...): its
 * fields, which are secret, and what a valid one holds. */
typedef struct uc_credential_type uc_credential_type_t;

/* The one credential type object of the request body, a member named
 * after its type; *type NULL when there is none. Two, or one that is not
 * an object, are a 400. */
uc_error_t *uc_credential_body_type(uc_call_t *call,
                                    const uc_credential_type_t **type,
                                    json_t **given);

/* `given`, the body's object of `type`, into `details` ("type", "config"
 * with what may be shown, "sealed" with the secrets sealed to `sec`):
 * over the fields of `old` (NULL: none) when it is of the same type,
 * which the request does not mention (it cannot read secrets back to send
 * them again) and does not set to null. Unknown, missing or invalid
 * fields are a 400 naming them; the request's copies of secrets are
 * wiped. */
uc_error_t *uc_credential_read(uc_call_t *call, const uc_securable_t *sec,
                               const uc_credential_type_t *type,
                               json_t *given, const uc_credential_t *old,
                               json_t *details);

/* The names of the types, "a, b or c", as a message lists them. */
const char *uc_credential_type_list(apr_pool_t *pool);

/* A string of a type's configuration as a request or a stored credential
 * holds it (config), NULL when it has none: what types' checks read. */
const char *uc_credential_config(json_t *config, const char *field);

/* Whether a credential of `type` reaches `url`: both are of one cloud
 * (uc_clouds.h); file:// URLs take none. */
int uc_credential_serves(const char *type, const char *url);

#endif
