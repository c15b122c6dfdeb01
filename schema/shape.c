/* SPDX-License-Identifier: Apache-2.0 */
/* The shape language (bx_schema.h, "shapes"): one description of a document, three walkers.
 * bx_shape_check reads a parsed JSON document closed (the predicate of a certificate, on
 * every certificate verified: it allocates nothing); bx_shape_type_yaml types a strict YAML
 * document by place (a policy, a --requested file); bx_shape_json_schema writes the JSON
 * Schema that tools no one here wrote validate with. */
#include "schema_internal.h"

#include <stdarg.h>
#include <string.h>

#define PTR_MAX 512
#define SNIP_MAX 48

/* ---- small helpers ------------------------------------------------------------------- */

static int bad(bx_error *err, const char *fmt, ...) BX_FMT(2, 3);
static int bad(bx_error *err, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return BX_EINVAL;
    err->code = BX_EINVAL;
    err->sys_errno = 0;
    err->where[0] = '\0';
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return BX_EINVAL;
}

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static int is_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Docker's name rule for containers and networks: [A-Za-z0-9][A-Za-z0-9_.-]*. */
static int is_name(const char *s, size_t n)
{
    static const char more[] = "_.-";
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
                    (s[0] >= '0' && s[0] <= '9')))
        return 0;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              memchr(more, c, 3)))
            return 0;
    }
    return 1;
}

static int is_time(const char *s, size_t n)
{
    int64_t t;
    return n == 20 && bx_time_parse(s, 0, &t, NULL) == 0;
}

/* YYYY-MM-DDTHH:MM:SS[.fraction]Z: 1 to 9 digits, no trailing zero (as Docker writes
 * State.StartedAt). */
static int is_time_frac(const char *s, size_t n)
{
    char whole[21];
    size_t f;
    if (n == 20)
        return is_time(s, n);
    if (n < 22 || n > 30 || s[19] != '.' || s[n - 1] != 'Z')
        return 0;
    f = n - 21;
    if (!is_digits(s + 20, f) || s[20 + f - 1] == '0')
        return 0;
    memcpy(whole, s, 19);
    whole[19] = 'Z';
    whole[20] = '\0';
    return is_time(whole, 20);
}

/* 1.2.3, 1.2.3-rc.1, 1.2.3+dfsg */
static int is_semver(const char *s, size_t n)
{
    size_t i = 0;
    for (int part = 0; part < 3; part++) {
        size_t d = strspn(s + i, "0123456789");
        if (d == 0 || (d > 1 && s[i] == '0'))
            return 0;
        i += d;
        if (part < 2) {
            if (s[i] != '.')
                return 0;
            i++;
        }
    }
    if (i == n)
        return 1;
    if ((s[i] != '-' && s[i] != '+') || i + 1 == n)
        return 0;
    return strspn(s + i + 1, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+-") ==
           n - i - 1;
}

static int is_uuid(const char *s, size_t n)
{
    if (n != 36)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !is_hex(s + i, 1))
            return 0;
    }
    return 1;
}

/* net.ipv4.ip_unprivileged_port_start: words of [a-z0-9_-] joined by single dots. */
static int is_sysctl(const char *s, size_t n)
{
    size_t word = 0;
    if (n == 0 || n > 255)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (word == 0)
                return 0;
            word = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
            word++;
        } else {
            return 0;
        }
    }
    return word > 0;
}

static int is_choice(const char *const *choices, const char *s, size_t n)
{
    for (const char *const *c = choices; *c; c++)
        if ((*c)[0] == (n ? s[0] : '\0') && strlen(*c) == n && memcmp(*c, s, n) == 0)
            return 1;
    return 0;
}

static int one_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return 0;
    return 1;
}

const char *bx_pointer_dotted(const char *ptr, const char *root, char *out, size_t n)
{
    size_t o = 0;
    if (!*ptr) {
        snprintf(out, n, "%s", root);
        return out;
    }
    for (const char *c = ptr; *c && o + 8 < n; c++) {
        if (*c == '/') {
            int index = c[1] >= '0' && c[1] <= '9';
            o += (size_t)snprintf(out + o, n - o, "%s", index ? "[" : o ? "." : "");
            if (index) {
                size_t d = strspn(c + 1, "0123456789");
                o += (size_t)snprintf(out + o, n - o, "%.*s]", (int)d, c + 1);
                c += d;
            }
        } else if (*c == '~') {
            out[o++] = c[1] == '1' ? '/' : '~';
            c += c[1] ? 1 : 0;
        } else {
            out[o++] = (unsigned char)*c < 0x20 ? '?' : *c;
        }
    }
    out[o < n ? o : n - 1] = '\0';
    return out;
}

/* ---- JSON: formats ----------------------------------------------------------------------- */

