/* SPDX-License-Identifier: Apache-2.0 */
/* jsonPredicateHints: parsed once per query with jansson into a tree of
 * pool memory; then evaluated once per file against the file's partition
 * values, read by a scanner that points into their text (no allocation
 * unless escaped or many columns), so a 100,000-file table costs little. */
#include "uc_sharing_predicate.h"

#include "../core/uc_json.h"
#include "../core/uc_percent.h"
#include "../core/uc_time.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <jansson.h>

/* Three-valued results: unknown keeps the file. */
typedef enum { R_FALSE, R_TRUE, R_UNKNOWN } tri_t;

typedef enum {
    T_BOOL, T_INT, T_LONG, T_STRING, T_DATE, T_FLOAT, T_DOUBLE, T_TIMESTAMP,
    T_NONE
} vtype_t;

static const char *const type_names[T_NONE] = {
    "bool", "int", "long", "string", "date", "float", "double", "timestamp"
};

typedef enum {
    OP_AND, OP_OR, OP_NOT, OP_ISNULL, OP_EQ, OP_LT, OP_LE, OP_GT, OP_GE,
    OP_COLUMN, OP_LITERAL, OP_CONST
} op_t;

/* How many children an op takes: leaves none, unary 1, binary 2,
 * n-ary at least 2. */
typedef enum { ARITY_LEAF, ARITY_UNARY, ARITY_BINARY, ARITY_NARY } arity_t;

static const struct {
    const char *name;
    op_t op;
    arity_t arity;
} ops[] = {
    { "column", OP_COLUMN, ARITY_LEAF },
    { "literal", OP_LITERAL, ARITY_LEAF },
    { "isNull", OP_ISNULL, ARITY_UNARY },
    { "equal", OP_EQ, ARITY_BINARY },
    { "lessThan", OP_LT, ARITY_BINARY },
    { "lessThanOrEqual", OP_LE, ARITY_BINARY },
    { "greaterThan", OP_GT, ARITY_BINARY },
    { "greaterThanOrEqual", OP_GE, ARITY_BINARY },
    { "and", OP_AND, ARITY_NARY },
    { "or", OP_OR, ARITY_NARY },
    { "not", OP_NOT, ARITY_UNARY },
};

/* An instant as seconds and nanoseconds since the epoch: nanoseconds
 * matter, since rounding could make unequal instants equal and `not`
 * would then drop a matching file. */
typedef struct instant {
    apr_int64_t sec;
    long nsec;
} instant_t;

/* A typed value: bool, int, long and date (days) in i; float and double
 * in d; string in s; timestamp as the instants it may stand for. */
typedef struct value {
    apr_int64_t i;
    double d;
    const char *s;
    size_t len;
    instant_t lo, hi;
} value_t;

typedef struct node node_t;

struct node {
    op_t op;
    vtype_t type;               /* leaves: their valueType */
    int slot;                   /* column: index in keys, -1 = not one */
    int fits;                   /* column: valueType fits its Delta type */
    int literal_ok;             /* literal: parsed as its type */
    value_t literal;
    tri_t constant;             /* OP_CONST */
    int n;
    const node_t **children;
};

struct uc_sharing_predicate {
    const node_t *root;
    /* The partition values the hint reads, by the keys of partitionValues
     * (physical names under column mapping). */
    const char **keys;
    size_t *key_lens;
    int num_keys;
};

/* --- typed values ---------------------------------------------------------- */

static int parse_long(const char *p, size_t len, apr_int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    apr_uint64_t v = 0, limit;

    if (len && (p[0] == '-' || p[0] == '+'))
        neg = p[i++] == '-';
    if (i == len)
        return 0;
    limit = neg ? (apr_uint64_t)APR_INT64_MAX + 1 : (apr_uint64_t)APR_INT64_MAX;
    for (; i < len; i++) {
        if (!apr_isdigit(p[i]) || v > (limit - (apr_uint64_t)(p[i] - '0')) / 10)
            return 0;
        v = v * 10 + (apr_uint64_t)(p[i] - '0');
    }
    *out = neg ? (apr_int64_t)(0 - v) : (apr_int64_t)v;
    return 1;
}

/* Java's spelling of floats and doubles: decimal or Infinity, no hex, no
 * NaN (which SQL orders unlike C, so it stays unknown). */
