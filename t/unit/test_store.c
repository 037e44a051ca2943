/* SPDX-License-Identifier: Apache-2.0 */
/* The store against a temporary SQLite file: migrations, connection
 * settings, securable rows, pagination, transactions and busy handling. */
#include "uc_test.h"

#include <apr_tables.h>
#include <apr_thread_proc.h>
#include <apr_time.h>

#include "../../src/core/uc_id.h"
#include "../../src/store/uc_store.h"
#include "../../src/store/uc_securables.h"
#include "../../src/store/uc_sharing_queries.h"
#include "../../src/store/uc_store_internal.h"

typedef struct fx {
    apr_pool_t *pool;
    uc_test_db_t *db;
    uc_test_conn_t *conns[8];
    int nconns;
    uc_test_conn_t *conn;         /* the first connection */
    apr_pool_t *call;             /* the pool of `store`, like r->pool */
    uc_store_t *store;            /* attached to it, when attached */
    apr_array_header_t *logs;     /* "<level> <cause> <message>" */
    uc_log_t log;
} fx_t;

static void collect_log(void *baton, uc_log_level_t level,
                        apr_status_t cause, const char *msg)
{
    fx_t *fx = baton;
    APR_ARRAY_PUSH(fx->logs, const char *) =
        apr_psprintf(fx->pool, "%d %d %s", (int)level, (int)cause, msg);
}

static int logs_containing(fx_t *fx, const char *needle)
{
    int i, n = 0;
    for (i = 0; i < fx->logs->nelts; i++)
        if (strstr(APR_ARRAY_IDX(fx->logs, i, const char *), needle))
            n++;
    return n;
}

static uc_test_conn_t *fx_connect(fx_t *fx)
{
    uc_test_conn_t *c = uc_test_db_connect(fx->db);
    assert_true(fx->nconns < 8);
    fx->conns[fx->nconns++] = c;
    return c;
}

static uc_error_t *fx_attach(fx_t *fx, uc_test_conn_t *c, apr_pool_t *pool,
                             const uc_migration_t *migrations,
                             uc_store_t **store)
{
    fx->log.write = collect_log;
    fx->log.baton = fx;
    return uc_store_attach(pool, fx->db->driver, c->handle, c->pool,
                           c->prepared, migrations, &fx->log, store);
}

static int setup(void **state)
{
    fx_t *fx = calloc(1, sizeof(*fx));

    apr_pool_create(&fx->pool, uc_test_global_pool);
    fx->logs = apr_array_make(fx->pool, 8, sizeof(const char *));
    fx->db = uc_test_db_create(fx->pool);
    *state = fx;
    return 0;
}