static int check_format(const bx_shape *sh, const json_t *v, bx_error *err)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v), o = 0;
    char list[160], why[128];
    const char *at;
    int64_t x;

    if (sh->choices) {
        if (is_choice(sh->choices, s, n))
            return 0;
        list[0] = '\0';
        for (const char *const *c = sh->choices; *c && o < sizeof list; c++)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s\"%s\"", o ? ", " : "", *c);
        return bad(err, "expected one of %s", list);
    }
    if (sh->check && (memchr(s, '\0', n) || sh->check(s, why, sizeof why) != 0))
        return bad(err, "%s", memchr(s, '\0', n) ? "holds a NUL" : why);
    switch (sh->fmt) {
    case BX_F_TEXT:
        return 0;
    case BX_F_NONEMPTY:
    case BX_F_BLOCK:
        return n ? 0 : bad(err, "must not be empty");
    case BX_F_LINE:
        return n && one_line(s, n) ? 0 : bad(err, "expected one line of text");
    case BX_F_HEX64:
        return n == 64 && is_hex(s, n) ? 0 : bad(err, "expected 64 lowercase hex digits");
    case BX_F_HEX64_PIN:
        if (n == 71 && memcmp(s, "sha256:", 7) == 0)
            s += 7, n -= 7;
        return n == 64 && is_hex(s, n) ? 0 : bad(err, "expected 64 lowercase hex digits");
    case BX_F_DIGEST:
        return n == 71 && memcmp(s, "sha256:", 7) == 0 && is_hex(s + 7, 64)
                   ? 0
                   : bad(err, "expected sha256: and 64 lowercase hex digits");
    case BX_F_TIME:
        return is_time(s, n) ? 0 : bad(err, "expected an RFC 3339 UTC time YYYY-MM-DDTHH:MM:SSZ");
    case BX_F_TIME_FRAC:
        return is_time_frac(s, n) ? 0
                                  : bad(err, "expected an RFC 3339 UTC time "
                                             "YYYY-MM-DDTHH:MM:SS[.fraction]Z (no trailing 0)");
    case BX_F_NONCE:
        return n >= 16 && n <= 128 && n % 2 == 0 && is_hex(s, n)
                   ? 0
                   : bad(err, "expected 16 to 128 lowercase hex digits (an even count)");
    case BX_F_UUID:
        return is_uuid(s, n) ? 0 : bad(err, "expected a lowercase UUID (the kernel's boot_id)");
    case BX_F_SEMVER:
        return is_semver(s, n) ? 0 : bad(err, "expected a version MAJOR.MINOR.PATCH");
    case BX_F_APIVER:
        at = memchr(s, '.', n);
        return at && is_digits(s, (size_t)(at - s)) && is_digits(at + 1, n - (size_t)(at - s) - 1)
                   ? 0
                   : bad(err, "expected an API version MAJOR.MINOR");
    case BX_F_ENDPOINT:
        return (n > 8 && memcmp(s, "unix:///", 8) == 0) || (n > 6 && memcmp(s, "tcp://", 6) == 0)
                   ? 0
                   : bad(err, "expected unix:///path or tcp://host:port");
    case BX_F_ENDPOINT2:
        return (n > 8 && memcmp(s, "unix:///", 8) == 0) || (n > 6 && memcmp(s, "tcp://", 6) == 0) ||
                       (n > 6 && memcmp(s, "ssh://", 6) == 0)
                   ? 0
                   : bad(err, "expected unix:///path, tcp://host:port or ssh://[user@]host[:port]");
    case BX_F_NETMODE:
        if (n > 10 && memcmp(s, "container:", 10) == 0 ? is_name(s + 10, n - 10) : is_name(s, n))
            return 0;
        return bad(err, "expected none, bridge, host, container:<id> or a network name");
    case BX_F_ABSPATH:
        return n && s[0] == '/' ? 0 : bad(err, "expected an absolute path");
    case BX_F_CANONPATH_OR_EMPTY:
        if (n == 0)
            return 0;
        /* fall through */
    case BX_F_CANONPATH:
        return n && !memchr(s, '\0', n) && bx_path_canonical(s)
                   ? 0
                   : bad(err, "expected an absolute path in canonical form (no //, ., .. or "
                              "trailing /)");
    case BX_F_REPODIGEST:
        at = n > 72 ? s + n - 72 : NULL;
        return at && at[0] == '@' && memcmp(at + 1, "sha256:", 7) == 0 && is_hex(at + 8, 64) &&
                       !memchr(s, ' ', n)
                   ? 0
                   : bad(err, "expected NAME@sha256: and 64 lowercase hex digits");
    case BX_F_PERMS:
        if (n >= 1 && n <= 3 && strspn(s, "rwm") == n && !(n > 1 && s[0] == s[1]) &&
            !(n == 3 && (s[0] == s[2] || s[1] == s[2])))
            return 0;
        return bad(err, "expected device permissions of r, w and m");
    case BX_F_HOSTIP:
        return strspn(s, "0123456789abcdef.:") == n && n <= 45
                   ? 0
                   : bad(err, "expected an IP address (lowercase) or \"\"");
    case BX_F_SIZE:
        return !memchr(s, '\0', n) && bx_size_parse(s, &x) == 0
                   ? 0
                   : bad(err, "expected a size \\d+(Ki|Mi|Gi)?");
    case BX_F_DURATION:
        return !memchr(s, '\0', n) && bx_duration_parse(s, &x, NULL) == 0
                   ? 0
                   : bad(err, "expected a duration such as 30s, 5m, 24h or 7d");
    case BX_F_DECIMAL:
        return !memchr(s, '\0', n) && bx_cpus_parse(s, &x) == 0
                   ? 0
                   : bad(err, "expected a CPU count such as \"0.5\" or \"2\"");
    case BX_F_SYSCTL:
        return is_sysctl(s, n) ? 0 : bad(err, "expected a sysctl name (net.ipv4.ip_forward)");
    case BX_F_SECCOMP_WORD:
        if ((n == 71 && memcmp(s, "sha256:", 7) == 0 && is_hex(s + 7, 64)) ||
            is_choice((const char *const[]){"default", "custom", "unconfined", NULL}, s, n))
            return 0;
        return bad(err, "expected default, custom, unconfined or sha256:<64 lowercase hex>");
    default:
        return bad(err, "no such format");
    }
}

/* ---- JSON: sort orders ----------------------------------------------------------------- */

static int cmp_str(const json_t *a, const json_t *b)
{
    size_t la = json_string_length(a), lb = json_string_length(b);
    int c = memcmp(json_string_value(a), json_string_value(b), la < lb ? la : lb);
    return c ? (c < 0 ? -1 : 1) : (la > lb) - (la < lb);
}

static int cmp_int(const json_t *a, const json_t *b)
{
    json_int_t x = json_integer_value(a), y = json_integer_value(b);
    return (x > y) - (x < y);
}

