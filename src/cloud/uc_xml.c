/* SPDX-License-Identifier: Apache-2.0 */
#include "uc_xml.h"

#include <string.h>
#include <apr_strings.h>

apr_xml_doc *uc_xml_parse(apr_pool_t *pool, const char *data, apr_size_t len)
{
    apr_xml_parser *parser = apr_xml_parser_create(pool);
    apr_xml_doc *doc = NULL;

    if (parser == NULL || len == 0)
        return NULL;
    if (apr_xml_parser_feed(parser, data, len) != APR_SUCCESS
        || apr_xml_parser_done(parser, &doc) != APR_SUCCESS)
        return NULL;
    return doc;
}

const apr_xml_elem *uc_xml_child(const apr_xml_elem *parent, const char *name)
{
    const apr_xml_elem *e;

    for (e = parent ? parent->first_child : NULL; e; e = e->next)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

/* Expat may deliver the text in pieces. */
const char *uc_xml_text(apr_pool_t *pool, const apr_xml_elem *elem)
{
    const apr_text *t;
    const char *s = "";

    if (elem == NULL)
        return NULL;
    t = elem->first_cdata.first;
    if (t && t->next == NULL)
        return t->text;
    for (; t; t = t->next)
        s = apr_pstrcat(pool, s, t->text, NULL);
    return s;
}

const char *uc_xml_path(apr_pool_t *pool, const apr_xml_doc *doc,
                        const char *path)
{
    char *copy = apr_pstrdup(pool, path), *state = NULL;
    const char *name = apr_strtok(copy, "/", &state);
    const apr_xml_elem *e = doc ? doc->root : NULL;

    if (!e || !name || strcmp(e->name, name) != 0)
        return NULL;
    while (e && (name = apr_strtok(NULL, "/", &state)) != NULL)
        e = uc_xml_child(e, name);
    return uc_xml_text(pool, e);
}

const char *uc_xml_escape(apr_pool_t *pool, const char *text)
{
    return apr_xml_quote_string(pool, text, 1);
}
