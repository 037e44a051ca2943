/* SPDX-License-Identifier: Apache-2.0 */
/* The Thrift compact reader. The first byte picks what the rest is:
 *   0  a struct, walked with every reader call by field type, then
 *      skipped from the start again
 *   1  a struct, skipped       2  a list, skipped      3  a map, skipped
 *   4  a Parquet FileMetaData (wrapped into a file and opened, so the
 *      footer parser meets thrift-level mutations)
 *   5  two bytes of level count (LE), a codec byte, then page headers and
 *      pages of an optional INT32 column (the page header parser of
 *      uc_pq_column.c)
 * Other values are taken modulo 6. */
#include "fuzz_common.h"

#include <string.h>

#include "parquet/uc_parquet.h"
#include "parquet/uc_thrift.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_root_pool();
    return 0;
}

static void walk(uc_thrift_t *t, int type, int depth);

static void walk_struct(uc_thrift_t *t, int depth)
{
    uc_thrift_struct_t s;
    int id, type;

    uc_thrift_struct_begin(t, &s);
    while ((type = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP)
        walk(t, type, depth + 1);
    uc_thrift_struct_end(t);
}

static void walk(uc_thrift_t *t, int type, int depth)
{
    volatile apr_uint64_t sink = 0;
    apr_size_t n, i, len;
    const char *s;
    int elem;

    /* The harness's own recursion stays bounded; the reader's depth limit
     * applies below that. */
    if (depth > 64) {
        uc_thrift_skip(t, type);
        return;
    }
    switch (type) {
    case UC_THRIFT_TRUE:
    case UC_THRIFT_FALSE:
        sink += (apr_uint64_t)uc_thrift_bool(type);
        break;
    case UC_THRIFT_I8:
    case UC_THRIFT_I16:
    case UC_THRIFT_I32:
    case UC_THRIFT_I64:
        sink += (apr_uint64_t)uc_thrift_int(t, type);
        break;
    case UC_THRIFT_BINARY:
        s = uc_thrift_binary(t, &len);
        if (len)
            sink += (unsigned char)s[0] + (unsigned char)s[len - 1];
        break;
    case UC_THRIFT_LIST:
    case UC_THRIFT_SET:
        n = uc_thrift_list(t, &elem);
        for (i = 0; i < n && !t->failed; i++) {
            if (elem == UC_THRIFT_TRUE || elem == UC_THRIFT_FALSE)
                sink += (apr_uint64_t)uc_thrift_list_bool(t);
            else
                walk(t, elem, depth + 1);
        }
        break;
    case UC_THRIFT_STRUCT:
        walk_struct(t, depth);
        break;
    default:
        /* Doubles, UUIDs, maps and invalid types. */
        uc_thrift_skip(t, type);
    }
    (void)sink;
}

/* "PAR1" + footer + length + "PAR1". */
static void open_footer(apr_pool_t *pool, const uint8_t *meta, size_t len)
{
    unsigned char *file = apr_palloc(pool, len + 12);
    uc_pq_file_t *pf;
    uc_error_t *err;

    memcpy(file, "PAR1", 4);
    memcpy(file + 4, meta, len);
    file[len + 4] = (unsigned char)len;
    file[len + 5] = (unsigned char)(len >> 8);
    file[len + 6] = (unsigned char)(len >> 16);
    file[len + 7] = (unsigned char)(len >> 24);
    memcpy(file + len + 8, "PAR1", 4);
    err = uc_pq_open(pool, "footer.parquet", file, len + 12, &pf);
    fuzz_report("open", err);
    if (!err)
        fuzz_parquet_exercise(pool, pf);
}

/* Two bytes of level count (LE; rows as many), a codec byte, then the
 * pages of one optional INT32 column. */
static void read_pages(apr_pool_t *pool, const uint8_t *data, size_t len)
{
    static fuzz_buf_t input, file_bytes;
    fuzz_pages_shape_t shape;
    uint8_t header[FUZZ_PAGES_MAP_HEADER];
    size_t hlen;
    unsigned char *copy;
    uc_pq_file_t *pf;
    uc_error_t *err;

    if (len < 3)
        return;
    memset(&shape, 0, sizeof(shape));
    shape.converted_type = -1;
    shape.kind = 0;
    shape.leaf_optional = 1;
    shape.type = UC_PQ_INT32;
    shape.codec = data[2] % 8;
    shape.type_length = 16;
    shape.num_values = data[0] | (unsigned)data[1] << 8;
    shape.num_rows = shape.num_values;
    hlen = fuzz_pages_header(&shape, 0, header);
    input.len = 0;
    fuzz_buf_put(&input, header, hlen);
    fuzz_buf_put(&input, data + 3, len - 3);
    if (!fuzz_pages_file(input.p, input.len, &file_bytes))
        return;
    copy = apr_palloc(pool, file_bytes.len);
    memcpy(copy, file_bytes.p, file_bytes.len);
    err = uc_pq_open(pool, "pages.parquet", copy, file_bytes.len, &pf);
    fuzz_report("open", err);
    if (!err)
        fuzz_parquet_exercise(pool, pf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool;
    uc_thrift_t t;
    int mode;

    if (size < 1)
        return 0;
    mode = data[0] % 6;
    data++;
    size--;
    apr_pool_create(&pool, fuzz_root_pool());
    switch (mode) {
    case 0:
        uc_thrift_init(&t, data, size);
        walk_struct(&t, 0);
        uc_thrift_init(&t, data, size);
        uc_thrift_skip(&t, UC_THRIFT_STRUCT);
        break;
    case 1:
        uc_thrift_init(&t, data, size);
        uc_thrift_skip(&t, UC_THRIFT_STRUCT);
        break;
    case 2:
        uc_thrift_init(&t, data, size);
        uc_thrift_skip(&t, UC_THRIFT_LIST);
        break;
    case 3:
        uc_thrift_init(&t, data, size);
        uc_thrift_skip(&t, UC_THRIFT_MAP);
        break;
    case 4:
        open_footer(pool, data, size);
        break;
    default:
        read_pages(pool, data, size);
    }
    apr_pool_destroy(pool);
    return 0;
}
