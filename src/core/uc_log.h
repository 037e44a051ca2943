/* SPDX-License-Identifier: Apache-2.0 */
/* Server-side diagnostics from the core: a level, the cause (an APR or
 * system status, 0 when none) and a message, handed to whatever the glue
 * logs with (ap_log_rerror in the module, stderr in the tools). Driver
 * messages and causes go here, never to clients. */
#ifndef UC_LOG_H
#define UC_LOG_H

#include <apr_errno.h>

typedef enum uc_log_level {
    UC_LOG_ERROR, UC_LOG_WARNING, UC_LOG_INFO, UC_LOG_DEBUG
} uc_log_level_t;

typedef struct uc_log {
    void (*write)(void *baton, uc_log_level_t level, apr_status_t cause,
                  const char *message);
    void *baton;
} uc_log_t;

/* Formats and writes one entry; nothing when `log` is NULL. */
void uc_log(const uc_log_t *log, uc_log_level_t level, apr_status_t cause,
            const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
