/* SPDX-License-Identifier: Apache-2.0 */
/* Snapshots: built cold from the newest usable checkpoint and the commits
 * after it, or advanced from a previous snapshot by the commits after that
 * one. A snapshot owns its file array; the files' strings live in arenas it
 * shares with the snapshots it was advanced from or to. */
#include "uc_delta_replay.h"

#include <stdlib.h>
#include <string.h>
#include "../core/uc_refcount.h"
#include <apr_strings.h>

#include "../core/uc_digest.h"
#include "../core/uc_json.h"
#include "../core/uc_memory.h"

/* Arenas a snapshot may collect by advancing before its strings are
 * copied into one again (the removed files' strings are dropped then). */
#define MAX_ARENAS 8

/* Files whose path digests are computed together (16 KiB of them). */
#define MD5_BLOCK 1024

typedef struct snapshot_impl {
    uc_delta_snapshot_t pub;        /* first: the public view */
    apr_pool_t *pool;
    volatile apr_uint32_t refs;
    uc_arena_t **arenas;
    int num_arenas;
    /* Block b holds the MD5 of the paths of files b * MD5_BLOCK on, once
     * a reader asked (malloc'd, published atomically). */
    unsigned char **path_md5;
    /* The files by partition, once a reader asked (one malloc'd block,
     * published atomically). */
    uc_delta_partitions_t *partitions;
} snapshot_impl_t;

static apr_size_t md5_blocks(const snapshot_impl_t *s)
{
    return (s->pub.num_files + MD5_BLOCK - 1) / MD5_BLOCK;
}

static void destroy(snapshot_impl_t *s)
{
    apr_size_t b;
    int i;

    for (b = 0; s->path_md5 && b < md5_blocks(s); b++)
        free(s->path_md5[b]);
    free(s->partitions);
    for (i = 0; i < s->num_arenas; i++)
        uc_arena_release(s->arenas[i]);
    apr_pool_destroy(s->pool);
}

/* The groups of `s`'s files in one block: the groups, then the file
 * indexes they point into. */
static uc_delta_partitions_t *group_files(const uc_delta_snapshot_t *s)
{
    apr_pool_t *scratch;
    apr_hash_t *index_of;
    apr_size_t i, n = 0, *count;
    uc_delta_partitions_t *p = NULL;
    uc_delta_partition_group_t *g;
    apr_uint32_t *files;

    if (s->num_files > APR_UINT32_MAX ||
        apr_pool_create_unmanaged_ex(&scratch, NULL, NULL) != APR_SUCCESS)
        return NULL;
    /* The texts are interned: equal ones are the same pointer. */
    index_of = apr_hash_make(scratch);
    count = apr_pcalloc(scratch, sizeof(apr_size_t) * (s->num_files + 1));
    for (i = 0; i < s->num_files; i++) {
        const char *v = s->files[i].partition_values;
        apr_size_t *k = apr_hash_get(index_of, &v, sizeof(v));

        if (!k) {
            k = apr_palloc(scratch, sizeof(*k));
            *k = n++;
            apr_hash_set(index_of, apr_pmemdup(scratch, &v, sizeof(v)),
                         sizeof(v), k);
        }
        count[*k]++;
    }
    p = malloc(sizeof(*p) + n * sizeof(*g) + s->num_files * sizeof(*files));
    if (p) {
        g = (uc_delta_partition_group_t *)(p + 1);
        files = (apr_uint32_t *)(g + n);
        p->num_groups = n;
        p->groups = g;
        for (i = 0; i < n; i++) {
            g[i].count = 0;
            g[i].files = files;
            files += count[i];
        }
        for (i = 0; i < s->num_files; i++) {
            const char *v = s->files[i].partition_values;
            uc_delta_partition_group_t *into =
                &g[*(apr_size_t *)apr_hash_get(index_of, &v, sizeof(v))];

            into->values = v;
            ((apr_uint32_t *)into->files)[into->count++] = (apr_uint32_t)i;
        }
    }
    apr_pool_destroy(scratch);
    return p;
}

