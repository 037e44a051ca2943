/* SPDX-License-Identifier: Apache-2.0 */
/* The response writers: buffered answers, streamed NDJSON lines and their
 * flushes, memory that stays bounded over a long stream, the rule for
 * errors before and after the first byte, and whether a send would wait
 * for the client. */
#include "uc_test.h"

#include <jansson.h>

#include "../../src/http/uc_out.h"

/* A client as the sink sees it: what it received, in how many sends, and
 * whether the response was aborted. */
typedef struct client {
    apr_pool_t *pool;
    char *received;
    apr_size_t len, cap;
    int sends;
    apr_size_t largest_send;
    int aborted;
    const uc_error_t *abort_err;
    int fail_after;              /* sends accepted before it goes away */
    int reading;                 /* whether it takes bytes now */
} client_t;

static apr_status_t client_send(void *baton, const char *data,
                                apr_size_t len)
{
    client_t *c = baton;

    if (c->fail_after >= 0 && c->sends >= c->fail_after)
        return APR_ECONNRESET;
    if (c->len + len > c->cap) {
        char *grown;
        while (c->len + len > c->cap)
            c->cap = c->cap ? c->cap * 2 : 4096;
        grown = apr_palloc(c->pool, c->cap);
        if (c->len)
            memcpy(grown, c->received, c->len);
        c->received = grown;
    }
    memcpy(c->received + c->len, data, len);
    c->len += len;
    c->sends++;
    if (len > c->largest_send)
        c->largest_send = len;
    return APR_SUCCESS;
}

static void client_abort(void *baton, const uc_error_t *err)
{
    client_t *c = baton;

    c->aborted++;
    c->abort_err = err;
}

static int client_ready(void *baton)
{
    return ((client_t *)baton)->reading;
}

static const uc_out_sink_t sink = { client_send, client_abort, client_ready };

static client_t *client_make(apr_pool_t *pool)
{
    client_t *c = apr_pcalloc(pool, sizeof(*c));

    c->pool = pool;
    c->fail_after = -1;
    return c;
}

/* {"line":i,"pad":"..."} */
static void write_line(uc_out_t *out, int i)
{
    uc_jw_begin_object(out->jw);
    uc_jw_key(out->jw, "line");
    uc_jw_int(out->jw, i);
    uc_jw_field_string(out->jw, "pad", "0123456789abcdef0123456789abcdef"
                                       "0123456789abcdef0123456789abcdef");
    uc_jw_end_object(out->jw);
}

/* Every line of `text` is a JSON object whose "line" counts from 0. */
static void assert_lines(const char *text, apr_size_t len, int expected)
{
    const char *p = text, *end = text + len;
    int n = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        json_error_t jerr;
        json_t *v;

        if (!nl)
            fail_msg("line %d does not end in a newline", n);
        v = json_loadb(p, (size_t)(nl - p), 0, &jerr);
        if (!v || json_integer_value(json_object_get(v, "line")) != n)
            fail_msg("line %d is not what was written: %.*s", n,
                     (int)(nl - p), p);
        json_decref(v);
        n++;
        p = nl + 1;
    }
    assert_int_equal(n, expected);
}

static int count_lines(const client_t *c)
{
    apr_size_t i;
    int n = 0;

    for (i = 0; i < c->len; i++)
        n += c->received[i] == '\n';
    return n;
}

static void test_buffered_lines_stay_in_the_buffer(void **state)
{
    uc_out_t *out = uc_out_buffered(*state, 16);
    int i;

    for (i = 0; i < 3; i++) {
        write_line(out, i);
        assert_null(uc_out_end_line(out));
    }
    assert_null(uc_out_flush(out));
    assert_false(uc_out_committed(out));
    assert_null(uc_out_finish(out, NULL));
    assert_lines(out->jw->buf, out->jw->len, 3);
    assert_int_equal(out->lines, 3);
}

static void test_buffered_error_replaces_the_answer(void **state)
{
    uc_out_t *out = uc_out_buffered(*state, 16);
    uc_error_t *err = uc_error_invalid(*state, "bad");

    write_line(out, 0);
    assert_null(uc_out_end_line(out));
    assert_ptr_equal(uc_out_finish(out, err), err);
    assert_int_equal(out->jw->len, 0);
}