static int parse_real(const char *p, size_t len, int single, double *out)
{
    char buf[64], *end;
    size_t i, body = len && (p[0] == '-' || p[0] == '+');

    if (len == 0 || len >= sizeof(buf))
        return 0;
    if (!(len - body == 8 && memcmp(p + body, "Infinity", 8) == 0))
        for (i = body; i < len; i++)
            if (!apr_isdigit(p[i]) && !strchr(".eE+-", p[i]))
                return 0;
    memcpy(buf, p, len);
    buf[len] = '\0';
    *out = single ? (double)strtof(buf, &end) : strtod(buf, &end);
    return end == buf + len && !isnan(*out);
}

static int parse_bool(const char *p, size_t len, apr_int64_t *out)
{
    if (len == 4 && strncasecmp(p, "true", 4) == 0)
        *out = 1;
    else if (len == 5 && strncasecmp(p, "false", 5) == 0)
        *out = 0;
    else
        return 0;
    return 1;
}

/* Exactly `n` digits at p. */
static int digits(const char *p, int n, int *out)
{
    int i, v = 0;

    for (i = 0; i < n; i++) {
        if (!apr_isdigit(p[i]))
            return 0;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 1;
}

static int days_in_month(int y, int m)
{
    static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
                                  30, 31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

    return days[m - 1] + (m == 2 && leap);
}

/* yyyy-mm-dd, or with `loose` also one-digit month and day (as
 * java.sql.Date.valueOf reads dates); returns the bytes read. */
static size_t parse_ymd(const char *p, size_t len, int loose,
                        apr_int64_t *days)
{
    int y, m, d, nm, nd;
    size_t at;

    if (len < 8 || !digits(p, 4, &y) || p[4] != '-')
        return 0;
    nm = loose && len > 6 && p[6] == '-' ? 1 : 2;
    if (len < (size_t)(5 + nm + 2) || !digits(p + 5, nm, &m)
        || p[5 + nm] != '-')
        return 0;
    at = (size_t)(6 + nm);
    nd = loose && (len <= at + 1 || !apr_isdigit(p[at + 1])) ? 1 : 2;
    if (len < at + (size_t)nd || !digits(p + at, nd, &d))
        return 0;
    if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
        return 0;
    *days = uc_time_days_from_civil(y, m, d);
    return at + (size_t)nd;
}

static int parse_date(const char *p, size_t len, apr_int64_t *days)
{
    return parse_ymd(p, len, 1, days) == len;
}

/* hh:mm[:ss[.fraction]] from p; returns the bytes read. */
static size_t parse_time(const char *p, size_t len, apr_int64_t *sec,
                         long *nsec)
{
    int h, mi, s = 0, i;
    size_t at = 5;
    long frac = 0, scale = 100000000;

    if (len < 5 || !digits(p, 2, &h) || p[2] != ':' || !digits(p + 3, 2, &mi))
        return 0;
    if (len >= 8 && p[5] == ':') {
        if (!digits(p + 6, 2, &s))
            return 0;
        at = 8;
        if (at < len && p[at] == '.') {
            for (i = 0, at++; at < len && apr_isdigit(p[at]); i++, at++) {
                if (i == 9)
                    return 0;
                frac += (p[at] - '0') * scale;
                scale /= 10;
            }
            if (i == 0)
                return 0;
        }
    }
    if (h > 23 || mi > 59 || s > 59)
        return 0;
    *sec = h * 3600 + mi * 60 + s;
    *nsec = frac;
    return at;
}

/* Z or +hh:mm[:ss] / -hh:mm[:ss]: the offset in seconds. */
static int parse_offset(const char *p, size_t len, apr_int64_t *offset)
{
    int h, m, s = 0;

    if (len == 1 && (p[0] == 'Z' || p[0] == 'z')) {
        *offset = 0;
        return 1;
    }
    if ((len != 6 && len != 9) || (p[0] != '+' && p[0] != '-')
        || !digits(p + 1, 2, &h) || p[3] != ':' || !digits(p + 4, 2, &m)
        || (len == 9 && (p[6] != ':' || !digits(p + 7, 2, &s)))
        || h > 18 || m > 59 || s > 59)
        return 0;
    *offset = (p[0] == '-' ? -1 : 1) * (apr_int64_t)(h * 3600 + m * 60 + s);
    return 1;
}

/* The most a writer's time zone can be off UTC. */
#define ZONE_SLACK (18 * 3600)

/* A timestamp with an offset stands for one instant; without one (only
 * where `zoned` is not required) for every instant a time zone could
 * have written so. */
static int parse_timestamp(const char *p, size_t len, int zoned,
                           value_t *v)
{
    apr_int64_t days, sec, offset;
    long nsec;
    size_t at = parse_ymd(p, len, 0, &days), t;

    if (!at || at == len || !strchr("Tt ", p[at]))
        return 0;
    at++;
    if (!(t = parse_time(p + at, len - at, &sec, &nsec)))
        return 0;
    at += t;
    v->lo.sec = v->hi.sec = days * 86400 + sec;
    v->lo.nsec = v->hi.nsec = nsec;
    if (at == len) {
        v->lo.sec -= ZONE_SLACK;
        v->hi.sec += ZONE_SLACK;
        return !zoned;
    }
    if (!parse_offset(p + at, len - at, &offset))
        return 0;
    v->lo.sec -= offset;
    v->hi.sec -= offset;
    return 1;
}

/* Reads text as a value of `type`; `literal` holds literals to the
 * PROTOCOL's formats (int within 32 bits, timestamps zoned). */
static int parse_value(vtype_t type, const char *p, size_t len, int literal,
                       value_t *v)
{
    switch (type) {
    case T_BOOL:
        return parse_bool(p, len, &v->i);
    case T_INT:
        return parse_long(p, len, &v->i)
            && (!literal || (v->i >= INT32_MIN && v->i <= INT32_MAX));
    case T_LONG:
        return parse_long(p, len, &v->i);
    case T_STRING:
        v->s = p;
        v->len = len;
        return 1;
    case T_DATE:
        return parse_date(p, len, &v->i);
    case T_FLOAT:
    case T_DOUBLE:
        return parse_real(p, len, type == T_FLOAT, &v->d);
    case T_TIMESTAMP:
        return parse_timestamp(p, len, literal, v);
    case T_NONE:
        break;
    }
    return 0;
}

/* --- comparison -------------------------------------------------------------- */

typedef enum { C_LT, C_EQ, C_GT, C_UNKNOWN } cmp_t;

static int instant_cmp(instant_t a, instant_t b)
{
    if (a.sec != b.sec)
        return a.sec < b.sec ? -1 : 1;
    return (a.nsec > b.nsec) - (a.nsec < b.nsec);
}

/* Decided only when every instant a may be orders the same way against
 * every instant b may be. */
static cmp_t timestamp_cmp(const value_t *a, const value_t *b)
{
    if (instant_cmp(a->hi, b->lo) < 0)
        return C_LT;
    if (instant_cmp(a->lo, b->hi) > 0)
        return C_GT;
    if (instant_cmp(a->lo, a->hi) == 0 && instant_cmp(b->lo, b->hi) == 0
        && instant_cmp(a->lo, b->lo) == 0)
        return C_EQ;
    return C_UNKNOWN;
}

static cmp_t order(int c)
{
    return c < 0 ? C_LT : c > 0 ? C_GT : C_EQ;
}

static cmp_t compare(vtype_t type, const value_t *a, const value_t *b)
{
    int c;

    switch (type) {
    case T_FLOAT:
    case T_DOUBLE:
        return order((a->d > b->d) - (a->d < b->d));
    case T_STRING:
        c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
        return order(c ? c : (a->len > b->len) - (a->len < b->len));
    case T_TIMESTAMP:
        return timestamp_cmp(a, b);
    default:
        return order((a->i > b->i) - (a->i < b->i));
    }
}

static tri_t cmp_result(op_t op, cmp_t c)
{
    if (c == C_UNKNOWN)
        return R_UNKNOWN;
    switch (op) {
    case OP_EQ:
        return c == C_EQ ? R_TRUE : R_FALSE;
    case OP_LT:
        return c == C_LT ? R_TRUE : R_FALSE;
    case OP_LE:
        return c != C_GT ? R_TRUE : R_FALSE;
    case OP_GT:
        return c == C_GT ? R_TRUE : R_FALSE;
    default:
        return c != C_LT ? R_TRUE : R_FALSE;
    }
}

/* --- the schema ---------------------------------------------------------------- */

/* A partition column: its key in partitionValues, its Delta type (NULL
 * when not a primitive), and its slot once the hint reads it. */
typedef struct part_col {
    const char *key;
    const char *delta_type;
    int slot;
} part_col_t;

static int type_fits(vtype_t type, const char *delta)
{
    if (!delta)
        return 0;
    switch (type) {
    case T_BOOL:
        return strcmp(delta, "boolean") == 0;
    case T_INT:
    case T_LONG:
        return strcmp(delta, "byte") == 0 || strcmp(delta, "short") == 0
            || strcmp(delta, "integer") == 0 || strcmp(delta, "long") == 0;
    case T_FLOAT:
        return strcmp(delta, "float") == 0;
    case T_DOUBLE:
        return strcmp(delta, "double") == 0;
    default:
        return strcmp(delta, type_names[type]) == 0;
    }
}

static const char *lower(apr_pool_t *pool, const char *s)
{
    char *copy = apr_pstrdup(pool, s), *c;

    for (c = copy; *c; c++)
        *c = (char)apr_tolower(*c);
    return copy;
}

static const char *physical_name(json_t *field, const char *name, int mapped)
{
    json_t *phys = json_object_get(json_object_get(field, "metadata"),
                                   "delta.columnMapping.physicalName");

    return mapped && json_is_string(phys) ? json_string_value(phys) : name;
}

/* The partition columns by lower-cased name (Delta's names are
 * case-insensitive); empty when the metadata cannot tell. */
static apr_hash_t *partition_columns(apr_pool_t *pool, const char *metadata)
{
    apr_hash_t *cols = apr_hash_make(pool);
    json_t *m = metadata ? json_loads(metadata, 0, NULL) : NULL;
    const char *schema_text = json_string_value(json_object_get(m,
                                                                "schemaString"));
    json_t *schema, *fields, *parts, *mode, *field, *name;
    size_t i, j;
    int mapped;

    schema = schema_text ? json_loads(schema_text, 0, NULL) : NULL;
    fields = json_object_get(schema, "fields");
    parts = json_object_get(m, "partitionColumns");
    mode = json_object_get(json_object_get(m, "configuration"),
                           "delta.columnMapping.mode");
    mapped = json_is_string(mode) && strcmp(json_string_value(mode), "none");
    json_array_foreach(parts, i, name) {
        if (!json_is_string(name))
            continue;
        json_array_foreach(fields, j, field) {
            const char *fname = json_string_value(json_object_get(field,
                                                                  "name"));
            part_col_t *col;

            if (!fname || strcasecmp(fname, json_string_value(name)) != 0)
                continue;
            col = apr_pcalloc(pool, sizeof(*col));
            col->key = apr_pstrdup(pool, physical_name(field, fname, mapped));
            col->delta_type = apr_pstrdup(pool, json_string_value(
                json_object_get(field, "type")));
            col->slot = -1;
            apr_hash_set(cols, lower(pool, fname), APR_HASH_KEY_STRING, col);
            break;
        }
    }
    json_decref(schema);
    json_decref(m);
    return cols;
}

/* --- building the tree --------------------------------------------------------- */

typedef struct build {
    apr_pool_t *pool;
    apr_hash_t *cols;
    apr_array_header_t *keys;   /* const char *, by slot */
    int nodes;
} build_t;

static vtype_t type_named(json_t *j)
{
    const char *s = json_string_value(j);
    int t;

    for (t = 0; s && t < T_NONE; t++)
        if (strcmp(s, type_names[t]) == 0)
            return (vtype_t)t;
    return T_NONE;
}

static int column_slot(build_t *b, part_col_t *col)
{
    if (col->slot < 0) {
        col->slot = b->keys->nelts;
        APR_ARRAY_PUSH(b->keys, const char *) = col->key;
    }
    return col->slot;
}

static int build_leaf(build_t *b, json_t *j, node_t *n)
{
    json_t *text = json_object_get(j, n->op == OP_COLUMN ? "name" : "value");
    part_col_t *col;

    n->type = type_named(json_object_get(j, "valueType"));
    if (n->type == T_NONE || !json_is_string(text))
        return 0;
    if (n->op == OP_LITERAL) {
        /* The literal's text is copied: jansson's goes with its tree. */
        const char *s = apr_pstrmemdup(b->pool, json_string_value(text),
                                       json_string_length(text));

        n->literal_ok = parse_value(n->type, s, json_string_length(text), 1,
                                    &n->literal);
        return 1;
    }
    col = apr_hash_get(b->cols, lower(b->pool, json_string_value(text)),
                       APR_HASH_KEY_STRING);
    n->slot = col ? column_slot(b, col) : -1;
    n->fits = col && type_fits(n->type, col->delta_type);
    return 1;
}

static node_t *constant(apr_pool_t *pool, tri_t value)
{
    node_t *n = apr_pcalloc(pool, sizeof(*n));

    n->op = OP_CONST;
    n->constant = value;
    return n;
}

static int is_leaf(const node_t *n)
{
    return n->op == OP_COLUMN || n->op == OP_LITERAL;
}

/* What is decided without a file: a comparison of leaves that cannot be
 * compared, an isNull of a literal or of no partition column. */
static const node_t *fold(apr_pool_t *pool, node_t *n)
{
    const node_t *l = n->children[0], *r = n->n > 1 ? n->children[1] : NULL;
    int i;

    if (n->op == OP_ISNULL) {
        if (l->op == OP_LITERAL)
            return constant(pool, R_FALSE);
        return l->slot < 0 ? constant(pool, R_UNKNOWN) : n;
    }
    if (n->op < OP_EQ || n->op > OP_GE)
        return n;
    if (l->type != r->type)
        return constant(pool, R_UNKNOWN);
    for (i = 0; i < 2; i++) {
        const node_t *c = n->children[i];

        if (c->op == OP_COLUMN ? c->slot < 0 || !c->fits : !c->literal_ok)
            return constant(pool, R_UNKNOWN);
    }
    return n;
}

/* Children as the op wants them: comparisons and isNull take leaves;
 * and, or and not take predicates, a leaf among them a bool. */
static int children_fit(const node_t *n)
{
    int i;

    for (i = 0; i < n->n; i++) {
        const node_t *c = n->children[i];

        if ((n->op == OP_ISNULL || (n->op >= OP_EQ && n->op <= OP_GE))
            ? !is_leaf(c) : is_leaf(c) && c->type != T_BOOL)
            return 0;
    }
    return 1;
}

static int arity_fits(arity_t arity, size_t n)
{
    switch (arity) {
    case ARITY_LEAF:
        return n == 0;
    case ARITY_UNARY:
        return n == 1;
    case ARITY_BINARY:
        return n == 2;
    default:
        return n >= 2;
    }
}

static const node_t *build_node(build_t *b, json_t *j, int depth);

static int build_children(build_t *b, json_t *children, node_t *n,
                          int depth)
{
    size_t i;

    n->n = (int)json_array_size(children);
    n->children = apr_palloc(b->pool, sizeof(*n->children) * (n->n + 1));
    for (i = 0; i < (size_t)n->n; i++)
        if (!(n->children[i] = build_node(b, json_array_get(children, i),
                                          depth + 1)))
            return 0;
    return children_fit(n);
}

/* The node for `j`, or NULL when the hint is unusable. */
static const node_t *build_node(build_t *b, json_t *j, int depth)
{
    const char *name = json_string_value(json_object_get(j, "op"));
    json_t *children = json_object_get(j, "children");
    node_t *n;
    size_t i;

    if (depth > UC_SHARING_PREDICATE_MAX_DEPTH
        || ++b->nodes > UC_SHARING_PREDICATE_MAX_NODES || !name
        || (children && !json_is_array(children) && !json_is_null(children)))
        return NULL;
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(name, ops[i].name) == 0)
            break;
    if (i == sizeof(ops) / sizeof(ops[0])
        || !arity_fits(ops[i].arity, json_array_size(children)))
        return NULL;
    n = apr_pcalloc(b->pool, sizeof(*n));
    n->op = ops[i].op;
    n->type = T_NONE;
    if (ops[i].arity == ARITY_LEAF)
        return build_leaf(b, j, n) ? n : NULL;
    return build_children(b, children, n, depth) ? fold(b->pool, n) : NULL;
}

