/* SPDX-License-Identifier: Apache-2.0 */
/* Checkpoints as the base of a replay: classic and multi-part Parquet
 * files, V2 manifests (JSON or Parquet) and their sidecars. File actions of
 * Parquet checkpoints are read column by column straight into file entries;
 * the few other rows go through the same JSON path as commits. */
#include "uc_delta_replay.h"

#include <string.h>
#include <apr_strings.h>

#include "../core/uc_memory.h"
#include "../core/uc_threads.h"
#include "../parquet/uc_parquet.h"

/* Checkpoints of millions of files stay far below this. */
#define MAX_CHECKPOINT_BYTES ((apr_off_t)2 << 30)

static const char *const other_actions[] = {
    "metaData", "protocol", "txn", "domainMetadata", "sidecar", NULL
};

typedef struct add_columns {
    const uc_pq_node_t *group;
    const uc_pq_node_t *path;
    const uc_pq_node_t *partition_values;
    const uc_pq_node_t *size;
    const uc_pq_node_t *modification_time;
    const uc_pq_node_t *stats;
    const uc_pq_node_t *stats_parsed;
    const uc_pq_node_t *tags;
    const uc_pq_node_t *dv;
    const uc_pq_node_t *dv_type;
    const uc_pq_node_t *dv_where;
    const uc_pq_node_t *dv_offset;
    const uc_pq_node_t *base_row_id;
    const uc_pq_node_t *row_commit_version;
    const uc_delta_stats_source_t *stats_source;    /* of the row group */
} add_columns_t;

static void find_add_columns(const uc_pq_file_t *pf, add_columns_t *c)
{
    memset(c, 0, sizeof(*c));
    c->group = uc_pq_find(pf, "add");
    if (!c->group || c->group->kind != UC_PQ_STRUCT)
        return;
    c->path = uc_pq_find(pf, "add.path");
    c->partition_values = uc_pq_find(pf, "add.partitionValues");
    c->size = uc_pq_find(pf, "add.size");
    c->modification_time = uc_pq_find(pf, "add.modificationTime");
    c->stats = uc_pq_find(pf, "add.stats");
    /* Stats are text; anything else under the name is not read. */
    if (c->stats && (c->stats->leaf_index < 0
                     || c->stats->type != UC_PQ_BYTE_ARRAY
                     || c->stats->max_rep > 0))
        c->stats = NULL;
    /* Writers with delta.checkpoint.writeStatsAsJson=false keep only the
     * struct; it is turned back into the JSON a commit holds. */
    if (!c->stats)
        c->stats_parsed = uc_pq_find(pf, "add.stats_parsed");
    c->tags = uc_pq_find(pf, "add.tags");
    c->dv = uc_pq_find(pf, "add.deletionVector");
    c->dv_type = uc_pq_find(pf, "add.deletionVector.storageType");
    c->dv_where = uc_pq_find(pf, "add.deletionVector.pathOrInlineDv");
    c->dv_offset = uc_pq_find(pf, "add.deletionVector.offset");
    c->base_row_id = uc_pq_find(pf, "add.baseRowId");
    c->row_commit_version = uc_pq_find(pf, "add.defaultRowCommitVersion");
}

/* The JSON text of a node of this row, in the reused writer. */
static const char *written(uc_pq_rows_t *rows, const uc_pq_node_t *node,
                           uc_jw_t *w, uc_error_t **err)
{
    uc_jw_reset(w);
    if ((*err = uc_pq_rows_write(rows, node, w)))
        return NULL;
    return uc_jw_text(w);
}

