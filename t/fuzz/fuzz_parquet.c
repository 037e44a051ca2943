/* SPDX-License-Identifier: Apache-2.0 */
/* The Parquet reader on whole files: the footer, every leaf of every row
 * group, and every row of every top-level column written as JSON. */
#include "fuzz_common.h"

#include "parquet/uc_parquet.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_root_pool();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool;
    uc_pq_file_t *file;
    uc_error_t *err;

    apr_pool_create(&pool, fuzz_root_pool());
    err = uc_pq_open(pool, "fuzz.parquet", data, size, &file);
    fuzz_report("open", err);
    if (!err)
        fuzz_parquet_exercise(pool, file);
    apr_pool_destroy(pool);
    return 0;
}
