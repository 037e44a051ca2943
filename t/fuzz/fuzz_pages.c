/* SPDX-License-Identifier: Apache-2.0 */
/* Column chunks: page headers, decompression, levels, value encodings,
 * dictionaries and row assembly of lists and maps, behind a synthesized
 * footer (see fuzz_pages_file in fuzz_common.h for the input's header), so
 * that every mutation lands in the pages rather than in the footer. */
#include "fuzz_common.h"

#include <string.h>

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
    static fuzz_buf_t file_bytes;
    apr_pool_t *pool;
    uc_pq_file_t *file;
    uc_error_t *err;
    unsigned char *copy;

    if (!fuzz_pages_file(data, size, &file_bytes))
        return 0;
    apr_pool_create(&pool, fuzz_root_pool());
    /* An exact-size copy: reads past the file hit a redzone. */
    copy = apr_palloc(pool, file_bytes.len);
    memcpy(copy, file_bytes.p, file_bytes.len);
    err = uc_pq_open(pool, "fuzz.parquet", copy, file_bytes.len, &file);
    fuzz_report("open", err);
    if (!err)
        fuzz_parquet_exercise(pool, file);
    apr_pool_destroy(pool);
    return 0;
}
