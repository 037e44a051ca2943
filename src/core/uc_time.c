/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_time.h"

#include <string.h>
#include <apr_strings.h>

static int digits(const char **p, int n, int *value)
{
    int v = 0, i;

    for (i = 0; i < n; i++) {
        if ((*p)[i] < '0' || (*p)[i] > '9')
            return 0;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *value = v;
    return 1;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil). */
apr_int64_t uc_time_days_from_civil(int y, int m, int d)
{
    apr_int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
                                31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

    return m == 2 && leap ? 29 : days[m - 1];
}

int uc_time_parse_iso8601(const char *text, apr_int64_t *ms)
{
    const char *p = text;
    int y, mo, d, h = 0, mi = 0, s = 0, frac = 0, oh = 0, om = 0, sign = 0;

    if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo)
        || *p++ != '-' || !digits(&p, 2, &d))
        return 0;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
        return 0;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
            return 0;
        if (*p == ':') {
            p++;
            if (!digits(&p, 2, &s))
                return 0;
            if (*p == '.' || *p == ',') {
                int scale = 100, n = 0;

                for (p++; *p >= '0' && *p <= '9'; p++, n++) {
                    frac += (*p - '0') * scale;
                    scale /= 10;
                }
                if (n == 0)
                    return 0;
            }
        }
        if (h > 23 || mi > 59 || s > 60)
            return 0;
        if (*p == 'Z' || *p == 'z')
            p++;
        else if (*p == '+' || *p == '-') {
            sign = *p++ == '-' ? -1 : 1;
            if (!digits(&p, 2, &oh))
                return 0;
            if (*p == ':')
                p++;
            if (*p && !digits(&p, 2, &om))
                return 0;
            if (oh > 23 || om > 59)
                return 0;
        }
    }
    if (*p)
        return 0;
    *ms = ((uc_time_days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000
          + (apr_int64_t)s * 1000 + frac
          - (apr_int64_t)sign * (oh * 60 + om) * 60000;
    return 1;
}

/* The date of a day count since 1970-01-01 (H. Hinnant's
 * civil_from_days). */
static void civil_from_days(apr_int64_t z, apr_int64_t *y, int *m, int *d)
{
    apr_int64_t era, doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static apr_int64_t floor_div(apr_int64_t a, apr_int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* Days (since 1970-01-01) of -9999-01-01 and 9999-12-31: beyond them
 * dates mean nothing, and the arithmetic would overflow. */
#define MIN_DAYS ((apr_int64_t)-4371587)
#define MAX_DAYS ((apr_int64_t)2932896)
#define DAY_MS ((apr_int64_t)86400000)

int uc_time_format_date(apr_int64_t days, char out[UC_TIME_TEXT])
{
    apr_int64_t y;
    int m, d;

    if (days > MAX_DAYS || days < MIN_DAYS)
        return 0;
    civil_from_days(days, &y, &m, &d);
    apr_snprintf(out, UC_TIME_TEXT, "%04" APR_INT64_T_FMT "-%02d-%02d", y, m,
                 d);
    return 1;
}

int uc_time_format_iso8601(apr_int64_t ms, char out[UC_TIME_TEXT])
{
    apr_int64_t days, y, in_day;
    int m, d;

    if (ms >= (MAX_DAYS + 1) * DAY_MS || ms < MIN_DAYS * DAY_MS)
        return 0;
    days = floor_div(ms, 86400000);
    in_day = ms - days * 86400000;

    civil_from_days(days, &y, &m, &d);
    apr_snprintf(out, UC_TIME_TEXT, "%04" APR_INT64_T_FMT
                 "-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, d,
                 (int)(in_day / 3600000), (int)(in_day / 60000 % 60),
                 (int)(in_day / 1000 % 60), (int)(in_day % 1000));
    return 1;
}

const char *uc_time_iso8601_seconds(apr_pool_t *pool, apr_time_t t)
{
    char text[UC_TIME_TEXT];
    apr_time_exp_t x;
    apr_size_t len;

    apr_time_exp_gmt(&x, t);
    apr_strftime(text, &len, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &x);
    return apr_pstrdup(pool, text);
}
