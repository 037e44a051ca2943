/* SPDX-License-Identifier: Apache-2.0 */
/* The lines of Delta Sharing's NDJSON answers (metadata, query, changes):
 * the capabilities a client states and the format chosen from them, then
 * one writer per kind of line, in the parquet format (lines a reader of
 * plain Parquet files understands) or the delta format (Delta actions the
 * client replays in a log of its own). No httpd: the routes call these.
 *
 * Every writer checks what can fail (signing, paths that cannot be shared)
 * before it writes, so an error leaves `jw` as it was. Output is a pure
 * function of the input, byte for byte: the pages of one query repeat
 * their protocol and metaData lines identically. */
#ifndef UC_SHARING_LINES_H
#define UC_SHARING_LINES_H

#include <apr_pools.h>
#include <apr_tables.h>

#include "../core/uc_error.h"
#include "../core/uc_jw.h"
#include "../delta/uc_delta.h"

/* The request's delta-sharing-capabilities and fileidhash headers. */
typedef struct uc_sharing_caps {
    int wants_parquet, wants_delta;       /* responseformat (absent header/key = parquet only) */
    apr_array_header_t *reader_features;  /* lower-cased names, const char * */
    int include_end_stream;               /* includeendstreamaction=true */
    int async_query;                      /* asyncquery=true */
    /* The fileidhash header, lower-cased: "parquet", "delta", or NULL when
     * absent. Only uc_sharing_fileidhash_parse sets it (uc_sharing_caps_parse
     * leaves it alone), so call both, in either order. */
    const char *file_id_hash;
} uc_sharing_caps_t;

/* Parses the header (NULL = absent): keys and values case-insensitive,
 * pairs split on ';', values on ','; unknown keys ignored; an unknown
 * responseformat value → 400 INVALID_PARAMETER_VALUE. */
uc_error_t *uc_sharing_caps_parse(apr_pool_t *pool, const char *header,
                                  uc_sharing_caps_t *caps);

/* The fileidhash header (NULL = absent): "parquet" or "delta" in any case;
 * anything else, the empty value included, is a 400. */
uc_error_t *uc_sharing_fileidhash_parse(apr_pool_t *pool, const char *header,
                                        uc_sharing_caps_t *caps);

typedef enum { UC_SHARING_PARQUET, UC_SHARING_DELTA } uc_sharing_format_t;

/* The format to answer the table in (protocol `features`, metaData action
 * `metadata_json`): the one asked for; of both, parquet when the table
 * reads as plain Parquet (minReaderVersion 1, neither deletion vectors nor
 * column mapping), else delta. Parquet is a 400 UNSUPPORTED_OPERATION
 * naming the features when the table has deletion vectors enabled or
 * column mapping and the client did not list them; delta is one naming the
 * table's reader features the client did not list and the server does not
 * resolve itself (v2Checkpoint, vacuumProtocolCheck). */
uc_error_t *uc_sharing_choose_format(apr_pool_t *pool,
                                     const uc_sharing_caps_t *caps,
                                     const uc_delta_features_t *features,
                                     const char *metadata_json,
                                     uc_sharing_format_t *format);

/* The response's delta-sharing-capabilities: "responseformat=parquet" or
 * "responseformat=delta", plus ";includeendstreamaction=true" when asked
 * (`caps` may be NULL). */
const char *uc_sharing_caps_answer(apr_pool_t *pool,
                                   uc_sharing_format_t format,
                                   const uc_sharing_caps_t *caps);

/* Turns a file path as the log writes it (relative to the table root,
 * percent-encoded URI or absolute URI; `path_len` bytes) into the URL a
 * recipient fetches and its length; the route engineer provides it. Only
 * relative paths reach it. */
typedef struct uc_sharing_signer {
    uc_error_t *(*sign)(void *baton, apr_pool_t *pool, const char *log_path,
                        apr_size_t path_len, const char **url,
                        apr_size_t *url_len);
    void *baton;
    /* The URLs of two paths at once, as two calls of `sign` would make
     * them, faster (the local files' signer hashes them side by side);
     * NULL when the signer has no faster way. */
    uc_error_t *(*sign2)(void *baton, apr_pool_t *pool,
                         const char *const log_path[2],
                         const apr_size_t path_len[2], const char *url[2],
                         apr_size_t url_len[2]);
    /* expirationTimestamp of each file line (UC_DELTA_NONE leaves it
     * out), set with uc_sharing_signer_expire() */
    apr_int64_t expiration_ms;
    struct uc_metrics *metrics;   /* counts the URLs signed; may be NULL */
    /* When not NULL, the URLs signed are counted here instead, by a
     * thread that adds them to `metrics` now and then: one shared
     * counter bumped by every line of threads rendering together costs
     * more than the line's digest. */
    apr_uint64_t *tally;
    int plain_urls;               /* its URLs need no JSON escaping */
    /* ,"expirationTimestamp":<expiration_ms>, or nothing: the same on
     * every line, so written once. */
    char expiration_member[48];
    apr_size_t expiration_member_len;
} uc_sharing_signer_t;

/* Sets the expirationTimestamp of the signer's file lines. */
void uc_sharing_signer_expire(uc_sharing_signer_t *signer, apr_int64_t ms);

