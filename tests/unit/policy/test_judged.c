// SPDX-License-Identifier: Apache-2.0
/* Nothing judged is not a pass: containment.seccomp.deny on chains that carry no syscall
 * table, part of one, tables of an unknown architecture, names no table resolves, runs of
 * numbers and the numbers past the table; and the policy naming a syscall no table knows.
 * Each case is one the mutations of tests/mutations/judged-bounded.txt would get wrong. */
#include "eval_case.h"

#include <stdio.h>

#define DENY "version: 1\ncontainment:\n  seccomp:\n    deny: [%s]\n"

/* x86_64's lists for a chain: allow (JSON array text) on x86_64, the same for x32 and x86
 * unless given. */
static char *x86(const char *a64, const char *a32, const char *a86, const char *beyond)
{
    char *s = malloc(2048);
    snprintf(s, 2048,
             "{\"x86_64\": {\"allow\": %s, \"depends\": [], \"beyond\": \"%s\"},"
             " \"x32\": {\"allow\": %s, \"depends\": [], \"beyond\": \"%s\"},"
             " \"x86\": {\"allow\": %s, \"depends\": [], \"beyond\": \"%s\"}}",
             a64, beyond, a32 ? a32 : a64, beyond, a86 ? a86 : a64, beyond);
    return s;
}

/* A containment whose one chain has abis (JSON text); strict tasks in strict mode. */
static char *cont(const char *abis, int strict)
{
    char *s = malloc(4096);
    snprintf(s, 4096,
             "{\"seccompPrograms\": {\"servedBy\": \"kernel\", \"chains\": [{\"sha256\": "
             "\"%064d\", \"tasks\": 1, \"filters\": 1, \"insns\": 10, \"log\": false, \"abis\": "
             "%s, \"otherArch\": \"kill_thread\"}], \"tasks\": {\"filter\": 1, \"none\": 0, "
             "\"strict\": %d, \"unread\": 0}, \"unread\": [], \"why\": null}}",
             7, abis, strict);
    return s;
}

static void deny_case(const char *deny, const char *abis, int strict, const char *want,
                      const char *name)
{
    char pol[512];
    char *c = cont(abis, strict);
    snprintf(pol, sizeof pol, DENY, deny);
    expect(pol, c, NULL, "containment.seccomp_deny", want, name);
    free(c);
}

static void deny_x86(const char *deny, const char *a64, const char *a32, const char *a86,
                     const char *beyond, const char *want, const char *name)
{
    char *abis = x86(a64, a32, a86, beyond);
    deny_case(deny, abis, 0, want, name);
    free(abis);
}

