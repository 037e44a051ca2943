/* SPDX-License-Identifier: Apache-2.0 */
/* The secrets a request's URL can carry, kept out of the logs. Two of the
 * module's URLs are their own authorization: a URL of the files route
 * (its signature, the `sig` parameter) and a recipient's activation link
 * (the nonce after .../data_sharing_activation/ or
 * .../data_sharing_activation_info/). Whoever read one in a log could
 * download the file, or take the recipient's bearer token. What a log
 * shows of a request (its line, path, query string, file name) goes
 * through these first: each secret becomes UC_REDACTED, the rest stays as
 * it was. */
#ifndef UC_REDACT_H
#define UC_REDACT_H

#include <apr_pools.h>

/* What a secret is replaced with: what httpd writes for a URL's
 * password. */
#define UC_REDACTED "XXXXXXXX"

/* The query parameter that signs a URL of the files route. */
#define UC_SIGNATURE_PARAM "sig"
/* The path segments an activation link's nonce follows. */
#define UC_ACTIVATION_SEGMENT "data_sharing_activation"
#define UC_ACTIVATION_INFO_SEGMENT "data_sharing_activation_info"

/* Each returns its argument itself (NULL as well) when it holds no
 * secret, else a copy from `pool`. Parameter names and segments are
 * recognised in any case, percent-encoded or not, and a segment ends at
 * an encoded slash too: whatever a client may have meant as one. */

/* A path, as sent or decoded (r->uri, a file name): whatever follows an
 * activation segment. */
const char *uc_redact_path(apr_pool_t *pool, const char *path);

/* A query string, without its '?': the value of every signature. */
const char *uc_redact_query(apr_pool_t *pool, const char *query);

/* A request target: a path, then a query string after its first '?'. */
const char *uc_redact_target(apr_pool_t *pool, const char *target);

/* A request line: method, target, protocol. Without a protocol
 * ("HTTP/..." after the last space) the target runs to the end of the
 * line, so that a malformed or truncated line (a 400, a 414) is redacted
 * as well. */
const char *uc_redact_request_line(apr_pool_t *pool, const char *line);

#endif
