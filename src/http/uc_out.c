/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_out.h"

uc_out_t *uc_out_buffered(apr_pool_t *pool, apr_size_t initial)
{
    uc_out_t *out = apr_pcalloc(pool, sizeof(*out));

    out->jw = uc_jw_make(pool, initial);
    return out;
}

uc_out_t *uc_out_streaming(apr_pool_t *pool, const uc_out_sink_t *sink,
                           void *baton, apr_size_t flush_at)
{
    uc_out_t *out = apr_pcalloc(pool, sizeof(*out));

    /* One block plus the line that crosses the mark: the buffer does not
     * grow again once the first lines have been seen. */
    out->jw = uc_jw_make(pool, flush_at + flush_at / 4);
    out->sink = sink;
    out->baton = baton;
    out->flush_at = flush_at;
    return out;
}

static uc_error_t *client_gone(apr_pool_t *pool)
{
    return uc_error_make(pool, UC_E_CLIENT_GONE,
                         "The client stopped reading the response.");
}

static uc_error_t *send_text(uc_out_t *out, const char *text,
                             apr_size_t len)
{
    if (out->sink->send(out->baton, text, len) != APR_SUCCESS)
        return out->broken = client_gone(out->jw->pool);
    out->sent += (apr_off_t)len;
    return NULL;
}

/* Hands what is held to the sink and starts the buffer over, keeping its
 * memory. */
static uc_error_t *pass_on(uc_out_t *out)
{
    uc_jw_t *jw = out->jw;
    uc_error_t *err;

    if (out->broken)
        return out->broken;
    if (!out->sink || !jw->len)
        return NULL;
    if ((err = send_text(out, jw->buf, jw->len)))
        return err;
    uc_jw_reset(jw);
    return NULL;
}

uc_error_t *uc_out_end_line(uc_out_t *out)
{
    if (out->broken)
        return out->broken;
    uc_jw_newline(out->jw);
    out->lines++;
    return out->sink && out->jw->len >= out->flush_at ? pass_on(out) : NULL;
}

uc_error_t *uc_out_put_lines(uc_out_t *out, const char *text,
                             apr_size_t len, apr_size_t lines)
{
    uc_error_t *err;

    if (out->broken)
        return out->broken;
    out->lines += lines;
    if (!out->sink || out->jw->len + len < out->flush_at) {
        uc_jw_lines(out->jw, text, len);
        return NULL;
    }
    if ((err = pass_on(out)))
        return err;
    return len ? send_text(out, text, len) : NULL;
}

int uc_out_ready(const uc_out_t *out)
{
    return !out->sink || !out->sink->ready || out->sink->ready(out->baton);
}

uc_error_t *uc_out_flush(uc_out_t *out)
{
    return pass_on(out);
}

int uc_out_committed(const uc_out_t *out)
{
    return out->sent > 0 || out->broken != NULL;
}

uc_error_t *uc_out_finish(uc_out_t *out, uc_error_t *err)
{
    if (!err) {
        err = pass_on(out);
        if (!err || !uc_out_committed(out))
            return err;
    }
    if (!uc_out_committed(out)) {
        uc_jw_reset(out->jw);
        return err;
    }
    out->sink->abort(out->baton, err);
    return NULL;
}
