/* SPDX-License-Identifier: Apache-2.0 */
/* The XML answers of cloud services (S3 listings and errors, STS
 * credentials, Azure user delegation keys), read through apr-util's expat
 * parser. */
#ifndef UC_XML_H
#define UC_XML_H

#include <apr_pools.h>
#include <apr_xml.h>

/* NULL when `data` is not well-formed XML. */
apr_xml_doc *uc_xml_parse(apr_pool_t *pool, const char *data,
                          apr_size_t len);

/* The first child of `parent` named `name` (namespace prefixes are not
 * compared); NULL when `parent` is NULL or has none. */
const apr_xml_elem *uc_xml_child(const apr_xml_elem *parent,
                                 const char *name);

/* The text directly inside `elem`; "" when empty, NULL when elem is NULL. */
const char *uc_xml_text(apr_pool_t *pool, const apr_xml_elem *elem);

/* The text of the element reached from the root by a path of names
 * separated by '/', the root's own name first ("Error/Code"); NULL when the
 * document is NULL or the path leads nowhere. */
const char *uc_xml_path(apr_pool_t *pool, const apr_xml_doc *doc,
                        const char *path);

/* `text` with &, <, >, " and ' escaped, for an element's text. */
const char *uc_xml_escape(apr_pool_t *pool, const char *text);

#endif
