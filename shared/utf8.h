/*
 * utf8.h - the library's UTF-8 check, for the programs around it: what
 * the library accepts as UTF-8 and what they accept are one rule.
 */
#ifndef SKILLSFS_UTF8_H
#define SKILLSFS_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Well-formed UTF-8: no overlongs, no surrogates, nothing past U+10FFFF.
 * NUL bytes are well-formed; callers that refuse them check apart. */
bool sfs_utf8_valid(const char *s, size_t len);

#endif
