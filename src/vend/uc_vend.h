/* SPDX-License-Identifier: Apache-2.0 */
/* Temporary credentials for a storage location: the external location
 * covering it says with which credential, the credential's cloud makes
 * them (STS, a SAS, a Google token), and the process keeps them for the
 * next request (cloud/uc_vend_cache.h). */
#ifndef UC_VEND_H
#define UC_VEND_H

#include "uc_credentials.h"
#include "../cloud/uc_azure_delegation.h"
#include "../cloud/uc_sts.h"
#include "../cloud/uc_vend_cache.h"

/* What a vendor of one credential type is asked for. */
typedef struct uc_vend_request {
    uc_call_t *call;
    const uc_credential_t *cred;
    const char *url;             /* normalised, not a bucket root */
    int write;
} uc_vend_request_t;

/* The vendors, one per cloud: into `out` (kind, values, expiry). */
uc_error_t *uc_vend_s3(const uc_vend_request_t *req, apr_pool_t *pool,
                       uc_vended_t *out);
uc_error_t *uc_vend_azure(const uc_vend_request_t *req, apr_pool_t *pool,
                          uc_vended_t *out);
uc_error_t *uc_vend_gcs(const uc_vend_request_t *req, apr_pool_t *pool,
                        uc_vended_t *out);
uc_error_t *uc_vend_r2(const uc_vend_request_t *req, apr_pool_t *pool,
                       uc_vended_t *out);

/* S3 keys (from STS or R2) as the credential object `kind`. */
void uc_vend_keys(uc_vended_t *out, const char *kind,
                  const uc_aws_session_t *session);

/* Credentials to read (or, with `write`, read and write) `url`, a
 * normalised location that the caller was found allowed to use. A
 * file:// location needs none (out->kind NULL); a cloud one needs an
 * external location with a credential covering it (400 otherwise), which
 * must not be read-only for `write` (403). Every call made to a cloud has
 * the server's timeout; a cloud that fails is a 502 or 503. */
uc_error_t *uc_vend_for(uc_call_t *call, const char *url, int write,
                        uc_vended_t *out);

/* uc_vend_for, and the credential that vended them (*cred NULL when none
 * did), for a caller that uses them itself and must know, say, their
 * region. */
uc_error_t *uc_vend_for_credential(uc_call_t *call, const char *url,
                                   int write, uc_vended_t *out,
                                   const uc_credential_t **cred);

/* The credential of the external location covering `url`, with the
 * refusals of uc_vend_for; *cred NULL for a local path that no location
 * (or one without a credential) covers. */
uc_error_t *uc_vend_credential(uc_call_t *call, const char *url, int write,
                               uc_credential_t **cred);

/* What signs Azure SAS for `url` (abfss:// or wasbs://) with the
 * credential `cred` of the location covering it, until `expiry` at
 * least: the storage account's key (*account_key), or a user delegation
 * key that the service principal obtains (*delegation, from `pool`).
 * The other one is NULL. A key of another account is a 400, a managed
 * identity a 400 FAILED_PRECONDITION; Azure AD or the storage account
 * failing a 502 or 503. */
uc_error_t *uc_vend_azure_key(uc_call_t *call, apr_pool_t *pool,
                              const uc_credential_t *cred, const char *url,
                              apr_time_t expiry, const char **account_key,
                              uc_azure_delegation_key_t **delegation);

/* "bucket" and "key/prefix" of s3://bucket/key/prefix (or gs://), from
 * `pool`. */
void uc_vend_split(apr_pool_t *pool, const char *url, const char **bucket,
                   const char **prefix);

#endif