uc_error_t *uc_sharing_predicate_parse(apr_pool_t *pool, const char *hint,
                                       const char *metadata_json,
                                       uc_sharing_predicate_t **out)
{
    build_t b = { pool, NULL, NULL, 0 };
    uc_sharing_predicate_t *pred;
    const node_t *root = NULL;
    json_t *j;
    int i;

    *out = NULL;
    if (!hint || strlen(hint) > UC_SHARING_PREDICATE_MAX_TEXT)
        return NULL;
    if (!(j = json_loads(hint, JSON_REJECT_DUPLICATES, NULL)))
        return NULL;
    b.cols = partition_columns(pool, metadata_json);
    b.keys = apr_array_make(pool, 4, sizeof(const char *));
    if (json_is_object(j))
        root = build_node(&b, j, 1);
    json_decref(j);
    if (!root || (is_leaf(root) && root->type != T_BOOL))
        return NULL;
    pred = apr_pcalloc(pool, sizeof(*pred));
    pred->root = root;
    pred->keys = (const char **)b.keys->elts;
    pred->num_keys = b.keys->nelts;
    pred->key_lens = apr_palloc(pool, sizeof(size_t) * (pred->num_keys + 1));
    for (i = 0; i < pred->num_keys; i++)
        pred->key_lens[i] = strlen(pred->keys[i]);
    *out = pred;
    return NULL;
}