/* The first connection, attached with the embedded migrations. */
static int setup_attached(void **state)
{
    fx_t *fx;
    uc_error_t *err;

    setup(state);
    fx = *state;
    fx->conn = fx_connect(fx);
    apr_pool_create(&fx->call, fx->pool);
    err = fx_attach(fx, fx->conn, fx->call, NULL, &fx->store);
    if (err) {
        fprintf(stderr, "attach failed: %s\n", err->message);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    fx_t *fx = *state;
    int i;

    /* As in httpd, call pools go before the connections they used. */
    if (fx->call)
        apr_pool_destroy(fx->call);
    for (i = fx->nconns - 1; i >= 0; i--)
        uc_test_db_disconnect(fx->db, fx->conns[i]);
    uc_test_db_remove(fx->db);
    apr_pool_destroy(fx->pool);
    free(fx);
    return 0;
}

#define FX_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define FX_ATTACHED_TEST(f) \
    cmocka_unit_test_setup_teardown(f, setup_attached, teardown)

static int sql_int(fx_t *fx, uc_test_conn_t *c, const char *sql)
{
    return uc_test_sql_int(fx->db, c, fx->pool, sql);
}

static const char *sql_value(fx_t *fx, uc_test_conn_t *c, const char *sql)
{
    return uc_test_sql_value(fx->db, c, fx->pool, sql);
}

static uc_securable_t *new_sec(apr_pool_t *pool, const char *kind,
                               const char *parent_id, const char *name)
{
    uc_securable_t *s = apr_pcalloc(pool, sizeof(*s));

    s->id = uc_uuid4(pool);
    s->kind = kind;
    s->parent_id = parent_id;
    s->name = name;
    s->owner = "alice";
    s->created_at = "1000";
    s->created_by = "alice";
    s->updated_at = "1000";
    s->updated_by = "alice";
    return s;
}

static uc_securable_t *get(fx_t *fx, uc_store_t *store, const char *parent,
                           const char *kind, const char *name)
{
    uc_securable_t *out = (uc_securable_t *)&out;
    assert_ok(uc_securable_get(store, fx->pool, parent, kind, name,
                               UC_LOCK_SHARE, &out));
    assert_ptr_not_equal(out, (uc_securable_t *)&out);
    return out;
}

#define assert_same_str(a, b) do {                                         \
        const char *a_ = (a), *b_ = (b);                                   \
        if (a_ == NULL || b_ == NULL) {                                    \
            if (a_ != b_)                                                  \
                fail_msg("%s:%d: %s is %s, expected %s", __FILE__,         \
                         __LINE__, #a, a_ ? a_ : "NULL", b_ ? b_ : "NULL"); \
        }                                                                  \
        else if (strcmp(a_, b_) != 0)                                      \
            fail_msg("%s:%d: %s is '%s', expected '%s'", __FILE__,         \
                     __LINE__, #a, a_, b_);                                \
    } while (0)

static void assert_sec_equal(const uc_securable_t *got,
                             const uc_securable_t *want)
{
    assert_non_null(got);
    assert_same_str(got->id, want->id);
    assert_same_str(got->kind, want->kind);
    assert_same_str(got->parent_id, want->parent_id);
    assert_same_str(got->name, want->name);
    assert_same_str(got->comment, want->comment);
    assert_same_str(got->properties, want->properties ? want->properties
                                                      : "{}");
    assert_same_str(got->storage_root, want->storage_root);
    assert_same_str(got->storage_location, want->storage_location);
    assert_same_str(got->details, want->details ? want->details : "{}");
    assert_same_str(got->owner, want->owner);
    assert_same_str(got->created_at, want->created_at);
    assert_same_str(got->created_by, want->created_by);
    assert_same_str(got->updated_at, want->updated_at);
    assert_same_str(got->updated_by, want->updated_by);
}

/* --- attach and migrations -------------------------------------------- */

/* How many migrations the module embeds (the list ends with version 0). */
static int embedded(void)
{
    int n = 0;

    while (uc_sqlite_migrations[n].version)
        n++;
    return n;
}

/* The embedded list, the first `keep` of it, plus one more migration when
 * `sql` is given. */
static uc_migration_t *migrations_with(apr_pool_t *pool, int keep,
                                       const char *name, const char *sql)
{
    uc_migration_t *list = apr_pcalloc(pool, sizeof(*list) * (keep + 2));

    memcpy(list, uc_sqlite_migrations, sizeof(*list) * keep);
    if (sql) {
        list[keep].version = uc_sqlite_migrations[keep - 1].version + 1;
        list[keep].name = name;
        list[keep].sql = sql;
    }
    return list;
}

static void test_attach_migrates(void **state)
{
    fx_t *fx = *state;
    uc_test_conn_t *c = fx_connect(fx);
    uc_store_t *store = NULL;
    const char *id;
    int n = embedded(), i;

    assert_ok(fx_attach(fx, c, fx->pool, NULL, &store));
    assert_non_null(store);
    assert_int_equal(store->conn->dialect, UC_DIALECT_SQLITE);
    /* Numbered 1, 2, 3... without gaps, like the files in sql/. */
    assert_true(n >= 3);
    for (i = 0; i < n; i++)
        assert_int_equal(uc_sqlite_migrations[i].version, i + 1);
    assert_int_equal(store->conn->schema_version, n);
    assert_true(apr_hash_count(c->prepared) >= 1);

    assert_int_equal(sql_int(fx, c, "SELECT COUNT(*) FROM "
                             "unicat_schema_version"), n);
    assert_int_equal(sql_int(fx, c, "SELECT MAX(version) FROM "
                             "unicat_schema_version"), n);
    assert_string_equal(sql_value(fx, c, "SELECT name FROM "
                                  "unicat_schema_version WHERE version = 1"),
                        uc_sqlite_migrations[0].name);
    assert_string_equal(sql_value(fx, c, "SELECT name FROM "
                                  "unicat_schema_version WHERE version = 2"),
                        "0002_grants");
    assert_string_equal(sql_value(fx, c, "SELECT name FROM "
                                  "unicat_schema_version WHERE version = 3"),
                        "0003_schema_objects");
    assert_int_equal(sql_int(fx, c, "SELECT COUNT(*) FROM sqlite_master "
                             "WHERE type = 'table' AND name IN ('grants', "
                             "'authz_audit', 'staging_tables', "
                             "'model_versions')"), 4);
    assert_int_equal(sql_int(fx, c, "SELECT COUNT(*) FROM sqlite_master "
                             "WHERE type = 'table' AND name = 'securables'"),
                     1);
    assert_int_equal(sql_int(fx, c, "SELECT COUNT(*) FROM securables"), 1);
    assert_int_equal(sql_int(fx, c, "SELECT COUNT(*) FROM securables WHERE "
                             "kind = 'metastore' AND parent_id IS NULL"), 1);

    id = uc_store_metastore_id(store);
    if (!uc_test_is_uuid4(id))
        fail_msg("metastore id '%s' is not a UUID", id ? id : "(null)");
    assert_string_equal(id, sql_value(fx, c, "SELECT id FROM securables "
                                      "WHERE kind = 'metastore'"));
    assert_int_equal(logs_containing(fx, "applied schema migration"), n);
}

static void test_connection_settings(void **state)
{
    fx_t *fx = *state;
    uc_test_conn_t *c = fx->conn;

    assert_string_equal(sql_value(fx, c, "PRAGMA journal_mode"), "wal");
    assert_string_equal(sql_value(fx, c, "PRAGMA foreign_keys"), "1");
    /* NORMAL */
    assert_string_equal(sql_value(fx, c, "PRAGMA synchronous"), "1");
    /* WAL is stored in the file: a fresh, unattached connection sees it. */
    c = fx_connect(fx);
    assert_string_equal(sql_value(fx, c, "PRAGMA journal_mode"), "wal");
}

static void test_attach_again_is_noop(void **state)
{
    fx_t *fx = *state;
    int n = embedded();
    const uc_migration_t *broken = migrations_with(fx->pool, n, "broken",
                                                   "THIS IS NOT SQL;\n");
    uc_store_t *again = NULL;
    apr_pool_t *call;
    int logs = fx->logs->nelts;

    apr_pool_create(&call, fx->pool);
    /* Same connection, same hash: nothing is migrated, whatever the list. */
    assert_ok(fx_attach(fx, fx->conn, call, broken, &again));
    assert_non_null(again);
    assert_ptr_not_equal(again, fx->store);
    assert_ptr_equal(again->pool, call);
    assert_string_equal(uc_store_metastore_id(again),
                        uc_store_metastore_id(fx->store));
    assert_int_equal(again->conn->schema_version, n);
    assert_int_equal(fx->logs->nelts, logs);
    assert_int_equal(sql_int(fx, fx->conn, "SELECT COUNT(*) FROM "
                             "unicat_schema_version"), n);
    /* The per-connection state outlives the call pool of the first attach. */
    apr_pool_destroy(call);
    assert_ok(fx_attach(fx, fx->conn, fx->pool, NULL, &again));
    assert_string_equal(uc_store_metastore_id(again),
                        sql_value(fx, fx->conn, "SELECT id FROM securables "
                                  "WHERE kind = 'metastore'"));
    assert_ok(uc_securable_insert(again, new_sec(fx->pool, UC_KIND_CATALOG,
                                                 uc_store_metastore_id(again),
                                                 "works")));
    assert_non_null(get(fx, again, uc_store_metastore_id(again),
                        UC_KIND_CATALOG, "works"));
}

static void test_second_connection(void **state)
{
    fx_t *fx = *state;
    uc_test_conn_t *b = fx_connect(fx);
    uc_store_t *sb = NULL;
    int n = embedded();

    assert_ok(fx_attach(fx, b, fx->pool, NULL, &sb));
    assert_string_equal(uc_store_metastore_id(sb),
                        uc_store_metastore_id(fx->store));
    assert_int_equal(sb->conn->schema_version, n);
    assert_int_equal(logs_containing(fx, "applied schema migration"), n);
    assert_int_equal(sql_int(fx, b, "SELECT COUNT(*) FROM "
                             "unicat_schema_version"), n);
    assert_int_equal(sql_int(fx, b, "SELECT COUNT(*) FROM securables WHERE "
                             "kind = 'metastore'"), 1);
}

/* A connection that read the schema before another one migrated the
 * database holds a stale copy of it; its own attach still succeeds (as when
 * httpd's children open their connections while the first one migrates). */
static void test_attach_after_another_migrated(void **state)
{
    fx_t *fx = *state;
    uc_test_conn_t *a = fx_connect(fx), *b = fx_connect(fx);
    uc_store_t *sa = NULL, *sb = NULL;
    int n = embedded();

    assert_int_equal(sql_int(fx, b, "SELECT COUNT(*) FROM sqlite_master"), 0);
    assert_ok(fx_attach(fx, a, fx->pool, NULL, &sa));
    assert_ok(fx_attach(fx, b, fx->pool, NULL, &sb));
    assert_int_equal(sb->conn->schema_version, n);
    assert_string_equal(uc_store_metastore_id(sb), uc_store_metastore_id(sa));
    assert_int_equal(logs_containing(fx, "applied schema migration"), n);
}

/* 0005: principal names stored by earlier releases take the one spelling;
 * grants that then repeat one another are kept once. The rows are written
 * as those releases wrote them, then the migration's statements run again
 * (a store cannot attach to the older schema: its statements name newer
 * columns). */
static void test_principal_names_migrate(void **state)
{
    fx_t *fx = *state;
    const uc_migration_t *m = &uc_sqlite_migrations[4];
    uc_test_conn_t *a = fx->conn;
    char *script, *stmt, *end;
    const char *id = uc_uuid4(fx->pool);

    assert_string_equal(m->name, "0005_principal_names");
    uc_test_sql_exec(fx->db, a, apr_psprintf(fx->pool,
        "INSERT INTO securables (id, kind, parent_id, name, owner, "
        "created_at, updated_at) VALUES ('%s', 'catalog', '%s', 'old', "
        "' Alice ', 1, 1)", id, uc_store_metastore_id(fx->store)));
    uc_test_sql_exec(fx->db, a, apr_psprintf(fx->pool,
        "INSERT INTO grants VALUES ('%s', 'Bob', 'SELECT', 'admin', 1), "
        "('%s', 'bob', 'SELECT', 'admin', 1), "
        "('%s', ' BOB ', 'SELECT', 'admin', 1), "
        "('%s', 'BOB', 'MODIFY', 'admin', 1), "
        "('%s', '\xc3\x89ve', 'SELECT', 'admin', 1)", id, id, id, id, id));
    script = apr_pstrdup(fx->pool, m->sql);
    for (stmt = script; (end = strstr(stmt, ";\n")); stmt = end + 2) {
        *end = '\0';
        uc_test_sql_exec(fx->db, a, stmt);
    }
    assert_string_equal(sql_value(fx, a, "SELECT owner FROM securables "
                                  "WHERE name = 'old'"), "alice");
    assert_int_equal(sql_int(fx, a, "SELECT COUNT(*) FROM grants WHERE "
                             "principal = 'bob' AND privilege = 'SELECT'"), 1);
    assert_int_equal(sql_int(fx, a, "SELECT COUNT(*) FROM grants WHERE "
                             "principal = 'bob' AND privilege = 'MODIFY'"), 1);
    assert_int_equal(sql_int(fx, a, "SELECT COUNT(*) FROM grants WHERE "
                             "principal <> 'bob'"), 1);
    /* Only ASCII letters fold, as the module folds them. */
    assert_int_equal(sql_int(fx, a, "SELECT COUNT(*) FROM grants WHERE "
                             "principal = '\xc3\x89ve'"), 1);
}

/* A page ends at its byte budget: the rows before the one that reaches it
 * come whole, the rest is for the next page; a row larger than the budget
 * still makes a page of its own. */
static void test_page_byte_budget(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    uc_securable_t *cat = new_sec(fx->pool, UC_KIND_CATALOG,
                                  uc_store_metastore_id(s), "heavy");
    apr_size_t third = UC_PAGE_BYTES / 3 + 1;
    char *big = apr_palloc(fx->pool, UC_PAGE_BYTES + 16);
    uc_page_t page = { 100, NULL };
    apr_array_header_t *rows;
    int i, more;

    assert_ok(uc_securable_insert(s, cat));
    memset(big, 'x', UC_PAGE_BYTES + 16);
    for (i = 0; i < 5; i++) {
        uc_securable_t *sec = new_sec(fx->pool, UC_KIND_SCHEMA, cat->id,
                                      apr_psprintf(fx->pool, "s%d", i));
        /* s0..s2 hold a third of the budget each, s3 more than all of it. */
        sec->comment = apr_pstrmemdup(fx->pool, big,
                                      i == 3 ? UC_PAGE_BYTES + 16
                                      : i == 4 ? 10 : third);
        assert_ok(uc_securable_insert(s, sec));
    }
    assert_ok(uc_securable_page(s, fx->pool, cat->id, UC_KIND_SCHEMA, NULL,
                                &page, &rows, &more));
    assert_int_equal(rows->nelts, 3);
    assert_int_equal(more, 1);
    for (i = 0; i < 3; i++)
        assert_int_equal(strlen(APR_ARRAY_IDX(rows, i, uc_securable_t *)
                                ->comment), third);
    page.after = "s2";
    assert_ok(uc_securable_page(s, fx->pool, cat->id, UC_KIND_SCHEMA, NULL,
                                &page, &rows, &more));
    assert_int_equal(rows->nelts, 1);
    assert_int_equal(strlen(APR_ARRAY_IDX(rows, 0, uc_securable_t *)->comment),
                     UC_PAGE_BYTES + 16);
    assert_int_equal(more, 1);
    page.after = "s3";
    assert_ok(uc_securable_page(s, fx->pool, cat->id, UC_KIND_SCHEMA, NULL,
                                &page, &rows, &more));
    assert_int_equal(rows->nelts, 1);
    assert_int_equal(more, 0);
}

/* Authorization reads a row's identity, owner and table type, never its
 * large fields. */
static void test_refs_are_narrow(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    uc_securable_t *cat = new_sec(fx->pool, UC_KIND_CATALOG,
                                  uc_store_metastore_id(s), "refs");
    uc_securable_t *sch = new_sec(fx->pool, UC_KIND_SCHEMA, cat->id, "sch");
    uc_securable_t *t = new_sec(fx->pool, UC_KIND_TABLE, sch->id, "big");
    apr_array_header_t *rows;
    const uc_securable_t *r;

    t->properties = "{\"k\":\"a long value\"}";
    t->comment = "a comment";
    t->details = "{\"table_type\":\"VIEW\",\"columns\":[1,2,3]}";
    assert_ok(uc_securable_insert(s, cat));
    assert_ok(uc_securable_insert(s, sch));
    assert_ok(uc_securable_insert(s, t));
    assert_ok(uc_securable_refs_by_ids(s, fx->pool, apr_psprintf(fx->pool,
                                       "[\"%s\",\"%s\"]", t->id, cat->id),
                                       &rows));
    assert_int_equal(rows->nelts, 2);
    r = APR_ARRAY_IDX(rows, 0, uc_securable_t *);
    if (strcmp(r->id, t->id) != 0)
        r = APR_ARRAY_IDX(rows, 1, uc_securable_t *);
    assert_string_equal(r->kind, UC_KIND_TABLE);
    assert_string_equal(r->parent_id, sch->id);
    assert_string_equal(r->name, "big");
    assert_string_equal(r->owner, "alice");
    assert_string_equal(r->details, "{\"table_type\":\"VIEW\"}");
    assert_null(r->properties);
    assert_null(r->comment);
    assert_ok(uc_securable_refs_by_parent_names(
        s, fx->pool, UC_KIND_TABLE, apr_psprintf(fx->pool,
        "{\"%s\":[\"absent\",\"big\"],\"%s\":[\"big\"]}", sch->id,
        cat->id), &rows));
    assert_int_equal(rows->nelts, 1);
    r = APR_ARRAY_IDX(rows, 0, uc_securable_t *);
    assert_string_equal(r->id, t->id);
    assert_string_equal(r->details, "{\"table_type\":\"VIEW\"}");
    assert_null(r->properties);
}

static void test_upgrade_in_place(void **state)
{
    fx_t *fx = *state;
    int n = embedded();
    const uc_migration_t *now = migrations_with(fx->pool, n, NULL, NULL);
    const uc_migration_t *next = migrations_with(
        fx->pool, n, "extra", "CREATE TABLE extra (x INTEGER);\n"
                              "INSERT INTO extra VALUES (7);\n");
    uc_test_conn_t *a = fx_connect(fx), *b, *c;
    uc_store_t *sa = NULL, *sb = NULL, *sc = NULL;
    uc_securable_t *cat, *got;

    assert_ok(fx_attach(fx, a, fx->pool, now, &sa));
    assert_int_equal(sa->conn->schema_version, n);
    cat = new_sec(fx->pool, UC_KIND_CATALOG, uc_store_metastore_id(sa),
                  "kept");
    assert_ok(uc_securable_insert(sa, cat));

    b = fx_connect(fx);
    assert_ok(fx_attach(fx, b, fx->pool, next, &sb));
    assert_int_equal(sb->conn->schema_version, n + 1);
    assert_string_equal(uc_store_metastore_id(sb), uc_store_metastore_id(sa));
    assert_int_equal(sql_int(fx, b, "SELECT COUNT(*) FROM extra"), 1);
    assert_int_equal(sql_int(fx, b, "SELECT x FROM extra"), 7);
    assert_int_equal(sql_int(fx, b, "SELECT MAX(version) FROM "
                             "unicat_schema_version"), n + 1);
    assert_int_equal(sql_int(fx, b, "SELECT COUNT(*) FROM "
                             "unicat_schema_version"), n + 1);
    assert_string_equal(sql_value(fx, b, apr_psprintf(fx->pool,
                                  "SELECT name FROM unicat_schema_version "
                                  "WHERE version = %d", n + 1)), "extra");
    got = get(fx, sb, uc_store_metastore_id(sb), UC_KIND_CATALOG, "kept");
    assert_sec_equal(got, cat);

    /* A third connection with the same list applies nothing. */
    c = fx_connect(fx);
    assert_ok(fx_attach(fx, c, fx->pool, next, &sc));
    assert_int_equal(sc->conn->schema_version, n + 1);
    assert_int_equal(sql_int(fx, c, "SELECT COUNT(*) FROM extra"), 1);
    assert_int_equal(sql_int(fx, c, "SELECT COUNT(*) FROM "
                             "unicat_schema_version"), n + 1);
    assert_int_equal(logs_containing(fx, "applied schema migration"), n + 1);
}

/* A database written by the previous release (migrations 1 and 2, with a
 * catalog, a schema and a grant in it) is brought to this release's schema
 * by the first attach, its rows intact. */
static void test_upgrade_from_previous_release(void **state)
{
    fx_t *fx = *state;
    uc_test_conn_t *a = fx_connect(fx);
    uc_store_t *sa = NULL;
    apr_pool_t *p = fx->pool;
    int i;

    uc_test_sql_exec(fx->db, a, "CREATE TABLE unicat_schema_version ("
                     "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                     "applied_at BIGINT NOT NULL)");
    for (i = 0; i < 2; i++) {
        char *stmt = apr_pstrdup(p, uc_sqlite_migrations[i].sql), *end;
        /* Statements end with ';' at the end of a line, as the module cuts
         * them; the tables only, the metastore row is written below. */
        for (; (end = strstr(stmt, ";\n")); stmt = end + 2) {
            *end = '\0';
            if (strstr(stmt, "CREATE"))
                uc_test_sql_exec(fx->db, a, stmt);
        }
        uc_test_sql_exec(fx->db, a, apr_psprintf(
            p, "INSERT INTO unicat_schema_version VALUES (%d, '%s', 0)",
            uc_sqlite_migrations[i].version, uc_sqlite_migrations[i].name));
    }
    uc_test_sql_exec(fx->db, a, "INSERT INTO securables (id, kind, "
                     "parent_id, name, created_at, updated_at) VALUES "
                     "('m', 'metastore', NULL, 'metastore', 1, 1), "
                     "('c', 'catalog', 'm', 'old', 1, 1), "
                     "('s', 'schema', 'c', 'sch', 1, 1)");
    uc_test_sql_exec(fx->db, a, "INSERT INTO grants VALUES ('s', 'alice', "
                     "'USE_SCHEMA', 'admin', 1)");
    assert_ok(fx_attach(fx, a, p, NULL, &sa));
    assert_int_equal(sa->conn->schema_version, embedded());
    assert_string_equal(uc_store_metastore_id(sa), "m");
    assert_non_null(get(fx, sa, "c", UC_KIND_SCHEMA, "sch"));
    assert_int_equal(sql_int(fx, a, "SELECT COUNT(*) FROM grants"), 1);
    assert_int_equal(sql_int(fx, a, "SELECT COUNT(*) FROM staging_tables"), 0);
    assert_int_equal(sql_int(fx, a, "SELECT COUNT(*) FROM model_versions"), 0);
}

static void test_newer_database(void **state)
{
    fx_t *fx = *state;
    int n = embedded();
    const uc_migration_t *now = migrations_with(fx->pool, n, NULL, NULL);
    const uc_migration_t *next = migrations_with(
        fx->pool, n, "extra", "CREATE TABLE extra (x INTEGER);\n");
    uc_test_conn_t *a = fx_connect(fx), *b;
    uc_store_t *sa = NULL, *sb = NULL;
    uc_error_t *err;
    apr_time_t t0;

    assert_ok(fx_attach(fx, a, fx->pool, next, &sa));
    b = fx_connect(fx);
    t0 = apr_time_now();
    err = fx_attach(fx, b, fx->pool, now, &sb);
    assert_err(err, 503, NULL);
    /* At once: only a lock is waited for. */
    assert_true(apr_time_now() - t0 < apr_time_from_msec(1000));
    /* Why, for the server log. */
    assert_non_null(err->cause);
    assert_non_null(strstr(err->cause, "newer"));
    /* Nothing was registered or changed: the next attach starts over. */
    assert_int_equal(apr_hash_count(b->prepared), 0);
    assert_int_equal(sql_int(fx, b, "SELECT MAX(version) FROM "
                             "unicat_schema_version"), n + 1);
    assert_int_equal(sql_int(fx, b, "SELECT COUNT(*) FROM "
                             "unicat_schema_version"), n + 1);
    assert_ok(fx_attach(fx, b, fx->pool, next, &sb));
    assert_int_equal(sb->conn->schema_version, n + 1);
}

static void test_failed_migration_rolls_back(void **state)
{
    fx_t *fx = *state;
    const uc_migration_t *bad = migrations_with(
        fx->pool, embedded(), "half", "CREATE TABLE half (x INTEGER);\n"
                                      "INSERT INTO nowhere VALUES (1);\n");
    uc_test_conn_t *a = fx_connect(fx), *b;
    uc_store_t *sa = NULL;
    uc_error_t *err;

    err = fx_attach(fx, a, fx->pool, bad, &sa);
    assert_non_null(err);
    assert_true(err->status >= 500);
    assert_int_equal(apr_hash_count(a->prepared), 0);
    /* Nothing of the failed attempt stays, not even version 1. */
    b = fx_connect(fx);
    assert_int_equal(sql_int(fx, b, "SELECT COUNT(*) FROM sqlite_master "
                             "WHERE name IN ('half', 'securables', 'grants')"), 0);
    /* The client never sees driver text. */
    assert_null(strstr(err->message, "nowhere"));
}

/* --- securables -------------------------------------------------------- */

static void test_securable_insert_get(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    uc_securable_t *cat = new_sec(fx->pool, UC_KIND_CATALOG, ms, "cat");
    uc_securable_t *full = new_sec(fx->pool, UC_KIND_CATALOG, ms, "full");
    uc_securable_t *ends;

    assert_ok(uc_securable_insert(s, cat));
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "cat"), cat);

    full->comment = "a comment with 'quotes' and \"doubles\" and %s";
    full->properties = "{\"k\":\"v\"}";
    full->storage_root = "s3://bucket/root";
    full->storage_location = "s3://bucket/root/__unitystorage/catalogs/x";
    full->details = "{\"provider_name\":\"p\"}";
    full->owner = "bob";
    full->created_at = "1700000000123";
    full->updated_at = "1700000000456";
    full->created_by = "carol";
    full->updated_by = "dave";
    assert_ok(uc_securable_insert(s, full));
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "full"), full);

    /* Integer columns read back as the text they were written as, at both
     * ends of their range; text stays text. */
    ends = new_sec(fx->pool, UC_KIND_CATALOG, ms, "ends");
    ends->created_at = "-9223372036854775808";
    ends->updated_at = "9223372036854775807";
    ends->comment = "0012";
    assert_ok(uc_securable_insert(s, ends));
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "ends"), ends);
    ends = new_sec(fx->pool, UC_KIND_CATALOG, ms, "zero");
    ends->created_at = "0";
    ends->updated_at = "-7";
    assert_ok(uc_securable_insert(s, ends));
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "zero"), ends);

    /* Lookups are exact on parent, kind and name. */
    assert_null(get(fx, s, ms, UC_KIND_SCHEMA, "cat"));
    assert_null(get(fx, s, cat->id, UC_KIND_CATALOG, "cat"));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "CAT"));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "ca"));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "ca%"));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "x' OR '1'='1"));
}

