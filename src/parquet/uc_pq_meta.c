/* SPDX-License-Identifier: Apache-2.0 */
/* The Parquet footer: FileMetaData, the schema tree with its definition and
 * repetition levels, and the column chunks of each row group. */
#include "uc_parquet.h"
#include "uc_pq_internal.h"
#include "uc_thrift.h"

#include <string.h>
#include <apr_strings.h>

/* converted_type values that shape assembly. */
enum { CONVERTED_MAP = 1, CONVERTED_MAP_KEY_VALUE = 2, CONVERTED_LIST = 3 };
/* LogicalType union members that shape assembly or values. */
enum {
    LOGICAL_MAP = 2, LOGICAL_LIST = 3, LOGICAL_DECIMAL = 5, LOGICAL_DATE = 6,
    LOGICAL_TIMESTAMP = 8
};
enum {
    CONVERTED_DECIMAL = 5, CONVERTED_DATE = 6, CONVERTED_TIMESTAMP_MILLIS = 9,
    CONVERTED_TIMESTAMP_MICROS = 10
};
enum { UNIT_MILLIS = 1, UNIT_MICROS = 2, UNIT_NANOS = 3 };

#define MAX_SCHEMA_ELEMENTS 100000
#define MAX_ROW_GROUPS 100000
#define MAX_NESTING 32

typedef struct schema_element {
    int type;
    int type_length;
    int repetition;
    int num_children;
    int converted_type;
    int logical_type;
    int scale;
    int time_unit;
    const char *name;
} schema_element_t;

/* How a leaf's values read as JSON, from either annotation. */
static uc_pq_value_kind_t value_kind(const schema_element_t *e)
{
    int integer = e->type == UC_PQ_INT32 || e->type == UC_PQ_INT64;

    if (e->type == UC_PQ_INT96)
        return UC_PQ_VALUE_TIMESTAMP_NANOS;
    /* Annotations on physical types they do not apply to are ignored. */
    if (e->logical_type == LOGICAL_DECIMAL
        || e->converted_type == CONVERTED_DECIMAL)
        return integer || e->type == UC_PQ_BYTE_ARRAY
               || e->type == UC_PQ_FIXED_LEN_BYTE_ARRAY
               ? UC_PQ_VALUE_DECIMAL : UC_PQ_VALUE_PLAIN;
    if (!integer)
        return UC_PQ_VALUE_PLAIN;
    if (e->logical_type == LOGICAL_DATE || e->converted_type == CONVERTED_DATE)
        return UC_PQ_VALUE_DATE;
    if (e->logical_type == LOGICAL_TIMESTAMP)
        return e->time_unit == UNIT_MILLIS ? UC_PQ_VALUE_TIMESTAMP_MILLIS
               : e->time_unit == UNIT_NANOS ? UC_PQ_VALUE_TIMESTAMP_NANOS
               : UC_PQ_VALUE_TIMESTAMP_MICROS;
    if (e->converted_type == CONVERTED_TIMESTAMP_MILLIS)
        return UC_PQ_VALUE_TIMESTAMP_MILLIS;
    if (e->converted_type == CONVERTED_TIMESTAMP_MICROS)
        return UC_PQ_VALUE_TIMESTAMP_MICROS;
    return UC_PQ_VALUE_PLAIN;
}

uc_error_t *uc_pq_corrupt(apr_pool_t *pool, const uc_pq_file_t *file,
                          const char *what)
{
    return uc_error_make(pool, UC_E_MALFORMED_PARQUET,
                         "'%s' is not a readable Parquet file: %s.",
                         file->name, what);
}

/* The members of a LogicalType struct member (DecimalType, TimestampType)
 * that change how values read: scale, and the unit of timestamps. */
