/* SPDX-License-Identifier: Apache-2.0 */
/* A snapshot's file lines: those the share's partitions and the query's
 * hints keep, up to maxFiles or limitHint's rows, one after the other or,
 * for a long answer of all of them, rendered by several threads while the
 * request's thread sends them in order (core/uc_in_order.h). The files a
 * filter keeps are found a partition at a time and fetched ahead. */
#include "uc_shared.h"

#include <string.h>

#include "../core/uc_in_order.h"
#include "../core/uc_json.h"
#include "../core/uc_metrics.h"
#include "../http/uc_out.h"

/* With a filter, the files it keeps, judged a partition at a time (one
 * bit per file of the snapshot); NULL without a filter, or when the
 * snapshot's files cannot be grouped (then each file is judged). */
static apr_uint64_t *kept_files(const uc_sharing_filter_t *f,
                                const uc_sharing_query_t *q, apr_pool_t *pool,
                                const uc_delta_snapshot_t *snap)
{
    const uc_delta_partitions_t *parts;
    apr_uint64_t *kept;
    apr_size_t g, k;

    if ((!f->partitions && !q->predicate) ||
        !(parts = uc_delta_snapshot_partitions(snap)))
        return NULL;
    kept = apr_pcalloc(pool, sizeof(apr_uint64_t)
                             * (snap->num_files / 64 + 1));
    for (g = 0; g < parts->num_groups; g++) {
        const uc_delta_partition_group_t *group = &parts->groups[g];

        if (!uc_sharing_filter_keeps(f, q, pool, group->values))
            continue;
        for (k = 0; k < group->count; k++)
            kept[group->files[k] / 64] |=
                (apr_uint64_t)1 << (group->files[k] % 64);
    }
    return kept;
}

/* The first file from `i` on that `kept` keeps (every one without it);
 * `n` when none is left. */
static apr_size_t next_kept(const apr_uint64_t *kept, apr_size_t n,
                            apr_size_t i)
{
    apr_uint64_t word;

    if (!kept || i >= n)
        return i;
    word = kept[i / 64] >> (i % 64);
    if (word)
        return i + (apr_size_t)__builtin_ctzll(word);
    for (i = (i / 64 + 1) * 64; i < n; i += 64)
        if (kept[i / 64])
            return i + (apr_size_t)__builtin_ctzll(kept[i / 64]);
    return n;
}

/* What every thread renders a snapshot's file lines with. */
typedef struct files_job {
    uc_shared_t *s;
    const uc_sharing_query_t *q;
    const uc_sharing_filter_t *filter;
    const apr_uint64_t *kept;      /* NULL: each file is judged */
    uc_sharing_format_t format;
    const uc_sharing_caps_t *caps;
    const uc_delta_snapshot_t *snap;
    const uc_sharing_signer_t *signer;
    apr_int64_t version, timestamp;
    apr_size_t first;              /* the span's first file */
    const apr_size_t *starts;      /* rendered together: each segment's
                                    * first file, then the end */
} files_job_t;

/* One thread's stats reader, the pool its lines use, and its signer:
 * the job's, counting the URLs it signs in `signed_urls` when the thread
 * renders together with others (renderer_count adds them up). */
typedef struct files_renderer {
    const files_job_t *job;
    uc_delta_stats_reader_t *reader;
    apr_pool_t *lines;
    apr_size_t visited;
    uc_sharing_signer_t signer;
    apr_uint64_t signed_urls;
} files_renderer_t;

static files_renderer_t *renderer_make(apr_pool_t *pool,
                                       const files_job_t *job, int together)
{
    files_renderer_t *r = apr_pcalloc(pool, sizeof(*r));

    r->job = job;
    r->reader = uc_delta_stats_reader_make(pool, job->s->call->snapshots);
    apr_pool_create(&r->lines, pool);
    r->signer = *job->signer;
    if (together)
        r->signer.tally = &r->signed_urls;
    return r;
}

static void renderer_count(files_renderer_t *r)
{
    uc_metrics_add(r->signer.metrics, UC_M_SIGNED_URLS, r->signed_urls);
    r->signed_urls = 0;
}

/* Gives the lines' memory back once UC_SHARING_LINES_PER_POOL files have
 * been visited, before the next `n` are. */