/* An asynchronous query of the sharing server (uc_sharing_queries.h): the
 * recipient's, on its table; its key unique for both; not found past its
 * expiry, and deleted by a purge then; its version pinned once. */
static uc_sharing_query_row_t *query_row(apr_pool_t *pool,
                                         const char *recipient,
                                         const char *id, const char *key)
{
    uc_sharing_query_row_t *q = apr_pcalloc(pool, sizeof(*q));

    q->id = id;
    q->recipient_id = recipient;
    q->table_id = "tbl";
    q->key_hash = key;
    q->params_hash = "ph";
    q->params = "{\"body\":{}}";
    q->state = "pending";
    q->preparer = "host/1/2";
    q->created_at = "1000";
    q->expires_at = "2000";
    return q;
}

static void test_sharing_queries(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s), *pinned;
    uc_securable_t *r = new_sec(fx->pool, UC_KIND_RECIPIENT, ms, "r");
    uc_securable_t *r2 = new_sec(fx->pool, UC_KIND_RECIPIENT, ms, "r2");
    uc_sharing_query_row_t *q = query_row(fx->pool, r->id, "q1", "k1"), *got;
    int live;

    assert_ok(uc_securable_insert(s, r));
    assert_ok(uc_securable_insert(s, r2));
    assert_ok(uc_sharing_queries_insert(s, q));
    assert_true(uc_store_is_duplicate(uc_sharing_queries_insert(
        s, query_row(fx->pool, r->id, "q2", "k1"))));
    assert_ok(uc_sharing_queries_insert(s, query_row(fx->pool, r2->id, "q3",
                                                     "k1")));

    assert_ok(uc_sharing_queries_by_key(s, fx->pool, r->id, "tbl", "k1",
                                        "1500", &got));
    assert_non_null(got);
    assert_string_equal(got->id, "q1");
    assert_string_equal(got->state, "pending");
    assert_null(got->version);
    assert_ok(uc_sharing_queries_by_key(s, fx->pool, r->id, "tbl", "k1",
                                        "2000", &got));
    assert_null(got);
    /* Another recipient's, another table's, an expired one: none. */
    assert_ok(uc_sharing_queries_get(s, fx->pool, "q1", r2->id, "tbl", "1500",
                                     &got));
    assert_null(got);
    assert_ok(uc_sharing_queries_get(s, fx->pool, "q1", r->id, "other",
                                     "1500", &got));
    assert_null(got);
    assert_ok(uc_sharing_queries_get(s, fx->pool, "q1", r->id, "tbl", "2500",
                                     &got));
    assert_null(got);

    assert_ok(uc_sharing_queries_pin(s, fx->pool, q, "7", &pinned));
    assert_string_equal(pinned, "7");
    assert_ok(uc_sharing_queries_pin(s, fx->pool, q, "9", &pinned));
    assert_string_equal(pinned, "7");
    assert_ok(uc_sharing_queries_ready(s, "q1", NULL));
    assert_ok(uc_sharing_queries_get(s, fx->pool, "q1", r->id, "tbl", "1500",
                                     &got));
    assert_string_equal(got->state, "ready");
    assert_string_equal(got->version, "7");

    assert_ok(uc_sharing_queries_live(s, fx->pool, r->id, "1500", &live));
    assert_int_equal(live, 1);
    assert_ok(uc_sharing_queries_purge(s, "1999"));
    assert_int_equal(sql_int(fx, fx->conn,
                             "SELECT COUNT(*) FROM sharing_queries"), 2);
    assert_ok(uc_sharing_queries_purge(s, "2000"));
    assert_int_equal(sql_int(fx, fx->conn,
                             "SELECT COUNT(*) FROM sharing_queries"), 0);
}