static void tables(void)
{
    /* the case of the review: a chain with nothing to judge */
    deny_case("ptrace", "{}", 0, "unknown", "a chain with no ABI's table");
    deny_case("ptrace", "null", 0, "unknown", "a chain whose abis is null");
    deny_case("ptrace", "[]", 0, "unknown", "a chain whose abis is a list");
    deny_case("ptrace", "{\"x86_64\": {\"allow\": [], \"depends\": [], \"beyond\": \"deny\"}}", 0,
              "unknown", "x86_64 alone: x32 and x86 not judged");
    deny_case("ptrace",
              "{\"x86_64\": {\"allow\": [], \"depends\": []}, \"x32\": {\"allow\": [], "
              "\"depends\": []}}",
              0, "unknown", "two of three ABIs");
    deny_case("ptrace",
              "{\"mips\": {\"allow\": [], \"depends\": []}, \"x86_64\": {\"allow\": [], "
              "\"depends\": []}, \"x32\": {\"allow\": [], \"depends\": []}}",
              0, "unknown", "an ABI of no known architecture");
    deny_case("ptrace",
              "{\"x86_64\": {\"allow\": [], \"depends\": []}, \"x32\": {\"allow\": [], "
              "\"depends\": []}, \"arm\": {\"allow\": [], \"depends\": []}}",
              0, "unknown", "ABIs of two architectures");
    deny_case("ptrace",
              "{\"x86\": {\"allow\": [], \"depends\": []}, \"aarch64\": {\"allow\": [], "
              "\"depends\": []}}",
              0, "unknown", "two ABIs, as many as arm's architecture has, of two architectures");
    {
        bx_policy *p = policy("version: 1\ncontainment:\n  seccomp:\n    deny: [ptrace]\n");
        char *c = cont("{}", 0);
        json_t *st = statement(c, NULL), *all = eval(p, st, NULL), *f;
        const char *msg = "";
        size_t i;
        json_array_foreach(all, i, f)
        {
            if (strcmp(json_string_value(json_object_get(f, "rule")), "containment.seccomp_deny") ==
                0)
                msg = json_string_value(json_object_get(f, "message"));
        }
        ok(strstr(msg, "carries no ABI's syscall table") != NULL,
           "abis {}: the message says the chain carries no table: %s", msg);
        json_decref(all);
        json_decref(st);
        free(c);
        bx_policy_free(p);
    }
    deny_case("ptrace",
              "{\"x86_64\": {\"allow\": [], \"depends\": []}, \"x32\": {\"allow\": [], "
              "\"depends\": []}, \"x86\": {\"depends\": []}}",
              0, "unknown", "an ABI without its allow list");
    deny_case("ptrace",
              "{\"x86_64\": {\"allow\": [], \"depends\": []}, \"x32\": {\"allow\": [], "
              "\"depends\": null}, \"x86\": {\"allow\": [], \"depends\": []}}",
              0, "unknown", "an ABI whose depends is null");
    deny_case("ptrace",
              "{\"aarch64\": {\"allow\": [], \"depends\": [], \"beyond\": \"deny\"}, \"arm\": "
              "{\"allow\": [], \"depends\": [], \"beyond\": \"deny\"}}",
              0, "pass", "aarch64 and arm: a whole known architecture");

    /* x86's whole family: judged by number */
    deny_x86("ptrace", "[\"read\", \"write\"]", NULL, NULL, "deny", "pass",
             "ptrace in no list: denied");
    deny_x86("ptrace", "[\"ptrace\", \"read\"]", NULL, NULL, "deny", "fail",
             "ptrace allowed on every ABI");
    deny_x86("ptrace", "[]", "[\"ptrace\"]", NULL, "deny", "fail", "ptrace allowed on x32 only");
    deny_x86("ptrace", "[]", NULL, "[\"ptrace\"]", "deny", "fail", "ptrace allowed on x86 only");
    deny_x86("ptrace", "[\"#101\"]", "[]", "[]", "deny", "fail",
             "ptrace's number (101) as a run #101");
    deny_x86("ptrace", "[\"#100-102\"]", "[]", "[]", "deny", "fail",
             "a run #100-102 covers ptrace's 101");
    deny_x86("ptrace", "[\"#101-101\"]", "[]", "[]", "deny", "fail", "a run #101-101");
    deny_x86("ptrace", "[\"#102-110\"]", "[]", "[]", "deny", "pass", "a run past ptrace's 101");
    deny_x86("ptrace", "[\"#0-100\"]", "[]", "[]", "deny", "pass", "a run up to 100");
    deny_x86("ptrace", "[]", "[]", "[\"#26\"]", "deny", "fail", "x86's ptrace is 26");
    deny_x86("ptrace", "[\"frobnicate\"]", "[]", "[]", "deny", "unknown",
             "a listed name no table resolves could be ptrace");
    deny_x86("ptrace", "[\"#01\"]", "[]", "[]", "deny", "unknown", "a run with a leading zero");
    deny_x86("ptrace", "[\"#110-102\"]", "[]", "[]", "deny", "unknown", "a run backwards");
    deny_x86("ptrace", "[\"#1024\"]", "[]", "[]", "deny", "unknown", "a run past the table");
    deny_x86("ptrace", "[\"#\"]", "[]", "[]", "deny", "unknown", "a run without a number");
    deny_x86("ptrace", "[\"#1-2-3\"]", "[]", "[]", "deny", "unknown", "a run of three");
    deny_x86("ptrace", "[\"#5-\"]", "[]", "[]", "deny", "unknown", "a run without its end");
    deny_x86("ptrace", "[7]", "[]", "[]", "deny", "unknown", "a listed number, not a name");
    deny_x86("ptrace", "[\"read\", \"frobnicate\", \"ptrace\"]", "[]", "[]", "deny", "fail",
             "let through and an odd name: fail wins");
    /* a name on some ABIs of the family: x32 has no _sysctl; arm_fadvise64_64 is arm's */
    deny_x86("_sysctl", "[]", "[]", "[]", "deny", "pass", "_sysctl, on x86_64 and x86 only");
    deny_x86("_sysctl", "[]", "[]", "[\"_sysctl\"]", "deny", "fail", "_sysctl allowed on x86");
    deny_x86("arm_fadvise64_64", "[]", "[]", "[]", "deny", "unknown",
             "a name only another architecture's table knows");
    deny_x86("arm_fadvise64_64, ptrace", "[\"ptrace\"]", "[]", "[]", "deny", "fail",
             "... and another let through: fail");

    /* depends counts as let through */
    {
        char *a = malloc(2048);
        snprintf(a, 2048,
                 "{\"x86_64\": {\"allow\": [], \"depends\": [\"ptrace\"]}, \"x32\": {\"allow\": "
                 "[], \"depends\": []}, \"x86\": {\"allow\": [], \"depends\": []}}");
        deny_case("ptrace", a, 0, "fail", "ptrace depends on its arguments");
        free(a);
    }

    /* past 1023: arm's private calls are judged by beyond */
    static const struct {
        const char *beyond, *want;
    } past[] = {{"\"deny\"", "pass"},  {"\"errno(1)\"", "pass"}, {"\"kill_thread\"", "pass"},
                {"\"allow\"", "fail"}, {"\"depends\"", "fail"},  {"null", "unknown"},
                {"7", "unknown"}};
    for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
        char a[512], n[64];
        snprintf(a, sizeof a,
                 "{\"aarch64\": {\"allow\": [], \"depends\": [], \"beyond\": \"deny\"}, \"arm\": "
                 "{\"allow\": [], \"depends\": [], \"beyond\": %s}}",
                 past[i].beyond);
        snprintf(n, sizeof n, "arm's cacheflush (0xf0002), beyond %s", past[i].beyond);
        deny_case("cacheflush", a, 0, past[i].want, n);
    }

    /* SECCOMP_MODE_STRICT lets read, write, exit and sigreturn through */
    {
        char *a = x86("[]", NULL, NULL, "deny");
        deny_case("write", a, 1, "fail", "write under strict mode");
        deny_case("exit", a, 1, "fail", "exit under strict mode");
        deny_case("rt_sigreturn", a, 1, "fail", "rt_sigreturn under strict mode");
        deny_case("ptrace", a, 1, "pass", "ptrace under strict mode");
        deny_case("write", a, 0, "pass", "write with no strict task");
        free(a);
    }
    /* strict tasks alone, no chain: judged, not vacuous */
    expect("version: 1\ncontainment:\n  seccomp:\n    deny: [write]\n",
           "{\"seccompPrograms\": {\"servedBy\": \"kernel\", \"chains\": [], \"tasks\": "
           "{\"filter\": 0, \"none\": 0, \"strict\": 1, \"unread\": 0}, \"unread\": []}}",
           NULL, "containment.seccomp_deny", "fail", "strict tasks only, write denied");
}

