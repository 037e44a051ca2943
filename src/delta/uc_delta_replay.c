/* SPDX-License-Identifier: Apache-2.0 */
/* Action reconciliation (PROTOCOL.md "Action Reconciliation"), replayed
 * newest first so that each key is decided by the first action seen. */
#include "uc_delta_replay.h"

#include <stdlib.h>
#include <string.h>
#include "../core/uc_refcount.h"
#include <apr_strings.h>

#include "../core/uc_json.h"
#include "../core/uc_memory.h"

uc_arena_t *uc_arena_create(void)
{
    apr_pool_t *pool = uc_memory_pool_create();
    uc_arena_t *arena = apr_pcalloc(pool, sizeof(*arena));

    arena->pool = pool;
    arena->refs = 1;
    return arena;
}

void uc_arena_retain(uc_arena_t *arena)
{
    uc_ref_retain(&arena->refs);
}

void uc_arena_release(uc_arena_t *arena)
{
    if (arena && uc_ref_release(&arena->refs))
        apr_pool_destroy(arena->pool);
}

char *uc_arena_strndup(uc_arena_t *arena, const char *s, apr_size_t len)
{
    char *copy = apr_palloc(arena->pool, len + 1);

    memcpy(copy, s, len);
    copy[len] = '\0';
    arena->bytes += (len + 8) & ~(apr_size_t)7;
    return copy;
}

/* A multiply-xorshift hash over 8-byte words, in two lanes so that the
 * multiplications of one do not wait for the other's: paths are long, and
 * every base file is hashed when commits after the base removed files. */
