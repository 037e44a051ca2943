/* SPDX-License-Identifier: Apache-2.0 */
/* The web console: its files, embedded at build time from web/ (make
 * generates uc_console_files_gen.c, as it does the migrations), the
 * headers every answer of the console carries, and config.json, what the
 * console needs to know of the server before its first call. The glue's
 * handler (SetHandler unicat-console) serves them. */
#ifndef UC_CONSOLE_H
#define UC_CONSOLE_H

#include <apr_pools.h>

typedef struct uc_console_file {
    const char *name;            /* relative to the mount: "app.js" */
    const unsigned char *bytes;
    apr_size_t len;
    const char *etag;            /* a strong tag of the content, quoted */
} uc_console_file_t;

/* Every file of web/, ended by an entry whose name is NULL. */
extern const uc_console_file_t uc_console_files[];

typedef struct uc_console_header {
    const char *name;
    const char *value;
} uc_console_header_t;

/* What every answer of the console carries (the Content-Security-Policy
 * above all), ended by an entry whose name is NULL. */
extern const uc_console_header_t uc_console_headers[];

/* The file a request names ("" is index.html); NULL when there is none. */
const uc_console_file_t *uc_console_find(const char *name);

/* The Content-Type of a file, by its name's extension. */
const char *uc_console_type(const char *name);

/* config.json: where the catalog API is (`api`, a URL path of the same
 * origin) and the metrics (`metrics`, the same, or null), who signed in (`user`, the name httpd authenticated, or null),
 * the privileges each securable type may be granted, as the permissions
 * API takes them, and the types of storage credential with the fields a
 * request gives them (`credential_types`: name → cloud, fields with
 * whether each is required and secret). */
typedef struct uc_console_paths {
    const char *api;            /* the catalog API */
    const char *metrics;        /* unicat-status, or NULL: not shown */
} uc_console_paths_t;

const char *uc_console_config(apr_pool_t *pool,
                              const uc_console_paths_t *paths,
                              const char *user);

#endif
