/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_commit_uniform.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_time.h"
#include "../vend/uc_storage_url.h"

#define ENABLED_FORMATS "delta.universalFormat.enabledFormats"
/* Unity Catalog's bound on a metadata location. */
#define LOCATION_MAX 65535

static uc_error_t *required_int(apr_pool_t *pool, json_t *obj,
                                const char *field, apr_int64_t *out)
{
    int present;
    uc_error_t *err = uc_json_int_field(pool, obj, field, 0, APR_INT64_MAX,
                                        out, &present);

    if (!err && !present)
        return uc_error_invalid(pool, "Field cannot be null in "
                                "uniform.iceberg: %s", field);
    return err;
}

/* The members of `iceberg` in each spelling. */
static const char *const names[][4] = {
    [UC_UNIFORM_PREVIEW] = { "metadata_location", "converted_delta_version",
                             "converted_delta_timestamp",
                             "base_converted_delta_version" },
    [UC_UNIFORM_DELTA_API] = { "metadata-location", "converted-delta-version",
                               "converted-delta-timestamp",
                               "base-converted-delta-version" },
};

/* When the conversion was made: an ISO-8601 date-time in the preview
 * API, epoch milliseconds in the UC Delta API. */
static uc_error_t *read_converted_time(apr_pool_t *pool, json_t *iceberg,
                                       uc_uniform_spelling_t spelling,
                                       apr_int64_t *out)
{
    const char *field = names[spelling][2], *when = NULL;
    uc_error_t *err;

    if (spelling == UC_UNIFORM_DELTA_API)
        return required_int(pool, iceberg, field, out);
    if ((err = uc_json_string_field(pool, iceberg, field, 1, &when)))
        return err;
    if (!uc_time_parse_iso8601(when, out))
        return uc_error_invalid(pool, "uniform.iceberg.%s must be an "
                                "ISO-8601 date-time, not '%s'.", field,
                                when);
    return NULL;
}

uc_error_t *uc_commit_uniform_read(apr_pool_t *pool, json_t *uniform,
                                   apr_int64_t version,
                                   uc_uniform_spelling_t spelling,
                                   uc_commit_uniform_t **out)
{
    json_t *iceberg = json_object_get(uniform, "iceberg");
    const char *const *n = names[spelling];
    uc_commit_uniform_t *u = apr_pcalloc(pool, sizeof(*u));
    const char *location = NULL;
    int present;
    uc_error_t *err;

    if (!json_is_object(iceberg))
        return uc_error_invalid(pool, "Field cannot be null in uniform: "
                                "iceberg");
    if ((err = uc_json_string_field(pool, iceberg, n[0], 1, &location)) ||
        (err = required_int(pool, iceberg, n[1], &u->converted_version)) ||
        (err = read_converted_time(pool, iceberg, spelling,
                                   &u->converted_ms)) ||
        (err = uc_json_int_field(pool, iceberg, n[3], 0, APR_INT64_MAX,
                                 &u->base_version, &present)))
        return err;
    if (!present)
        u->base_version = -1;
    if (strlen(location) > LOCATION_MAX)
        return uc_error_invalid(pool, "uniform.iceberg.%s is longer than %d "
                                "characters.", n[0], LOCATION_MAX);
    if ((err = uc_storage_url_derived(pool, apr_pstrcat(
                                          pool, "uniform.iceberg.", n[0],
                                          NULL),
                                      location, &u->metadata_location)))
        return err;
    if (version >= 0 && u->converted_version != version)
        return uc_error_invalid(pool, "uniform.iceberg.%s (%" APR_INT64_T_FMT
                                ") must equal commit version (%"
                                APR_INT64_T_FMT ")", n[1],
                                u->converted_version, version);
    *out = u;
    return NULL;
}

static int iceberg_enabled(json_t *properties)
{
    const char *formats = json_string_value(json_object_get(properties,
                                                            ENABLED_FORMATS));
    size_t n;

    for (; formats && *formats; formats += n + (formats[n] == ',')) {
        n = strcspn(formats, ",");
        if (n == 7 && !strncmp(formats, "iceberg", 7))
            return 1;
    }
    return 0;
}

uc_error_t *uc_commit_uniform_check(apr_pool_t *pool,
                                    const uc_commit_uniform_t *u,
                                    json_t *properties, const char *location)
{
    int enabled = iceberg_enabled(properties);

    if (enabled && !u)
        return uc_error_invalid(pool, "Uniform metadata must be set when '"
                                ENABLED_FORMATS "' includes 'iceberg'.");
    if (!enabled && u)
        return uc_error_invalid(pool, "Uniform metadata must not be set "
                                "unless '" ENABLED_FORMATS "' includes "
                                "'iceberg'.");
    if (u && (!location ||
              !uc_storage_url_within(u->metadata_location, location)))
        return uc_error_invalid(pool, "uniform.iceberg.metadata_location "
                                "(%s) must be a subpath of the table "
                                "location.", u->metadata_location);
    return NULL;
}

json_t *uc_commit_uniform_json(const uc_commit_uniform_t *u)
{
    json_t *out = json_pack("{sssIsI}", "metadata_location",
                            u->metadata_location, "converted_delta_version",
                            (json_int_t)u->converted_version,
                            "converted_delta_timestamp",
                            (json_int_t)u->converted_ms);

    if (u->base_version >= 0)
        json_object_set_new(out, "base_converted_delta_version",
                            json_integer(u->base_version));
    return out;
}
