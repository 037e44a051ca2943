/* SPDX-License-Identifier: Apache-2.0 */
/* The Delta reader set up for a whole test run, as a program's main sets it
 * up: for the tests of the reader and of what it stands on (Parquet, the
 * object stores). Call after uc_test_init. */
#ifndef UC_TEST_READER_H
#define UC_TEST_READER_H

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

#endif