static void test_securable_duplicate(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    uc_securable_t *cat = new_sec(fx->pool, UC_KIND_CATALOG, ms, "cat");
    uc_securable_t *dup = new_sec(fx->pool, UC_KIND_CATALOG, ms, "cat");
    uc_securable_t *other_kind = new_sec(fx->pool, UC_KIND_SCHEMA, ms, "cat");
    uc_securable_t *child = new_sec(fx->pool, UC_KIND_SCHEMA, cat->id, "cat");
    uc_securable_t *orphan = new_sec(fx->pool, UC_KIND_SCHEMA,
                                     "00000000-0000-4000-8000-000000000000",
                                     "orphan");
    uc_error_t *err;

    assert_ok(uc_securable_insert(s, cat));
    err = uc_securable_insert(s, dup);
    assert_non_null(err);
    assert_true(uc_store_is_duplicate(err));
    assert_null(strstr(err->message, "UNIQUE"));
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "cat"), cat);
    /* The same name with another kind or another parent is no duplicate. */
    assert_ok(uc_securable_insert(s, other_kind));
    assert_ok(uc_securable_insert(s, child));

    /* A missing parent breaks the foreign key: an error, not a duplicate. */
    err = uc_securable_insert(s, orphan);
    assert_non_null(err);
    assert_false(uc_store_is_duplicate(err));
    assert_null(get(fx, s, orphan->parent_id, UC_KIND_SCHEMA, "orphan"));

    assert_false(uc_store_is_duplicate(NULL));
    assert_false(uc_store_is_duplicate(uc_error_invalid(fx->pool, "x")));
    assert_false(uc_store_is_duplicate(uc_error_internal(fx->pool)));
}

