/* SPDX-License-Identifier: Apache-2.0 */
/* The test and bench tools' one way out: a one-line message naming the tool, exit 1. Define
 * TOOL_NAME before including it. */
#ifndef BX_TOOL_DIE_H
#define BX_TOOL_DIE_H

#include "bx_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    fputs(TOOL_NAME ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static inline void die_err(const char *what, const bx_error *e) __attribute__((noreturn));
static inline void die_err(const char *what, const bx_error *e)
{
    die("%s: %s%s%s", what, e->where, e->where[0] ? ": " : "", e->msg);
}

#endif
