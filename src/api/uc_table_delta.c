/* SPDX-License-Identifier: Apache-2.0 */
/* What a Delta table holds, read by the server's own Delta and Parquet
 * readers through the table's storage as the sharing server reads it: its
 * latest snapshot in summary, its commits newest first, and the first rows
 * of its data. The console's Delta tab shows them. */
#include "uc_api.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../parquet/uc_parquet.h"
#include "../vend/uc_table_log.h"

#define HISTORY_DEFAULT 20
#define HISTORY_MAX 100
#define PREVIEW_DEFAULT 20
#define PREVIEW_MAX 100
/* A preview reads so many files at most, none larger than this. */
#define PREVIEW_FILES 8
#define PREVIEW_FILE_BYTES ((apr_int64_t)64 << 20)

/* The call's table, opened as a Delta table; any other is a 400. */
static uc_error_t *open_delta(uc_call_t *call, uc_table_log_t *log)
{
    const uc_securable_t *table = UC_TARGET_OF(call);
    json_t *format = json_object_get(uc_api_details(call, table),
                                     "data_source_format");

    if (!json_is_string(format) ||
        strcmp(json_string_value(format), "DELTA") != 0 ||
        !table->storage_location)
        return uc_error_invalid(call->pool, "Table %s is not a Delta table: "
                                "only a table of data_source_format DELTA "
                                "with a storage location has a Delta log.",
                                uc_api_chain_name(call, &call->chain,
                                                  UC_LEVEL_OBJECT));
    return uc_table_log_open(call, table, log);
}

static uc_error_t *latest_snapshot(uc_call_t *call, uc_table_log_t *log,
                                   uc_delta_snapshot_t **snap)
{
    uc_error_t *err;

    if ((err = open_delta(call, log)))
        return err;
    return uc_table_log_latest(log, snap);
}

static uc_error_t *table_delta(uc_call_t *call, uc_jw_t *out)
{
    uc_table_log_t log;
    uc_delta_snapshot_t *snap;
    apr_int64_t bytes = 0;
    apr_size_t i;
    uc_error_t *err;

    if ((err = latest_snapshot(call, &log, &snap)))
        return err;
    for (i = 0; i < snap->num_files; i++)
        bytes += snap->files[i].size;
    uc_jw_begin_object(out);
    uc_jw_field_int(out, "version", snap->version);
    uc_jw_field_int(out, "timestamp", snap->timestamp);
    uc_jw_key(out, "checkpoint_version");
    if (snap->checkpoint_version < 0)
        uc_jw_null(out);
    else
        uc_jw_int(out, snap->checkpoint_version);
    uc_jw_field_raw(out, "protocol", snap->protocol);
    uc_jw_field_raw(out, "metadata", snap->metadata);
    uc_jw_field_int(out, "num_files", (apr_int64_t)snap->num_files);
    uc_jw_field_int(out, "size_in_bytes", bytes);
    uc_jw_end_object(out);
    return NULL;
}

/* --- history ------------------------------------------------------------ */

static void write_commit(uc_jw_t *out, const uc_delta_commit_t *c)
{
    uc_jw_begin_object(out);
    uc_jw_field_int(out, "version", c->version);
    uc_jw_field_int(out, "timestamp", c->timestamp);
    uc_jw_field_raw(out, "commit_info", c->commit_info ? c->commit_info
                                                       : "null");
    uc_jw_field_int(out, "num_added_files", c->num_added_files);
    uc_jw_field_int(out, "num_removed_files", c->num_removed_files);
    uc_jw_field_int(out, "added_bytes", c->added_bytes);
    uc_jw_field_int(out, "removed_bytes", c->removed_bytes);
    uc_jw_end_object(out);
}

/* Newest first; a page's token continues below the last version it
 * shows. */
