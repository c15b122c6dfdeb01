/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_common.h"

#include <string.h>
#include <time.h>

/* n decimal digits at s, or -1. */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int days_in_month(int year, int month)
{
    static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : dim[month - 1];
}

/* Index of the 'Z' after the seconds, skipping ".digits" when frac_ok; -1 if malformed. */
static int zone_index(const char *s, int frac_ok)
{
    int i = 19;
    if (s[i] == '.' && frac_ok) {
        i++;
        if (s[i] < '0' || s[i] > '9')
            return -1;
        while (s[i] >= '0' && s[i] <= '9')
            i++;
    }
    return s[i] == 'Z' && s[i + 1] == '\0' ? i : -1;
}

int bx_time_parse(const char *s, unsigned flags, int64_t *out, bx_error *err)
{
    int frac_ok = (flags & BX_TIME_FRACTION) != 0;
    if (strnlen(s, 20) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
        s[16] != ':' || zone_index(s, frac_ok) < 0)
        return bx_error_set(err, BX_EINVAL, NULL,
                            "invalid time \"%.40s\": want YYYY-MM-DDTHH:MM:SS%sZ", s,
                            frac_ok ? "[.fraction]" : "");
    int year = digits(s, 4), mon = digits(s + 5, 2), day = digits(s + 8, 2);
    int hour = digits(s + 11, 2), min = digits(s + 14, 2), sec = digits(s + 17, 2);
    if (year < 0 || mon < 1 || mon > 12 || day < 1 || day > days_in_month(year, mon) || hour < 0 ||
        hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 59)
        return bx_error_set(err, BX_EINVAL, NULL, "invalid time \"%.40s\": field out of range", s);
    struct tm tm = {.tm_year = year - 1900,
                    .tm_mon = mon - 1,
                    .tm_mday = day,
                    .tm_hour = hour,
                    .tm_min = min,
                    .tm_sec = sec};
    *out = (int64_t)timegm(&tm);
    return 0;
}

int bx_time_parse_ns(const char *s, int64_t *sec, int32_t *nsec, int *has_frac, bx_error *err)
{
    int32_t ns = 0;
    int i = 20, n = 0;

    *nsec = 0;
    *has_frac = 0;
    if (bx_time_parse(s, BX_TIME_FRACTION, sec, err) != 0)
        return BX_EINVAL;
    if (s[19] != '.')
        return 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++, n++) {
        if (n == 9)
            return bx_error_set(err, BX_EINVAL, NULL,
                                "invalid time \"%.40s\": more than 9 digits of a second", s);
        ns = ns * 10 + (s[i] - '0');
    }
    for (; n < 9; n++)
        ns *= 10;
    *nsec = ns;
    *has_frac = 1;
    return 0;
}

char *bx_time_format_ns(int64_t sec, int32_t nsec, char out[31])
{
    char frac[11];
    int n = 9;

    bx_time_format(sec, out);
    if (nsec <= 0 || nsec > 999999999)
        return out;
    snprintf(frac, sizeof frac, ".%09d", (int)nsec);
    while (frac[n] == '0') /* the trailing zeros trimmed, as Go's RFC3339Nano */
        frac[n--] = '\0';
    snprintf(out + 19, 12, "%sZ", frac);
    return out;
}

char *bx_time_format(int64_t t, char out[21])
{
    /* Clamp to what the format can hold: years 0000..9999. */
    const int64_t lo = -62167219200LL, hi = 253402300799LL;
    time_t tt = (time_t)(t < lo ? lo : t > hi ? hi : t);
    struct tm tm;
    if (!gmtime_r(&tt, &tm)) {
        memcpy(out, "0000-01-01T00:00:00Z", 21);
        return out;
    }
    snprintf(out, 21, "%04u-%02u-%02uT%02u:%02u:%02uZ", (unsigned)(tm.tm_year + 1900) % 10000u,
             (unsigned)(tm.tm_mon + 1) % 100u, (unsigned)tm.tm_mday % 100u,
             (unsigned)tm.tm_hour % 100u, (unsigned)tm.tm_min % 100u, (unsigned)tm.tm_sec % 100u);
    return out;
}

static int64_t unit_seconds(char c)
{
    switch (c) {
    case 's':
        return 1;
    case 'm':
        return 60;
    case 'h':
        return 3600;
    case 'd':
        return 86400;
    default:
        return 0;
    }
}

int bx_duration_parse(const char *s, int64_t *seconds, bx_error *err)
{
    size_t n = strspn(s, "0123456789");
    int64_t unit = n > 0 ? unit_seconds(s[n]) : 0;
    if (n == 0 || unit == 0 || s[n + 1] != '\0' || (s[0] == '0' && n > 1))
        return bx_error_set(err, BX_EINVAL, NULL,
                            "invalid duration \"%.40s\": want a number and one unit of s m h d "
                            "(e.g. 30s, 5m, 24h, 7d)",
                            s);
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v = v * 10 + (s[i] - '0');
        if (v > BX_DURATION_MAX / unit)
            return bx_error_set(err, BX_EINVAL, NULL, "invalid duration \"%.40s\": too long", s);
    }
    *seconds = v * unit;
    return 0;
}