static void test_short_stream_goes_in_one_send_at_the_end(void **state)
{
    client_t *c = client_make(*state);
    uc_out_t *out = uc_out_streaming(*state, &sink, c, 4096);
    int i;

    for (i = 0; i < 10; i++) {
        write_line(out, i);
        assert_null(uc_out_end_line(out));
    }
    assert_int_equal(c->sends, 0);
    assert_null(uc_out_finish(out, NULL));
    assert_int_equal(c->sends, 1);
    assert_int_equal(c->aborted, 0);
    assert_lines(c->received, c->len, 10);
}

static void test_flush_passes_on_what_is_held(void **state)
{
    client_t *c = client_make(*state);
    uc_out_t *out = uc_out_streaming(*state, &sink, c, 1 << 20);

    write_line(out, 0);
    assert_null(uc_out_end_line(out));
    assert_null(uc_out_flush(out));
    assert_int_equal(c->sends, 1);
    assert_true(uc_out_committed(out));
    /* Nothing held: no empty send. */
    assert_null(uc_out_flush(out));
    assert_int_equal(c->sends, 1);
    write_line(out, 1);
    assert_null(uc_out_end_line(out));
    assert_null(uc_out_finish(out, NULL));
    assert_int_equal(c->sends, 2);
    assert_lines(c->received, c->len, 2);
}

/* Lines rendered elsewhere: held with the others while short of a
 * block, else sent straight after what is held, in order. */
static void test_lines_made_elsewhere(void **state)
{
    client_t *c = client_make(*state);
    uc_out_t *out = uc_out_streaming(*state, &sink, c, 4096);
    uc_jw_t *made = uc_jw_make(*state, 256);
    uc_out_t *other = uc_out_buffered(*state, 256);
    int i;

    write_line(out, 0);
    assert_null(uc_out_end_line(out));
    for (i = 1; i < 3; i++) {
        write_line(other, i);
        assert_null(uc_out_end_line(other));
    }
    assert_null(uc_out_put_lines(out, other->jw->buf, other->jw->len, 2));
    assert_int_equal(c->sends, 0);
    assert_int_equal(out->lines, 3);
    uc_jw_reset(other->jw);
    for (i = 3; i < 100; i++) {
        write_line(other, i);
        assert_null(uc_out_end_line(other));
    }
    assert_true(other->jw->len > 4096);
    uc_jw_lines(made, other->jw->buf, other->jw->len);
    assert_null(uc_out_put_lines(out, made->buf, made->len, 97));
    /* What was held, then the block itself, without a copy. */
    assert_int_equal(c->sends, 2);
    assert_int_equal(out->jw->len, 0);
    write_line(out, 100);
    assert_null(uc_out_end_line(out));
    assert_null(uc_out_finish(out, NULL));
    assert_int_equal(out->lines, 101);
    assert_lines(c->received, c->len, 101);
    /* Buffered, they are simply kept. */
    other = uc_out_buffered(*state, 256);
    write_line(other, 0);
    assert_null(uc_out_end_line(other));
    i = (int)other->jw->len;
    assert_null(uc_out_put_lines(other, made->buf, made->len, 97));
    assert_int_equal(other->lines, 98);
    assert_int_equal(other->jw->len, (apr_size_t)i + made->len);
    assert_memory_equal(other->jw->buf + i, made->buf, made->len);
}

/* 10^5 lines leave in blocks of about flush_at bytes, each ending on a
 * line, and the writer's buffer never grows past its first size. */
static void test_long_stream_holds_one_block(void **state)
{
    enum { LINES = 100000, FLUSH_AT = 16384 };
    client_t *c = client_make(*state);
    uc_out_t *out = uc_out_streaming(*state, &sink, c, FLUSH_AT);
    apr_size_t first_cap = out->jw->cap;
    int i;

    for (i = 0; i < LINES; i++) {
        write_line(out, i);
        assert_null(uc_out_end_line(out));
        if (out->jw->len >= FLUSH_AT)
            fail_msg("line %d: %lu bytes held", i,
                     (unsigned long)out->jw->len);
    }
    assert_null(uc_out_finish(out, NULL));
    assert_int_equal(out->jw->cap, first_cap);
    assert_true(c->largest_send < FLUSH_AT + 200);
    /* Every send but the last carries at least one block. */
    assert_true((apr_size_t)c->sends <= c->len / FLUSH_AT + 1);
    assert_true((apr_size_t)c->sends >= c->len / (FLUSH_AT + 200));
    assert_int_equal((apr_size_t)out->sent, c->len);
    assert_int_equal(out->lines, LINES);
    assert_lines(c->received, c->len, LINES);
}

