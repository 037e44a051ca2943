/* SPDX-License-Identifier: Apache-2.0 */
/* The reader of request bodies against jansson: for every input,
 * uc_json_read_body and json_loadb(JSON_REJECT_DUPLICATES) must give the same
 * verdict and, when both take it, equal values written out the same (key
 * order, integers and reals apart); the reader's pool tree
 * (uc_json_tree_read) the same verdict and error as uc_json_read_body and
 * the values of jansson's tree. A disagreement aborts.
 *
 * Input: the body itself. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/uc_json_read.h"
#include "core/uc_json_tree.h"
#include "../unit/uc_json_tree_same.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_root_pool();
    return 0;
}

static void disagree(const char *what, const char *detail)
{
    fprintf(stderr, "uc_json_read_body and jansson disagree: %s%s%s\n", what,
            detail ? ": " : "", detail ? detail : "");
    abort();
}

/* Both took it: the same tree, written out alike. */
static void compare_values(const json_t *want, const json_t *got)
{
    const size_t flags = JSON_COMPACT | JSON_ENCODE_ANY;
    char *want_text = json_dumps(want, flags), *got_text;

    if (!json_equal(want, got))
        disagree("values differ", NULL);
    got_text = json_dumps(got, flags);
    if (!want_text || !got_text)
        disagree("a value cannot be written out", NULL);
    if (strcmp(want_text, got_text) != 0)
        disagree("values written out differ", NULL);
    free(want_text);
    free(got_text);
}

/* The pool tree: uc_json_read_body's verdict and error (`got`, `err`),
 * jansson's values (`want`). */
static void compare_tree(const uint8_t *data, size_t size, const json_t *want,
                         const json_t *got, const uc_json_read_error_t *err)
{
    apr_pool_t *pool;
    uc_json_read_error_t tree_err = { 0, 0, NULL };
    const uc_json_tree_t *tree;
    const char *why;

    apr_pool_create(&pool, fuzz_root_pool());
    tree = uc_json_tree_read(pool, (const char *)data, size, &tree_err);
    if (!tree != !got)
        disagree(tree ? "the pool tree took it" : "the pool tree refused it",
                 tree_err.reason);
    if (tree && (why = uc_json_tree_differs(want, tree)))
        disagree("the pool tree differs", why);
    if (!tree && (tree_err.line != err->line ||
                  tree_err.column != err->column ||
                  strcmp(tree_err.reason, err->reason) != 0))
        disagree("the pool tree refused it elsewhere", tree_err.reason);
    apr_pool_destroy(pool);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int verbose = -1;
    json_error_t jerr;
    uc_json_read_error_t err = { 0, 0, NULL };
    json_t *want = json_loadb((const char *)data, size,
                              JSON_REJECT_DUPLICATES, &jerr);
    json_t *got = uc_json_read_body((const char *)data, size, &err);

    if (want && !got)
        disagree("jansson took it, uc_json_read_body refused", err.reason);
    if (!want && got)
        disagree("uc_json_read_body took it, jansson refused", jerr.text);
    if (want)
        compare_values(want, got);
    else if (!err.reason || err.line < 1 || err.column < 1)
        disagree("a refusal without a reason or a place", err.reason);
    compare_tree(data, size, want, got, &err);
    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") && *getenv("FUZZ_VERBOSE") == '1';
    if (verbose)
        fprintf(stderr, "%s (jansson: %s)\n", got ? "taken" : err.reason,
                want ? "taken" : jerr.text);
    json_decref(want);
    json_decref(got);
    return 0;
}
