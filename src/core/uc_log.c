/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_log.h"

#include <stdarg.h>
#include <apr_strings.h>

void uc_log(const uc_log_t *log, uc_log_level_t level, apr_status_t cause,
            const char *fmt, ...)
{
    /* On the stack: logging must work when a pool cannot be had. Longer
     * entries are cut, not lost. */
    char message[2048];
    va_list ap;

    if (!log || !log->write)
        return;
    va_start(ap, fmt);
    apr_vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    log->write(log->baton, level, cause, message);
}