static int cmp_member_str(const json_t *a, const json_t *b, const char *k)
{
    return cmp_str(json_object_get(a, k), json_object_get(b, k));
}

static int cmp_member_int(const json_t *a, const json_t *b, const char *k)
{
    return cmp_int(json_object_get(a, k), json_object_get(b, k));
}

/* Items were checked against their shape before they are compared. */
static int compare(int ord, const json_t *a, const json_t *b)
{
    int c = 0;
    switch (ord) {
    case BX_O_STRING:
        return cmp_str(a, b);
    case BX_O_INT:
        return cmp_int(a, b);
    case BX_O_CAP:
        if (json_is_string(a) != json_is_string(b))
            return json_is_string(a) ? -1 : 1;
        return json_is_string(a) ? cmp_str(a, b) : cmp_int(a, b);
    case BX_O_PORT:
        if (!(c = cmp_member_int(a, b, "containerPort")) && !(c = cmp_member_str(a, b, "proto")) &&
            !(c = cmp_member_str(a, b, "hostIp")))
            c = cmp_member_int(a, b, "hostPort");
        return c;
    case BX_O_SURFACE:
        if (!(c = cmp_member_str(a, b, "path")))
            c = cmp_member_str(a, b, "kind");
        return c;
    case BX_O_MOUNT:
        if (!(c = cmp_member_str(a, b, "destination")) &&
            !(c = cmp_member_str(a, b, "sourceAsGiven")))
            c = cmp_member_str(a, b, "type");
        return c;
    case BX_O_DEVICE:
        if (!(c = cmp_member_str(a, b, "pathInContainer")) &&
            !(c = cmp_member_str(a, b, "pathOnHost")))
            c = cmp_member_str(a, b, "cgroupPermissions");
        return c;
    case BX_O_DISCREPANCY:
        return cmp_member_str(a, b, "field");
    case BX_O_HOLDER:
        if (!(c = cmp_member_int(a, b, "pid")) && !(c = cmp_member_str(a, b, "by")))
            c = cmp_member_str(a, b, "place");
        return c;
    case BX_O_DESCRIPTOR:
        if (!(c = cmp_member_int(a, b, "pid")))
            c = cmp_member_int(a, b, "fd");
        return c;
    case BX_O_PATH:
        return cmp_member_str(a, b, "path");
    case BX_O_ID:
        return cmp_member_str(a, b, "id");
    case BX_O_NAME:
        return cmp_member_str(a, b, "name");
    case BX_O_MOUNTLINE:
        if (!(c = cmp_member_str(a, b, "destination")) && !(c = cmp_member_str(a, b, "fsType")) &&
            json_object_get(a, "root") && json_object_get(b, "root") &&
            !(c = cmp_member_str(a, b, "root")) && json_object_get(a, "device") &&
            json_object_get(b, "device"))
            c = cmp_member_str(a, b, "device");
        return c;
    case BX_O_HOSTOBJ:
        if (!(c = cmp_member_str(a, b, "what")))
            c = cmp_member_str(a, b, "path");
        return c;
    case BX_O_REFERENCE:
        if (!(c = cmp_member_int(a, b, "pid")) && !(c = cmp_member_str(a, b, "via")) &&
            !(c = cmp_member_str(a, b, "target"))) {
            const json_t *x = json_object_get(a, "perms"), *y = json_object_get(b, "perms");
            c = json_is_string(x) != json_is_string(y) ? (json_is_string(x) ? 1 : -1)
                                                         : cmp_member_str(a, b, "perms");
        }
        return c;
    case BX_O_PEER:
        if (!(c = cmp_member_str(a, b, "destination")))
            c = cmp_member_str(a, b, "propagation");
        return c;
    case BX_O_PID_CONTROLLER:
        if (!(c = cmp_member_int(a, b, "pid")))
            c = cmp_member_str(a, b, "controller");
        return c;
    default:
        return -1;
    }
}

/* ---- JSON: the closed walk ---------------------------------------------------------------- */

static const char *kind_name(int k)
{
    switch (k) {
    case BX_K_OBJECT:
    case BX_K_MAP:
        return "an object";
    case BX_K_ARRAY:
        return "an array";
    case BX_K_STRING:
        return "a string";
    case BX_K_INT:
        return "an integer";
    case BX_K_BOOL:
        return "true or false";
    case BX_K_CAP:
        return "a capability";
    default:
        return "a value";
    }
}

static const char *json_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a real";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* A value of the kind of n's alternative, not of n's own (a word where a mapping is typed,
 * a list where a mapping is): typed by the alternative. */
static int alt_applies(const bx_shape *n, const json_t *v)
{
    if (!n->alt)
        return 0;
    if (json_is_string(v))
        return n->kind != BX_K_STRING && n->alt->kind == BX_K_STRING;
    if (json_is_array(v))
        return n->kind != BX_K_ARRAY && n->alt->kind == BX_K_ARRAY;
    return 0;
}

static int wrong_type(const bx_shape *n, const json_t *v, bx_error *err)
{
    const char *alt = !n->alt                           ? ""
                      : n->alt->kind == BX_K_ARRAY ? " or an array"
                                                     : " or a string";
    if (n->alt && n->alt->kind == BX_K_STRING && json_is_string(v))
        return bad(err, "expected %s%s, found a string", kind_name(n->kind),
                   n->nullable ? " or null" : "");
    return bad(err, "expected %s%s%s, found %s", kind_name(n->kind), alt,
               n->nullable ? " or null" : "", json_name(v));
}

static int check(const bx_shape *n, const json_t *v, unsigned version, bx_error *err);

static int member_is(const bx_member *m, const char *key, size_t len)
{
    return strncmp(m->name, key, len) == 0 && m->name[len] == '\0';
}

/* Member tables are sorted and a canonical object's members come sorted: look from just
 * after the previous match first (*from), then from the start. A member of another version
 * is not one. */