/* --- a file's partition values --------------------------------------------- */

/* What a file says of one column the hint reads. */
typedef enum { S_ABSENT, S_NULL, S_TEXT } slot_state_t;

typedef struct slot {
    slot_state_t state;
    const char *p;
    size_t len;
} slot_t;

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static int hex4(const char *p, unsigned *out)
{
    long v = uc_hex4(p);

    if (v < 0)
        return 0;
    *out = (unsigned)v;
    return 1;
}

/* One \u escape of four hex digits (a surrogate pair as one code point)
 * at p, just past the backslash and u; NULL when malformed. */
static const char *unicode_escape(const char *p, unsigned *c)
{
    unsigned lo;

    if (!hex4(p, c))
        return NULL;
    p += 4;
    if (*c >= 0xDC00 && *c <= 0xDFFF)
        return NULL;
    if (*c < 0xD800 || *c > 0xDBFF)
        return p;
    if (p[0] != '\\' || p[1] != 'u' || !hex4(p + 2, &lo) || lo < 0xDC00
        || lo > 0xDFFF)
        return NULL;
    *c = 0x10000 + ((*c - 0xD800) << 10) + (lo - 0xDC00);
    return p + 6;
}

/* Decodes the escaped string from p (past its opening quote) up to
 * `end` (its closing quote) into `o`; returns the length or -1. An
 * escape's output is never longer than the escape. */
