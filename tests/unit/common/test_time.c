/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_common.h"
#include "tap.h"

#include <string.h>

static void parses(const char *s, int frac_ok, int64_t want)
{
    bx_error err = {0};
    int64_t t = -42;
    ok_err(bx_time_parse(s, frac_ok, &t, &err), &err, "parse %s", s);
    is_int(t, want, "parse %s value", s);
}

static void refuses(const char *s, int frac_ok)
{
    bx_error err = {0};
    int64_t t = -42;
    int rc = bx_time_parse(s, frac_ok, &t, &err);
    is_int(rc, BX_EINVAL, "refuse '%s' (frac_ok=%d)", s, frac_ok);
    ok(strstr(err.msg, "invalid time") != NULL, "refuse '%s': message '%s'", s, err.msg);
    is_int(t, -42, "refuse '%s': output untouched", s);
}

static void test_parse(void)
{
    parses("1970-01-01T00:00:00Z", 0, 0);
    parses("2009-02-13T23:31:30Z", 0, 1234567890);
    parses("2024-02-29T12:00:00Z", 0, 1709208000);
    parses("2000-02-29T00:00:00Z", 0, 951782400);
    parses("1969-12-31T23:59:59Z", 0, -1);
    parses("9999-12-31T23:59:59Z", 0, 253402300799LL);
    parses("2009-02-13T23:31:30.5Z", 1, 1234567890);
    parses("2009-02-13T23:31:30.123456789Z", 1, 1234567890);

    refuses("2009-02-13T23:31:30.5Z", 0);
    refuses("2009-02-13T23:31:30.Z", 1);
    refuses("2009-02-13T23:31:30Z ", 0);
    refuses("2009-02-13T23:31:30", 0);
    refuses("2009-02-13 23:31:30Z", 0);
    refuses("2009-02-13t23:31:30Z", 0);
    refuses("2009-02-13T23:31:30z", 0);
    refuses("2009-02-13T23:31:30+00:00", 0);
    refuses("2009-2-13T23:31:30Z", 0);
    refuses("2009-02-13T23:31:3xZ", 0);
    refuses("+009-02-13T23:31:30Z", 0);
    refuses("2023-02-29T00:00:00Z", 0);
    refuses("1900-02-29T00:00:00Z", 0);
    refuses("2024-04-31T00:00:00Z", 0);
    refuses("2024-13-01T00:00:00Z", 0);
    refuses("2024-00-01T00:00:00Z", 0);
    refuses("2024-01-00T00:00:00Z", 0);
    refuses("2024-01-01T24:00:00Z", 0);
    refuses("2024-01-01T00:60:00Z", 0);
    refuses("2024-01-01T00:00:60Z", 0);
    refuses("", 0);
}

static void test_format(void)
{
    char buf[21];
    is_str(bx_time_format(0, buf), "1970-01-01T00:00:00Z", "format 0");
    is_str(bx_time_format(1234567890, buf), "2009-02-13T23:31:30Z", "format 1234567890");
    is_str(bx_time_format(-1, buf), "1969-12-31T23:59:59Z", "format -1");
    is_str(bx_time_format(INT64_MAX, buf), "9999-12-31T23:59:59Z", "format clamps high");
    is_str(bx_time_format(INT64_MIN, buf), "0000-01-01T00:00:00Z", "format clamps low");
    bx_error err = {0};
    int64_t t = 0;
    for (int64_t x = -86400LL * 400; x < 86400LL * 365 * 200; x += 86400LL * 37 + 3601) {
        bx_time_format(x, buf);
        if (bx_time_parse(buf, 0, &t, &err) != 0 || t != x) {
            ok(0, "round trip %lld via %s", (long long)x, buf);
            return;
        }
    }
    ok(1, "format/parse round trip over 200 years");
}