static const bx_member *find_member(const bx_member *m, const char *key, size_t len,
                                    unsigned version, size_t *from)
{
    size_t i = *from;
    for (; m[i].name; i++)
        if (member_is(&m[i], key, len) && bx_member_in(&m[i], version))
            goto found;
    for (i = 0; i < *from; i++)
        if (member_is(&m[i], key, len) && bx_member_in(&m[i], version))
            goto found;
    return NULL;
found:
    *from = i + 1;
    return &m[i];
}

static int check_object(const bx_shape *n, const json_t *v, unsigned version, bx_error *err)
{
    size_t required = 0, seen = 0, from = 0;
    int rc;

    for (const bx_member *m = n->members; m->name; m++)
        required += bx_member_in(m, version) && !(m->flags & BX_M_OPTIONAL);
    for (void *it = json_object_iter((json_t *)v); it;
         it = json_object_iter_next((json_t *)v, it)) {
        const char *key = json_object_iter_key(it);
        size_t klen = json_object_iter_key_len(it);
        const json_t *val = json_object_iter_value(it);
        const bx_member *m =
            memchr(key, '\0', klen) ? NULL : find_member(n->members, key, klen, version, &from);
        if (!m)
            rc = bad(err, "unknown member");
        else
            rc = check(m->shape, val, version, err);
        if (rc) {
            bx_json_where_push(err, key, klen);
            return rc;
        }
        seen += !(m->flags & BX_M_OPTIONAL);
    }
    if (seen == required)
        return 0;
    for (const bx_member *m = n->members; m->name; m++) {
        if (bx_member_in(m, version) && !(m->flags & BX_M_OPTIONAL) &&
            !json_object_get(v, m->name)) {
            bad(err, "missing member (a value not observed is null)");
            bx_json_where_push(err, m->name, strlen(m->name));
            return BX_EINVAL;
        }
    }
    return 0;
}

static int check_array(const bx_shape *n, const json_t *v, unsigned version, bx_error *err)
{
    size_t count = json_array_size(v);
    int rc;

    if ((n->min && count < (size_t)n->min) || (n->max && count > (size_t)n->max))
        return n->min == n->max
                   ? bad(err, "expected %lld items", (long long)n->min)
                   : bad(err, "expected %lld to %lld items", (long long)n->min, (long long)n->max);
    for (size_t i = 0; i < count; i++) {
        const json_t *item = json_array_get(v, i);
        if ((rc = check(n->item, item, version, err)) == 0 && i > 0) {
            if (n->order != BX_O_NONE) {
                int c = compare(n->order, json_array_get(v, i - 1), item);
                if (c > 0)
                    rc = bad(err, "list not sorted: this item belongs before the previous one");
                else if (c == 0 && n->unique)
                    rc = bad(err, "list item repeated");
            } else if (n->unique) {
                for (size_t j = 0; j < i && !rc; j++)
                    if (json_equal(json_array_get(v, j), (json_t *)item))
                        rc = bad(err, "list item repeated");
            }
        }
        if (rc) {
            bx_json_where_push_index(err, i);
            return rc;
        }
    }
    return 0;
}

static int check_map(const bx_shape *n, const json_t *v, unsigned version, bx_error *err)
{
    int rc;

    for (void *it = json_object_iter((json_t *)v); it;
         it = json_object_iter_next((json_t *)v, it)) {
        const char *key = json_object_iter_key(it);
        size_t klen = json_object_iter_key_len(it);
        if (n->fmt == BX_F_SYSCTL && (memchr(key, '\0', klen) || !is_sysctl(key, klen))) {
            bad(err, "not a sysctl name (net.ipv4.ip_forward)");
            bx_json_where_push(err, key, klen);
            return BX_EINVAL;
        }
        if (n->fmt == BX_F_ABSPATH && (memchr(key, '\0', klen) || key[0] != '/')) {
            bad(err, "not an absolute path");
            bx_json_where_push(err, key, klen);
            return BX_EINVAL;
        }
        if ((rc = check(n->item, json_object_iter_value(it), version, err)) != 0) {
            bx_json_where_push(err, key, klen);
            return rc;
        }
    }
    return 0;
}

static int check_cap(const bx_shape *n, const json_t *v, bx_error *err)
{
    if (json_is_integer(v) && !n->all) {
        json_int_t bit = json_integer_value(v);
        return bit >= 0 && bit <= 63 ? 0 : bad(err, "expected a capability number from 0 to 63");
    }
    if (!json_is_string(v))
        return bad(err, "expected a capability name%s, found %s",
                   n->all ? " or \"ALL\"" : " or number", json_name(v));
    if (bx_cap_index(json_string_value(v)) >= 0 ||
        (n->all && strcmp(json_string_value(v), "ALL") == 0))
        return 0;
    return bad(err, "unknown capability name (names are written without CAP_)");
}

static int check(const bx_shape *n, const json_t *v, unsigned version, bx_error *err)
{
    if (json_is_null(v))
        return n->nullable || n->kind == BX_K_ANY ? 0 : wrong_type(n, v, err);
    if (alt_applies(n, v))
        return check(n->alt, v, version, err);
    switch (n->kind) {
    case BX_K_OBJECT:
        return json_is_object(v) ? check_object(n, v, version, err) : wrong_type(n, v, err);
    case BX_K_MAP:
        return json_is_object(v) ? check_map(n, v, version, err) : wrong_type(n, v, err);
    case BX_K_ARRAY:
        return json_is_array(v) ? check_array(n, v, version, err) : wrong_type(n, v, err);
    case BX_K_STRING:
        return json_is_string(v) ? check_format(n, v, err) : wrong_type(n, v, err);
    case BX_K_INT:
        if (!json_is_integer(v))
            return wrong_type(n, v, err);
        if (json_integer_value(v) < n->min || json_integer_value(v) > n->max)
            return bad(err, "expected an integer from %lld to %lld", (long long)n->min,
                       (long long)n->max);
        return 0;
    case BX_K_BOOL:
        return json_is_boolean(v) ? 0 : wrong_type(n, v, err);
    case BX_K_CAP:
        return check_cap(n, v, err);
    case BX_K_ANY:
        return 0;
    default:
        return bad(err, "no such kind");
    }
}