/* Each writer writes ONE line's JSON (compact, no newline) into `jw`; the
 * caller ends the line. `pool` holds what the line needs (the signer's URL
 * too): a long answer passes a pool it clears after each line. */

/* {"protocol":…}: parquet {"minReaderVersion":1}; delta the protocol
 * action verbatim as deltaProtocol, empty feature lists left out. */
uc_error_t *uc_sharing_write_protocol(uc_jw_t *jw, apr_pool_t *pool,
                                      uc_sharing_format_t format,
                                      const char *protocol_json);
/* The same with the wrapper's `version` (includeHistoricalProtocol in the
 * delta format; UC_DELTA_NONE to omit it). */
uc_error_t *uc_sharing_write_protocol_at(uc_jw_t *jw, apr_pool_t *pool,
                                         uc_sharing_format_t format,
                                         const char *protocol_json,
                                         apr_int64_t version);

/* {"metaData":…} from the metaData action. `version` = UC_DELTA_NONE to
 * omit the wrapper's version; `cdf_shared`: parquet configuration is
 * {"enableChangeDataFeed":"true"} only when set and the table has CDF on,
 * else {}; delta passes the metaData action verbatim. size/numFiles
 * optional (UC_DELTA_NONE to omit). */
uc_error_t *uc_sharing_write_metadata(uc_jw_t *jw, apr_pool_t *pool,
                                      uc_sharing_format_t format,
                                      const char *metadata_json,
                                      apr_int64_t version, int cdf_shared,
                                      apr_int64_t size,
                                      apr_int64_t num_files);

/* A snapshot file: parquet {"file":{url,id,partitionValues,size,stats?,
 * version?,timestamp?,expirationTimestamp}} or delta {"file":{id,version?,
 * timestamp?,expirationTimestamp,deletionVectorFileId?,deltaSingleAction:
 * {add:{…}}}} with the add's path the signed URL and an on-disk deletion
 * vector rewritten to storageType "p" and its signed URL. `stats` is the
 * file's stats text or NULL (read with uc_delta_file_stats); version and
 * timestamp UC_DELTA_NONE to omit. Ids hash the log path: MD5 hex in the
 * parquet format, SHA-256 hex in the delta format, or as caps'
 * file_id_hash says (`caps` may be NULL). 400 UNSUPPORTED_OPERATION for a
 * file with a deletion vector in the parquet format, and for absolute
 * paths (of the file or of its deletion vector) in either. */
uc_error_t *uc_sharing_write_file(uc_jw_t *jw, apr_pool_t *pool,
                                  uc_sharing_format_t format,
                                  const uc_sharing_caps_t *caps,
                                  const uc_delta_file_t *file,
                                  const char *stats,
                                  const uc_sharing_signer_t *signer,
                                  apr_int64_t version, apr_int64_t timestamp);

/* A file's URL signed before its line is written. */
typedef struct uc_sharing_url {
    const char *text;
    apr_size_t len;
} uc_sharing_url_t;

/* The URLs of files `i[0]` and `i[1]` of `snapshot`, from `pool`, signed
 * together when the signer can (sign2), else one after the other: the
 * refusals of uc_sharing_write_file for either path. */
uc_error_t *uc_sharing_lines_sign_files(apr_pool_t *pool,
                                        const uc_sharing_signer_t *signer,
                                        const uc_delta_snapshot_t *snapshot,
                                        const apr_size_t i[2],
                                        uc_sharing_url_t url[2]);

/* The same as uc_sharing_write_file for file `i` of `snapshot`, whose MD5
 * id the snapshot keeps (uc_delta_file_path_md5), with its stats as the
 * stats reader holds them (uc_delta_file_stats_text) and its URL signed
 * already (uc_sharing_lines_sign_files), or NULL to sign it here. */
uc_error_t *uc_sharing_write_snapshot_file(uc_jw_t *jw, apr_pool_t *pool,
                                           uc_sharing_format_t format,
                                           const uc_sharing_caps_t *caps,
                                           const uc_delta_snapshot_t *snapshot,
                                           apr_size_t i,
                                           const uc_delta_stats_text_t *stats,
                                           const uc_sharing_url_t *url,
                                           const uc_sharing_signer_t *signer,
                                           apr_int64_t version,
                                           apr_int64_t timestamp);

/* A change of the change data feed or of startingVersion mode: parquet
 * "add" / "cdf" / "remove" lines with url, id, partitionValues, size,
 * version, timestamp, expirationTimestamp (+stats for add); delta "file"
 * with deltaSingleAction add / remove / cdc. A change whose size is
 * UC_DELTA_NONE is a 400 (a bare tombstone cannot be shared), and so are
 * a deletion vector in the parquet format and absolute paths. */
uc_error_t *uc_sharing_write_change(uc_jw_t *jw, apr_pool_t *pool,
                                    uc_sharing_format_t format,
                                    const uc_sharing_caps_t *caps,
                                    const uc_delta_change_t *change,
                                    const uc_sharing_signer_t *signer);

/* {"endStreamAction":{...}}: any of the three may be NULL / UC_DELTA_NONE. */
uc_error_t *uc_sharing_write_end_stream(uc_jw_t *jw,
                                        const char *next_page_token,
                                        const char *refresh_token,
                                        apr_int64_t min_url_expiration_ms);

#endif