/* Nanoseconds: the engine's fraction kept (docs/audit.md, "a certificate binds one start"). */
static void test_ns(void)
{
    static const struct {
        const char *s;
        int64_t sec;
        int32_t ns;
        int frac;
        const char *fmt;
    } good[] = {
        {"2009-02-13T23:31:30Z", 1234567890, 0, 0, "2009-02-13T23:31:30Z"},
        {"2009-02-13T23:31:30.5Z", 1234567890, 500000000, 1, "2009-02-13T23:31:30.5Z"},
        {"2009-02-13T23:31:30.000000001Z", 1234567890, 1, 1, "2009-02-13T23:31:30.000000001Z"},
        {"2009-02-13T23:31:30.123456789Z", 1234567890, 123456789, 1,
         "2009-02-13T23:31:30.123456789Z"},
        {"2009-02-13T23:31:30.7058186Z", 1234567890, 705818600, 1, "2009-02-13T23:31:30.7058186Z"},
        {"2009-02-13T23:31:30.10Z", 1234567890, 100000000, 1, "2009-02-13T23:31:30.1Z"},
        {"2009-02-13T23:31:30.000000000Z", 1234567890, 0, 1, "2009-02-13T23:31:30Z"},
        {"2009-02-13T23:31:30.999999999Z", 1234567890, 999999999, 1,
         "2009-02-13T23:31:30.999999999Z"},
        {"1969-12-31T23:59:59.5Z", -1, 500000000, 1, "1969-12-31T23:59:59.5Z"},
    };
    static const char *bad[] = {"2009-02-13T23:31:30.1234567891Z", "2009-02-13T23:31:30.Z",
                                "2009-02-13T23:31:30.5", "2009-02-13T23:31:30,5Z",
                                "2009-02-13T23:31:30.5+00:00", "2009-02-13T23:31:30.-5Z", ""};
    char out[31];

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        bx_error err = {0};
        int64_t sec = -42;
        int32_t ns = -1;
        int frac = -1;
        ok_err(bx_time_parse_ns(good[i].s, &sec, &ns, &frac, &err), &err, "ns: parse %s",
               good[i].s);
        ok(sec == good[i].sec && ns == good[i].ns && frac == good[i].frac,
           "ns: %s is (%lld, %d), fraction %d", good[i].s, (long long)sec, (int)ns, frac);
        is_str(bx_time_format_ns(sec, ns, out), good[i].fmt, "ns: %s formats as %s", good[i].s,
               good[i].fmt);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bx_error err = {0};
        int64_t sec;
        int32_t ns;
        int frac;
        is_int(bx_time_parse_ns(bad[i], &sec, &ns, &frac, &err), BX_EINVAL, "ns: refuse '%s'",
               bad[i]);
    }
    is_str(bx_time_format_ns(0, 1000000000, out), "1970-01-01T00:00:00Z",
           "ns: an nsec out of range is written as 0");
    is_str(bx_time_format_ns(0, -5, out), "1970-01-01T00:00:00Z", "ns: a negative nsec too");
}

static void test_duration(void)
{
    static const struct {
        const char *s;
        int64_t want;
    } good[] = {{"30s", 30}, {"5m", 300}, {"24h", 86400}, {"7d", 604800}, {"0s", 0}, {"90m", 5400}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        bx_error err = {0};
        int64_t v = -1;
        ok_err(bx_duration_parse(good[i].s, &v, &err), &err, "duration %s", good[i].s);
        is_int(v, good[i].want, "duration %s value", good[i].s);
    }
    static const char *bad[] = {
        "",         "s",  "30",  "-5m",  "+5m",   "5 m", " 5m",   "5m ",
        "5M",       "5w", "5ms", "1.5h", "1h30m", "05m", "0x10s", "99999999999999999999d",
        "10000000d"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bx_error err = {0};
        int64_t v = -1;
        is_int(bx_duration_parse(bad[i], &v, &err), BX_EINVAL, "duration refuses '%s'", bad[i]);
        is_int(v, -1, "duration '%s': output untouched", bad[i]);
        ok(strstr(err.msg, "invalid duration") != NULL, "duration '%s': message '%s'", bad[i],
           err.msg);
    }
}

int main(void)
{
    test_parse();
    test_format();
    test_ns();
    test_duration();
    return tap_done();
}