int bx_shape_check(const bx_shape *s, const json_t *v, unsigned version, bx_error *err)
{
    return check(s, v, version, err);
}

/* ---- YAML: typing by place ------------------------------------------------------------------ */

typedef struct {
    const bx_yaml_doc *doc;
    const char *root; /* the document's name in messages ("policy") */
    unsigned version;
    bx_error *err;
} tctx;


static const char *dotted(const tctx *t, const char *ptr, char *out, size_t n)
{
    return bx_pointer_dotted(ptr, t->root, out, n);
}

static const char *describe(const bx_yaml_doc *doc, const char *ptr, const json_t *v, char *out,
                            size_t n)
{
    char s[SNIP_MAX];
    if (json_is_null(v))
        snprintf(out, n, "null");
    else if (json_is_object(v))
        snprintf(out, n, "a mapping");
    else if (json_is_array(v))
        snprintf(out, n, "a list");
    else
        snprintf(out, n, "%s\"%s\"", bx_yaml_quoted(doc, ptr) ? "quoted " : "",
                 bx_text_snip(json_string_value(v), s, sizeof s));
    return out;
}


#define YERR(t, ptr, ...) bx_yaml_error((t)->doc, ptr, (t)->err, BX_ECONFIG, __VA_ARGS__)

static int oom_at(const tctx *t, const char *ptr)
{
    bx_yaml_error(t->doc, ptr, t->err, BX_ENOMEM, "out of memory");
    return BX_ENOMEM;
}

static int wrong(const tctx *t, const char *ptr, const json_t *v, const char *want)
{
    char d[SNIP_MAX + 16], dp[160];
    return YERR(t, ptr, "%s: expected %s, found %s", dotted(t, ptr, dp, sizeof dp), want,
                describe(t->doc, ptr, v, d, sizeof d));
}

static int is_plain_string(const tctx *t, const char *ptr, const json_t *v)
{
    return json_is_string(v) && !bx_yaml_quoted(t->doc, ptr);
}

static int type_value(const tctx *t, const char *ptr, const bx_shape *k, const json_t *v,
                      json_t **out);

static int type_bool(const tctx *t, const char *ptr, const json_t *v, json_t **out)
{
    const char *s = json_string_value(v);
    if (!is_plain_string(t, ptr, v) || (strcmp(s, "true") != 0 && strcmp(s, "false") != 0))
        return wrong(t, ptr, v, "true or false");
    *out = json_boolean(strcmp(s, "true") == 0);
    return 0;
}

static int type_int(const tctx *t, const char *ptr, const bx_shape *k, const json_t *v,
                    json_t **out)
{
    const char *s = json_string_value(v);
    size_t n = s ? strspn(s, "0123456789") : 0;
    long long x = 0;
    char dp[160];

    if (!is_plain_string(t, ptr, v) || n == 0 || s[n] || n > 16 || (s[0] == '0' && n > 1))
        return wrong(t, ptr, v, "an integer");
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (s[i] - '0');
    if (x < k->min || x > k->max)
        return YERR(t, ptr, "%s: must be %s %lld, found %lld", dotted(t, ptr, dp, sizeof dp),
                    x < k->min ? "at least" : "at most", (long long)(x < k->min ? k->min : k->max),
                    x);
    *out = json_integer(x);
    return 0;
}

static int type_cap(const tctx *t, const char *ptr, const bx_shape *k, const json_t *v,
                    json_t **out)
{
    const char *s = json_string_value(v);
    char sn[SNIP_MAX], dp[160];

    if (!s || !*s)
        return wrong(t, ptr, v, "a capability name");
    if (!(k->all && strcmp(s, "ALL") == 0) && bx_cap_index(s) < 0)
        return YERR(t, ptr, "%s: invalid value \"%s\": %s", dotted(t, ptr, dp, sizeof dp),
                    bx_text_snip(s, sn, sizeof sn),
                    strncmp(s, "CAP_", 4) == 0 ? "write capability names without CAP_"
                                               : "unknown capability (names as the kernel's, "
                                                 "without CAP_: NET_RAW)");
    *out = json_string(s);
    return 0;
}

