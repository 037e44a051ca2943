/* SPDX-License-Identifier: Apache-2.0 */
/* The Delta reader set up for a whole test run, as a program's main sets it
 * up: for the tests of the reader and of what it stands on (Parquet, the
 * object stores). Call after uc_test_init. */
#ifndef UC_TEST_READER_H
#define UC_TEST_READER_H

#include <apr_file_io.h>

#include "uc_test.h"
#include "../../src/delta/uc_delta.h"

static inline void uc_test_init_reader(void)
{
    uc_delta_settings_t settings;
    uc_error_t *err;

    uc_delta_settings_default(&settings);
    if ((err = uc_delta_init(uc_test_global_pool, &settings))) {
        fprintf(stderr, "uc_delta_init failed: %s\n", err->message);
        exit(2);
    }
}

/* A fresh folder for a table the test writes, with its _delta_log/. */
static inline const char *uc_test_temp_table(apr_pool_t *pool)
{
    char *dir = apr_psprintf(pool, "%s/uc_delta_XXXXXX",
                             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");

    assert_non_null(mkdtemp(dir));
    apr_dir_make(apr_pstrcat(pool, dir, "/_delta_log", NULL), APR_OS_DEFAULT,
                 pool);
    return dir;
}

/* `len` bytes of `text` as the file `path`, created or replaced. */
static inline void uc_test_write_file(apr_pool_t *pool, const char *path,
                                      const char *text, apr_size_t len)
{
    apr_file_t *f;
    apr_size_t written;

    assert_int_equal(apr_file_open(&f, path, APR_FOPEN_WRITE
                                   | APR_FOPEN_CREATE | APR_FOPEN_TRUNCATE
                                   | APR_FOPEN_BINARY, APR_OS_DEFAULT, pool),
                     APR_SUCCESS);
    assert_int_equal(apr_file_write_full(f, text, len, &written),
                     APR_SUCCESS);
    apr_file_close(f);
}

#endif