static void visit(files_renderer_t *r, apr_size_t n)
{
    r->visited += n;
    if (r->visited >= UC_SHARING_LINES_PER_POOL) {
        apr_pool_clear(r->lines);
        r->visited = 0;
    }
}

/* The line of file `i` when the filter keeps it (*written 1), its URL
 * signed already unless `url` is NULL. */
static uc_error_t *render_file(files_renderer_t *r, uc_jw_t *jw, apr_size_t i,
                               const uc_sharing_url_t *url, int *written)
{
    const files_job_t *job = r->job;
    const uc_delta_file_t *file = &job->snap->files[i];
    uc_delta_stats_text_t stats;
    uc_error_t *err;

    *written = 0;
    if (!job->kept && !uc_sharing_filter_keeps(job->filter, job->q, r->lines,
                                               file->partition_values))
        return NULL;
    if ((err = uc_delta_file_stats_text(r->reader, file, &stats)) ||
        (err = uc_sharing_write_snapshot_file(jw, r->lines, job->format,
                                              job->caps, job->snap, i,
                                              &stats, url, &r->signer,
                                              job->version, job->timestamp)))
        return err;
    *written = 1;
    return NULL;
}

/* Adds the rows file `i` holds, for limitHint: numRecords of its stats
 * (0 when they do not say) less those its deletion vector deletes. */
static uc_error_t *count_records(files_renderer_t *r, apr_size_t i,
                                 apr_int64_t *records)
{
    const uc_delta_file_t *file = &r->job->snap->files[i];
    const char *stats, *dv = file->extras ? file->extras->deletion_vector
                                          : NULL;
    json_t *j, *d;
    uc_error_t *err;

    if ((err = uc_delta_file_stats(r->reader, file, &stats)))
        return err;
    j = stats ? uc_json_own(r->lines, json_loads(stats, 0, NULL)) : NULL;
    d = dv ? uc_json_own(r->lines, json_loads(dv, 0, NULL)) : NULL;
    *records += json_integer_value(json_object_get(j, "numRecords")) -
                json_integer_value(json_object_get(d, "cardinality"));
    return NULL;
}

/* The files a filter keeps lie far apart in the snapshot, each a few
 * cache misses: while one is rendered, the next three are fetched in
 * stages (uc_delta_prefetch_file). */
#define PREFETCH_DISTANCE 3

static void prefetch_ahead(const uc_delta_snapshot_t *snap,
                           const apr_size_t *ahead)
{
    int k;

    for (k = 0; k < PREFETCH_DISTANCE; k++)
        uc_delta_prefetch_file(snap, ahead[k], k);
}

/* The first file from `from`, the PREFETCH_DISTANCE after it ahead. */
static apr_size_t start_ahead(const apr_uint64_t *kept, apr_size_t n,
                              apr_size_t from, apr_size_t *ahead)
{
    apr_size_t first = next_kept(kept, n, from), at = first;
    int k;

    for (k = 0; k < PREFETCH_DISTANCE; k++)
        at = ahead[k] = next_kept(kept, n, at + 1);
    return first;
}

/* The next file, the others ahead moved up and the last found. */
static apr_size_t step_ahead(const apr_uint64_t *kept, apr_size_t n,
                             apr_size_t *ahead)
{
    apr_size_t next = ahead[0];

    memmove(ahead, ahead + 1, sizeof(*ahead) * (PREFETCH_DISTANCE - 1));
    ahead[PREFETCH_DISTANCE - 1] = next_kept(kept, n,
                                             ahead[PREFETCH_DISTANCE - 2] + 1);
    return next;
}

/* One after the other, up to maxFiles or until limitHint rows are
 * reached. */
