/* SPDX-License-Identifier: Apache-2.0 */
/* Where an operation's answer goes. The operation writes JSON into
 * out->jw; the answer is either buffered (sent in one write with a
 * Content-Length once the operation is done: every catalog route) or
 * streamed: NDJSON lines leave for the client as soon as `flush_at` bytes
 * of them are held, so an answer of any length holds about that much in
 * memory (the Delta Sharing query and changes routes).
 *
 * The rule for errors: before the first byte has left, an error replaces
 * the answer (what was written is dropped, the error is rendered with its
 * status as usual). After it, the status line is gone: the sink's `abort`
 * ends the response as broken (httpd: no last chunk, connection closed) so
 * that no client takes a truncated stream for a complete one, and the
 * error goes to the log only. */
#ifndef UC_OUT_H
#define UC_OUT_H

#include <apr_pools.h>

#include "../core/uc_error.h"
#include "../core/uc_jw.h"

typedef struct uc_out_sink {
    /* Passes `len` bytes to the client and flushes them; the first call
     * sends the status line and headers. APR_SUCCESS, or why not (the
     * client went away). The bytes are the writer's: copy them. */
    apr_status_t (*send)(void *baton, const char *data, apr_size_t len);
    /* Ends a response whose first bytes were sent as failed. */
    void (*abort)(void *baton, const uc_error_t *err);
    /* Whether the client can take bytes now, without `send` waiting for
     * it to read; NULL: always. */
    int (*ready)(void *baton);
} uc_out_sink_t;

typedef struct uc_out {
    uc_jw_t *jw;                 /* what the operation writes into */
    const uc_out_sink_t *sink;   /* NULL: buffered */
    void *baton;
    apr_size_t flush_at;
    apr_off_t sent;              /* bytes the sink took */
    apr_uint64_t lines;          /* lines ended */
    uc_error_t *broken;          /* the sink's failure: nothing more goes */
} uc_out_t;

/* Streams pass lines on in blocks of about this many bytes. */
#define UC_OUT_FLUSH_AT (64 * 1024)

uc_out_t *uc_out_buffered(apr_pool_t *pool, apr_size_t initial);
uc_out_t *uc_out_streaming(apr_pool_t *pool, const uc_out_sink_t *sink,
                           void *baton, apr_size_t flush_at);

/* Ends the line written into out->jw since the previous one. Streaming,
 * the lines held go to the client once they reach `flush_at` bytes; an
 * error means the client is gone and the operation should stop. */
uc_error_t *uc_out_end_line(uc_out_t *out);

/* Lines made elsewhere (`len` bytes of `lines` whole lines, each ending
 * in a newline), written after those held: held with them while they are
 * short of `flush_at`, else passed on straight from `text` after them. */
uc_error_t *uc_out_put_lines(uc_out_t *out, const char *text,
                             apr_size_t len, apr_size_t lines);

/* Whether what is passed on now would leave without waiting for the
 * client: always when buffered, or when the sink cannot tell. */
int uc_out_ready(const uc_out_t *out);

/* Streaming: passes on every line held now (a client waiting on a slow
 * producer sees progress). Buffered: nothing. */
uc_error_t *uc_out_flush(uc_out_t *out);

/* True once bytes have gone to the client: an error can no longer be the
 * answer. */
int uc_out_committed(const uc_out_t *out);

/* The end of the operation, which returned `err`. Returns the error still
 * to be rendered as the answer: `err` while nothing was sent (and what was
 * written is dropped), NULL when there was none or when the stream was
 * aborted because of it. Without an error a stream sends what it holds. */
uc_error_t *uc_out_finish(uc_out_t *out, uc_error_t *err);

#endif