static void test_securable_update(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    uc_securable_t *cat = new_sec(fx->pool, UC_KIND_CATALOG, ms, "cat");
    uc_securable_t *sib = new_sec(fx->pool, UC_KIND_CATALOG, ms, "sibling");
    uc_securable_t *sch = new_sec(fx->pool, UC_KIND_SCHEMA, cat->id, "sch");
    uc_securable_t *upd;
    uc_error_t *err;

    assert_ok(uc_securable_insert(s, cat));
    assert_ok(uc_securable_insert(s, sib));
    assert_ok(uc_securable_insert(s, sch));

    upd = apr_pmemdup(fx->pool, cat, sizeof(*cat));
    upd->name = "renamed";
    upd->comment = "now with a comment";
    upd->properties = "{\"a\":\"b\"}";
    upd->storage_root = "s3://b/x";
    upd->storage_location = "s3://b/x/__unitystorage/catalogs/1";
    upd->details = "{\"d\":\"e\"}";
    upd->owner = "bob";
    upd->updated_at = "2000";
    upd->updated_by = "bob";
    assert_ok(uc_securable_update(s, upd));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "cat"));
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "renamed"), upd);
    /* created_* stay; children follow the parent by id. */
    assert_same_str(get(fx, s, ms, UC_KIND_CATALOG, "renamed")->created_at,
                    "1000");
    assert_sec_equal(get(fx, s, cat->id, UC_KIND_SCHEMA, "sch"), sch);

    /* Clearing fields. */
    upd->comment = NULL;
    upd->properties = NULL;
    upd->storage_root = NULL;
    upd->storage_location = NULL;
    upd->details = NULL;
    assert_ok(uc_securable_update(s, upd));
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "renamed"), upd);

    /* Renaming onto a sibling is a duplicate and changes nothing. */
    upd = apr_pmemdup(fx->pool, upd, sizeof(*upd));
    upd->name = "sibling";
    upd->comment = "lost";
    err = uc_securable_update(s, upd);
    assert_non_null(err);
    assert_true(uc_store_is_duplicate(err));
    assert_same_str(get(fx, s, ms, UC_KIND_CATALOG, "renamed")->comment,
                    NULL);
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "sibling"), sib);
}