static uc_error_t *add_from_row(uc_replay_t *r, uc_pq_rows_t *rows,
                                const add_columns_t *c, uc_jw_t *w)
{
    uc_delta_file_t f;
    uc_delta_file_extras_t x = { NULL, NULL, NULL, UC_DELTA_NONE,
                                 UC_DELTA_NONE };
    uc_pq_bytes_t path, type, where;
    apr_int64_t offset;
    const char *text;
    uc_error_t *err = NULL;

    memset(&f, 0, sizeof(f));
    if (!uc_pq_rows_bytes(rows, c->path, &path) || path.len == 0)
        return uc_delta_corrupt(r->scratch, r->table, "a checkpoint add "
                                "action has no path");
    f.path = path.ptr;
    if (c->dv && uc_pq_rows_present(rows, c->dv)) {
        if (!uc_pq_rows_bytes(rows, c->dv_type, &type)
            || !uc_pq_rows_bytes(rows, c->dv_where, &where))
            return uc_delta_corrupt(r->scratch, r->table, "a deletion "
                                    "vector of '%s' has no storageType or "
                                    "pathOrInlineDv", f.path);
        x.dv_id = uc_pq_rows_int(rows, c->dv_offset, &offset)
            ? apr_psprintf(r->arena->pool, "%.*s%.*s@%" APR_INT64_T_FMT,
                           (int)type.len, type.ptr, (int)where.len,
                           where.ptr, offset)
            : apr_psprintf(r->arena->pool, "%.*s%.*s", (int)type.len,
                           type.ptr, (int)where.len, where.ptr);
        r->arena->bytes += strlen(x.dv_id) + 1;
        if (!(text = written(rows, c->dv, w, &err)))
            return err;
        x.deletion_vector = uc_arena_strndup(r->arena, text, strlen(text));
    }
    f.partition_values = "{}";
    if (c->partition_values && uc_pq_rows_present(rows, c->partition_values)
        && !uc_pq_rows_empty(rows, c->partition_values)) {
        if (!(text = written(rows, c->partition_values, w, &err)))
            return err;
        f.partition_values = uc_replay_partition_text(r, text, strlen(text));
    }
    if (c->stats_source) {
        f.stats_source = c->stats_source;
        f.stats_row = uc_pq_rows_number(rows);
    }
    else if (c->stats_parsed && uc_pq_rows_present(rows, c->stats_parsed)) {
        if (!(text = written(rows, c->stats_parsed, w, &err)))
            return err;
        f.stats = uc_arena_strndup(r->arena, text, strlen(text));
    }
    if (c->tags && uc_pq_rows_present(rows, c->tags)) {
        if (!(text = written(rows, c->tags, w, &err)))
            return err;
        x.tags = uc_arena_strndup(r->arena, text, strlen(text));
    }
    if (!uc_pq_rows_int(rows, c->size, &f.size))
        f.size = 0;
    if (!uc_pq_rows_int(rows, c->modification_time, &f.modification_time))
        f.modification_time = 0;
    if (!uc_pq_rows_int(rows, c->base_row_id, &x.base_row_id))
        x.base_row_id = UC_DELTA_NONE;
    if (!uc_pq_rows_int(rows, c->row_commit_version,
                        &x.default_row_commit_version))
        x.default_row_commit_version = UC_DELTA_NONE;
    f.extras = uc_replay_extras(r, &x);
    uc_replay_base_file(r, &f);
    return NULL;
}

/* Room for `more` files at once, in the snapshot's own pool, rather than
 * growth by doubling and a copy at the end. */
static void reserve_files(uc_replay_t *r, apr_size_t more)
{
    apr_size_t room = (apr_size_t)r->files->nelts + more;
    apr_array_header_t *files = r->files;
    void *elts;

    if ((apr_size_t)files->nalloc >= room || room > (apr_size_t)1 << 27)
        return;
    if (room < 2 * (apr_size_t)files->nalloc)
        room = 2 * (apr_size_t)files->nalloc;
    /* Not apr_array_make, which would zero what the rows are about to
     * fill, in a node of the reader's allocator (see uc_memory_alloc). */
    elts = uc_memory_alloc(r->result, room * sizeof(uc_delta_file_t));
    memcpy(elts, files->elts, (apr_size_t)files->nelts
                              * sizeof(uc_delta_file_t));
    files->elts = elts;
    files->nalloc = (int)room;
    files->pool = r->result;
}

