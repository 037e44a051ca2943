/* SPDX-License-Identifier: Apache-2.0 */
/* Seeds for the pages and thrift targets, cut out of real Parquet files:
 *
 *   seed_pages OUTDIR FILE...            one pages input per column chunk
 *                                        (a MAP's key and value together)
 *   seed_pages --thrift OUTDIR FILE...   footers and page headers
 *   seed_pages --wrap INPUT OUT.parquet  the Parquet file a pages input
 *                                        stands for (for bug reports)
 *
 * Built without sanitizers by t/fuzz/run.sh; not a fuzz target. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/uc_parquet.h"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc(n > 0 ? (size_t)n : 1);
    if (n < 0 || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(data);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return data;
}

static void emit(const char *dir, const char *base, const char *what,
                 const void *a, size_t alen, const void *b, size_t blen,
                 const void *c, size_t clen)
{
    char path[4096];
    FILE *f;
    char *p;

    snprintf(path, sizeof(path), "%s/%s-%s", dir, base, what);
    for (p = path + strlen(dir) + 1; *p; p++)
        if (*p == '/')
            *p = '_';
    if (!(f = fopen(path, "wb")))
        return;
    fwrite(a, 1, alen, f);
    if (blen)
        fwrite(b, 1, blen, f);
    if (clen)
        fwrite(c, 1, clen, f);
    fclose(f);
    printf("%s\n", path);
}

/* The bytes of a chunk in the file, or 0 when they lie outside it. */
static int chunk_bytes(const uc_pq_file_t *pf, const uc_pq_chunk_t *c,
                       const unsigned char **p, size_t *len)
{
    apr_int64_t start = c->data_page_offset;

    if (c->dictionary_page_offset >= 4 && c->dictionary_page_offset < start)
        start = c->dictionary_page_offset;
    if (start < 4 || c->total_compressed_size <= 0
        || (apr_uint64_t)start + (apr_uint64_t)c->total_compressed_size
           > pf->size)
        return 0;
    *p = pf->data + start;
    *len = (size_t)c->total_compressed_size;
    return 1;
}

static int optional(const uc_pq_node_t *n)
{
    return n->repetition == UC_PQ_OPTIONAL;
}

static void pages_seeds(const char *dir, const char *base,
                        const uc_pq_file_t *pf)
{
    int rg, i;

    for (rg = 0; rg < pf->num_row_groups && rg < 4; rg++) {
        const uc_pq_row_group_t *g = &pf->row_groups[rg];

        for (i = 0; i < pf->num_leaves; i++) {
            const uc_pq_node_t *leaf = pf->leaves[i];
            const uc_pq_chunk_t *c = &g->chunks[i];
            const uc_pq_node_t *parent = leaf->parent;
            fuzz_pages_shape_t s;
            uint8_t header[FUZZ_PAGES_MAP_HEADER];
            const unsigned char *p, *kp;
            size_t len, klen, hlen;
            char what[600];

            memset(&s, 0, sizeof(s));
            s.type = leaf->type;
            s.codec = c->codec;
            s.type_length = leaf->type == UC_PQ_FIXED_LEN_BYTE_ARRAY
                            ? leaf->type_length : 16;
            s.leaf_optional = optional(leaf);
            s.converted_type = leaf->converted_type;
            s.scale = leaf->scale;
            if (leaf->logical_type == 8)        /* TIMESTAMP */
                s.timestamp_unit
                    = leaf->value_kind == UC_PQ_VALUE_TIMESTAMP_MILLIS ? 1
                      : leaf->value_kind == UC_PQ_VALUE_TIMESTAMP_NANOS ? 3
                      : 2;
            s.logical_decimal = leaf->logical_type == 5;
            if (c->num_values > 65535 || g->num_rows > 65535
                || s.type_length > 255 || !chunk_bytes(pf, c, &p, &len))
                continue;
            s.num_values = (unsigned)c->num_values;
            s.num_rows = (unsigned)g->num_rows;
            snprintf(what, sizeof(what), "rg%d-%s", rg, leaf->path);
            if (leaf->max_rep == 0) {
                s.kind = 0;
                s.extra_groups = leaf->max_def - s.leaf_optional;
            }
            else if (leaf->max_rep == 1 && parent
                     && parent->repetition == UC_PQ_REPEATED
                     && parent->parent
                     && parent->parent->kind == UC_PQ_LIST) {
                s.kind = 1;
                s.group_optional = optional(parent->parent);
                s.extra_groups = leaf->max_def - s.leaf_optional - 1
                                 - s.group_optional;
            }
            else if (leaf->max_rep == 1 && parent
                     && parent->repetition == UC_PQ_REPEATED
                     && parent->num_children == 2
                     && parent->children[1] == leaf
                     && parent->children[0]->kind == UC_PQ_LEAF
                     && parent->children[0]->type == UC_PQ_BYTE_ARRAY
                     && parent->parent
                     && parent->parent->kind == UC_PQ_MAP) {
                const uc_pq_node_t *key = parent->children[0];

                if (!chunk_bytes(pf, &g->chunks[key->leaf_index], &kp, &klen)
                    || klen > 65535)
                    continue;
                s.kind = 2;
                s.group_optional = optional(parent->parent);
                s.extra_groups = leaf->max_def - s.leaf_optional - 1
                                 - s.group_optional;
                if (s.extra_groups < 0 || s.extra_groups > 3)
                    continue;
                hlen = fuzz_pages_header(&s, klen, header);
                emit(dir, base, what, header, hlen, kp, klen, p, len);
                continue;
            }
            else
                continue;
            if (s.extra_groups < 0 || s.extra_groups > 3)
                continue;
            hlen = fuzz_pages_header(&s, 0, header);
            emit(dir, base, what, header, hlen, p, len, NULL, 0);
        }
    }
}