static apr_uint64_t mix(apr_uint64_t h, apr_uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

static apr_uint64_t hash_bytes(apr_uint64_t h, const char *s, apr_size_t n)
{
    apr_uint64_t other = h ^ 0xc2b2ae3d27d4eb4fULL, w, v;
    apr_size_t len = n;

    while (n >= 16) {
        memcpy(&w, s, 8);
        memcpy(&v, s + 8, 8);
        h = mix(h, w);
        other = mix(other, v);
        s += 16;
        n -= 16;
    }
    if (n >= 8) {
        memcpy(&w, s, 8);
        h = mix(h, w);
        s += 8;
        n -= 8;
    }
    w = 0;
    memcpy(&w, s, n);
    return mix(mix(h, w ^ ((apr_uint64_t)len << 56)), other);
}

apr_uint64_t uc_delta_key_hash(const char *path, const char *dv_id)
{
    apr_uint64_t h = hash_bytes(0x2545f4914f6cdd1dULL, path, strlen(path));

    if (dv_id)
        h = hash_bytes(h ^ 0xff51afd7ed558ccdULL, dv_id, strlen(dv_id));
    return h ? h : 1;
}

static int same_key(const uc_seen_t *s, apr_uint64_t hash, const char *path,
                    const char *dv_id)
{
    return s->hash == hash && strcmp(s->path, path) == 0
           && (s->dv_id == dv_id
               || (s->dv_id && dv_id && strcmp(s->dv_id, dv_id) == 0));
}

static int seen_find(const uc_replay_t *r, apr_uint64_t hash,
                     const char *path, const char *dv_id)
{
    apr_size_t i;

    if (r->seen_count == 0)
        return 0;
    for (i = hash & (r->seen_cap - 1); r->seen[i].hash;
         i = (i + 1) & (r->seen_cap - 1))
        if (same_key(&r->seen[i], hash, path, dv_id))
            return 1;
    return 0;
}

static void seen_insert(uc_replay_t *r, apr_uint64_t hash, const char *path,
                        const char *dv_id)
{
    apr_size_t i;

    if (2 * (r->seen_count + 1) > r->seen_cap) {
        apr_size_t old_cap = r->seen_cap, j;
        uc_seen_t *old = r->seen;

        r->seen_cap = old_cap ? old_cap * 2 : 64;
        r->seen = apr_pcalloc(r->scratch, sizeof(uc_seen_t) * r->seen_cap);
        for (j = 0; j < old_cap; j++)
            if (old[j].hash) {
                for (i = old[j].hash & (r->seen_cap - 1); r->seen[i].hash;
                     i = (i + 1) & (r->seen_cap - 1))
                    ;
                r->seen[i] = old[j];
            }
    }
    for (i = hash & (r->seen_cap - 1); r->seen[i].hash;
         i = (i + 1) & (r->seen_cap - 1))
        ;
    r->seen[i].hash = hash;
    r->seen[i].path = path;
    r->seen[i].dv_id = dv_id;
    r->seen_count++;
}

const char *uc_replay_partition_text(uc_replay_t *r, const char *text,
                                     apr_size_t len)
{
    const char *interned;

    if (len == 2 && text[0] == '{' && text[1] == '}')
        return "{}";
    interned = apr_hash_get(r->partition_texts, text, (apr_ssize_t)len);
    if (!interned) {
        interned = uc_arena_strndup(r->arena, text, len);
        apr_hash_set(r->partition_texts, interned, (apr_ssize_t)len,
                     interned);
    }
    return interned;
}

const uc_delta_file_extras_t *uc_replay_extras(uc_replay_t *r,
                                               const uc_delta_file_extras_t *x)
{
    uc_delta_file_extras_t *copy;

    if (!x->tags && !x->deletion_vector && x->base_row_id == UC_DELTA_NONE
        && x->default_row_commit_version == UC_DELTA_NONE)
        return NULL;
    copy = apr_palloc(r->arena->pool, sizeof(*copy));
    r->arena->bytes += sizeof(*copy);
    *copy = *x;
    return copy;
}

/* A base file is hashed only when newer commits left keys to check it
 * against: a snapshot at its checkpoint's version hashes nothing. */
void uc_replay_base_file(uc_replay_t *r, const uc_delta_file_t *file)
{
    const char *dv_id = uc_delta_file_dv_id(file);

    if (r->seen_count == 0
        || !seen_find(r, uc_delta_key_hash(file->path, dv_id), file->path,
                      dv_id))
        *(uc_delta_file_t *)apr_array_push(r->files) = *file;
}

/* storageType + pathOrInlineDv [+ "@" offset] (PROTOCOL.md). */
static const char *dv_id_of(apr_pool_t *pool, json_t *dv)
{
    json_t *type = json_object_get(dv, "storageType");
    json_t *where = json_object_get(dv, "pathOrInlineDv");
    json_t *offset = json_object_get(dv, "offset");

    if (!json_is_string(type) || !json_is_string(where))
        return NULL;
    if (json_is_integer(offset))
        return apr_psprintf(pool, "%s%s@%" APR_INT64_T_FMT,
                            json_string_value(type), json_string_value(where),
                            (apr_int64_t)json_integer_value(offset));
    return apr_pstrcat(pool, json_string_value(type),
                       json_string_value(where), NULL);
}

static const char *dump_in(uc_arena_t *arena, json_t *value)
{
    const char *text = uc_json_dump(arena->pool, value);

    arena->bytes += strlen(text) + 1;
    return text;
}

static apr_int64_t optional_int(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    return json_is_integer(v) ? (apr_int64_t)json_integer_value(v)
                              : UC_DELTA_NONE;
}

static uc_error_t *file_action(uc_replay_t *r, json_t *action, int is_add)
{
    json_t *path = json_object_get(action, "path");
    json_t *dv = json_object_get(action, "deletionVector");
    const char *dv_id = NULL, *key_path;
    apr_uint64_t hash;
    uc_delta_file_t *f;
    uc_delta_file_extras_t x = { NULL, NULL, NULL, UC_DELTA_NONE,
                                 UC_DELTA_NONE };
    json_t *v;

    if (!json_is_string(path) || json_string_length(path) == 0)
        return uc_delta_corrupt(r->scratch, r->table, "an %s action has no "
                                "path", is_add ? "add" : "remove");
    if (json_is_object(dv) && !(dv_id = dv_id_of(r->scratch, dv)))
        return uc_delta_corrupt(r->scratch, r->table, "a deletion vector of "
                                "'%s' has no storageType or pathOrInlineDv",
                                json_string_value(path));
    key_path = json_string_value(path);
    hash = uc_delta_key_hash(key_path, dv_id);
    if (seen_find(r, hash, key_path, dv_id))
        return NULL;
    if (!is_add) {
        seen_insert(r, hash, apr_pstrdup(r->scratch, key_path), dv_id);
        return NULL;
    }
    f = apr_array_push(r->files);
    memset(f, 0, sizeof(*f));
    f->path = uc_arena_strndup(r->arena, key_path, json_string_length(path));
    x.dv_id = dv_id ? uc_arena_strndup(r->arena, dv_id, strlen(dv_id)) : NULL;
    if (!r->in_base)
        seen_insert(r, hash, f->path, x.dv_id);
    v = json_object_get(action, "partitionValues");
    if (json_is_object(v) && json_object_size(v) > 0) {
        const char *text = uc_json_dump(r->scratch, v);

        f->partition_values = uc_replay_partition_text(r, text, strlen(text));
    }
    else
        f->partition_values = "{}";
    v = json_object_get(action, "stats");
    if (json_is_string(v))
        f->stats = uc_arena_strndup(r->arena, json_string_value(v),
                                    json_string_length(v));
    v = json_object_get(action, "tags");
    if (json_is_object(v))
        x.tags = dump_in(r->arena, v);
    if (json_is_object(dv))
        x.deletion_vector = dump_in(r->arena, dv);
    f->size = optional_int(action, "size");
    if (f->size == UC_DELTA_NONE)
        f->size = 0;
    f->modification_time = optional_int(action, "modificationTime");
    if (f->modification_time == UC_DELTA_NONE)
        f->modification_time = 0;
    x.base_row_id = optional_int(action, "baseRowId");
    x.default_row_commit_version = optional_int(action,
                                                "defaultRowCommitVersion");
    f->extras = uc_replay_extras(r, &x);
    return NULL;
}

static void app_action(uc_replay_t *r, json_t *txn)
{
    json_t *app = json_object_get(txn, "appId");
    json_t *version = json_object_get(txn, "version");
    apr_int64_t *v;

    if (!json_is_string(app) || !json_is_integer(version)
        || apr_hash_get(r->apps, json_string_value(app), APR_HASH_KEY_STRING))
        return;
    v = apr_palloc(r->scratch, sizeof(*v));
    *v = json_integer_value(version);
    apr_hash_set(r->apps, apr_pstrdup(r->scratch, json_string_value(app)),
                 APR_HASH_KEY_STRING, v);
}

static void domain_action(uc_replay_t *r, json_t *dm)
{
    json_t *domain = json_object_get(dm, "domain");
    json_t *config = json_object_get(dm, "configuration");
    json_t *removed = json_object_get(dm, "removed");

    if (!json_is_string(domain)
        || apr_hash_get(r->domains, json_string_value(domain),
                        APR_HASH_KEY_STRING))
        return;
    apr_hash_set(r->domains,
                 apr_pstrdup(r->scratch, json_string_value(domain)),
                 APR_HASH_KEY_STRING,
                 json_is_true(removed) || !json_is_string(config)
                 ? "" : apr_pstrdup(r->scratch, json_string_value(config)));
}

void uc_replay_commit_info(uc_replay_t *r, json_t *action)
{
    json_t *ict = json_object_get(json_object_get(action, "commitInfo"),
                                  "inCommitTimestamp");

    if (json_is_integer(ict)) {
        r->ict = json_integer_value(ict);
        r->have_ict = 1;
    }
}

uc_error_t *uc_replay_action(uc_replay_t *r, json_t *action)
{
    const char *kind;
    json_t *body;

    /* An action line has one member; unknown ones are ignored. */
    json_object_foreach(action, kind, body) {
        if (!json_is_object(body))
            continue;
        if (strcmp(kind, "add") == 0)
            return file_action(r, body, 1);
        if (strcmp(kind, "remove") == 0)
            return r->in_base ? NULL : file_action(r, body, 0);
        if (strcmp(kind, "metaData") == 0) {
            if (!r->metadata)
                r->metadata = uc_json_own(r->scratch, json_incref(body));
        }
        else if (strcmp(kind, "protocol") == 0) {
            if (!r->protocol)
                r->protocol = uc_json_own(r->scratch, json_incref(body));
        }
        else if (strcmp(kind, "txn") == 0)
            app_action(r, body);
        else if (strcmp(kind, "domainMetadata") == 0)
            domain_action(r, body);
        else if (strcmp(kind, "sidecar") == 0 && r->in_base) {
            json_t *path = json_object_get(body, "path");

            if (json_is_string(path))
                APR_ARRAY_PUSH(r->sidecars, const char *)
                    = apr_pstrdup(r->scratch, json_string_value(path));
        }
    }
    return NULL;
}