static void read_logical_details(uc_thrift_t *t, int member,
                                 schema_element_t *e)
{
    uc_thrift_struct_t s, unit;
    int id, type, unit_id;

    uc_thrift_struct_begin(t, &s);
    while ((type = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP) {
        if (member == LOGICAL_DECIMAL && id == 1)
            e->scale = (int)uc_thrift_int(t, type);
        else if (member == LOGICAL_TIMESTAMP && id == 2
                 && type == UC_THRIFT_STRUCT) {
            uc_thrift_struct_begin(t, &unit);
            while ((type = uc_thrift_field(t, &unit, &unit_id))
                   != UC_THRIFT_STOP) {
                e->time_unit = unit_id;
                uc_thrift_skip(t, type);
            }
            uc_thrift_struct_end(t);
        }
        else
            uc_thrift_skip(t, type);
    }
    uc_thrift_struct_end(t);
}

/* LogicalType is a union: the id of its one member tells the type. */
static void read_logical_type(uc_thrift_t *t, schema_element_t *e)
{
    uc_thrift_struct_t s;
    int id, type;

    uc_thrift_struct_begin(t, &s);
    while ((type = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP) {
        if (type == UC_THRIFT_STRUCT && e->logical_type == 0) {
            e->logical_type = id;
            read_logical_details(t, id, e);
        }
        else
            uc_thrift_skip(t, type);
    }
    uc_thrift_struct_end(t);
}

static void read_schema_element(uc_thrift_t *t, apr_pool_t *pool,
                                schema_element_t *e)
{
    uc_thrift_struct_t s;
    int id, type;
    apr_size_t len;
    const char *name;

    memset(e, 0, sizeof(*e));
    e->type = -1;
    e->converted_type = -1;
    e->name = "";
    uc_thrift_struct_begin(t, &s);
    while ((type = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP) {
        switch (id) {
        case 1: e->type = (int)uc_thrift_int(t, type); break;
        case 2: e->type_length = (int)uc_thrift_int(t, type); break;
        case 3: e->repetition = (int)uc_thrift_int(t, type); break;
        case 4:
            if (type != UC_THRIFT_BINARY) {
                t->failed = 1;
                break;
            }
            name = uc_thrift_binary(t, &len);
            e->name = apr_pstrmemdup(pool, name, len);
            break;
        case 5: e->num_children = (int)uc_thrift_int(t, type); break;
        case 6: e->converted_type = (int)uc_thrift_int(t, type); break;
        case 7: e->scale = (int)uc_thrift_int(t, type); break;
        case 10:
            if (type == UC_THRIFT_STRUCT)
                read_logical_type(t, e);
            else
                uc_thrift_skip(t, type);
            break;
        default: uc_thrift_skip(t, type);
        }
    }
    uc_thrift_struct_end(t);
}

typedef struct schema_builder {
    apr_pool_t *pool;
    schema_element_t *elements;
    int count;
    int next;
    apr_array_header_t *leaves;
} schema_builder_t;

static int classify(uc_pq_node_t *node, const schema_element_t *e)
{
    if (e->num_children == 0)
        return UC_PQ_LEAF;
    if (e->converted_type == CONVERTED_MAP
        || e->converted_type == CONVERTED_MAP_KEY_VALUE
        || e->logical_type == LOGICAL_MAP)
        return node->num_children == 1
               && node->children[0]->repetition == UC_PQ_REPEATED
               && node->children[0]->kind != UC_PQ_LEAF
               && node->children[0]->num_children >= 1
               ? UC_PQ_MAP : UC_PQ_STRUCT;
    if (e->converted_type == CONVERTED_LIST || e->logical_type == LOGICAL_LIST)
        return node->num_children == 1
               && node->children[0]->repetition == UC_PQ_REPEATED
               ? UC_PQ_LIST : UC_PQ_STRUCT;
    return UC_PQ_STRUCT;
}

/* Builds the node for elements[b->next] and its children, depth first. */
static uc_pq_node_t *build_node(schema_builder_t *b, uc_pq_node_t *parent,
                                int depth)
{
    const schema_element_t *e;
    uc_pq_node_t *node;
    int i;

    if (b->next >= b->count || depth > MAX_NESTING)
        return NULL;
    e = &b->elements[b->next++];
    if (e->num_children < 0 || e->num_children > b->count - b->next
        || e->repetition < 0 || e->repetition > UC_PQ_REPEATED)
        return NULL;
    node = apr_pcalloc(b->pool, sizeof(*node));
    node->index = b->next - 1;
    node->name = e->name;
    node->parent = parent;
    node->repetition = parent ? e->repetition : UC_PQ_REQUIRED;
    node->converted_type = e->converted_type;
    node->logical_type = e->logical_type;
    node->type_length = e->type_length;
    node->leaf_index = -1;
    if (parent) {
        node->max_def = parent->max_def
                        + (node->repetition != UC_PQ_REQUIRED);
        node->max_rep = parent->max_rep
                        + (node->repetition == UC_PQ_REPEATED);
        node->path = parent->parent
                     ? apr_pstrcat(b->pool, parent->path, ".", e->name, NULL)
                     : e->name;
    }
    else
        node->path = "";
    node->first_leaf = b->leaves->nelts;
    if (e->num_children == 0) {
        if (!parent || e->type < UC_PQ_BOOLEAN
            || e->type > UC_PQ_FIXED_LEN_BYTE_ARRAY
            || (e->type == UC_PQ_FIXED_LEN_BYTE_ARRAY && e->type_length <= 0)
            || node->max_def > 255 || node->max_rep > 255)
            return NULL;
        node->type = e->type;
        node->value_kind = value_kind(e);
        node->scale = e->scale;
        node->leaf_index = b->leaves->nelts;
        *(uc_pq_node_t **)apr_array_push(b->leaves) = node;
    }
    else {
        node->type = -1;
        node->num_children = e->num_children;
        node->children = apr_pcalloc(b->pool, sizeof(uc_pq_node_t *)
                                     * (apr_size_t)e->num_children);
        for (i = 0; i < e->num_children; i++)
            if (!(node->children[i] = build_node(b, node, depth + 1)))
                return NULL;
    }
    node->end_leaf = b->leaves->nelts;
    node->kind = classify(node, e);
    return node;
}

static uc_error_t *read_schema(uc_thrift_t *t, apr_pool_t *pool,
                               uc_pq_file_t *file)
{
    schema_builder_t b = { pool };
    int elem, i;
    apr_size_t n = uc_thrift_list(t, &elem);

    if (t->failed || elem != UC_THRIFT_STRUCT || n == 0
        || n > MAX_SCHEMA_ELEMENTS)
        return uc_pq_corrupt(pool, file, "bad schema list");
    b.count = (int)n;
    b.elements = apr_palloc(pool, sizeof(schema_element_t) * n);
    for (i = 0; i < b.count && !t->failed; i++)
        read_schema_element(t, pool, &b.elements[i]);
    if (t->failed)
        return uc_pq_corrupt(pool, file, "bad schema element");
    b.leaves = apr_array_make(pool, 64, sizeof(uc_pq_node_t *));
    file->root = build_node(&b, NULL, 0);
    if (!file->root || b.next != b.count || file->root->kind == UC_PQ_LEAF)
        return uc_pq_corrupt(pool, file, "inconsistent schema tree");
    file->leaves = (uc_pq_node_t **)b.leaves->elts;
    file->num_leaves = b.leaves->nelts;
    file->num_nodes = b.count;
    return NULL;
}

/* path_in_schema must name the leaf the chunk's position says. */
static int path_matches(uc_thrift_t *t, const uc_pq_node_t *leaf)
{
    int elem, ok = 1;
    apr_size_t n = uc_thrift_list(t, &elem), i, len;
    const uc_pq_node_t *parts[MAX_NESTING + 1];
    int depth = 0;
    const uc_pq_node_t *node;

    for (node = leaf; node && node->parent && depth <= MAX_NESTING;
         node = node->parent)
        parts[depth++] = node;
    if (elem != UC_THRIFT_BINARY || n != (apr_size_t)depth)
        ok = 0;
    for (i = 0; i < n && !t->failed; i++) {
        const char *name = uc_thrift_binary(t, &len);

        if (ok && (strlen(parts[depth - 1 - i]->name) != len
                   || memcmp(parts[depth - 1 - i]->name, name, len) != 0))
            ok = 0;
    }
    return ok && !t->failed;
}

static uc_error_t *read_column_meta(uc_thrift_t *t, apr_pool_t *pool,
                                    uc_pq_file_t *file,
                                    const uc_pq_node_t *leaf,
                                    uc_pq_chunk_t *chunk)
{
    uc_thrift_struct_t s;
    int id, type, path_ok = 0;

    chunk->dictionary_page_offset = -1;
    chunk->data_page_offset = -1;
    uc_thrift_struct_begin(t, &s);
    while ((type = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP) {
        switch (id) {
        case 1:
            if (uc_thrift_int(t, type) != leaf->type)
                return uc_pq_corrupt(pool, file, apr_psprintf(pool,
                    "column '%s' has another type than its schema",
                    leaf->path));
            break;
        case 3:
            if (type != UC_THRIFT_LIST || !path_matches(t, leaf))
                return uc_pq_corrupt(pool, file, apr_psprintf(pool,
                    "column chunk for '%s' names another column",
                    leaf->path));
            path_ok = 1;
            break;
        case 4: chunk->codec = (int)uc_thrift_int(t, type); break;
        case 5: chunk->num_values = uc_thrift_int(t, type); break;
        case 7: chunk->total_compressed_size = uc_thrift_int(t, type); break;
        case 9: chunk->data_page_offset = uc_thrift_int(t, type); break;
        case 11:
            chunk->dictionary_page_offset = uc_thrift_int(t, type);
            break;
        default: uc_thrift_skip(t, type);
        }
    }
    uc_thrift_struct_end(t);
    if (t->failed || !path_ok || chunk->num_values < 0
        || chunk->data_page_offset < 4 || chunk->total_compressed_size <= 0)
        return uc_pq_corrupt(pool, file, "bad column chunk metadata");
    return NULL;
}

static uc_error_t *read_column_chunk(uc_thrift_t *t, apr_pool_t *pool,
                                     uc_pq_file_t *file,
                                     const uc_pq_node_t *leaf,
                                     uc_pq_chunk_t *chunk)
{
    uc_thrift_struct_t s;
    int id, type, have_meta = 0;
    uc_error_t *err;

    uc_thrift_struct_begin(t, &s);
    while ((type = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP) {
        if (id == 1)
            return uc_error_make(pool, UC_E_MALFORMED_PARQUET,
                                 "'%s' keeps column data in other files, "
                                 "which is not supported.", file->name);
        if (id == 8 || id == 9)
            return uc_error_make(pool, UC_E_MALFORMED_PARQUET,
                                 "'%s' is encrypted, which is not "
                                 "supported.", file->name);
        if (id == 3 && type == UC_THRIFT_STRUCT) {
            if ((err = read_column_meta(t, pool, file, leaf, chunk)))
                return err;
            have_meta = 1;
        }
        else
            uc_thrift_skip(t, type);
    }
    uc_thrift_struct_end(t);
    if (t->failed || !have_meta)
        return uc_pq_corrupt(pool, file, "column chunk without metadata");
    return NULL;
}

static uc_error_t *read_row_group(uc_thrift_t *t, apr_pool_t *pool,
                                  uc_pq_file_t *file, uc_pq_row_group_t *rg)
{
    uc_thrift_struct_t s;
    int id, type, elem, have_columns = 0;
    apr_size_t n, i;
    uc_error_t *err;

    rg->chunks = apr_pcalloc(pool, sizeof(uc_pq_chunk_t)
                             * (apr_size_t)(file->num_leaves + 1));
    uc_thrift_struct_begin(t, &s);
    while ((type = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP) {
        if (id == 1 && type == UC_THRIFT_LIST) {
            n = uc_thrift_list(t, &elem);
            if (elem != UC_THRIFT_STRUCT || n != (apr_size_t)file->num_leaves)
                return uc_pq_corrupt(pool, file, "a row group does not have "
                                     "one chunk per column");
            for (i = 0; i < n; i++)
                if ((err = read_column_chunk(t, pool, file, file->leaves[i],
                                             &rg->chunks[i])))
                    return err;
            have_columns = 1;
        }
        else if (id == 3)
            rg->num_rows = uc_thrift_int(t, type);
        else
            uc_thrift_skip(t, type);
    }
    uc_thrift_struct_end(t);
    if (t->failed || !have_columns || rg->num_rows < 0)
        return uc_pq_corrupt(pool, file, "bad row group");
    return NULL;
}

static uc_error_t *read_file_metadata(uc_thrift_t *t, apr_pool_t *pool,
                                      uc_pq_file_t *file)
{
    uc_thrift_struct_t s;
    int id, type, elem, have_schema = 0;
    apr_size_t n, i, len;
    uc_error_t *err;
    const char *text;

    uc_thrift_struct_begin(t, &s);
    while ((type = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP) {
        switch (id) {
        case 2:
            /* Row groups are matched to the leaves of the first. */
            if (type != UC_THRIFT_LIST || have_schema)
                return uc_pq_corrupt(pool, file, "bad schema");
            if ((err = read_schema(t, pool, file)))
                return err;
            have_schema = 1;
            break;
        case 3: file->num_rows = uc_thrift_int(t, type); break;
        case 4:
            if (!have_schema || type != UC_THRIFT_LIST)
                return uc_pq_corrupt(pool, file, "row groups before schema");
            n = uc_thrift_list(t, &elem);
            if (elem != UC_THRIFT_STRUCT || n > MAX_ROW_GROUPS)
                return uc_pq_corrupt(pool, file, "bad row group list");
            file->num_row_groups = (int)n;
            file->row_groups = apr_pcalloc(pool, sizeof(uc_pq_row_group_t)
                                           * (n + 1));
            for (i = 0; i < n; i++)
                if ((err = read_row_group(t, pool, file,
                                          &file->row_groups[i])))
                    return err;
            break;
        case 6:
            if (type == UC_THRIFT_BINARY) {
                text = uc_thrift_binary(t, &len);
                file->created_by = apr_pstrmemdup(pool, text, len);
            }
            else
                uc_thrift_skip(t, type);
            break;
        case 8:
        case 9:
            return uc_error_make(pool, UC_E_MALFORMED_PARQUET,
                                 "'%s' is encrypted, which is not "
                                 "supported.", file->name);
        default: uc_thrift_skip(t, type);
        }
    }
    uc_thrift_struct_end(t);
    if (t->failed || !have_schema)
        return uc_pq_corrupt(pool, file, "bad file metadata");
    return NULL;
}

uc_error_t *uc_pq_open(apr_pool_t *pool, const char *name, const void *data,
                       apr_size_t size, uc_pq_file_t **out)
{
    uc_pq_file_t *file = apr_pcalloc(pool, sizeof(*file));
    const unsigned char *bytes = data;
    apr_size_t footer;
    uc_thrift_t t;
    uc_error_t *err;

    file->data = bytes;
    file->size = size;
    file->name = name;
    if (size < 12 || memcmp(bytes, "PAR1", 4) != 0)
        return uc_pq_corrupt(pool, file, "no Parquet header");
    if (memcmp(bytes + size - 4, "PARE", 4) == 0)
        return uc_error_make(pool, UC_E_MALFORMED_PARQUET,
                             "'%s' is encrypted, which is not supported.",
                             name);
    if (memcmp(bytes + size - 4, "PAR1", 4) != 0)
        return uc_pq_corrupt(pool, file, "no Parquet trailer (truncated?)");
    footer = (apr_size_t)bytes[size - 8] | (apr_size_t)bytes[size - 7] << 8
             | (apr_size_t)bytes[size - 6] << 16
             | (apr_size_t)bytes[size - 5] << 24;
    if (footer == 0 || footer > size - 12)
        return uc_pq_corrupt(pool, file, "bad footer length");
    uc_thrift_init(&t, bytes + size - 8 - footer, footer);
    if ((err = read_file_metadata(&t, pool, file)))
        return err;
    *out = file;
    return NULL;
}

const uc_pq_node_t *uc_pq_find(const uc_pq_file_t *file, const char *path)
{
    const uc_pq_node_t *node = file->root;

    while (node && *path) {
        const char *dot = strchr(path, '.');
        apr_size_t n = dot ? (apr_size_t)(dot - path) : strlen(path);
        const uc_pq_node_t *found = NULL;
        int i;

        for (i = 0; i < node->num_children; i++)
            if (strlen(node->children[i]->name) == n
                && memcmp(node->children[i]->name, path, n) == 0) {
                found = node->children[i];
                break;
            }
        node = found;
        path += n;
        if (*path == '.')
            path++;
    }
    return node == file->root ? NULL : node;
}
