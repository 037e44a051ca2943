/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_thrift.h"

#include <stdint.h>

void uc_thrift_init(uc_thrift_t *t, const void *data, apr_size_t len)
{
    t->p = data;
    t->end = t->p + len;
    t->failed = 0;
    t->depth = 0;
}

static apr_uint64_t read_varint(uc_thrift_t *t)
{
    apr_uint64_t value = 0;
    int shift = 0;

    while (!t->failed) {
        unsigned char b;

        if (t->p >= t->end || shift > 63) {
            t->failed = 1;
            break;
        }
        b = *t->p++;
        value |= (apr_uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return value;
        shift += 7;
    }
    return 0;
}

static apr_int64_t zigzag(apr_uint64_t v)
{
    return (apr_int64_t)(v >> 1) ^ -(apr_int64_t)(v & 1);
}

void uc_thrift_struct_begin(uc_thrift_t *t, uc_thrift_struct_t *s)
{
    s->last_id = 0;
    if (++t->depth > UC_THRIFT_MAX_DEPTH)
        t->failed = 1;
}

void uc_thrift_struct_end(uc_thrift_t *t)
{
    t->depth--;
}

int uc_thrift_field(uc_thrift_t *t, uc_thrift_struct_t *s, int *id)
{
    unsigned char b;
    int type, delta;

    if (t->failed)
        return UC_THRIFT_STOP;
    if (t->p >= t->end) {
        t->failed = 1;
        return UC_THRIFT_STOP;
    }
    b = *t->p++;
    if (b == 0)
        return UC_THRIFT_STOP;
    type = b & 0x0f;
    delta = b >> 4;
    if (type == UC_THRIFT_STOP) {
        /* A field id without a type: not a STOP, not a field. */
        t->failed = 1;
        return UC_THRIFT_STOP;
    }
    /* Field ids are i16s; one outside their range is hostile. */
    if (delta)
        s->last_id += delta;
    else {
        apr_int64_t id = zigzag(read_varint(t));

        if (id < INT16_MIN || id > INT16_MAX)
            t->failed = 1;
        s->last_id = (int)id;
    }
    if (s->last_id > INT16_MAX)
        t->failed = 1;
    if (type > UC_THRIFT_UUID)
        t->failed = 1;
    *id = s->last_id;
    return t->failed ? UC_THRIFT_STOP : type;
}

apr_int64_t uc_thrift_int(uc_thrift_t *t, int type)
{
    if (type == UC_THRIFT_I8) {
        if (t->p >= t->end) {
            t->failed = 1;
            return 0;
        }
        return (signed char)*t->p++;
    }
    if (type == UC_THRIFT_I16 || type == UC_THRIFT_I32
        || type == UC_THRIFT_I64)
        return zigzag(read_varint(t));
    /* A field of an unexpected type: consume it, report zero. */
    uc_thrift_skip(t, type);
    return 0;
}

int uc_thrift_bool(int type)
{
    return type == UC_THRIFT_TRUE;
}

const char *uc_thrift_binary(uc_thrift_t *t, apr_size_t *len)
{
    apr_uint64_t n = read_varint(t);
    const char *s;

    if (t->failed || n > (apr_uint64_t)(t->end - t->p)) {
        t->failed = 1;
        *len = 0;
        return "";
    }
    s = (const char *)t->p;
    t->p += n;
    *len = (apr_size_t)n;
    return s;
}

apr_size_t uc_thrift_list(uc_thrift_t *t, int *elem_type)
{
    unsigned char b;
    apr_uint64_t n;

    if (t->failed || t->p >= t->end) {
        t->failed = 1;
        *elem_type = UC_THRIFT_STOP;
        return 0;
    }
    b = *t->p++;
    *elem_type = b & 0x0f;
    n = b >> 4;
    if (n == 15)
        n = read_varint(t);
    if (t->failed || n > (apr_uint64_t)(t->end - t->p)) {
        t->failed = 1;
        return 0;
    }
    return (apr_size_t)n;
}

int uc_thrift_list_bool(uc_thrift_t *t)
{
    if (t->p >= t->end) {
        t->failed = 1;
        return 0;
    }
    return *t->p++ == UC_THRIFT_TRUE;
}

/* Booleans inside lists and maps take a byte each, unlike fields. */
static void skip_element(uc_thrift_t *t, int type)
{
    if (type == UC_THRIFT_TRUE || type == UC_THRIFT_FALSE)
        uc_thrift_list_bool(t);
    else
        uc_thrift_skip(t, type);
}

void uc_thrift_skip(uc_thrift_t *t, int type)
{
    apr_size_t n, i, len;
    int elem, key;

    if (t->failed)
        return;
    switch (type) {
    case UC_THRIFT_TRUE:
    case UC_THRIFT_FALSE:
        return;
    case UC_THRIFT_I8:
        uc_thrift_int(t, type);
        return;
    case UC_THRIFT_I16:
    case UC_THRIFT_I32:
    case UC_THRIFT_I64:
        read_varint(t);
        return;
    case UC_THRIFT_DOUBLE:
    case UC_THRIFT_UUID:
        len = type == UC_THRIFT_DOUBLE ? 8 : 16;
        if ((apr_size_t)(t->end - t->p) < len)
            t->failed = 1;
        else
            t->p += len;
        return;
    case UC_THRIFT_BINARY:
        uc_thrift_binary(t, &len);
        return;
    case UC_THRIFT_LIST:
    case UC_THRIFT_SET:
        n = uc_thrift_list(t, &elem);
        if (++t->depth > UC_THRIFT_MAX_DEPTH)
            t->failed = 1;
        for (i = 0; i < n && !t->failed; i++)
            skip_element(t, elem);
        t->depth--;
        return;
    case UC_THRIFT_MAP:
        n = (apr_size_t)read_varint(t);
        if (n == 0)
            return;
        if (t->p >= t->end || n > (apr_size_t)(t->end - t->p)) {
            t->failed = 1;
            return;
        }
        key = *t->p >> 4;
        elem = *t->p & 0x0f;
        t->p++;
        if (++t->depth > UC_THRIFT_MAX_DEPTH)
            t->failed = 1;
        for (i = 0; i < n && !t->failed; i++) {
            skip_element(t, key);
            skip_element(t, elem);
        }
        t->depth--;
        return;
    case UC_THRIFT_STRUCT: {
        uc_thrift_struct_t s;
        int id, ftype;

        uc_thrift_struct_begin(t, &s);
        while ((ftype = uc_thrift_field(t, &s, &id)) != UC_THRIFT_STOP)
            uc_thrift_skip(t, ftype);
        uc_thrift_struct_end(t);
        return;
    }
    default:
        t->failed = 1;
    }
}