static uc_error_t *table_delta_history(uc_call_t *call, uc_jw_t *out)
{
    uc_table_log_t log;
    uc_page_t page;
    apr_int64_t below;
    apr_array_header_t *commits;
    const char *token = NULL;
    int i, more;
    uc_error_t *err;

    if ((err = uc_page_parse_sized(call->pool,
                                   apr_table_get(call->query, "max_results"),
                                   apr_table_get(call->query, "page_token"),
                                   HISTORY_DEFAULT, HISTORY_MAX, &page)) ||
        (err = uc_page_after_number(call->pool, &page, &below)) ||
        (err = open_delta(call, &log)) ||
        (err = uc_delta_commits_read(log.delta, call->pool,
                                     below < 0 ? UC_DELTA_LATEST : below,
                                     page.limit, &commits, &more)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_key(out, "commits");
    uc_jw_begin_array(out);
    for (i = 0; i < commits->nelts; i++)
        write_commit(out, &APR_ARRAY_IDX(commits, i, uc_delta_commit_t));
    uc_jw_end_array(out);
    if (more && commits->nelts > 0)
        token = uc_page_token(call->pool, apr_psprintf(call->pool,
            "%" APR_INT64_T_FMT, APR_ARRAY_IDX(commits, commits->nelts - 1,
                                               uc_delta_commit_t).version));
    uc_jw_field_string(out, "next_page_token", token);
    uc_jw_end_object(out);
    return NULL;
}

/* --- preview ------------------------------------------------------------ */

/* A top-level column of the table's schema. */
typedef struct column {
    const char *name;
    const char *physical;          /* its name in the data files and in
                                    * partitionValues */
    json_t *type;
    int partition;
} column_t;

typedef struct preview {
    uc_call_t *call;
    uc_jw_t *out;
    uc_objstore_t *store;
    column_t *columns;
    int num_columns;
    int max_rows;
    int rows;
    int files_read;
    int files_skipped;
    int truncated;
} preview_t;

static uc_error_t *unreadable_schema(uc_call_t *call)
{
    return uc_error_make(call->pool, UC_E_MALFORMED_DELTA_LOG, "The table's "
                         "schema (its metaData's schemaString) cannot be "
                         "read.");
}

static int names_column(json_t *names, const char *name)
{
    size_t i;
    json_t *n;

    json_array_foreach(names, i, n)
        if (json_is_string(n) && !strcmp(json_string_value(n), name))
            return 1;
    return 0;
}

/* The top-level fields of the schema, in order; with column mapping each
 * is found in the files by its physical name. */
static uc_error_t *read_columns(preview_t *p, const uc_delta_snapshot_t *snap)
{
    apr_pool_t *pool = p->call->pool;
    json_t *meta = uc_json_own(pool, json_loads(snap->metadata, 0, NULL));
    json_t *text = json_object_get(meta, "schemaString"), *fields, *field;
    json_t *schema = NULL;
    int mapped = strcmp(snap->features.column_mapping, "none") != 0;
    size_t i;

    if (json_is_string(text))
        schema = uc_json_own(pool, json_loads(json_string_value(text), 0,
                                              NULL));
    fields = json_object_get(schema, "fields");
    if (!json_is_array(fields))
        return unreadable_schema(p->call);
    p->num_columns = (int)json_array_size(fields);
    p->columns = apr_pcalloc(pool, sizeof(column_t)
                             * (json_array_size(fields) + 1));
    json_array_foreach(fields, i, field) {
        column_t *c = &p->columns[i];
        json_t *name = json_object_get(field, "name");
        json_t *physical = json_object_get(json_object_get(field, "metadata"),
                                           "delta.columnMapping.physicalName");

        if (!json_is_string(name))
            return unreadable_schema(p->call);
        c->name = json_string_value(name);
        c->physical = mapped && json_is_string(physical)
                      ? json_string_value(physical) : c->name;
        c->type = json_object_get(field, "type");
        c->partition = names_column(json_object_get(meta, "partitionColumns"),
                                    c->name);
    }
    return NULL;
}

/* The Parquet node of each column a file holds; NULL for the partition
 * columns and those it lacks. */
static const uc_pq_node_t **data_nodes(const preview_t *p, apr_pool_t *pool,
                                       const uc_pq_file_t *pq)
{
    const uc_pq_node_t **nodes = apr_pcalloc(pool, sizeof(*nodes)
                                             * (apr_size_t)(p->num_columns
                                                            + 1));
    int i, j;

    for (i = 0; i < p->num_columns; i++)
        for (j = 0; !p->columns[i].partition && j < pq->root->num_children;
             j++)
            if (!strcmp(pq->root->children[j]->name, p->columns[i].physical))
                nodes[i] = pq->root->children[j];
    return nodes;
}

static uc_error_t *write_row(preview_t *p, const uc_pq_rows_t *rows,
                             const uc_pq_node_t **nodes, json_t *values)
{
    uc_error_t *err;
    int i;

    uc_jw_begin_array(p->out);
    for (i = 0; i < p->num_columns; i++) {
        const column_t *c = &p->columns[i];
        json_t *value = c->partition ? json_object_get(values, c->physical)
                                     : NULL;

        if (nodes[i]) {
            if ((err = uc_pq_rows_write(rows, nodes[i], p->out)))
                return err;
        }
        else if (json_is_string(value))
            uc_jw_string(p->out, json_string_value(value));
        else
            uc_jw_null(p->out);
    }
    uc_jw_end_array(p->out);
    p->rows++;
    return NULL;
}

/* The rows of one data file, until the preview has its rows; `pool` goes
 * with the file. */
static uc_error_t *preview_file(preview_t *p, apr_pool_t *pool,
                                const uc_delta_file_t *f)
{
    const char *key, *data;
    apr_size_t len;
    apr_int64_t shown = 0;
    uc_pq_file_t *pq;
    const uc_pq_node_t **nodes;
    json_t *values;
    int g;
    uc_error_t *err;

    if ((err = uc_delta_log_data_key(pool, f->path, &key)))
        return err;
    if ((err = uc_objstore_map(p->store, pool, key, &data, &len))) {
        if (uc_error_is_missing(err))
            uc_error_recast(err, UC_E_MALFORMED_DELTA_LOG);
        return err;
    }
    /* The log's size is what skipped it; the file's own bounds decoding. */
    if ((apr_int64_t)len > PREVIEW_FILE_BYTES)
        return uc_error_make(pool, UC_E_MALFORMED_DELTA_LOG, "The table's "
                             "data file '%s' is larger than its log says.",
                             key);
    if ((err = uc_pq_open(pool, key, data, len, &pq)))
        return err;
    nodes = data_nodes(p, pool, pq);
    values = uc_json_own(pool, json_loads(f->partition_values, 0, NULL));
    p->files_read++;
    for (g = 0; g < pq->num_row_groups && p->rows < p->max_rows; g++) {
        uc_pq_rows_t *rows;

        if (pq->row_groups[g].num_rows == 0)
            continue;
        if ((err = uc_pq_rows_open(pq, pool, g, nodes, p->num_columns,
                                   &rows)))
            return err;
        while (p->rows < p->max_rows && uc_pq_rows_next(rows)) {
            if ((err = write_row(p, rows, nodes, values)))
                return err;
            shown++;
        }
    }
    if (shown < pq->num_rows)
        p->truncated = 1;
    return NULL;
}

static uc_error_t *read_file(preview_t *p, const uc_delta_file_t *f)
{
    apr_pool_t *pool;
    uc_error_t *err;

    apr_pool_create(&pool, p->call->pool);
    if ((err = preview_file(p, pool, f)))
        err = uc_error_copy(p->call->pool, err);
    apr_pool_destroy(pool);
    return err;
}

/* The active files in snapshot order: those of a deletion vector (whose
 * deleted rows must not show) or too large are skipped; reading stops at
 * max_rows or PREVIEW_FILES files, with readable ones left. */
static uc_error_t *preview_rows(preview_t *p, const uc_delta_snapshot_t *snap)
{
    apr_size_t i;
    uc_error_t *err;

    for (i = 0; i < snap->num_files; i++) {
        const uc_delta_file_t *f = &snap->files[i];

        if (f->size > PREVIEW_FILE_BYTES || uc_delta_file_dv_id(f))
            p->files_skipped++;
        else if (p->rows >= p->max_rows || p->files_read >= PREVIEW_FILES)
            p->truncated = 1;
        else if ((err = read_file(p, f)))
            return err;
    }
    return NULL;
}

static void write_columns(const preview_t *p)
{
    int i;

    uc_jw_key(p->out, "columns");
    uc_jw_begin_array(p->out);
    for (i = 0; i < p->num_columns; i++) {
        uc_jw_begin_object(p->out);
        uc_jw_field_string(p->out, "name", p->columns[i].name);
        uc_jw_key(p->out, "type");
        uc_jw_json(p->out, p->columns[i].type);
        uc_jw_end_object(p->out);
    }
    uc_jw_end_array(p->out);
}

static uc_error_t *table_delta_preview(uc_call_t *call, uc_jw_t *out)
{
    uc_table_log_t log;
    uc_delta_snapshot_t *snap;
    preview_t p = { .call = call, .out = out };
    uc_error_t *err;

    if ((err = uc_page_limit(call->pool, "max_rows",
                             apr_table_get(call->query, "max_rows"),
                             PREVIEW_DEFAULT, PREVIEW_MAX, &p.max_rows)) ||
        (err = latest_snapshot(call, &log, &snap)) ||
        (err = read_columns(&p, snap)) ||
        (err = uc_objstore_open(call->pool,
                                UC_TARGET_OF(call)->storage_location,
                                log.config, &p.store)))
        return err;
    uc_jw_begin_object(out);
    uc_jw_field_int(out, "version", snap->version);
    write_columns(&p);
    uc_jw_key(out, "rows");
    uc_jw_begin_array(out);
    if ((err = preview_rows(&p, snap)))
        return err;
    uc_jw_end_array(out);
    uc_jw_field_int(out, "files_read", p.files_read);
    uc_jw_field_int(out, "files_skipped", p.files_skipped);
    uc_jw_key(out, "truncated");
    uc_jw_bool(out, p.truncated);
    uc_jw_end_object(out);
    return NULL;
}

/* The summary and the history need what reading the table needs, BROWSE
 * aside; its rows need SELECT. */
static const uc_rule_t read_rule = UC_RULE_ON_OBJECT(
    UC_TYPE_TABLE, UC_PRIV(UC_PRIV_SELECT) | UC_PRIV(UC_PRIV_MODIFY), 0);
static const uc_rule_t select_rule = UC_RULE_ON_OBJECT(
    UC_TYPE_TABLE, UC_PRIV(UC_PRIV_SELECT), 0);

const uc_route_t uc_table_delta_routes[] = {
    { UC_GET, "/tables/{full_name}/delta", table_delta, 0, &read_rule },
    { UC_GET, "/tables/{full_name}/delta/history", table_delta_history, 0,
      &read_rule },
    { UC_GET, "/tables/{full_name}/delta/preview", table_delta_preview, 0,
      &select_rule },
    { 0, NULL, NULL, 0, NULL }
};