static long unescape(const char *p, const char *end, char *o)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char *start = o;
    const char *e;
    unsigned c;

    while (p < end) {
        if (*p != '\\') {
            *o++ = *p++;
        } else if (p[1] == 'u') {
            if (!(p = unicode_escape(p + 2, &c)))
                return -1;
            o += uc_utf8_encode(c, o);
        } else if (p[1] && (e = strchr(from, p[1]))) {
            *o++ = to[e - from];
            p += 2;
        } else {
            return -1;
        }
    }
    return o - start;
}

/* The string whose opening quote is at *pp: its bytes in place, or
 * decoded into `scratch` when escaped. Advances *pp past it. */
static int read_string(apr_pool_t *scratch, const char **pp,
                       const char **s, size_t *len)
{
    const char *start = *pp + 1, *p = start;
    int escaped = 0;
    long n;
    char *buf;

    for (; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return 0;
        if (*p == '\\') {
            escaped = 1;
            if (!*++p)
                return 0;
        }
    }
    *pp = p + 1;
    if (!escaped) {
        *s = start;
        *len = (size_t)(p - start);
        return 1;
    }
    buf = apr_palloc(scratch, (apr_size_t)(p - start) + 1);
    if ((n = unescape(start, p, buf)) < 0)
        return 0;
    *s = buf;
    *len = (size_t)n;
    return 1;
}