static void test_securable_page(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    uc_securable_t *cat = new_sec(fx->pool, UC_KIND_CATALOG, ms, "cat");
    uc_securable_t *other = new_sec(fx->pool, UC_KIND_CATALOG, ms, "other");
    const int total = 250;
    int seen[250];
    const char *prev = NULL;
    uc_page_t page;
    int i, pages = 0, count = 0, more;

    assert_ok(uc_securable_insert(s, cat));
    assert_ok(uc_securable_insert(s, other));
    /* Inserted in a scrambled order, in one transaction. */
    assert_ok(uc_store_begin(s));
    for (i = 0; i < total; i++) {
        int k = (i * 97) % total;
        assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_SCHEMA,
                                                 cat->id,
                                                 apr_psprintf(fx->pool,
                                                              "s%03d", k))));
    }
    /* Noise: another kind under the same parent, another parent. */
    assert_ok(uc_securable_insert(s, new_sec(fx->pool, "table", cat->id,
                                             "s050x")));
    assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_SCHEMA,
                                             other->id, "s000a")));
    assert_ok(uc_store_end(s, NULL));

    memset(seen, 0, sizeof(seen));
    page.limit = 100;
    page.after = NULL;
    do {
        apr_array_header_t *rows = NULL;
        more = -1;
        assert_ok(uc_securable_page(s, fx->pool, cat->id, UC_KIND_SCHEMA,
                                    NULL, &page, &rows, &more));
        assert_non_null(rows);
        assert_true(more == 0 || more == 1);
        pages++;
        assert_int_equal(rows->nelts, pages < 3 ? 100 : 50);
        assert_int_equal(more, pages < 3);
        for (i = 0; i < rows->nelts; i++) {
            uc_securable_t *r = APR_ARRAY_IDX(rows, i, uc_securable_t *);
            int k;
            assert_string_equal(r->kind, UC_KIND_SCHEMA);
            assert_string_equal(r->parent_id, cat->id);
            assert_int_equal(strlen(r->name), 4);
            k = atoi(r->name + 1);
            assert_true(k >= 0 && k < total);
            assert_int_equal(seen[k], 0);
            seen[k] = 1;
            if (prev && strcmp(prev, r->name) >= 0)
                fail_msg("'%s' after '%s'", r->name, prev);
            /* Page n holds s[100(n-1) .. 100n). */
            assert_int_equal(k, count);
            prev = r->name;
            count++;
        }
        page.after = prev;
    } while (more && pages < 10);
    assert_int_equal(pages, 3);
    assert_int_equal(count, total);

    /* Exactly as many rows as the limit: no next page. */
    {
        apr_array_header_t *rows;
        page.after = NULL;
        page.limit = total;
        assert_ok(uc_securable_page(s, fx->pool, cat->id, UC_KIND_SCHEMA,
                                    NULL, &page, &rows, &more));
        assert_int_equal(rows->nelts, total);
        assert_int_equal(more, 0);
        page.limit = total - 1;
        assert_ok(uc_securable_page(s, fx->pool, cat->id, UC_KIND_SCHEMA,
                                    NULL, &page, &rows, &more));
        assert_int_equal(rows->nelts, total - 1);
        assert_int_equal(more, 1);
        page.after = "s249";
        page.limit = 10;
        assert_ok(uc_securable_page(s, fx->pool, cat->id, UC_KIND_SCHEMA,
                                    NULL, &page, &rows, &more));
        assert_int_equal(rows->nelts, 0);
        assert_int_equal(more, 0);
        /* A key between two names resumes after it. */
        page.after = "s123a";
        page.limit = 2;
        assert_ok(uc_securable_page(s, fx->pool, cat->id, UC_KIND_SCHEMA,
                                    NULL, &page, &rows, &more));
        assert_int_equal(rows->nelts, 2);
        assert_string_equal(APR_ARRAY_IDX(rows, 0, uc_securable_t *)->name,
                            "s124");
        assert_int_equal(more, 1);
        /* The other catalog and an empty parent. */
        page.after = NULL;
        page.limit = 100;
        assert_ok(uc_securable_page(s, fx->pool, other->id, UC_KIND_SCHEMA,
                                    NULL, &page, &rows, &more));
        assert_int_equal(rows->nelts, 1);
        assert_int_equal(more, 0);
        assert_ok(uc_securable_page(s, fx->pool, cat->id, "volume", NULL, &page,
                                    &rows, &more));
        assert_int_equal(rows->nelts, 0);
        assert_int_equal(more, 0);
    }
}

static void test_securable_has_children_and_cascade(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    uc_securable_t *cat = new_sec(fx->pool, UC_KIND_CATALOG, ms, "cat");
    uc_securable_t *keep = new_sec(fx->pool, UC_KIND_CATALOG, ms, "keep");
    uc_securable_t *sch = new_sec(fx->pool, UC_KIND_SCHEMA, cat->id, "sch");
    uc_securable_t *sch2 = new_sec(fx->pool, UC_KIND_SCHEMA, cat->id, "sch2");
    uc_securable_t *tbl = new_sec(fx->pool, "table", sch->id, "tbl");
    uc_securable_t *kept = new_sec(fx->pool, UC_KIND_SCHEMA, keep->id, "sch");
    int has;

    assert_ok(uc_securable_insert(s, cat));
    assert_ok(uc_securable_insert(s, keep));
    assert_ok(uc_securable_insert(s, sch));
    assert_ok(uc_securable_insert(s, sch2));
    assert_ok(uc_securable_insert(s, tbl));
    assert_ok(uc_securable_insert(s, kept));

    has = -1;
    assert_ok(uc_securable_has_children(s, cat->id, &has));
    assert_int_equal(has, 1);
    assert_ok(uc_securable_has_children(s, sch->id, &has));
    assert_int_equal(has, 1);
    assert_ok(uc_securable_has_children(s, sch2->id, &has));
    assert_int_equal(has, 0);
    assert_ok(uc_securable_has_children(s, tbl->id, &has));
    assert_int_equal(has, 0);
    assert_ok(uc_securable_has_children(s, ms, &has));
    assert_int_equal(has, 1);

    /* A leaf goes alone. */
    assert_ok(uc_securable_delete(s, sch2->id));
    assert_null(get(fx, s, cat->id, UC_KIND_SCHEMA, "sch2"));
    assert_non_null(get(fx, s, cat->id, UC_KIND_SCHEMA, "sch"));

    /* The catalog takes its schema and the schema's table with it. */
    assert_ok(uc_securable_delete(s, cat->id));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "cat"));
    assert_null(get(fx, s, cat->id, UC_KIND_SCHEMA, "sch"));
    assert_null(get(fx, s, sch->id, "table", "tbl"));
    assert_int_equal(sql_int(fx, fx->conn, apr_psprintf(fx->pool,
                     "SELECT COUNT(*) FROM securables WHERE id IN "
                     "('%s', '%s', '%s')", cat->id, sch->id, tbl->id)), 0);
    /* Siblings and the metastore stay. */
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "keep"), keep);
    assert_sec_equal(get(fx, s, keep->id, UC_KIND_SCHEMA, "sch"), kept);
    assert_int_equal(sql_int(fx, fx->conn, "SELECT COUNT(*) FROM securables"),
                     3);
    /* Deleting what is not there is no error. */
    assert_ok(uc_securable_delete(s, cat->id));
}

/* --- transactions ------------------------------------------------------ */

static void test_txn_rollback_on_work_error(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    uc_error_t *work = uc_error_make(fx->pool, UC_E_CATALOG_NOT_FOUND,
                                     "no");

    assert_ok(uc_store_begin(s));
    assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                             "gone")));
    assert_non_null(get(fx, s, ms, UC_KIND_CATALOG, "gone"));
    assert_ptr_equal(uc_store_end(s, work), work);
    assert_null(s->txn);
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "gone"));
}

