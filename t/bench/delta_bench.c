/* SPDX-License-Identifier: Apache-2.0 */
/* The Delta log reader's benchmark, on a generated file:// table:
 *
 *   delta_bench cold TABLE      one cold snapshot of the latest version:
 *                               time, peak RSS growth, and the resident
 *                               memory it keeps, per file beyond its path
 *   delta_bench rounds TABLE N  N alternating rounds of: the checkpoint
 *                               decoded (a snapshot at the checkpoint's
 *                               version, its stats left compressed), the
 *                               same with every file's stats read back,
 *                               `cat` of the checkpoint file, and 2,000
 *                               warm (cached) latest-snapshot checks
 *
 * Output is one "key value" line per figure, for t/bench/delta.sh. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <apr_general.h>
#include <apr_strings.h>
#include <apr_time.h>

#include "../../src/delta/uc_delta.h"

extern char **environ;

static apr_pool_t *pool;

static void die(const char *what, const uc_error_t *err)
{
    fprintf(stderr, "delta_bench: %s: %s\n", what, err ? err->message : "");
    exit(2);
}

static uc_delta_table_t *open_table(apr_pool_t *p, const char *dir)
{
    uc_delta_table_t *table;
    uc_error_t *err;

    if ((err = uc_delta_table_open(p, apr_pstrcat(p, "file://", dir, NULL),
                                   NULL, &table)))
        die("open", err);
    return table;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;

    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Every file's stats read back as answers take them: the bytes of their
 * text. */
static apr_size_t read_all_stats(apr_pool_t *p, const uc_delta_snapshot_t *s)
{
    uc_delta_stats_reader_t *reader = uc_delta_stats_reader_make(p, NULL);
    apr_size_t i, bytes = 0;
    uc_error_t *err;

    for (i = 0; i < s->num_files; i++) {
        uc_delta_stats_text_t text;

        if ((err = uc_delta_file_stats_text(reader, &s->files[i], &text)))
            die("stats", err);
        bytes += text.text ? text.len + 1 : 0;
    }
    if (bytes == 0)
        die("no stats were read", NULL);
    return bytes;
}

static int cold(const char *dir)
{
    struct rusage ru;
    long base;
    size_t held, paths = 0, stats, i;
    apr_time_t t0;
    uc_delta_snapshot_t *s;
    uc_error_t *err;
    apr_pool_t *sub;

    base = rss_kb();
    t0 = apr_time_now();
    apr_pool_create(&sub, pool);
    if ((err = uc_delta_snapshot(open_table(sub, dir), UC_DELTA_LATEST, &s)))
        die("snapshot", err);
    printf("cold_ms %.2f\n", (apr_time_now() - t0) / 1000.0);
    apr_pool_destroy(sub);
    getrusage(RUSAGE_SELF, &ru);
    /* What stays resident once the build's scratch memory is gone: the
     * snapshot itself. */
    held = (size_t)(rss_kb() - base) * 1024;
    for (i = 0; i < s->num_files; i++)
        paths += strlen(s->files[i].path) + 1;
    stats = read_all_stats(pool, s);
    printf("files %zu\n", s->num_files);
    printf("peak_rss_growth_mb %.1f\n", (ru.ru_maxrss - base) / 1024.0);
    printf("held_mb %.1f\n", held / 1048576.0);
    printf("bytes_per_file_beyond_path %.1f\n",
           (double)(held - paths) / (double)s->num_files);
    /* Their text, were it kept decoded as it is read back. */
    printf("stats_bytes_per_file %.1f\n", (double)stats / (double)s->num_files);
    uc_delta_snapshot_release(s);
    return 0;
}

static double cat_ms(const char *file)
{
    const char *argv[] = { "cat", file, NULL };
    posix_spawn_file_actions_t actions;
    apr_time_t t0 = apr_time_now();
    pid_t pid;
    int status;

    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&pid, "cat", &actions, NULL, (char **)argv, environ))
        die("cat", NULL);
    waitpid(pid, &status, 0);
    posix_spawn_file_actions_destroy(&actions);
    return (apr_time_now() - t0) / 1000.0;
}

static int rounds(const char *dir, int n)
{
    uc_delta_cache_t *cache;
    uc_delta_snapshot_t *s;
    uc_error_t *err;
    apr_int64_t checkpoint;
    const char *file;
    int r, i, warm_calls = 2000;

    if ((err = uc_delta_cache_create(pool, (apr_size_t)1 << 31, &cache)))
        die("cache", err);
    if ((err = uc_delta_cache_latest(cache, open_table(pool, dir), &s)))
        die("cache", err);
    checkpoint = s->checkpoint_version;
    uc_delta_snapshot_release(s);
    file = apr_psprintf(pool, "%s/_delta_log/%020" APR_INT64_T_FMT
                        ".checkpoint.parquet", dir, checkpoint);
    for (r = 0; r < n; r++) {
        apr_pool_t *sub;
        apr_time_t t0;
        uc_delta_cache_stats_t before, after;

        apr_pool_create(&sub, pool);
        t0 = apr_time_now();
        if ((err = uc_delta_snapshot(open_table(sub, dir), checkpoint, &s)))
            die("checkpoint", err);
        printf("decode_ms %.3f rows %zu\n", (apr_time_now() - t0) / 1000.0,
               s->num_files);
        uc_delta_snapshot_release(s);
        apr_pool_destroy(sub);

        apr_pool_create(&sub, pool);
        t0 = apr_time_now();
        if ((err = uc_delta_snapshot(open_table(sub, dir), checkpoint, &s)))
            die("checkpoint", err);
        (void)read_all_stats(sub, s);
        printf("decode_all_ms %.3f\n", (apr_time_now() - t0) / 1000.0);
        uc_delta_snapshot_release(s);
        apr_pool_destroy(sub);
        printf("cat_ms %.3f\n", cat_ms(file));

        uc_delta_cache_stats(cache, &before);
        t0 = apr_time_now();
        for (i = 0; i < warm_calls; i++) {
            apr_pool_create(&sub, pool);
            if ((err = uc_delta_cache_latest(cache, open_table(sub, dir), &s)))
                die("warm", err);
            uc_delta_snapshot_release(s);
            apr_pool_destroy(sub);
        }
        printf("warm_us %.2f\n",
               (apr_time_now() - t0) / (double)warm_calls);
        uc_delta_cache_stats(cache, &after);
        if (after.hits - before.hits != (apr_uint64_t)warm_calls)
            die("warm calls were not all cache hits", NULL);
    }
    return 0;
}

int main(int argc, const char *const *argv)
{
    uc_delta_settings_t settings;
    uc_error_t *err;

    apr_app_initialize(&argc, &argv, NULL);
    apr_pool_create(&pool, NULL);
    uc_delta_settings_default(&settings);
    if (getenv("DELTA_BENCH_THREADS"))
        settings.decode_threads = atoi(getenv("DELTA_BENCH_THREADS"));
    /* A cold build gives freed memory back to the system, so that what
     * stays resident is what the snapshot holds. */
    if (argc > 1 && strcmp(argv[1], "cold") == 0)
        settings.retained_memory = 0;
    if ((err = uc_delta_init(pool, &settings)))
        die("set-up", err);
    if (argc == 3 && strcmp(argv[1], "cold") == 0)
        return cold(argv[2]);
    if (argc == 4 && strcmp(argv[1], "rounds") == 0)
        return rounds(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: delta_bench cold TABLE | rounds TABLE N\n");
    return 2;
}