static uc_error_t *write_files_in_turn(const files_job_t *job,
                                       uc_sharing_span_t *span)
{
    uc_call_t *call = job->s->call;
    const uc_sharing_query_t *q = job->q;
    files_renderer_t *r = renderer_make(call->pool, job, 0);
    apr_size_t i, n = job->snap->num_files, ahead[PREFETCH_DISTANCE];
    apr_int64_t records = 0;
    int written;
    uc_error_t *err;

    for (i = start_ahead(job->kept, n, job->first, ahead); i < n;
         i = step_ahead(job->kept, n, ahead)) {
        if (job->kept)
            prefetch_ahead(job->snap, ahead);
        if (uc_sharing_page_full(q, span)) {
            span->next = i;
            break;
        }
        if (q->has_limit && records >= q->limit)
            break;
        visit(r, 1);
        if ((err = render_file(r, call->out->jw, i, NULL, &written)) ||
            (written && (err = uc_out_end_line(call->out))) ||
            (written && q->has_limit &&
             (err = count_records(r, i, &records))))
            return uc_shared_error(job->s, err);
        if (written)
            ++span->written;
    }
    return NULL;
}

/* Files rendered together, a segment (so many files the filter keeps) at
 * a time. Each thread's first segment is short, so that the answer's
 * first bytes go out early whichever thread takes the first (the request's
 * thread sends none while it renders one); the next are twice as long as
 * the one before, up to SEGMENT_FILES_MAX: each segment is a hand-off
 * between the threads and a write of its own, which cost less the fewer
 * they are. Answers of fewer than FILES_TOGETHER files are written by the
 * request's thread alone: starting threads and their memory would cost
 * more than they save. */
#define FIRST_SEGMENT_FILES 256
#define SEGMENT_FILES_MAX 1024

#define FILES_TOGETHER (16 * FIRST_SEGMENT_FILES)

/* A line's bytes, about: the buffer of a segment is made that big. */
#define LINE_BYTES 640

typedef struct files_together {
    const files_job_t *job;
    uc_sharing_span_t *span;
} files_together_t;

static uc_error_t *start_renderer(void *baton, apr_pool_t *pool, void **state)
{
    const files_together_t *t = baton;

    *state = renderer_make(pool, t->job, 1);
    return NULL;
}

/* The line of file `i`, if the filter keeps it, ended and counted in
 * `lines`; `url` as for render_file. */
static uc_error_t *render_line(files_renderer_t *r, uc_jw_t *jw, apr_size_t i,
                               const uc_sharing_url_t *url, apr_size_t *lines)
{
    int written;
    uc_error_t *err = render_file(r, jw, i, url, &written);

    if (!err && written) {
        uc_jw_newline(jw);
        ++*lines;
    }
    return err;
}

/* Files `i` and `j`'s lines, their URLs signed together; *paired 0 when
 * they cannot be (a path refused: the files are then rendered one by one,
 * which says which and why, in the order of the answer). */
static uc_error_t *render_pair(files_renderer_t *r, uc_jw_t *jw, apr_size_t i,
                               apr_size_t j, apr_size_t *lines, int *paired)
{
    const apr_size_t pair[2] = { i, j };
    uc_sharing_url_t url[2];
    uc_error_t *err;

    visit(r, 2);
    *paired = !uc_sharing_lines_sign_files(r->lines, &r->signer,
                                           r->job->snap, pair, url);
    if (!*paired)
        return NULL;
    return (err = render_line(r, jw, i, &url[0], lines))
        ? err : render_line(r, jw, j, &url[1], lines);
}

/* A segment's files two at a time when the signer can sign two URLs at
 * once (uc_sharing_signer_t.sign2), else one by one. */
static uc_error_t *render_segment(void *state, apr_size_t k, uc_jw_t *jw,
                                  apr_pool_t *pool, apr_size_t *lines)
{
    files_renderer_t *r = state;
    const files_job_t *job = r->job;
    apr_size_t i, j, to = job->starts[k + 1];
    int paired = 0;
    uc_error_t *err = NULL;

    for (i = job->starts[k]; !err && i < to;
         i = next_kept(job->kept, to, i + 1)) {
        j = next_kept(job->kept, to, i + 1);
        if (r->signer.sign2 && j < to &&
            ((err = render_pair(r, jw, i, j, lines, &paired)) || paired)) {
            i = j;
            continue;
        }
        visit(r, 1);
        err = render_line(r, jw, i, NULL, lines);
    }
    renderer_count(r);
    return err ? uc_error_copy(pool, err) : NULL;
}

static int client_ready(void *baton)
{
    files_together_t *t = baton;

    return uc_out_ready(t->job->s->call->out);
}