/* Thrift inputs: a mode byte (see fuzz_thrift.c), then the bytes. */
static void thrift_seeds(const char *dir, const char *base,
                         const uc_pq_file_t *pf)
{
    size_t footer = (size_t)pf->data[pf->size - 8]
                    | (size_t)pf->data[pf->size - 7] << 8
                    | (size_t)pf->data[pf->size - 6] << 16
                    | (size_t)pf->data[pf->size - 5] << 24;
    const unsigned char *meta = pf->data + pf->size - 8 - footer;
    static const uint8_t modes[] = { 0, 1, 4 };
    int i;

    for (i = 0; i < 3; i++) {
        char what[32];

        snprintf(what, sizeof(what), "footer-%d", modes[i]);
        emit(dir, base, what, &modes[i], 1, meta, footer, NULL, 0);
    }
    /* Pages of optional INT32 columns for mode 5 (their codec aside), and
     * the first page header of every chunk, walked (mode 0). */
    for (i = 0; i < pf->num_leaves; i++) {
        const uc_pq_chunk_t *c = &pf->row_groups[0].chunks[i];
        const unsigned char *p;
        size_t len;
        uint8_t mode[4] = { 5 }, walk = 0;
        char what[600];

        if (pf->num_row_groups == 0 || !chunk_bytes(pf, c, &p, &len))
            continue;
        mode[1] = (uint8_t)c->num_values;
        mode[2] = (uint8_t)(c->num_values >> 8);
        mode[3] = (uint8_t)c->codec;
        snprintf(what, sizeof(what), "pages-%s", pf->leaves[i]->path);
        if (pf->leaves[i]->type == UC_PQ_INT32 && pf->leaves[i]->max_def == 1
            && pf->leaves[i]->max_rep == 0 && c->num_values < 65536)
            emit(dir, base, what, mode, 4, p, len, NULL, 0);
        snprintf(what, sizeof(what), "header-%s", pf->leaves[i]->path);
        emit(dir, base, what, &walk, 1, p, len > 64 ? 64 : len, NULL, 0);
    }
}

int main(int argc, char **argv)
{
    int thrift = 0, i;
    const char *dir;

    if (argc == 4 && strcmp(argv[1], "--wrap") == 0) {
        fuzz_buf_t file = { 0 };
        unsigned char *data;
        size_t len;
        FILE *f;

        if (!(data = slurp(argv[2], &len))
            || !fuzz_pages_file(data, len, &file)
            || !(f = fopen(argv[3], "wb")))
            return 1;
        fwrite(file.p, 1, file.len, f);
        fclose(f);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--thrift") == 0) {
        thrift = 1;
        argv++;
        argc--;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: seed_pages [--thrift] OUTDIR FILE...\n");
        return 2;
    }
    dir = argv[1];
    for (i = 2; i < argc; i++) {
        apr_pool_t *pool;
        uc_pq_file_t *pf;
        unsigned char *data;
        size_t len;
        const char *base = strstr(argv[i], "/delta/");
        char name[1024], *p;

        base = base ? base + 7 : argv[i];
        snprintf(name, sizeof(name), "%s", base);
        for (p = name; *p; p++)
            if (*p == '/')
                *p = '_';
        if (!(data = slurp(argv[i], &len)))
            continue;
        apr_pool_create(&pool, fuzz_root_pool());
        if (uc_pq_open(pool, argv[i], data, len, &pf) == NULL) {
            if (thrift)
                thrift_seeds(dir, name, pf);
            else
                pages_seeds(dir, name, pf);
        }
        apr_pool_destroy(pool);
        free(data);
    }
    return 0;
}