static void test_txn_rollback_after_failed_statement(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    uc_error_t *err;

    assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                             "exists")));
    assert_ok(uc_store_begin(s));
    assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                             "first")));
    err = uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                         "exists"));
    assert_true(uc_store_is_duplicate(err));
    assert_ptr_equal(uc_store_end(s, err), err);
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "first"));
    assert_non_null(get(fx, s, ms, UC_KIND_CATALOG, "exists"));
    /* The connection is usable again, inside and outside transactions. */
    assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                             "after")));
    assert_ok(uc_store_begin(s));
    assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                             "after2")));
    assert_ok(uc_store_end(s, NULL));
    assert_non_null(get(fx, s, ms, UC_KIND_CATALOG, "after2"));
}

static void test_txn_commit(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store, *sb = NULL;
    const char *ms = uc_store_metastore_id(s);
    uc_securable_t *cat = new_sec(fx->pool, UC_KIND_CATALOG, ms, "kept");
    uc_test_conn_t *b = fx_connect(fx);

    assert_ok(fx_attach(fx, b, fx->pool, NULL, &sb));
    assert_ok(uc_store_begin(s));
    assert_ok(uc_securable_insert(s, cat));
    /* Not visible to another connection before the commit. */
    assert_null(get(fx, sb, ms, UC_KIND_CATALOG, "kept"));
    assert_ok(uc_store_end(s, NULL));
    assert_null(s->txn);
    assert_sec_equal(get(fx, s, ms, UC_KIND_CATALOG, "kept"), cat);
    assert_sec_equal(get(fx, sb, ms, UC_KIND_CATALOG, "kept"), cat);
    /* Without a transaction uc_store_end hands the work's error back. */
    assert_null(uc_store_end(s, NULL));
    {
        uc_error_t *e = uc_error_invalid(fx->pool, "x");
        assert_ptr_equal(uc_store_end(s, e), e);
    }
}

/* Grouped reads share one read transaction on SQLite: a row another
 * connection commits meanwhile is not seen until the group ends, early
 * or with uc_store_end. Ending a group early leaves a view alone. */
static void test_grouped_reads(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store, *sb = NULL;
    const char *ms = uc_store_metastore_id(s);
    uc_test_conn_t *b = fx_connect(fx);

    assert_ok(fx_attach(fx, b, fx->pool, NULL, &sb));
    assert_ok(uc_store_begin_reads(s));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "meanwhile"));
    assert_ok(uc_securable_insert(sb, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                              "meanwhile")));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "meanwhile"));
    assert_ok(uc_store_end_reads(s));
    assert_non_null(get(fx, s, ms, UC_KIND_CATALOG, "meanwhile"));
    /* The group is over: the route's end has nothing left to end. */
    assert_null(uc_store_end(s, NULL));

    assert_ok(uc_store_begin_reads(s));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "later"));
    assert_ok(uc_securable_insert(sb, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                              "later")));
    assert_ok(uc_store_end(s, NULL));
    assert_non_null(get(fx, s, ms, UC_KIND_CATALOG, "later"));

    assert_ok(uc_store_begin_read(s));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "viewed"));
    assert_ok(uc_securable_insert(sb, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                              "viewed")));
    assert_ok(uc_store_end_reads(s));
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "viewed"));
    assert_ok(uc_store_end(s, NULL));
    assert_non_null(get(fx, s, ms, UC_KIND_CATALOG, "viewed"));
}

static void test_txn_abandoned_with_pool(void **state)
{
    fx_t *fx = *state;
    const char *ms = uc_store_metastore_id(fx->store);
    uc_store_t *call_store = NULL;
    apr_pool_t *call;

    apr_pool_create(&call, fx->pool);
    assert_ok(fx_attach(fx, fx->conn, call, NULL, &call_store));
    assert_ok(uc_store_begin(call_store));
    assert_ok(uc_securable_insert(call_store,
                                  new_sec(call, UC_KIND_CATALOG, ms,
                                          "abandoned")));
    apr_pool_destroy(call);
    /* Rolled back, and the connection is not left inside a transaction. */
    assert_null(get(fx, fx->store, ms, UC_KIND_CATALOG, "abandoned"));
    assert_ok(uc_store_begin(fx->store));
    assert_ok(uc_securable_insert(fx->store,
                                  new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                          "next")));
    assert_ok(uc_store_end(fx->store, NULL));
    assert_non_null(get(fx, fx->store, ms, UC_KIND_CATALOG, "next"));
}

/* --- busy database ----------------------------------------------------- */

/* A second connection that holds the write lock until released. */
typedef struct holder {
    uc_test_conn_t *conn;
    apr_dbd_transaction_t *txn;
} holder_t;

static void hold_write_lock(fx_t *fx, holder_t *h)
{
    int rc, nrows;

    h->conn = fx_connect(fx);
    h->txn = NULL;
    rc = apr_dbd_transaction_start(fx->db->driver, h->conn->pool,
                                   h->conn->handle, &h->txn);
    assert_int_equal(rc, 0);
    /* Write something so the lock is held whatever BEGIN the driver uses. */
    rc = apr_dbd_query(fx->db->driver, h->conn->handle, &nrows,
                       "INSERT INTO unicat_schema_version (version, name, "
                       "applied_at) VALUES (9999, 'lock', 0)");
    assert_int_equal(rc, 0);
}

static void release_write_lock(fx_t *fx, holder_t *h)
{
    apr_dbd_transaction_mode_set(fx->db->driver, h->txn,
                                 APR_DBD_TRANSACTION_ROLLBACK);
    assert_int_equal(apr_dbd_transaction_end(fx->db->driver, h->conn->pool,
                                             h->txn), 0);
    h->txn = NULL;
}

static void test_busy_begin(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    holder_t h;
    apr_time_t t0, elapsed;
    uc_error_t *err;

    hold_write_lock(fx, &h);

    /* Reads go on (WAL). */
    t0 = apr_time_now();
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "nothing"));
    assert_true(apr_time_now() - t0 < apr_time_from_msec(500));

    t0 = apr_time_now();
    err = uc_store_begin(s);
    elapsed = apr_time_now() - t0;
    assert_err(err, 503, NULL);
    assert_true(err->retry_after > 0);
    assert_null(s->txn);
    if (elapsed > apr_time_from_sec(10))
        fail_msg("busy begin took %" APR_TIME_T_FMT " ms",
                 apr_time_as_msec(elapsed));
    assert_null(strstr(err->message, "locked"));

    release_write_lock(fx, &h);

    assert_ok(uc_store_begin(s));
    assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                             "after_busy")));
    assert_ok(uc_store_end(s, NULL));
    assert_non_null(get(fx, s, ms, UC_KIND_CATALOG, "after_busy"));
    assert_int_equal(sql_int(fx, fx->conn, "SELECT COUNT(*) FROM "
                             "unicat_schema_version WHERE version = 9999"),
                     0);
}

static void test_busy_write_without_transaction(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    holder_t h;
    uc_error_t *err;

    hold_write_lock(fx, &h);
    err = uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                         "blocked"));
    assert_err(err, 503, NULL);
    assert_true(err->retry_after > 0);
    release_write_lock(fx, &h);
    assert_null(get(fx, s, ms, UC_KIND_CATALOG, "blocked"));
    assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                             "blocked")));
}

/* Another process changes the schema (VACUUM, ANALYZE, an index, a
 * migration of a newer node): this connection's statements, prepared
 * before, keep working, writes as well as reads, in a transaction or not,
 * as SQLite's own re-preparing of statements allows; the driver's
 * statements did not, and every later write failed with a 500 until
 * httpd restarted. */
