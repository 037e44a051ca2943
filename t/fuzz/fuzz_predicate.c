/* SPDX-License-Identifier: Apache-2.0 */
/* jsonPredicateHints on fuzzed hints and partition values, for a table
 * with a partition column of every type (and one data column).
 *
 * Input: the hint, then NUL-separated partitionValues texts; each is
 * evaluated, in a scratch pool cleared between files as the route does. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "sharing/uc_sharing_predicate.h"

#define FIELD(name, type) "{\\\"name\\\":\\\"" name "\\\",\\\"type\\\":\\\"" \
    type "\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}"
static const char META[] =
    "{\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
    FIELD("b", "boolean") "," FIELD("i", "integer") "," FIELD("l", "long") ","
    FIELD("s", "string") "," FIELD("d", "date") "," FIELD("f", "float") ","
    FIELD("x", "double") "," FIELD("t", "timestamp") ","
    FIELD("v", "string") "]}\",\"partitionColumns\":[\"b\",\"i\",\"l\","
    "\"s\",\"d\",\"f\",\"x\",\"t\"],\"configuration\":{}}";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_root_pool();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool, *scratch;
    uc_sharing_predicate_t *pred;
    /* NUL-terminated copies: the sections end at the input's NULs. */
    char *text;
    const char *p, *end;

    apr_pool_create(&pool, fuzz_root_pool());
    text = apr_pstrmemdup(pool, (const char *)data, size);
    end = text + size;
    if (uc_sharing_predicate_parse(pool, text, META, &pred))
        abort();
    fuzz_report(pred ? "parsed" : "ignored", NULL);
    apr_pool_create(&scratch, pool);
    for (p = text + strlen(text) + 1; p < end; p += strlen(p) + 1) {
        fuzz_report(uc_sharing_predicate_keeps(pred, scratch, p)
                    ? "keep" : "drop", NULL);
        apr_pool_clear(scratch);
    }
    apr_pool_destroy(pool);
    return 0;
}