/* which tasks run what: not counted is not judged */
static void tasks(void)
{
    static const char *const odd[] = {
        "\"tasks\": {\"filter\": 1, \"strict\": 0, \"unread\": 0}, \"unread\": []",
        "\"tasks\": {\"filter\": 1, \"none\": 0, \"unread\": 0}, \"unread\": []",
        "\"tasks\": {\"filter\": 1, \"none\": null, \"strict\": 0}, \"unread\": []",
        "\"tasks\": {\"filter\": 1, \"none\": 0, \"strict\": 0, \"unread\": 0}",
        "\"tasks\": {\"filter\": 1, \"none\": 0, \"strict\": 0}, \"unread\": null",
        "\"unread\": []",
    };
    char *abis = x86("[]", NULL, NULL, "deny");
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        char c[4096];
        snprintf(c, sizeof c,
                 "{\"seccompPrograms\": {\"servedBy\": \"kernel\", \"chains\": [{\"sha256\": "
                 "\"%064d\", \"abis\": %s}], %s}}",
                 0, abis, odd[i]);
        expect("version: 1\ncontainment:\n  seccomp:\n    deny: [ptrace]\n", c, NULL,
               "containment.seccomp_deny", "unknown", odd[i]);
    }
    free(abis);
}

/* a policy naming a syscall no table knows: refused at load, with its place and name */
static void load(void)
{
    static const struct {
        const char *deny;
        int ok;
    } t[] = {
        {"ptrace", 1},     {"cacheflush", 1}, {"arm_fadvise64_64", 1},   {"rt_sigaction", 1},
        {"frobnicate", 0}, {"ptrac", 0},      {"ptrace, nosuchcall", 0}, {"mseal_not_yet", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char pol[256];
        bx_policy *p = NULL;
        bx_error err = {0};
        snprintf(pol, sizeof pol, DENY, t[i].deny);
        int rc = bx_policy_load_buffer(pol, strlen(pol), "deny.yaml", &p, &err);
        is_int(rc == 0, t[i].ok, "deny [%s] %s", t[i].deny, t[i].ok ? "loads" : "is refused");
        if (!t[i].ok) {
            const char *bad = strrchr(t[i].deny, ' ') ? strrchr(t[i].deny, ' ') + 1 : t[i].deny;
            ok(strstr(err.msg, bad) != NULL, "... the message names %s: %s", bad, err.msg);
            ok(strstr(err.where, "deny.yaml") != NULL && strstr(err.where, "deny") != NULL,
               "... the place names the file and the key: %s", err.where);
        }
        bx_policy_free(p);
    }
}

/* lists: [] that the collector observed is evidence of none; null, absent or not a list is
 * not (docs/policy.md, "Nothing judged is not a pass") */
static void lists(void)
{
    static const struct {
        const char *cont, *want, *name;
    } dev[] = {
        {"{\"devices\": {\"devices\": [], \"cgroupRules\": [], \"allowAll\": false}}", "pass",
         "devices: none observed (v1: no nodes member)"},
        {"{\"devices\": {\"devices\": [], \"cgroupRules\": [], \"allowAll\": false, \"nodes\": "
         "[]}}",
         "pass", "devices: nodes [] observed"},
        /* nodes null: runsc (the sentry's /dev) or level engine; judged on devices and
         * cgroupRules, as the certificate's meaning of null says (docs/policy.md) */
        {"{\"devices\": {\"devices\": [], \"cgroupRules\": [], \"allowAll\": false, \"nodes\": "
         "null}}",
         "pass", "devices: nodes null (the sentry's /dev, or not read at level engine)"},
        {"{\"devices\": {\"devices\": [], \"cgroupRules\": [], \"allowAll\": false, \"nodes\": "
         "[{}]}}",
         "unknown", "devices: a node of unknown shape"},
        {"{\"devices\": {\"devices\": null, \"cgroupRules\": [], \"allowAll\": false}}", "unknown",
         "devices: devices null"},
        {"{\"devices\": {\"cgroupRules\": [], \"allowAll\": false}}", "unknown",
         "devices: devices absent"},
        {"{\"devices\": {\"devices\": [], \"cgroupRules\": null, \"allowAll\": false}}", "unknown",
         "devices: cgroupRules null"},
        {"{\"devices\": {\"devices\": [], \"cgroupRules\": [], \"allowAll\": null}}", "unknown",
         "devices: allowAll null"},
    };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        expect("version: 1\ncontainment: {devices: none}\n", dev[i].cont, NULL,
               "containment.devices", dev[i].want, dev[i].name);

#define OBJ "[{\"what\": \"engine socket\", \"path\": \"/run/docker.sock\", \"reachable\": false}]"
    static const struct {
        const char *ho, *want, *name;
    } ho[] = {
        {"{\"objects\": " OBJ ", \"forbiddenTypes\": [], \"uninspected\": []}", "pass",
         "host objects: none reached, none forbidden, none uninspected"},
        {"{\"objects\": " OBJ ", \"forbiddenTypes\": null, \"uninspected\": []}", "unknown",
         "host objects: forbiddenTypes null"},
        {"{\"objects\": " OBJ ", \"uninspected\": []}", "unknown",
         "host objects: forbiddenTypes absent"},
        {"{\"objects\": " OBJ ", \"forbiddenTypes\": [], \"uninspected\": null}", "unknown",
         "host objects: uninspected null"},
        {"{\"objects\": " OBJ ", \"forbiddenTypes\": []}", "unknown",
         "host objects: uninspected absent"},
        {"{\"objects\": " OBJ ", \"forbiddenTypes\": {}, \"uninspected\": []}", "unknown",
         "host objects: forbiddenTypes not a list"},
        {"{\"objects\": null, \"forbiddenTypes\": [], \"uninspected\": []}", "unknown",
         "host objects: objects null"},
        {"{\"objects\": [], \"forbiddenTypes\": [], \"uninspected\": []}", "unknown",
         "host objects: no object to judge by"},
        {"{\"objects\": [{\"what\": \"host root\"}], \"forbiddenTypes\": [], \"uninspected\": "
         "[]}",
         "unknown", "host objects: an object of unknown shape"},
    };
    for (size_t i = 0; i < sizeof ho / sizeof ho[0]; i++) {
        char c[1024];
        snprintf(c, sizeof c, "{\"hostObjects\": %s}", ho[i].ho);
        expect("version: 1\ncontainment: {hostObjectsUnreachable: true}\n", c, NULL,
               "containment.host_objects", ho[i].want, ho[i].name);
    }

    static const struct {
        const char *shared, *want, *name;
    } sh[] = {
        {"{\"host\": false, \"containers\": [], \"heldOpen\": []}", "pass",
         "net shared with none (observed)"},
        {"{\"host\": false, \"containers\": null, \"heldOpen\": []}", "unknown",
         "net: containers null"},
        {"{\"host\": false, \"heldOpen\": []}", "unknown", "net: containers absent"},
        {"{\"host\": false, \"containers\": []}", "unknown", "net: heldOpen absent"},
        {"{\"host\": false, \"containers\": [], \"heldOpen\": \"none\"}", "unknown",
         "net: heldOpen not a list"},
        {"{\"host\": null, \"containers\": [], \"heldOpen\": []}", "unknown", "net: host null"},
        {"{\"containers\": [], \"heldOpen\": []}", "unknown", "net: host absent"},
        {"{\"host\": false, \"containers\": [\"0123456789abcdef\"], \"heldOpen\": []}", "fail",
         "net shared with a container"},
        {"{\"host\": true, \"containers\": [], \"heldOpen\": []}", "fail",
         "net shared with the host"},
    };
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
        char c[1024];
        snprintf(c, sizeof c,
                 "{\"namespaces\": {\"net\": {\"mode\": \"private\", \"shared\": %s}}}",
                 sh[i].shared);
        expect("version: 1\ncontainment: {namespaces: {notShared: [net]}}\n", c, NULL,
               "containment.namespace_sharing", sh[i].want, sh[i].name);
    }
}

