/* SPDX-License-Identifier: Apache-2.0 */
/* Snapshots and change feeds as JSON: what `unicat-delta` prints and what
 * tests compare. */
#ifndef UC_DELTA_JSON_H
#define UC_DELTA_JSON_H

#include "../core/uc_jw.h"
#include "uc_delta.h"

/* Fails only when the stats of a file cannot be read back (a damaged
 * checkpoint page); the writer's text is then incomplete. */
uc_error_t *uc_delta_write_snapshot(uc_jw_t *w, const uc_delta_snapshot_t *s,
                                    int with_files);
void uc_delta_write_changes(uc_jw_t *w, const uc_delta_changes_t *c);
/* A file's stats (uc_delta_file_stats_text, text not NULL) as a JSON
 * string value. */
void uc_delta_write_stats(uc_jw_t *w, const uc_delta_stats_text_t *stats);

#endif