static int key_slot(const uc_sharing_predicate_t *pred, const char *key,
                    size_t len)
{
    int i;

    for (i = 0; i < pred->num_keys; i++)
        if (pred->key_lens[i] == len && memcmp(pred->keys[i], key, len) == 0)
            return i;
    return -1;
}

/* One "key":value member at p into its slot; returns what follows it,
 * or NULL when malformed (a value other than a string or null among
 * them: partition values are only these). */
static const char *scan_member(const uc_sharing_predicate_t *pred,
                               apr_pool_t *scratch, const char *p,
                               slot_t *slots)
{
    const char *key, *val = NULL;
    size_t key_len, val_len = 0;
    int slot;

    if (*p != '"' || !read_string(scratch, &p, &key, &key_len))
        return NULL;
    p = skip_ws(p);
    if (*p++ != ':')
        return NULL;
    p = skip_ws(p);
    if (*p == '"') {
        if (!read_string(scratch, &p, &val, &val_len))
            return NULL;
    } else if (strncmp(p, "null", 4) == 0) {
        p += 4;
    } else {
        return NULL;
    }
    if ((slot = key_slot(pred, key, key_len)) >= 0) {
        /* "" is null too, as Delta serializes partition values. */
        slots[slot].state = val && val_len ? S_TEXT : S_NULL;
        slots[slot].p = val;
        slots[slot].len = val_len;
    }
    return skip_ws(p);
}