/* A non-file row, as the JSON line a commit would hold. */
static uc_error_t *other_from_row(uc_replay_t *r, uc_pq_rows_t *rows,
                                  const uc_pq_node_t *group, uc_jw_t *w,
                                  const char *name)
{
    json_t *action;
    uc_error_t *err;

    uc_jw_reset(w);
    uc_jw_begin_object(w);
    uc_jw_key(w, group->name);
    if ((err = uc_pq_rows_write(rows, group, w)))
        return err;
    uc_jw_end_object(w);
    action = json_loads(uc_jw_text(w), 0, NULL);
    if (!action)
        return uc_delta_corrupt(r->scratch, r->table, "a row of %s cannot be "
                                "read", name);
    err = uc_replay_action(r, action);
    json_decref(action);
    return err;
}

/* A share of the rows of a row group, read by one thread. A share of
 * several has a replay of its own, with the seen set of the real one
 * (only read while the base is replayed), files going into slots of the
 * real one's array, and strings going into a pool of its own that lives
 * as long as the arena. Rows of other actions are left for later, by
 * number, as they change the replay. */
typedef struct rows_share {
    uc_replay_t *r;
    uc_replay_t own;
    uc_arena_t arena;
    apr_array_header_t slots;
    uc_pq_rows_t *rows;
    const add_columns_t *add;
    apr_array_header_t *others;     /* row numbers, for a share of several */
    uc_jw_t *w;
    uc_error_t *err;
} rows_share_t;

/* Row groups of fewer rows are read by one thread. */
#define SHARED_ROWS 16384

static uc_error_t *other_rows(uc_replay_t *r, uc_pq_rows_t *rows,
                              const uc_pq_node_t *const *others,
                              int num_others, uc_jw_t *w, const char *key)
{
    uc_error_t *err;
    int i;

    for (i = 0; i < num_others; i++)
        if (uc_pq_rows_present(rows, others[i])
            && (err = other_from_row(r, rows, others[i], w, key)))
            return err;
    return NULL;
}

static void read_share(void *item)
{
    rows_share_t *sh = item;

    while (!sh->err && uc_pq_rows_next(sh->rows)) {
        if (sh->add->group && uc_pq_rows_present(sh->rows, sh->add->group))
            sh->err = add_from_row(sh->r, sh->rows, sh->add, sh->w);
        else
            *(apr_int64_t *)apr_array_push(sh->others)
                = uc_pq_rows_number(sh->rows);
    }
}

static void share_init(rows_share_t *sh, uc_replay_t *r, uc_pq_rows_t *rows,
                       const add_columns_t *add)
{
    apr_pool_t *pool = uc_memory_pool_owned(r->arena->pool);

    memset(sh, 0, sizeof(*sh));
    sh->rows = rows;
    sh->add = add;
    sh->own = *r;
    sh->own.scratch = pool;
    sh->own.arena = &sh->arena;
    sh->arena.pool = pool;
    sh->own.partition_texts = apr_hash_make(pool);
    sh->own.files = &sh->slots;
    sh->r = &sh->own;
    sh->others = apr_array_make(pool, 4, sizeof(apr_int64_t));
    sh->w = uc_jw_make(pool, 1024);
}

/* The shares' files, moved together after the files already there. */
static void gather_files(uc_replay_t *r, rows_share_t *shares, int n)
{
    uc_delta_file_t *files = (uc_delta_file_t *)r->files->elts;
    apr_size_t at = (apr_size_t)r->files->nelts;
    int k;

    for (k = 0; k < n; k++) {
        if ((char *)(files + at) != shares[k].slots.elts)
            memmove(files + at, shares[k].slots.elts,
                    (apr_size_t)shares[k].slots.nelts
                    * sizeof(uc_delta_file_t));
        at += (apr_size_t)shares[k].slots.nelts;
        r->arena->bytes += shares[k].arena.bytes;
    }
    r->files->nelts = (int)at;
}