/* bounded work: requested.mustMatch over two lists the certificate carries is judged up to
 * 65,536 pairs and unknown past them; the crafted worst cases of bench/judge_bench */
static json_t *strings(size_t n, const char *prefix, const char *last)
{
    json_t *a = json_array();
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "%s%zu", prefix, i);
        json_array_append_new(a, json_string(i + 1 == n && last ? last : buf));
    }
    return a;
}

static void bounded(void)
{
    bx_policy *p = policy("version: 1\nrequested: {mustMatch: true}\n");
    static const struct {
        size_t eff, req;
        const char *want;
    } sizes[] = {
        {256, 256, "pass"}, /* 65,536 pairs: judged */
        {128, 512, "pass"}, /* 65,536 */
        {1, 65536, "pass"}, /* 65,536 */
        {257, 256, "unknown"}, {256, 257, "unknown"},
        {1, 65537, "unknown"}, {1024, 1024, "unknown"},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        /* maskedPaths: every requested path is masked (the requested ones the last) */
        json_t *eff = strings(sizes[i].eff, "/e/", NULL), *req = json_array();
        for (size_t k = 0; k < sizes[i].req; k++)
            json_array_append(req, json_array_get(eff, sizes[i].eff - 1));
        json_t *st = json_pack("{s:s, s:{s:{s:o}, s:{s:s, s:[]}, s:{s:{s:o}}}}", "_type",
                               BX_STATEMENT_TYPE, "predicate", "containment", "maskedPaths", eff,
                               "evidence", "level", "engine+kernel", "discrepancies", "requested",
                               "containment", "maskedPaths", req);
        json_t *all = eval(p, st, NULL);
        is_str(status_of(all, "requested.match"), sizes[i].want,
               "maskedPaths %zu observed x %zu requested", sizes[i].eff, sizes[i].req);
        json_decref(all);
        json_decref(st);

        /* devices.cgroupRules: each observed rule within the last requested one */
        json_t *er = json_array(), *rr = strings(sizes[i].req, "c 9:", "c 1:3 rwm");
        for (size_t k = 0; k < sizes[i].eff; k++)
            json_array_append_new(er, json_string("c 1:3 r"));
        for (size_t k = 0; k + 1 < sizes[i].req; k++) {
            char r[32];
            snprintf(r, sizeof r, "c 9:%zu r", k);
            json_array_set_new(rr, k, json_string(r));
        }
        st = json_pack("{s:s, s:{s:{s:{s:[], s:o, s:b}}, s:{s:s, s:[]}, s:{s:{s:{s:[], s:o}}}}}",
                       "_type", BX_STATEMENT_TYPE, "predicate", "containment", "devices", "devices",
                       "cgroupRules", er, "allowAll", 0, "evidence", "level", "engine+kernel",
                       "discrepancies", "requested", "containment", "devices", "devices",
                       "cgroupRules", rr);
        all = eval(p, st, NULL);
        is_str(status_of(all, "requested.match"), sizes[i].want,
               "devices.cgroupRules %zu observed x %zu requested", sizes[i].eff, sizes[i].req);
        json_decref(all);
        json_decref(st);
    }
    /* a weaker entry under the cap still fails; past it the field is unknown, not a pass */
    {
        json_t *eff = strings(256, "/e/", NULL), *req = strings(256, "/e/", "/missing");
        json_t *st = json_pack("{s:s, s:{s:{s:o}, s:{s:s, s:[]}, s:{s:{s:o}}}}", "_type",
                               BX_STATEMENT_TYPE, "predicate", "containment", "maskedPaths", eff,
                               "evidence", "level", "engine+kernel", "discrepancies", "requested",
                               "containment", "maskedPaths", req);
        json_t *all = eval(p, st, NULL);
        is_str(status_of(all, "requested.match"), "fail", "a requested path missing: weaker");
        json_decref(all);
        json_decref(st);
    }
    /* capability sets: at most 64 entries (every capability there is, numbered too) */
    static const struct {
        size_t n;
        const char *want;
    } caps[] = {{41, "pass"}, {64, "pass"}, {65, "unknown"}, {30000, "unknown"}};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        json_t *eff = strings(caps[i].n, "CAP_", NULL);
        json_t *st = json_pack(
            "{s:s, s:{s:{s:{s:O, s:[], s:[], s:[]}, s:b}, s:{s:s, s:[]}, s:{s:{s:{s:o}}}}}",
            "_type", BX_STATEMENT_TYPE, "predicate", "containment", "capabilities", "effective",
            eff, "permitted", "ambient", "bounding", "noNewPrivileges", 1, "evidence", "level",
            "engine+kernel", "discrepancies", "requested", "containment", "capabilities",
            "effective", eff);
        json_t *all = eval(p, st, NULL);
        is_str(status_of(all, "requested.match"), caps[i].want, "capabilities: %zu held",
               caps[i].n);
        json_decref(all);
        json_decref(st);
    }
    /* 65 held, 64 requested: the held set alone makes it unknown (not a weaker fail) */
    {
        json_t *eff = strings(65, "CAP_", NULL), *req = strings(64, "CAP_", NULL);
        json_t *st = json_pack(
            "{s:s, s:{s:{s:{s:o, s:[], s:[], s:[]}, s:b}, s:{s:s, s:[]}, s:{s:{s:{s:o}}}}}",
            "_type", BX_STATEMENT_TYPE, "predicate", "containment", "capabilities", "effective",
            eff, "permitted", "ambient", "bounding", "noNewPrivileges", 1, "evidence", "level",
            "engine+kernel", "discrepancies", "requested", "containment", "capabilities",
            "effective", req);
        json_t *all = eval(p, st, NULL);
        is_str(status_of(all, "requested.match"), "unknown", "capabilities: 65 held, 64 requested");
        json_decref(all);
        json_decref(st);
    }
    bx_policy_free(p);
}

int main(void)
{
    tables();
    tasks();
    load();
    lists();
    bounded();
    return tap_done();
}
