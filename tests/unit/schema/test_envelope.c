// SPDX-License-Identifier: Apache-2.0
/* The DSSE envelope's strict reading, beyond test_dsse.c: PAE against the DSSE
 * specification's example, every member at most once (also inside a signature, where the
 * fast path reads it), nothing missing, payloadType printable ASCII on both paths, keyid a
 * string, the signature count at its cap, nothing after the envelope. */
#include "tap.h"
#include "bx_schema.h"

#include <string.h>

static int parse(const char *json, bx_envelope *env)
{
    bx_error e;
    int rc = bx_envelope_parse(json, strlen(json), env, &e);
    return rc;
}

static void refuse(const char *json, const char *what)
{
    bx_envelope env;
    int rc = parse(json, &env);
    is_int(rc, BX_EINVAL, "refused: %s", what);
    if (rc == 0)
        bx_envelope_free(&env);
}

static void accept(const char *json, const char *what)
{
    bx_envelope env;
    int rc = parse(json, &env);
    is_int(rc, 0, "accepted: %s", what);
    if (rc == 0)
        bx_envelope_free(&env);
}

static void test_pae(void)
{
    static const char type[] = "http://example.com/HelloWorld", body[] = "hello world";
    static const char want[] = "DSSEv1 29 http://example.com/HelloWorld 11 hello world";
    unsigned char *pae = NULL;
    size_t n = 0;
    bx_error e;
    ok_err(bx_dsse_pae(type, (const unsigned char *)body, strlen(body), &pae, &n, &e), &e,
           "PAE of the specification's example");
    ok(n == strlen(want) && memcmp(pae, want, n) == 0, "PAE is \"%s\"", want);
    free(pae);
    pae = NULL;
    ok_err(bx_dsse_pae("ab", (const unsigned char *)"x", 1, &pae, &n, &e), &e,
           "PAE of a short type");
    ok(n == 15 && memcmp(pae, "DSSEv1 2 ab 1 x", 15) == 0,
       "lengths of the type and the body, each its own");
    free(pae);
}

#define PL "\"payload\":\"e30=\""
#define PT "\"payloadType\":\"x\""
#define SG "\"signatures\":[{\"sig\":\"AAAA\"}]"

static void test_members(void)
{
    accept("{" PL "," PT "," SG "}", "the three members");
    accept("{" SG "," PT "," PL "}", "in another order");
    accept("{" PL "," PT "," SG "} \n", "whitespace after it");
    refuse("{" PL "," PT "," SG "}{}", "an object after it");
    refuse("{" PL "," PT "," SG "}}", "a brace after it");
    refuse("{" PL "," PT "," SG "," PT "}", "payloadType twice");
    refuse("{" PL "," PT "," SG "," SG "}", "signatures twice");
    refuse("{" PL "," PT "," PL "," SG "}", "payload twice");
    refuse("{" PL "," SG "}", "no payloadType");
    refuse("{" PT "," SG "}", "no payload");
    refuse("{" PL "," PT ","
           "\"signatures\":[{\"keyid\":\"a\",\"keyid\":\"b\",\"sig\":\"AAAA\"}]}",
           "a signature's keyid twice");
    refuse("{" PL "," PT ","
           "\"signatures\":[{\"sig\":\"AAAA\",\"sig\":\"BBBB\"}]}",
           "a signature's sig twice");
    refuse("{" PL "," PT ","
           "\"signatures\":[{\"keyid\":5,\"sig\":\"AAAA\"}]}",
           "a keyid that is a number");
    refuse("{" PL "," PT ","
           "\"signatures\":[{\"keyid\":\"a\",\"sig\":5}]}",
           "a sig that is a number");
    refuse("{" PL "," PT ","
           "\"signatures\":[\"AAAA\"]}",
           "a signature that is not an object");
    refuse("{" PL ",\"payloadType\":5," SG "}", "a payloadType that is a number");
    refuse("{\"payload\":5," PT "," SG "}", "a payload that is a number");
    refuse("{" PL "," PT ",\"signatures\":{}}", "signatures not a list");
}

static void test_payload_type(void)
{
    accept("{" PL ",\"payloadType\":\"application/vnd.in-toto+json\"," SG "}", "in-toto's type");
    accept("{" PL ",\"payloadType\":\"a\\u0062c\"," SG "}", "an escaped printable character");
    refuse("{" PL ",\"payloadType\":\"x\xc3\xa9\"," SG "}", "a payloadType of UTF-8 beyond ASCII");
    refuse("{" PL ",\"payloadType\":\"x\\u00e9\"," SG "}", "... written as an escape");
    refuse("{" PL ",\"payloadType\":\"x\\u007f\"," SG "}", "DEL in the payloadType");
    refuse("{" PL ",\"payloadType\":\"x\\u001f\"," SG "}", "a control character in it");
    refuse("{" PL ",\"payloadType\":\"x\x7f\"," SG "}", "a raw DEL in it");
}

/* n signatures: accepted up to the cap, refused beyond it. */
static void sigs(size_t n, int want)
{
    char buf[4096];
    size_t o = (size_t)snprintf(buf, sizeof buf, "{" PL "," PT ",\"signatures\":[");
    bx_envelope env;
    int rc;
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s{\"sig\":\"AAAA\"}", i ? "," : "");
    snprintf(buf + o, sizeof buf - o, "]}");
    rc = parse(buf, &env);
    is_int(rc, want, "%zu signatures: %s", n, want ? "refused" : "accepted");
    if (rc == 0) {
        is_int(env.nsigs, n, "... all of them read");
        bx_envelope_free(&env);
    }
    /* the same through the strict path (an escape in the payloadType sends it there) */
    o = (size_t)snprintf(buf, sizeof buf, "{" PL ",\"payloadType\":\"\\u0078\",\"signatures\":[");
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s{\"sig\":\"AAAA\"}", i ? "," : "");
    snprintf(buf + o, sizeof buf - o, "]}");
    rc = parse(buf, &env);
    is_int(rc, want, "%zu signatures, read strictly: %s", n, want ? "refused" : "accepted");
    if (rc == 0)
        bx_envelope_free(&env);
}

int main(void)
{
    test_pae();
    test_members();
    test_payload_type();
    sigs(BX_ENVELOPE_MAX_SIGS, 0);
    sigs(BX_ENVELOPE_MAX_SIGS + 1, BX_EINVAL);
    return tap_done();
}