/* Reads the rows in `n` shares at once, the calling thread taking the
 * first. */
static uc_error_t *read_shared(uc_replay_t *r, uc_pq_rows_t *rows,
                               const add_columns_t *add,
                               rows_share_t *shares, int n)
{
    uc_pq_rows_t **parts = uc_pq_rows_split(rows, r->scratch, n);
    uc_delta_file_t *slots;
    int k;

    /* A share's rows with a path are the most files it can add. */
    reserve_files(r, uc_pq_rows_values(rows, add->path));
    slots = (uc_delta_file_t *)r->files->elts + r->files->nelts;
    for (k = 0; k < n; k++) {
        apr_size_t room = uc_pq_rows_present_count(parts[k], add->path);

        share_init(&shares[k], r, parts[k], add);
        shares[k].slots.pool = shares[k].own.scratch;
        shares[k].slots.elt_size = sizeof(uc_delta_file_t);
        shares[k].slots.nalloc = (int)room;
        shares[k].slots.elts = (char *)slots;
        slots += room;
    }
    uc_threads_run(r->scratch, shares, n, sizeof(*shares), read_share);
    for (k = 0; k < n; k++)
        if (shares[k].err)
            return uc_error_copy(r->scratch, shares[k].err);
    gather_files(r, shares, n);
    return NULL;
}

/* The rows of one row group: file actions straight into file entries
 * (by several threads when there are many), the other actions in row
 * order. */
static uc_error_t *read_rows(uc_replay_t *r, uc_pq_rows_t *rows,
                             const add_columns_t *add,
                             const uc_pq_node_t *const *others,
                             int num_others, uc_jw_t *w, const char *key)
{
    rows_share_t shares[UC_DELTA_MAX_DECODE_THREADS];
    int n = uc_delta_load_threads(), k, j;
    uc_error_t *err;

    if (n > 1 && add->group && uc_pq_rows_count(rows) >= SHARED_ROWS) {
        if ((err = read_shared(r, rows, add, shares, n)))
            return err;
        for (k = 0; k < n; k++)
            for (j = 0; j < shares[k].others->nelts; j++)
                if (uc_pq_rows_seek(rows, APR_ARRAY_IDX(shares[k].others, j,
                                                        apr_int64_t))
                    && (err = other_rows(r, rows, others, num_others, w,
                                         key)))
                    return err;
        return NULL;
    }
    if (add->group)
        reserve_files(r, uc_pq_rows_values(rows, add->path));
    while (uc_pq_rows_next(rows))
        if (add->group && uc_pq_rows_present(rows, add->group)) {
            if ((err = add_from_row(r, rows, add, w)))
                return err;
        }
        else if ((err = other_rows(r, rows, others, num_others, w, key)))
            return err;
    return NULL;
}