static void test_schema_changed_by_another(void **state)
{
    fx_t *fx = *state;
    uc_store_t *s = fx->store;
    const char *ms = uc_store_metastore_id(s);
    uc_test_conn_t *other = fx_connect(fx);
    static const char *const changes[] = {
        "VACUUM", "ANALYZE", "CREATE INDEX test_x ON securables (name, id)",
        "DROP INDEX test_x", NULL
    };
    int i;

    assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                             "before")));
    for (i = 0; changes[i]; i++) {
        const char *name = apr_psprintf(fx->pool, "after_%d", i);

        uc_test_sql_exec(fx->db, other, changes[i]);
        assert_ok(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG,
                                                 ms, name)));
        assert_non_null(get(fx, s, ms, UC_KIND_CATALOG, name));
        assert_ok(uc_store_begin(s));
        assert_ok(uc_securable_insert(s, new_sec(
            fx->pool, UC_KIND_CATALOG, ms,
            apr_pstrcat(fx->pool, name, "_in_txn", NULL))));
        assert_ok(uc_store_end(s, NULL));
    }
    assert_int_equal(sql_int(fx, other, "SELECT COUNT(*) FROM securables "
                             "WHERE name LIKE 'after_%'"), 8);
    assert_err(uc_securable_insert(s, new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                              "before")),
               409, "UC_STORE_DUPLICATE");
}

/* After a begin that failed for a busy database, the connection (which
 * mod_dbd keeps for later requests, whose pools are different) must behave
 * like a fresh one: a failed statement outside a transaction must not
 * poison the statements after it. */
static void test_busy_begin_leaves_connection_clean(void **state)
{
    fx_t *fx = *state;
    const char *ms = uc_store_metastore_id(fx->store);
    uc_store_t *s1 = NULL, *s2 = NULL;
    apr_pool_t *call1, *call2;
    holder_t h;
    uc_error_t *err;

    assert_ok(uc_securable_insert(fx->store,
                                  new_sec(fx->pool, UC_KIND_CATALOG, ms,
                                          "exists")));
    apr_pool_create(&call1, fx->pool);
    assert_ok(fx_attach(fx, fx->conn, call1, NULL, &s1));
    hold_write_lock(fx, &h);
    assert_err(uc_store_begin(s1), 503, NULL);
    release_write_lock(fx, &h);
    apr_pool_destroy(call1);

    /* The next call on the same connection. */
    apr_pool_create(&call2, fx->pool);
    assert_ok(fx_attach(fx, fx->conn, call2, NULL, &s2));
    err = uc_securable_insert(s2, new_sec(call2, UC_KIND_CATALOG, ms,
                                          "exists"));
    assert_true(uc_store_is_duplicate(err));
    {
        uc_securable_t *out = NULL;
        assert_ok(uc_securable_get(s2, call2, ms, UC_KIND_CATALOG, "exists",
                                   UC_LOCK_SHARE, &out));
        assert_non_null(out);
    }
    assert_ok(uc_securable_insert(s2, new_sec(call2, UC_KIND_CATALOG, ms,
                                              "fresh")));
    apr_pool_destroy(call2);
}

/* A new connection to a database already at this module's version takes
 * no write lock: it attaches while another connection writes (a graceful
 * restart's new children under load). */
static void test_attach_while_another_writes(void **state)
{
    fx_t *fx = *state;
    uc_test_conn_t *c = fx_connect(fx);
    uc_store_t *s = NULL;
    holder_t h;

    hold_write_lock(fx, &h);
    assert_ok(fx_attach(fx, c, fx->pool, NULL, &s));
    release_write_lock(fx, &h);
    assert_int_equal(s->conn->schema_version, embedded());
    assert_string_equal(uc_store_metastore_id(s),
                        uc_store_metastore_id(fx->store));
}

/* --- a new database's first connections ---------------------------------- */

/* The first connection of a new database keeps it locked for longer than
 * the driver waits for a busy statement, then commits. */
static void *APR_THREAD_FUNC commit_later(apr_thread_t *thread, void *data)
{
    fx_t *fx = data;
    int nrows;

    (void)thread;
    apr_sleep(apr_time_from_msec(2500));
    apr_dbd_query(fx->db->driver, fx->conns[0]->handle, &nrows, "COMMIT");
    /* Returning, not apr_thread_exit: pthread_exit leaves the stack
     * poisoned for ASan. */
    return NULL;
}

/* Every child's first request comes at once on a new catalog: the
 * connections that find it locked by the one creating it wait for it
 * instead of answering 503. */
static void test_attach_waits_for_first_writer(void **state)
{
    fx_t *fx = *state;
    uc_test_conn_t *first = fx_connect(fx), *c = fx_connect(fx);
    apr_thread_t *thread;
    apr_status_t rv;
    apr_time_t t0, elapsed;
    uc_store_t *s = NULL;
    uc_error_t *err;
    int nrows;

    assert_int_equal(apr_dbd_query(fx->db->driver, first->handle, &nrows,
                                   "BEGIN EXCLUSIVE"), 0);
    assert_int_equal(apr_dbd_query(fx->db->driver, first->handle, &nrows,
                                   "CREATE TABLE first_writer (x INTEGER)"),
                     0);
    assert_int_equal(apr_thread_create(&thread, NULL, commit_later, fx,
                                       fx->pool), APR_SUCCESS);
    t0 = apr_time_now();
    err = fx_attach(fx, c, fx->pool, NULL, &s);
    elapsed = apr_time_now() - t0;
    apr_thread_join(&rv, thread);
    assert_ok(err);
    assert_true(elapsed >= apr_time_from_msec(2000));
    assert_int_equal(s->conn->schema_version, embedded());
    assert_int_equal(sql_int(fx, c, "SELECT COUNT(*) FROM first_writer"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_attach_migrates),
        FX_ATTACHED_TEST(test_connection_settings),
        FX_ATTACHED_TEST(test_attach_while_another_writes),
        FX_ATTACHED_TEST(test_attach_again_is_noop),
        FX_ATTACHED_TEST(test_second_connection),
        FX_TEST(test_upgrade_in_place),
        FX_TEST(test_attach_after_another_migrated),
        FX_ATTACHED_TEST(test_principal_names_migrate),
        FX_ATTACHED_TEST(test_page_byte_budget),
        FX_ATTACHED_TEST(test_refs_are_narrow),
        FX_TEST(test_upgrade_from_previous_release),
        FX_TEST(test_newer_database),
        FX_TEST(test_failed_migration_rolls_back),
        FX_ATTACHED_TEST(test_securable_insert_get),
        FX_ATTACHED_TEST(test_sharing_queries),
        FX_ATTACHED_TEST(test_securable_duplicate),
        FX_ATTACHED_TEST(test_securable_update),
        FX_ATTACHED_TEST(test_securable_page),
        FX_ATTACHED_TEST(test_securable_has_children_and_cascade),
        FX_ATTACHED_TEST(test_txn_rollback_on_work_error),
        FX_ATTACHED_TEST(test_txn_rollback_after_failed_statement),
        FX_ATTACHED_TEST(test_txn_commit),
        FX_ATTACHED_TEST(test_txn_abandoned_with_pool),
        FX_ATTACHED_TEST(test_grouped_reads),
        FX_ATTACHED_TEST(test_busy_begin),
        FX_ATTACHED_TEST(test_busy_write_without_transaction),
        FX_ATTACHED_TEST(test_schema_changed_by_another),
        FX_ATTACHED_TEST(test_busy_begin_leaves_connection_clean),
        FX_TEST(test_attach_waits_for_first_writer),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("store", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
