/* SPDX-License-Identifier: Apache-2.0 */
/* Timestamps given by clients, and dates and times written out (Delta Sharing's `timestamp`,
 * `startingTimestamp`), as epoch milliseconds. */
#ifndef UC_TIME_H
#define UC_TIME_H

#include <apr.h>
#include <apr_pools.h>
#include <apr_time.h>

/* ISO-8601 date-times: "2022-01-01T00:00:00Z", with fractions of a second
 * and "+hh:mm" offsets, a space instead of the T, or a date alone
 * (midnight UTC); no zone means UTC. Returns 0 when `text` is not one. */
int uc_time_parse_iso8601(const char *text, apr_int64_t *ms);

/* Room for any date or timestamp these format. */
#define UC_TIME_TEXT 40

/* Epoch milliseconds as "2022-10-24T22:59:32.846Z"; 0 (and nothing
 * written) outside the years -9999 to 9999. */
int uc_time_format_iso8601(apr_int64_t ms, char out[UC_TIME_TEXT]);
/* A time as "2022-10-24T22:59:32Z" (whole seconds), as Azure writes the
 * times of SAS tokens and delegation keys; from `pool`. */
const char *uc_time_iso8601_seconds(apr_pool_t *pool, apr_time_t t);
/* Days since 1970-01-01 as "2022-10-24"; 0 outside those years. */
int uc_time_format_date(apr_int64_t days, char out[UC_TIME_TEXT]);

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d. */
apr_int64_t uc_time_days_from_civil(int y, int m, int d);

#endif