static uc_error_t *read_parquet(uc_replay_t *r, const char *key,
                                const char *data, apr_size_t len)
{
    uc_pq_file_t *pf;
    add_columns_t add;
    const uc_pq_node_t *nodes[32], *others[8];
    int num_nodes = 0, num_others = 0, rg, i;
    uc_jw_t *w = uc_jw_make(r->scratch, 1024);
    const uc_pq_node_t *kept[1];
    uc_pq_rows_options_t options = { r->arena->pool, kept, 1,
                                     uc_delta_load_threads() };
    uc_error_t *err;

    if ((err = uc_pq_open(r->scratch, key, data, len, &pf)))
        return err;
    find_add_columns(pf, &add);
    /* Paths stay in the pages they were decompressed into, which the
     * arena keeps; stats stay compressed (uc_delta_stats.c). */
    kept[0] = add.path;
    if (add.group) {
        const uc_pq_node_t *wanted[] = {
            add.path, add.partition_values, add.size, add.modification_time,
            add.stats_parsed, add.tags, add.dv, add.base_row_id,
            add.row_commit_version
        };
        if (!add.path)
            return uc_delta_corrupt(r->scratch, r->table, "%s has an add "
                                    "column without add.path", key);
        for (i = 0; i < (int)(sizeof(wanted) / sizeof(*wanted)); i++)
            if (wanted[i])
                nodes[num_nodes++] = wanted[i];
    }
    for (i = 0; other_actions[i]; i++) {
        const uc_pq_node_t *group = uc_pq_find(pf, other_actions[i]);

        if (group && group->kind == UC_PQ_STRUCT) {
            nodes[num_nodes++] = group;
            others[num_others++] = group;
        }
    }
    for (rg = 0; rg < pf->num_row_groups; rg++) {
        apr_pool_t *columns;
        uc_pq_rows_t *rows;

        add.stats_source = NULL;
        if (add.stats && (err = uc_replay_stats_source(r, pf, rg, add.stats,
                                                       &add.stats_source)))
            return err;
        apr_pool_create(&columns, r->scratch);
        if ((err = uc_pq_rows_open_ex(pf, columns, rg, nodes, num_nodes,
                                      &options, &rows)))
            return err;
        r->arena->bytes += uc_pq_rows_kept_bytes(rows);
        if ((err = read_rows(r, rows, &add, others, num_others, w, key)))
            return err;
        apr_pool_destroy(columns);
    }
    return NULL;
}

uc_error_t *uc_delta_parquet_error(uc_error_t *err)
{
    if (err && err->kind == UC_E_MALFORMED_PARQUET)
        uc_error_recast(err, UC_E_MALFORMED_DELTA_LOG);
    return err;
}

static int ends_with(const char *s, const char *suffix)
{
    apr_size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static uc_error_t *read_part(uc_replay_t *r, const char *key)
{
    const char *data;
    char *text;
    apr_size_t len;
    apr_array_header_t *actions;
    uc_error_t *err;
    int i;

    if (ends_with(key, ".parquet")) {
        err = uc_objstore_map(r->table->store, r->scratch, key, &data, &len);
        if (!err)
            return uc_delta_parquet_error(read_parquet(r, key, data, len));
    }
    else if (!(err = uc_objstore_read(r->table->store, r->scratch, key, 0,
                                      MAX_CHECKPOINT_BYTES, &text, &len))) {
        if ((err = uc_delta_parse_lines(r->table, r->scratch, key, text, len,
                                        &actions)))
            return err;
        for (i = 0; i < actions->nelts; i++)
            if ((err = uc_replay_action(r, APR_ARRAY_IDX(actions, i,
                                                         json_t *))))
                return err;
        return NULL;
    }
    if (uc_error_is_missing(err))
        return uc_delta_corrupt(r->scratch, r->table, "checkpoint file %s "
                                "is missing", key);
    return err;
}

/* Sidecars live in _delta_log/_sidecars; a manifest may name them by file
 * name (the norm) or by a full URI ending in it. */
static const char *sidecar_key(apr_pool_t *pool, const char *path)
{
    const char *name = strrchr(path, '/');

    return apr_pstrcat(pool, UC_DELTA_SIDECAR_DIR, name ? name + 1 : path,
                       NULL);
}

uc_error_t *uc_checkpoint_read(uc_replay_t *r, const uc_log_checkpoint_t *cp)
{
    uc_error_t *err;
    int i;

    r->in_base = 1;
    for (i = 0; i < cp->num_parts; i++)
        if ((err = read_part(r, apr_pstrcat(r->scratch, UC_DELTA_LOG_DIR,
                                            cp->names[i], NULL))))
            return err;
    for (i = 0; i < r->sidecars->nelts; i++) {
        const char *path = APR_ARRAY_IDX(r->sidecars, i, const char *);

        if (strstr(path, "..") || *path == '\0')
            return uc_delta_corrupt(r->scratch, r->table, "a sidecar path "
                                    "'%s' is not allowed", path);
        if ((err = read_part(r, sidecar_key(r->scratch, path))))
            return err;
    }
    return NULL;
}
