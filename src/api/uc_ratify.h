/* SPDX-License-Identifier: Apache-2.0 */
/* Ratifying the commits of catalog-managed Delta tables: what the two
 * APIs that take them share (the preview commit coordinator,
 * uc_delta_commits.c, and the UC Delta API's add-commit,
 * uc_delta_update.c). A commit's fields come spelled as each API spells
 * them; the table's rows change as uc_commit_plan.h decides, in the
 * caller's transaction, with the table's row held. */
#ifndef UC_RATIFY_H
#define UC_RATIFY_H

#include "uc_commit_plan.h"
#include "../call/uc_call.h"

/* The names of a commit's fields in an API, and of a table's latest
 * version. */
typedef struct uc_commit_fields {
    const char *version, *timestamp, *file_name, *file_size, *file_mtime;
    const char *latest;
} uc_commit_fields_t;

/* The preview API's (snake case) and the UC Delta API's (kebab case). */
extern const uc_commit_fields_t uc_commit_fields_preview;
extern const uc_commit_fields_t uc_commit_fields_delta;

/* A commit's fields from `info`: all required, all positive, the file one
 * name under _delta_log/_staged_commits/. */
uc_error_t *uc_ratify_read_commit(uc_call_t *call, json_t *info,
                                  const uc_commit_fields_t *names,
                                  uc_ratified_commit_t *out);

/* Writes, inside an object, "commits": the commits of `table` in [start,
 * end] (end -1: no end) not backfilled, newest first, and the table's
 * latest version; from its `rows` (NULL: read). */
uc_error_t *uc_ratify_write_commits(uc_call_t *call, uc_jw_t *out,
                                    const uc_commit_fields_t *names,
                                    const uc_securable_t *table,
                                    const apr_array_header_t *rows,
                                    apr_int64_t start, apr_int64_t end);

/* A table the coordinator serves: `table` (NULL when none has the id
 * `id`: 404) must be a MANAGED Delta table created catalog-managed
 * (400). An open staging reservation is no table yet. */
uc_error_t *uc_ratify_check_table(uc_call_t *call, const char *id,
                                  const uc_securable_t *table);

/* Carries out `req` on the commits of `table`, whose row the caller holds:
 * ratifies its commit, forgets what it reports backfilled. *replay is set
 * when the commit was ratified already, and then nothing changed. *rows
 * (`rows` may be NULL) are the table's rows as they are then, for an
 * answer that shows them. */
uc_error_t *uc_ratify(uc_call_t *call, const uc_securable_t *table,
                      const uc_commit_request_t *req, int *replay,
                      apr_array_header_t **rows);

#endif