static void test_error_before_the_first_byte_is_the_answer(void **state)
{
    client_t *c = client_make(*state);
    uc_out_t *out = uc_out_streaming(*state, &sink, c, 4096);
    uc_error_t *err = uc_error_make(*state, UC_E_TABLE_NOT_FOUND, "gone");

    write_line(out, 0);
    assert_null(uc_out_end_line(out));
    assert_ptr_equal(uc_out_finish(out, err), err);
    assert_int_equal(c->sends, 0);
    assert_int_equal(c->aborted, 0);
    assert_int_equal(out->jw->len, 0);
}

static void test_error_after_the_first_byte_aborts(void **state)
{
    client_t *c = client_make(*state);
    uc_out_t *out = uc_out_streaming(*state, &sink, c, 256);
    uc_error_t *err = uc_error_internal(*state);
    int i;

    for (i = 0; i < 10; i++) {
        write_line(out, i);
        assert_null(uc_out_end_line(out));
    }
    assert_true(uc_out_committed(out));
    write_line(out, 10);          /* half a line when the failure comes */
    assert_null(uc_out_finish(out, err));
    assert_int_equal(c->aborted, 1);
    assert_ptr_equal(c->abort_err, err);
    /* What the client got is whole lines only, and not the last ones. */
    assert_true(count_lines(c) > 0 && count_lines(c) < 10);
    assert_lines(c->received, c->len, count_lines(c));
}

/* The client going away stops the producer: every later line is refused
 * with the same error and nothing more is sent. */
static void test_client_gone_stops_the_stream(void **state)
{
    client_t *c = client_make(*state);
    uc_out_t *out = uc_out_streaming(*state, &sink, c, 256);
    uc_error_t *err = NULL;
    int i;

    c->fail_after = 1;
    for (i = 0; i < 100 && !err; i++) {
        write_line(out, i);
        err = uc_out_end_line(out);
    }
    assert_non_null(err);
    assert_string_equal(err->code, "CLIENT_GONE");
    assert_true(i < 10);
    write_line(out, i);
    assert_ptr_equal(uc_out_end_line(out), err);
    assert_ptr_equal(uc_out_flush(out), err);
    assert_int_equal(c->sends, 1);
    assert_null(uc_out_finish(out, err));
    assert_int_equal(c->aborted, 1);
}

/* Whether a send would wait is the sink's to say; a buffered answer, or
 * a sink that cannot tell, never waits. */
static void test_ready(void **state)
{
    apr_pool_t *pool = *state;
    client_t *c = client_make(pool);
    uc_out_t *out = uc_out_streaming(pool, &sink, c, 1024);
    static const uc_out_sink_t mute = { client_send, client_abort, NULL };

    assert_false(uc_out_ready(out));
    c->reading = 1;
    assert_true(uc_out_ready(out));
    c->reading = 0;
    assert_true(uc_out_ready(uc_out_streaming(pool, &mute, c, 1024)));
    assert_true(uc_out_ready(uc_out_buffered(pool, 64)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UC_POOL_TEST(test_buffered_lines_stay_in_the_buffer),
        UC_POOL_TEST(test_buffered_error_replaces_the_answer),
        UC_POOL_TEST(test_short_stream_goes_in_one_send_at_the_end),
        UC_POOL_TEST(test_flush_passes_on_what_is_held),
        UC_POOL_TEST(test_lines_made_elsewhere),
        UC_POOL_TEST(test_long_stream_holds_one_block),
        UC_POOL_TEST(test_error_before_the_first_byte_is_the_answer),
        UC_POOL_TEST(test_error_after_the_first_byte_aborts),
        UC_POOL_TEST(test_client_gone_stops_the_stream),
        UC_POOL_TEST(test_ready),
    };
    int rc;

    uc_test_init();
    rc = cmocka_run_group_tests_name("out", tests, NULL, NULL);
    uc_test_fini();
    return rc;
}