static int type_string(const tctx *t, const char *ptr, const bx_shape *k, const json_t *v,
                       json_t **out)
{
    const char *s = json_string_value(v);
    char why[160], sn[SNIP_MAX], dp[160];
    bx_error e = {0};
    int64_t x;

    int measure = k->fmt == BX_F_SIZE || k->fmt == BX_F_DURATION || k->fmt == BX_F_DECIMAL ||
                  k->fmt == BX_F_TIME;
    if (!s)
        return wrong(t, ptr, v, k->fmt == BX_F_TEXT || measure ? "a string" : "a non-empty string");
    if (!*s && (k->fmt == BX_F_NONEMPTY || k->fmt == BX_F_LINE || k->fmt == BX_F_BLOCK || measure))
        return wrong(t, ptr, v, "a non-empty string");
    if (k->fmt != BX_F_BLOCK && k->fmt != BX_F_TEXT && !one_line(s, strlen(s)))
        return wrong(t, ptr, v, "one line of text");
    if (k->choices) {
        const char *const *c = k->choices;
        while (*c && strcmp(*c, s) != 0)
            c++;
        if (!*c) {
            size_t o = 0;
            why[0] = '\0';
            for (c = k->choices; *c && o < sizeof why; c++)
                o += (size_t)snprintf(why + o, sizeof why - o, "%s%s", c == k->choices ? "" : ", ",
                                      *c);
            return YERR(t, ptr, "%s: \"%s\" is not one of: %s", dotted(t, ptr, dp, sizeof dp),
                        bx_text_snip(s, sn, sizeof sn), why);
        }
    }
    switch (k->fmt) {
    case BX_F_SIZE:
        if (bx_size_parse(s, &x) != 0)
            return YERR(t, ptr, "%s: invalid size \"%s\": want \\d+(Ki|Mi|Gi)?",
                        dotted(t, ptr, dp, sizeof dp), bx_text_snip(s, sn, sizeof sn));
        break;
    case BX_F_DURATION:
        if (bx_duration_parse(s, &x, &e) != 0)
            return YERR(t, ptr, "%s: %s", dotted(t, ptr, dp, sizeof dp), e.msg);
        break;
    case BX_F_DECIMAL:
        if (bx_cpus_parse(s, &x) != 0)
            return YERR(t, ptr,
                        "%s: invalid CPU count \"%s\": want a decimal above 0 such as "
                        "\"0.5\" or \"2\" (at most 9 decimals)",
                        dotted(t, ptr, dp, sizeof dp), bx_text_snip(s, sn, sizeof sn));
        break;
    case BX_F_TIME:
        if (bx_time_parse(s, 0, &x, &e) != 0)
            return YERR(t, ptr, "%s: %s", dotted(t, ptr, dp, sizeof dp), e.msg);
        break;
    case BX_F_TEXT:
    case BX_F_NONEMPTY:
    case BX_F_LINE:
    case BX_F_BLOCK:
        break;
    default: {
        json_t *js = json_string(s);
        bx_error fe = {0};
        int rc = js ? check_format(k, js, &fe) : BX_ENOMEM;
        json_decref(js);
        if (rc == BX_ENOMEM)
            return oom_at(t, ptr);
        if (rc)
            return YERR(t, ptr, "%s: invalid value \"%s\": %s", dotted(t, ptr, dp, sizeof dp),
                        bx_text_snip(s, sn, sizeof sn), fe.msg);
    }
    }
    if (k->check && k->check(s, why, sizeof why) != 0)
        return YERR(t, ptr, "%s: invalid value \"%s\": %s", dotted(t, ptr, dp, sizeof dp),
                    bx_text_snip(s, sn, sizeof sn), why);
    *out = json_string(s);
    return 0;
}

static int type_list(const tctx *t, const char *ptr, const bx_shape *k, const json_t *v,
                     json_t **out)
{
    json_t *list = NULL, *x = NULL;
    char p[PTR_MAX];
    int rc = 0;

    if (!json_is_array(v))
        return wrong(t, ptr, v, "a list");
    if (!(list = json_array()))
        return oom_at(t, ptr);
    for (size_t i = 0; i < json_array_size(v); i++) {
        snprintf(p, sizeof p, "%s/%zu", ptr, i);
        if ((rc = type_value(t, p, k->item, json_array_get(v, i), &x)) != 0)
            goto out;
        if (k->order != BX_O_NONE && json_array_size(list) &&
            compare(k->order, json_array_get(list, json_array_size(list) - 1), x) > 0) {
            char dp[160];
            json_decref(x);
            rc = YERR(t, p, "%s: out of order (the list is kept sorted, ascending)",
                      dotted(t, p, dp, sizeof dp));
            goto out;
        }
        for (size_t j = 0; k->unique && j < json_array_size(list); j++) {
            if (json_equal(json_array_get(list, j), x)) {
                char dp[160];
                json_decref(x);
                rc = YERR(t, p, "%s: listed twice (as item %zu)", dotted(t, p, dp, sizeof dp), j);
                goto out;
            }
        }
        if (json_array_append_new(list, x) != 0) {
            rc = oom_at(t, ptr);
            goto out;
        }
    }
    *out = list;
    list = NULL;
out:
    json_decref(list);
    return rc;
}

static const bx_member *yaml_member(const bx_member *m, const char *name, unsigned version)
{
    for (; m && m->name; m++)
        if (strcmp(m->name, name) == 0 && bx_member_in(m, version))
            return m;
    return NULL;
}

static int type_object(const tctx *t, const char *ptr, const bx_shape *k, const json_t *v,
                       json_t **out)
{
    json_t *map = NULL, *x = NULL;
    const char *name;
    json_t *val;
    char p[PTR_MAX], sn[SNIP_MAX], dp[160];
    int rc = 0;

    if (!json_is_object(v))
        return wrong(t, ptr, v,
                     !k->alt                        ? "a mapping"
                     : k->alt->kind == BX_K_ARRAY ? "a mapping or a list"
                                                  : "a mapping or a word");
    if (!(map = json_object()))
        return oom_at(t, ptr);
    json_object_foreach((json_t *)v, name, val)
    {
        const bx_member *m = yaml_member(k->members, name, t->version);
        bx_pointer_child(p, sizeof p, ptr, name);
        if (!m) {
            rc = bx_yaml_key_error(t->doc, p, t->err, BX_ECONFIG, "unknown key '%s'",
                                   bx_text_snip(name, sn, sizeof sn));
            goto out;
        }
        if ((rc = type_value(t, p, m->shape, val, &x)) != 0)
            goto out;
        if (json_object_set_new(map, name, x) != 0) { /* x is freed even then */
            rc = oom_at(t, ptr);
            goto out;
        }
    }
    for (const bx_member *m = k->members; m && m->name; m++) {
        if ((m->flags & BX_M_REQUIRED) && bx_member_in(m, t->version) &&
            !json_object_get(map, m->name)) {
            rc = YERR(t, ptr, "%s: missing key '%s'", dotted(t, ptr, dp, sizeof dp), m->name);
            goto out;
        }
    }
    *out = map;
    map = NULL;
out:
    json_decref(map);
    return rc;
}

