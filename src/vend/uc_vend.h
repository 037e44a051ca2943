/* SPDX-License-Identifier: Apache-2.0 */
/* Temporary credentials for a storage location: the external location
 * covering it says with which credential, the credential's cloud makes
 * them (uc_clouds.h: STS, a SAS, a Google token), and the process keeps
 * them for the next request (cloud/uc_vend_cache.h), and which credential
 * reads of the location take, at the catalog's version, beside the
 * catalog's answers (core/uc_answer_cache.h). */
#ifndef UC_VEND_H
#define UC_VEND_H

#include "uc_credentials.h"
#include "../cloud/uc_sts.h"
#include "../cloud/uc_vend_cache.h"

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

/* Credentials to read `url` for someone who may read that place alone (a
 * recipient): uc_vend_for's, made so that they reach nothing beside it
 * in a cloud whose vend_scoped says it can (uc_clouds.h); the caller
 * asks that first. */
uc_error_t *uc_vend_scoped(uc_call_t *call, const char *url,
                           uc_vended_t *out);

/* The credential of the external location covering `url`, with the
 * refusals of uc_vend_for; *cred NULL for a local path that no location
 * (or one without a credential) covers. */
uc_error_t *uc_vend_credential(uc_call_t *call, const char *url, int write,
                               uc_credential_t **cred);

/* The member `name` of vended credentials, NULL when they have none. */
const char *uc_vended_value(const uc_vended_t *v, const char *name);

/* "bucket" and "key/prefix" of s3://bucket/key/prefix (or gs://), from
 * `pool`. */
void uc_vend_split(apr_pool_t *pool, const char *url, const char **bucket,
                   const char **prefix);

#endif
