/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_common.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <openssl/err.h>

void bx_error_clear(bx_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

static int vset(bx_error *err, int code, const char *where, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static int vset(bx_error *err, int code, const char *where, const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    err->sys_errno = 0;
    snprintf(err->where, sizeof err->where, "%s", where ? where : "");
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return code;
}

int bx_error_set(bx_error *err, int code, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(err, code, where, fmt, ap);
    va_end(ap);
    return code;
}

static void append(bx_error *err, const char *tail)
{
    size_t n = strlen(err->msg), m = strlen(tail);
    if (n + 3 >= sizeof err->msg)
        return;
    memcpy(err->msg + n, ": ", 2);
    n += 2;
    if (m > sizeof err->msg - n - 1)
        m = sizeof err->msg - n - 1;
    memcpy(err->msg + n, tail, m);
    err->msg[n + m] = '\0';
}

int bx_error_errno(bx_error *err, int code, const char *where, const char *fmt, ...)
{
    int e = errno;
    va_list ap;
    va_start(ap, fmt);
    vset(err, code, where, fmt, ap);
    va_end(ap);
    if (err) {
        err->sys_errno = e;
        append(err, strerror(e));
    }
    errno = e;
    return code;
}

int bx_error_ssl(bx_error *err, int code, const char *where, const char *fmt, ...)
{
    char buf[160] = "";
    unsigned long e = ERR_get_error();
    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    va_list ap;
    va_start(ap, fmt);
    vset(err, code, where, fmt, ap);
    va_end(ap);
    if (err && buf[0])
        append(err, buf);
    return code;
}

void bx_error_prefix(bx_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char pre[128], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t n = strlen(pre), m = strlen(old);
    if (n > sizeof err->msg - 3)
        n = sizeof err->msg - 3;
    memcpy(err->msg, pre, n);
    memcpy(err->msg + n, ": ", 2);
    if (m > sizeof err->msg - n - 3)
        m = sizeof err->msg - n - 3;
    memcpy(err->msg + n + 2, old, m);
    err->msg[n + 2 + m] = '\0';
}

const char *bx_error_str(const bx_error *err, char *buf, size_t len)
{
    if (err->where[0])
        snprintf(buf, len, "%s: %s", err->where, err->msg);
    else
        snprintf(buf, len, "%s", err->msg);
    return buf;
}