static int type_map(const tctx *t, const char *ptr, const bx_shape *k, const json_t *v,
                    json_t **out)
{
    json_t *map = NULL, *x = NULL;
    const char *name;
    json_t *val;
    char p[PTR_MAX], sn[SNIP_MAX];
    int rc = 0;

    if (!json_is_object(v))
        return wrong(t, ptr, v, "a mapping");
    if (!(map = json_object()))
        return oom_at(t, ptr);
    json_object_foreach((json_t *)v, name, val)
    {
        bx_pointer_child(p, sizeof p, ptr, name);
        if (k->fmt == BX_F_SYSCTL && !is_sysctl(name, strlen(name))) {
            rc = bx_yaml_key_error(t->doc, p, t->err, BX_ECONFIG,
                                   "'%s' is not a sysctl name (net.ipv4.ip_forward)",
                                   bx_text_snip(name, sn, sizeof sn));
            goto out;
        }
        if ((rc = type_value(t, p, k->item, val, &x)) != 0)
            goto out;
        if (json_object_set_new(map, name, x) != 0) {
            rc = oom_at(t, ptr);
            goto out;
        }
    }
    *out = map;
    map = NULL;
out:
    json_decref(map);
    return rc;
}

static int type_value(const tctx *t, const char *ptr, const bx_shape *k, const json_t *v,
                      json_t **out)
{
    char dp[160];
    int rc;

    *out = NULL;
    if (json_is_null(v) && k->nullable) {
        *out = json_null();
        return 0;
    }
    if (alt_applies(k, v))
        return type_value(t, ptr, k->alt, v, out);
    switch (k->kind) {
    case BX_K_BOOL:
        rc = type_bool(t, ptr, v, out);
        break;
    case BX_K_INT:
        rc = type_int(t, ptr, k, v, out);
        break;
    case BX_K_STRING:
        rc = type_string(t, ptr, k, v, out);
        break;
    case BX_K_CAP:
        rc = type_cap(t, ptr, k, v, out);
        break;
    case BX_K_ARRAY:
        rc = type_list(t, ptr, k, v, out);
        break;
    case BX_K_OBJECT:
        rc = type_object(t, ptr, k, v, out);
        break;
    case BX_K_MAP:
        rc = type_map(t, ptr, k, v, out);
        break;
    default:
        rc = YERR(t, ptr, "%s: no such type", dotted(t, ptr, dp, sizeof dp));
    }
    if (rc == 0 && !*out)
        rc = oom_at(t, ptr);
    return rc;
}

int bx_shape_type_yaml(const bx_shape *s, const bx_yaml_doc *doc, const char *root, const char *ptr,
                       const json_t *v, unsigned version, json_t **out, bx_error *err)
{
    tctx t = {.doc = doc, .root = root ? root : "document", .version = version, .err = err};
    return type_value(&t, ptr ? ptr : "", s, v, out);
}

/* ---- JSON Schema ------------------------------------------------------------------------------
 */

static const char *format_pattern(int fmt)
{
    switch (fmt) {
    case BX_F_HEX64:
        return "^[0-9a-f]{64}$";
    case BX_F_HEX64_PIN:
        return "^(sha256:)?[0-9a-f]{64}$";
    case BX_F_DIGEST:
        return "^sha256:[0-9a-f]{64}$";
    case BX_F_TIME:
        return "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:"
               "[0-5][0-9]Z$";
    case BX_F_TIME_FRAC:
        return "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:"
               "[0-5][0-9](\\.[0-9]{0,8}[1-9])?Z$";
    case BX_F_NONCE:
        return "^([0-9a-f]{2}){8,64}$";
    case BX_F_UUID:
        return "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";
    case BX_F_SEMVER:
        return "^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)([-+][0-9A-Za-z.+-]+)?$";
    case BX_F_APIVER:
        return "^[0-9]+\\.[0-9]+$";
    case BX_F_ENDPOINT:
        return "^(unix:///|tcp://)[\\s\\S]";
    case BX_F_ENDPOINT2:
        return "^(unix:///|tcp://|ssh://)[\\s\\S]";
    case BX_F_NETMODE:
        return "^(container:)?[A-Za-z0-9][A-Za-z0-9_.-]*$";
    case BX_F_ABSPATH:
        return "^/";
    case BX_F_CANONPATH:
        return "^(/|(/(?!\\.{1,2}(/|$))[^/]+)+)$";
    case BX_F_CANONPATH_OR_EMPTY:
        return "^(|/|(/(?!\\.{1,2}(/|$))[^/]+)+)$";
    case BX_F_REPODIGEST:
        return "^[^ ]+@sha256:[0-9a-f]{64}$";
    case BX_F_PERMS:
        return "^(?!.*(.).*\\1)[rwm]{1,3}$";
    case BX_F_HOSTIP:
        return "^[0-9a-f.:]{0,45}$";
    case BX_F_LINE:
        return "^[^\\u0000-\\u001f\\u007f]+$";
    case BX_F_SIZE:
        return "^(0|[1-9][0-9]{0,15})(Ki|Mi|Gi)?$";
    case BX_F_DURATION:
        return "^(0|[1-9][0-9]*)[smhd]$";
    case BX_F_DECIMAL:
        return "^(0|[1-9][0-9]{0,6})(\\.[0-9]{1,9})?$";
    case BX_F_SYSCTL:
        return "^[a-z0-9_-]+(\\.[a-z0-9_-]+)*$";
    case BX_F_SECCOMP_WORD:
        return "^(default|custom|unconfined|sha256:[0-9a-f]{64})$";
    default:
        return NULL;
    }
}

static int put(json_t *o, const char *k, json_t *v)
{
    return json_object_set_new(o, k, v);
}

static json_t *type_of(const char *t, int nullable)
{
    return nullable ? json_pack("[ss]", t, "null") : json_string(t);
}