static uc_error_t *deliver_segment(void *baton, const char *text,
                                   apr_size_t len, apr_size_t lines)
{
    files_together_t *t = baton;

    t->span->written += lines;
    return uc_out_put_lines(t->job->s->call->out, text, len, lines);
}

/* The files of the segment after `k` segments of which the last held
 * `files`. */
static apr_size_t next_segment_files(apr_size_t files, apr_size_t k,
                                     int threads)
{
    if (k < (apr_size_t)threads)
        return FIRST_SEGMENT_FILES;
    return 2 * files < SEGMENT_FILES_MAX ? 2 * files : SEGMENT_FILES_MAX;
}

/* Where the segments of the span begin: at the files the filter keeps
 * that start each (a filtered answer is cut into as few segments as an
 * unfiltered one of its size), the end of the snapshot last. Returns how
 * many there are, and in `*files` how many files they hold. */
static apr_size_t segment_starts(const files_job_t *job, int threads,
                                 apr_pool_t *pool, apr_size_t **out,
                                 apr_size_t *files)
{
    apr_size_t n = job->snap->num_files, i, k = 0, in_segment = 0;
    apr_size_t size = FIRST_SEGMENT_FILES;
    apr_size_t *starts = apr_palloc(pool, sizeof(*starts)
                                          * (n / FIRST_SEGMENT_FILES + 2));

    *files = 0;
    if (!job->kept) {
        for (i = job->first; i < n; i += size) {
            starts[k++] = i;
            size = next_segment_files(size, k, threads);
        }
        *files = n - job->first;
    }
    else
        for (i = next_kept(job->kept, n, job->first); i < n;
             i = next_kept(job->kept, n, i + 1)) {
            if (!in_segment)
                starts[k++] = i;
            ++*files;
            if (++in_segment == size) {
                in_segment = 0;
                size = next_segment_files(size, k, threads);
            }
        }
    starts[k] = n;
    *out = starts;
    return k;
}

/* Every file of the span, rendered by the threads a request may use while
 * the calling thread streams them in order. */
static uc_error_t *write_files_together(const files_job_t *job,
                                        apr_size_t segments,
                                        uc_sharing_span_t *span, int threads)
{
    files_together_t t = { job, span };
    uc_in_order_job_t run;

    run.segments = segments;
    run.threads = threads;
    run.segment_bytes = SEGMENT_FILES_MAX * LINE_BYTES;
    run.baton = &t;
    run.start = start_renderer;
    run.render = render_segment;
    run.deliver = deliver_segment;
    run.ready = client_ready;
    return uc_shared_error(job->s, uc_in_order_run(job->s->call->pool, &run));
}

uc_error_t *uc_sharing_files_write(uc_shared_t *s, const uc_sharing_query_t *q,
                                   uc_sharing_format_t format,
                                   const uc_sharing_caps_t *caps,
                                   const uc_delta_snapshot_t *snap,
                                   int travelled,
                                   const uc_sharing_signer_t *signer,
                                   uc_sharing_span_t *span)
{
    uc_call_t *call = s->call;
    int threads = uc_delta_answer_threads();
    apr_size_t segments, files, *starts;
    uc_sharing_filter_t filter;
    files_job_t job;
    uc_error_t *err;

    if ((err = uc_sharing_filter_make(s, &filter)))
        return err;
    job.s = s;
    job.q = q;
    job.filter = &filter;
    job.kept = kept_files(&filter, q, call->pool, snap);
    job.format = format;
    job.caps = caps;
    job.snap = snap;
    job.signer = signer;
    job.version = travelled ? snap->version : UC_DELTA_NONE;
    job.timestamp = travelled ? snap->timestamp : UC_DELTA_NONE;
    job.first = span->first;
    job.starts = NULL;
    /* Judging a file alone reads the share's partitions: only the
     * calling thread does that. A short answer is not worth the threads. */
    if (threads > 1 && !q->has_limit && !q->has_max_files &&
        (job.kept || (!filter.partitions && !q->predicate)) &&
        span->first < snap->num_files &&
        (segments = segment_starts(&job, threads, call->pool, &starts,
                                   &files),
         files >= FILES_TOGETHER)) {
        job.starts = starts;
        return write_files_together(&job, segments, span, threads);
    }
    return write_files_in_turn(&job, span);
}