const uc_delta_partitions_t *uc_delta_snapshot_partitions(
    const uc_delta_snapshot_t *snapshot)
{
    snapshot_impl_t *s = (snapshot_impl_t *)snapshot;
    uc_delta_partitions_t *p = __atomic_load_n(&s->partitions,
                                               __ATOMIC_ACQUIRE);
    uc_delta_partitions_t *none = NULL;

    if (p || !(p = group_files(snapshot)))
        return p;
    /* Groups another reader published first are the ones kept. */
    if (!__atomic_compare_exchange_n(&s->partitions, &none, p, 0,
                                     __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
        free(p);
        p = none;
    }
    return p;
}

/* The digests are a cache of what the files are: a snapshot that holds
 * them is still the same snapshot. */
const unsigned char *uc_delta_file_path_md5(
    const uc_delta_snapshot_t *snapshot, apr_size_t i)
{
    snapshot_impl_t *s = (snapshot_impl_t *)snapshot;
    apr_size_t b = i / MD5_BLOCK, first = b * MD5_BLOCK, k, n;
    unsigned char *block = __atomic_load_n(&s->path_md5[b], __ATOMIC_ACQUIRE);
    unsigned char *none = NULL;

    if (block)
        return block + (i - first) * UC_MD5_BYTES;
    n = snapshot->num_files - first < MD5_BLOCK ? snapshot->num_files - first
                                                : MD5_BLOCK;
    if (!(block = malloc(n * UC_MD5_BYTES)))
        return NULL;
    for (k = 0; k < n; k++) {
        const char *path = snapshot->files[first + k].path;

        uc_digest_md5(path, strlen(path), block + k * UC_MD5_BYTES);
    }
    /* A block another reader published first is the one kept. */
    if (!__atomic_compare_exchange_n(&s->path_md5[b], &none, block, 0,
                                     __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
        free(block);
        block = none;
    }
    return block + (i - first) * UC_MD5_BYTES;
}

void uc_delta_snapshot_retain(uc_delta_snapshot_t *snapshot)
{
    uc_ref_retain(&((snapshot_impl_t *)snapshot)->refs);
}

void uc_delta_snapshot_release(uc_delta_snapshot_t *snapshot)
{
    snapshot_impl_t *s = (snapshot_impl_t *)snapshot;

    if (s && uc_ref_release(&s->refs))
        destroy(s);
}


/* A replay: its scratch memory, the arena its new strings go to, and the
 * pool of the snapshot it will make (where a large file array is made in
 * place rather than copied at the end). */
static uc_replay_t *replay_make(uc_delta_table_t *table, apr_pool_t *scratch,
                                uc_arena_t *arena, apr_size_t expected_files)
{
    uc_replay_t *r = apr_pcalloc(scratch, sizeof(*r));

    r->table = table;
    r->scratch = scratch;
    r->arena = arena;
    r->result = uc_memory_pool_create();
    r->files = apr_array_make(expected_files ? r->result : scratch,
                              (int)(expected_files + 16),
                              sizeof(uc_delta_file_t));
    r->apps = apr_hash_make(scratch);
    r->domains = apr_hash_make(scratch);
    r->partition_texts = apr_hash_make(scratch);
    r->sidecars = apr_array_make(scratch, 4, sizeof(const char *));
    r->sources = apr_array_make(scratch, 2, sizeof(uc_arena_t *));
    return r;
}

/* Commits newest..oldest (inclusive), newest first. */
static uc_error_t *replay_commits(uc_replay_t *r, apr_int64_t newest,
                                  apr_int64_t oldest)
{
    apr_int64_t v;
    uc_error_t *err;
    int i;

    for (v = newest; v >= oldest; v--) {
        apr_array_header_t *actions;
        apr_pool_t *commit_pool;

        apr_pool_create(&commit_pool, r->scratch);
        if ((err = uc_delta_read_commit(r->table, commit_pool, v, &actions)))
            return err;
        if (v == newest && actions->nelts > 0)
            uc_replay_commit_info(r, APR_ARRAY_IDX(actions, 0, json_t *));
        /* Last action first: within a commit too, the later action on a
         * key decides (a writer that adds and removes one path in a
         * commit means the remove). */
        for (i = actions->nelts - 1; i >= 0; i--)
            if ((err = uc_replay_action(r, APR_ARRAY_IDX(actions, i,
                                                         json_t *))))
                return err;
        apr_pool_destroy(commit_pool);
    }
    return NULL;
}

static void *copy_version(apr_pool_t *pool, const void *value)
{
    apr_int64_t *v = apr_palloc(pool, sizeof(*v));

    *v = *(const apr_int64_t *)value;
    return v;
}

/* Removed domains ("") are left out. */
static void *copy_configuration(apr_pool_t *pool, const void *value)
{
    return *(const char *)value ? apr_pstrdup(pool, value) : NULL;
}

/* A string-keyed hash of the replay's scratch, copied into the snapshot. */
static apr_hash_t *copy_hash(apr_pool_t *pool, apr_hash_t *from,
                             void *(*copy)(apr_pool_t *, const void *))
{
    apr_hash_t *out = apr_hash_make(pool);
    apr_hash_index_t *hi;

    for (hi = apr_hash_first(NULL, from); hi; hi = apr_hash_next(hi)) {
        void *value = copy(pool, apr_hash_this_val(hi));

        if (value)
            apr_hash_set(out, apr_pstrdup(pool, apr_hash_this_key(hi)),
                         APR_HASH_KEY_STRING, value);
    }
    return out;
}

/* The snapshot a finished replay describes; it takes the replay's result
 * pool, or destroys it when it fails. */
static uc_error_t *finish(uc_replay_t *r, apr_pool_t *err_pool,
                          apr_int64_t version, apr_int64_t checkpoint_version,
                          uc_arena_t **inherited, int num_inherited,
                          snapshot_impl_t **out)
{
    apr_pool_t *pool = r->result;
    snapshot_impl_t *s = apr_pcalloc(pool, sizeof(*s));
    uc_delta_file_t *files;
    apr_size_t n = (apr_size_t)r->files->nelts;
    uc_error_t *err;
    int i;

    s->pool = pool;
    s->refs = 1;
    if (!r->protocol || !r->metadata) {
        apr_pool_destroy(pool);
        return uc_delta_corrupt(err_pool, r->table, "no %s action is in the "
                                "log at version %" APR_INT64_T_FMT,
                                r->protocol ? "metaData" : "protocol",
                                version);
    }
    if ((err = uc_delta_read_features(pool, r->table, r->protocol,
                                      r->metadata, &s->pub.features))) {
        uc_error_t *copy = uc_error_copy(err_pool, err);
        apr_pool_destroy(pool);
        return copy;
    }
    if (r->files->pool == pool)
        files = (uc_delta_file_t *)r->files->elts;
    else {
        files = apr_palloc(pool, sizeof(uc_delta_file_t) * (n ? n : 1));
        memcpy(files, r->files->elts, sizeof(uc_delta_file_t) * n);
    }
    s->arenas = apr_palloc(pool, sizeof(uc_arena_t *)
                           * (apr_size_t)(num_inherited + 1
                                          + r->sources->nelts));
    for (i = 0; i < num_inherited; i++) {
        uc_arena_retain(inherited[i]);
        s->arenas[s->num_arenas++] = inherited[i];
    }
    s->arenas[s->num_arenas++] = r->arena;
    for (i = 0; i < r->sources->nelts; i++)
        s->arenas[s->num_arenas++] = APR_ARRAY_IDX(r->sources, i,
                                                   uc_arena_t *);
    s->pub.location = apr_pstrdup(pool, r->table->location);
    s->pub.version = version;
    s->pub.checkpoint_version = checkpoint_version;
    s->pub.protocol = uc_json_dump(pool, r->protocol);
    s->pub.metadata = uc_json_dump(pool, r->metadata);
    s->pub.files = files;
    s->pub.num_files = n;
    s->path_md5 = apr_pcalloc(pool, sizeof(unsigned char *)
                                    * (md5_blocks(s) + 1));
    s->pub.app_versions = copy_hash(pool, r->apps, copy_version);
    s->pub.domains = copy_hash(pool, r->domains, copy_configuration);
    s->pub.bytes = (sizeof(uc_delta_file_t) + UC_MD5_BYTES
                    + sizeof(apr_uint32_t)) * n
                   + strlen(s->pub.metadata)
                   + strlen(s->pub.protocol) + 1024;
    for (i = 0; i < s->num_arenas; i++)
        s->pub.bytes += s->arenas[i]->bytes;
    *out = s;
    return NULL;
}

/* The commit timestamp of the snapshot's version. */
static uc_error_t *stamp(uc_delta_table_t *table, apr_pool_t *pool,
                         const uc_delta_log_t *log, uc_replay_t *r,
                         snapshot_impl_t *s, const uc_log_checkpoint_t *cp)
{
    const uc_delta_features_t *f = &s->pub.features;
    apr_int64_t v = s->pub.version;
    const uc_log_commit_t *commit = uc_delta_log_commit(log, v);

    if (f->in_commit_timestamps && v >= f->ict_enablement_version) {
        int found = 0;
        uc_error_t *err;

        if (r && r->have_ict) {
            s->pub.timestamp = r->ict;
            return NULL;
        }
        if (commit) {
            if ((err = uc_delta_read_ict(table, pool, v, &found,
                                         &s->pub.timestamp)))
                return err;
            if (found)
                return NULL;
        }
    }
    s->pub.timestamp = commit ? commit->timestamp : cp ? cp->mtime : 0;
    return NULL;
}

static int commits_present(const uc_delta_log_t *log, apr_int64_t from,
                           apr_int64_t to)
{
    apr_int64_t v;

    for (v = from; v <= to; v++)
        if (!uc_delta_log_commit(log, v))
            return 0;
    return 1;
}

/* The newest commit at or below `version` the log lacks breaks every
 * way to it. */
static uc_error_t *not_reconstructable(apr_pool_t *pool,
                                       const uc_delta_table_t *table,
                                       const uc_delta_log_t *log,
                                       apr_int64_t version)
{
    apr_int64_t missing = version;

    while (missing > 0 && uc_delta_log_commit(log, missing))
        missing--;
    return uc_delta_table_error(pool, table, UC_E_INVALID, "Version %"
                                APR_INT64_T_FMT " of the table cannot be "
                                "reconstructed: commit %" APR_INT64_T_FMT
                                " is not in its log.", version, missing);
}

/* Ends a build: the error (if any) is copied out of the scratch pool,
 * which goes. */
static uc_error_t *settle(apr_pool_t *pool, apr_pool_t *scratch,
                          uc_error_t *err)
{
    if (err)
        err = uc_error_copy(pool, err);
    apr_pool_destroy(scratch);
    return err;
}

/* One attempt: commits after `cp` (NULL = from version 0) and `cp`. */
static uc_error_t *build_from(uc_delta_table_t *table, apr_pool_t *pool,
                              const uc_delta_log_t *log, apr_int64_t target,
                              const uc_log_checkpoint_t *cp,
                              snapshot_impl_t **out)
{
    apr_pool_t *scratch = uc_memory_pool_create();
    uc_arena_t *arena = uc_arena_create();
    uc_replay_t *r = replay_make(table, scratch, arena, 0);
    apr_int64_t oldest = cp ? cp->version + 1 : 0;
    uc_error_t *err;

    err = replay_commits(r, target, oldest);
    if (!err && cp)
        err = uc_checkpoint_read(r, cp);
    if (!err) {
        if ((err = finish(r, pool, target, cp ? cp->version : -1, NULL, 0,
                          out)))
            uc_replay_release_arenas(r);
    }
    else {
        apr_pool_destroy(r->result);
        uc_replay_release_arenas(r);
    }
    if (!err && (err = stamp(table, pool, log, r, *out, cp)))
        uc_delta_snapshot_release(&(*out)->pub);
    return settle(pool, scratch, err);
}

static uc_error_t *check_version(apr_pool_t *pool,
                                 const uc_delta_table_t *table,
                                 const uc_delta_log_t *log,
                                 apr_int64_t version)
{
    if (version < 0)
        return uc_error_invalid(pool, "A table version cannot be negative.");
    if (version > log->latest)
        return uc_delta_table_error(pool, table, UC_E_INVALID, "Version %"
                                    APR_INT64_T_FMT " of the table does not "
                                    "exist: the latest version is %"
                                    APR_INT64_T_FMT ".", version,
                                    log->latest);
    return NULL;
}

uc_error_t *uc_delta_snapshot(uc_delta_table_t *table, apr_int64_t version,
                              uc_delta_snapshot_t **out)
{
    apr_pool_t *pool = table->pool;
    const uc_delta_log_t *log;
    uc_delta_log_t *listed;
    apr_int64_t target;
    snapshot_impl_t *s;
    uc_error_t *err, *first_err = NULL;
    int i;

    if ((err = uc_delta_list(table, pool, version == UC_DELTA_LATEST,
                             &listed)))
        return err;
    log = listed;
    target = version == UC_DELTA_LATEST ? log->latest : version;
    if ((err = check_version(pool, table, log, target)))
        return err;
    /* The newest checkpoint at or below the target whose commits after it
     * are all there; an unreadable one gives way to the next older. */
    for (i = log->checkpoints->nelts - 1; i >= 0; i--) {
        const uc_log_checkpoint_t *cp
            = &APR_ARRAY_IDX(log->checkpoints, i, uc_log_checkpoint_t);

        if (cp->version > target)
            continue;
        if (!commits_present(log, cp->version + 1, target))
            break;
        err = build_from(table, pool, log, target, cp, &s);
        if (!err) {
            *out = &s->pub;
            return NULL;
        }
        if (err->kind != UC_E_MALFORMED_DELTA_LOG)
            return err;
        if (!first_err)
            first_err = err;
    }
    if (log->complete && commits_present(log, 0, target)) {
        if ((err = build_from(table, pool, log, target, NULL, &s)))
            return first_err ? first_err : err;
        *out = &s->pub;
        return NULL;
    }
    if (first_err)
        return first_err;
    if (!log->complete) {
        /* The hint led to a listing that cannot serve: list everything. */
        table->full_log = NULL;
        if ((err = uc_delta_list(table, pool, 0, &listed)))
            return err;
        if (listed->complete)
            return uc_delta_snapshot(table, target, out);
    }
    return not_reconstructable(pool, table, log, target);
}

static const char *copy_text(uc_arena_t *arena, const char *text)
{
    return text ? uc_arena_strndup(arena, text, strlen(text)) : NULL;
}

/* Copies the live files' strings into one arena, leaving the strings of
 * removed files behind; the compressed stats they use are held as they
 * are. */
static void compact(uc_replay_t *r)
{
    uc_delta_file_t *f = (uc_delta_file_t *)r->files->elts;
    int i;

    for (i = 0; i < r->files->nelts; i++) {
        f[i].path = copy_text(r->arena, f[i].path);
        if (strcmp(f[i].partition_values, "{}") != 0)
            f[i].partition_values = uc_replay_partition_text(
                r, f[i].partition_values, strlen(f[i].partition_values));
        f[i].stats = copy_text(r->arena, f[i].stats);
        if (f[i].stats_source)
            uc_replay_keep_source(r, f[i].stats_source);
        if (f[i].extras) {
            uc_delta_file_extras_t x = *f[i].extras;

            x.tags = copy_text(r->arena, x.tags);
            x.deletion_vector = copy_text(r->arena, x.deletion_vector);
            x.dv_id = copy_text(r->arena, x.dv_id);
            f[i].extras = uc_replay_extras(r, &x);
        }
    }
}

uc_error_t *uc_delta_snapshot_advance(uc_delta_table_t *table,
                                      const uc_delta_snapshot_t *base,
                                      const uc_delta_log_t *log,
                                      apr_int64_t target,
                                      uc_delta_snapshot_t **out)
{
    const snapshot_impl_t *b = (const snapshot_impl_t *)base;
    apr_pool_t *scratch = uc_memory_pool_create();
    uc_arena_t *arena = uc_arena_create();
    uc_replay_t *r = replay_make(table, scratch, arena, base->num_files);
    apr_hash_index_t *hi;
    snapshot_impl_t *s;
    uc_error_t *err;
    apr_size_t i;
    int compacting = b->num_arenas >= MAX_ARENAS;

    err = replay_commits(r, target, base->version + 1);
    if (!err) {
        r->in_base = 1;
        for (i = 0; i < base->num_files; i++)
            uc_replay_base_file(r, &base->files[i]);
        if (!r->protocol)
            r->protocol = uc_json_own(scratch, json_loads(base->protocol, 0,
                                                          NULL));
        if (!r->metadata)
            r->metadata = uc_json_own(scratch, json_loads(base->metadata, 0,
                                                          NULL));
        for (hi = apr_hash_first(scratch, base->app_versions); hi;
             hi = apr_hash_next(hi))
            if (!apr_hash_get(r->apps, apr_hash_this_key(hi),
                              APR_HASH_KEY_STRING))
                apr_hash_set(r->apps, apr_hash_this_key(hi),
                             APR_HASH_KEY_STRING, apr_hash_this_val(hi));
        for (hi = apr_hash_first(scratch, base->domains); hi;
             hi = apr_hash_next(hi))
            if (!apr_hash_get(r->domains, apr_hash_this_key(hi),
                              APR_HASH_KEY_STRING))
                apr_hash_set(r->domains, apr_hash_this_key(hi),
                             APR_HASH_KEY_STRING, apr_hash_this_val(hi));
        if (compacting)
            compact(r);
        if ((err = finish(r, table->pool, target, base->checkpoint_version,
                          b->arenas, compacting ? 0 : b->num_arenas, &s)))
            uc_replay_release_arenas(r);
    }
    else {
        apr_pool_destroy(r->result);
        uc_replay_release_arenas(r);
    }
    if (!err && (err = stamp(table, table->pool, log, r, s, NULL)))
        uc_delta_snapshot_release(&s->pub);
    if (!err)
        *out = &s->pub;
    return settle(table->pool, scratch, err);
}