static json_t *emit(const bx_shape *s, unsigned version, int closed, json_t *defs, int nullable,
                    const char *doc);

/* Add type, additionalProperties, required and properties of object shape s to o. */
static int emit_members(const bx_shape *s, unsigned version, int closed, json_t *defs, json_t *o)
{
    json_t *req = json_array(), *props = json_object();
    int err = !req || !props;

    for (const bx_member *m = s->members; !err && m->name; m++) {
        json_t *p;
        if (!bx_member_in(m, version))
            continue;
        if ((closed ? !(m->flags & BX_M_OPTIONAL) : (m->flags & BX_M_REQUIRED)) &&
            json_array_append_new(req, json_string(m->name)))
            err = 1;
        p = emit(m->shape, version, closed, defs, m->shape->nullable, m->doc);
        if (!p || json_object_set_new(props, m->name, p))
            err = 1;
    }
    if (err) {
        json_decref(req);
        json_decref(props);
        return -1;
    }
    return put(o, "type", json_string("object")) || put(o, "additionalProperties", json_false()) ||
                   put(o, "required", req) || put(o, "properties", props)
               ? -1
               : 0;
}

/* The value of s, without its $defs indirection. */
static json_t *emit_body(const bx_shape *s, unsigned version, int closed, json_t *defs,
                         int nullable, const char *doc)
{
    json_t *o = json_object(), *x;
    const char *pat;
    int err = !o;

    if (!err && doc)
        err = put(o, "description", json_string(doc));
    switch (err ? 0 : s->kind) {
    case BX_K_OBJECT:
        if (nullable || s->alt) {
            json_t *any = json_array(), *inner = json_object();
            err = !any || !inner || emit_members(s, version, closed, defs, inner) != 0;
            if (!err && nullable)
                err = json_array_append_new(any, json_pack("{ss}", "type", "null")) != 0;
            if (!err && s->alt)
                err = json_array_append_new(any, emit(s->alt, version, closed, defs, 0, NULL)) != 0;
            if (!err) {
                err = json_array_append_new(any, inner) != 0;
                inner = NULL;
            }
            if (!err) {
                err = put(o, "anyOf", any) != 0;
                any = NULL;
            }
            json_decref(inner);
            json_decref(any);
            break;
        }
        err = emit_members(s, version, closed, defs, o) != 0;
        break;
    case BX_K_MAP:
        err = put(o, "type", type_of("object", nullable)) ||
              (s->fmt && (pat = format_pattern(s->fmt)) &&
               put(o, "propertyNames", json_pack("{ss}", "pattern", pat))) ||
              !(x = emit(s->item, version, closed, defs, s->item->nullable, NULL)) ||
              put(o, "additionalProperties", x);
        break;
    case BX_K_ARRAY:
        err = put(o, "type", type_of("array", nullable)) ||
              !(x = emit(s->item, version, closed, defs, s->item->nullable, NULL)) ||
              put(o, "items", x) || (s->unique && put(o, "uniqueItems", json_true())) ||
              (s->min && put(o, "minItems", json_integer(s->min))) ||
              (s->max && put(o, "maxItems", json_integer(s->max)));
        break;
    case BX_K_STRING:
        err = put(o, "type", type_of("string", nullable));
        if (!err && s->choices) {
            json_t *e = json_array();
            for (const char *const *c = s->choices; e && *c; c++)
                if (json_array_append_new(e, json_string(*c)))
                    err = 1;
            if (!e || (nullable && json_array_append_new(e, json_null())) || put(o, "enum", e))
                err = 1;
        } else if (!err && (pat = format_pattern(s->fmt))) {
            err = put(o, "pattern", json_string(pat));
        } else if (!err && s->fmt != BX_F_TEXT) {
            err = put(o, "minLength", json_integer(1));
        }
        break;
    case BX_K_INT:
        err = put(o, "type", type_of("integer", nullable)) ||
              put(o, "minimum", json_integer(s->min)) || put(o, "maximum", json_integer(s->max));
        break;
    case BX_K_BOOL:
        err = put(o, "type", type_of("boolean", nullable));
        break;
    case BX_K_CAP: {
        json_t *names = json_array();
        for (size_t i = 0; names && i < BX_CAP_COUNT; i++)
            if (json_array_append_new(names, json_string(bx_cap_names[i])))
                err = 1;
        if (!names || (s->all && json_array_append_new(names, json_string("ALL"))))
            err = 1;
        else if (s->all)
            err = put(o, "type", json_string("string")) || put(o, "enum", names);
        else
            err = put(o, "anyOf",
                      json_pack("[{s:s,s:o},{s:s,s:i,s:i}]", "type", "string", "enum", names,
                                "type", "integer", "minimum", 0, "maximum", 63)) != 0;
        break;
    }
    case BX_K_ANY:
        break;
    default:
        err = 1;
    }
    if (err) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *emit(const bx_shape *s, unsigned version, int closed, json_t *defs, int nullable,
                    const char *doc)
{
    char ref[96];
    json_t *r;

    if (!s->def || !defs)
        return emit_body(s, version, closed, defs, nullable, doc ? doc : s->doc);
    if (!json_object_get(defs, s->def)) {
        json_t *body = emit_body(s, version, closed, defs, 0, s->doc);
        if (!body || json_object_set_new(defs, s->def, body))
            return NULL;
    }
    snprintf(ref, sizeof ref, "#/$defs/%s", s->def);
    r = nullable ? json_pack("{s:[{s:s},{s:s}]}", "anyOf", "type", "null", "$ref", ref)
                 : json_pack("{s:s}", "$ref", ref);
    if (r && doc && json_object_set_new(r, "description", json_string(doc)))
        json_decref(r), r = NULL;
    return r;
}

json_t *bx_shape_json_schema(const bx_shape *s, unsigned version, int closed, json_t *defs)
{
    return emit_body(s, version, closed, defs, s->nullable, s->doc);
}