static int scan_values(const uc_sharing_predicate_t *pred,
                       apr_pool_t *scratch, const char *text, slot_t *slots)
{
    const char *p = skip_ws(text);

    if (*p++ != '{')
        return 0;
    p = skip_ws(p);
    if (*p == '}')
        return 1;
    for (;;) {
        if (!(p = scan_member(pred, scratch, p, slots)))
            return 0;
        if (*p == '}')
            return 1;
        if (*p++ != ',')
            return 0;
        p = skip_ws(p);
    }
}

/* --- evaluation ----------------------------------------------------------- */

/* A leaf's value in this file: 1 when known, 0 when null or unknown. */
static int leaf_value(const node_t *leaf, const slot_t *slots, value_t *v)
{
    const slot_t *s;

    if (leaf->op == OP_LITERAL) {
        *v = leaf->literal;
        return leaf->literal_ok;
    }
    s = &slots[leaf->slot];
    return s->state == S_TEXT && parse_value(leaf->type, s->p, s->len, 0, v);
}

static tri_t eval(const node_t *n, const slot_t *slots);

static tri_t eval_logic(const node_t *n, const slot_t *slots)
{
    /* `and` stops at false, `or` at true; unknown otherwise wins. */
    tri_t stop = n->op == OP_AND ? R_FALSE : R_TRUE, result = !stop;
    int i;

    for (i = 0; i < n->n; i++) {
        tri_t r = eval(n->children[i], slots);

        if (r == stop)
            return stop;
        if (r == R_UNKNOWN)
            result = R_UNKNOWN;
    }
    return result;
}

static tri_t eval_bool_leaf(const node_t *n, const slot_t *slots)
{
    value_t v;

    if (n->op == OP_COLUMN && (n->slot < 0 || !n->fits))
        return R_UNKNOWN;
    return leaf_value(n, slots, &v) ? (v.i ? R_TRUE : R_FALSE) : R_UNKNOWN;
}

static tri_t eval_compare(const node_t *n, const slot_t *slots)
{
    value_t a, b;

    if (!leaf_value(n->children[0], slots, &a)
        || !leaf_value(n->children[1], slots, &b))
        return R_UNKNOWN;
    return cmp_result(n->op, compare(n->children[0]->type, &a, &b));
}

static tri_t eval(const node_t *n, const slot_t *slots)
{
    tri_t r;

    switch (n->op) {
    case OP_AND:
    case OP_OR:
        return eval_logic(n, slots);
    case OP_NOT:
        r = eval(n->children[0], slots);
        return r == R_UNKNOWN ? R_UNKNOWN : r == R_TRUE ? R_FALSE : R_TRUE;
    case OP_ISNULL:
        /* fold left only partition columns here. */
        switch (slots[n->children[0]->slot].state) {
        case S_NULL:
            return R_TRUE;
        case S_TEXT:
            return R_FALSE;
        default:
            return R_UNKNOWN;
        }
    case OP_COLUMN:
    case OP_LITERAL:
        return eval_bool_leaf(n, slots);
    case OP_CONST:
        return n->constant;
    default:
        return eval_compare(n, slots);
    }
}

#define LOCAL_SLOTS 16

int uc_sharing_predicate_keeps(const uc_sharing_predicate_t *pred,
                               apr_pool_t *scratch,
                               const char *partition_values)
{
    slot_t local[LOCAL_SLOTS], *slots = local;

    if (!pred)
        return 1;
    if (pred->num_keys > LOCAL_SLOTS)
        slots = apr_palloc(scratch, sizeof(*slots) * pred->num_keys);
    memset(slots, 0, sizeof(*slots) * (size_t)pred->num_keys);
    if (!scan_values(pred, scratch, partition_values ? partition_values : "",
                     slots))
        return 1;
    return eval(pred->root, slots) != R_FALSE;
}
