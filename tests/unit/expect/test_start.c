/* SPDX-License-Identifier: Apache-2.0 */
/* The one start matching (expect/start.c) of the audit and verify --expect: which certificate
 * start belongs to which session start. */
#include "tap.h"
#include "bx_expect.h"

#define A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

int main(void)
{
    bx_start got = {.container_id = A, .name = "s1", .engine_id = "E1", .has_started = 1,
                    .started_at = 100};
    bx_start want = {.container_id = A, .has_started = 1, .started_at = 100};
    bx_expect_entry e = {.name = NULL, .has_started = 0};
    const char *kv[] = {"run=1"};
    json_t *labels = json_pack("{s:s}", "run", "1"), *other = json_pack("{s:s}", "run", "2");

    ok(bx_start_matches(&want, &got), "the same Id and start");
    want.container_id = B;
    ok(!bx_start_matches(&want, &got), "another container Id");
    want.container_id = A;
    want.started_at = 101;
    ok(!bx_start_matches(&want, &got), "another start of the same container");
    want.has_started = 0;
    ok(bx_start_matches(&want, &got), "any start when none is pinned");
    want.engine_id = "E2";
    ok(!bx_start_matches(&want, &got), "another engine");
    want.engine_id = "";
    ok(bx_start_matches(&want, &got), "an engine not known is not compared");
    got.has_started = 0;
    ok(!bx_start_matches(&want, &got), "a certificate start that cannot be read matches nothing");
    got.has_started = 1;
    want.container_id = NULL;
    want.name = "s1";
    ok(bx_start_matches(&want, &got), "by name when no Id is given");
    want.name = "s2";
    ok(!bx_start_matches(&want, &got), "another name");

    e.name = "s1";
    ok(bx_expect_names(&e, &got, labels, kv, 1), "a name-only entry with the gate's labels");
    ok(!bx_expect_names(&e, &got, other, kv, 1), "a name-only entry without them");
    memcpy(e.id, B, 65);
    ok(!bx_expect_names(&e, &got, labels, kv, 1), "an entry by Id names only that Id");
    memcpy(e.id, A, 65);
    ok(bx_expect_names(&e, &got, other, kv, 1), "by Id, the labels are not needed");
    e.has_started = 1;
    e.started_at = 99;
    ok(!bx_expect_names(&e, &got, labels, kv, 1), "an entry pinned to another start");

    /* a certificate binds one start: (seconds, nanoseconds) and the pid (issue 19.3) */
    bx_start eng = {.container_id = A, .engine_id = "E1", .has_started = 1, .started_at = 100,
                    .has_ns = 1, .started_ns = 5, .pid = 42};
    bx_start v2 = {.container_id = A, .engine_id = "E1", .has_started = 1, .started_at = 100,
                   .has_ns = 1, .started_ns = 5, .pid = 42};
    bx_start v1 = {.container_id = A, .engine_id = "E1", .has_started = 1, .started_at = 100};
    is_int(bx_start_matches(&eng, &v2), BX_START_SAME, "v2: the same second, ns and pid");
    v2.started_ns = 6;
    is_int(bx_start_matches(&eng, &v2), BX_START_NO, "v2: another nanosecond is another start");
    v2.started_ns = 5;
    v2.pid = 43;
    is_int(bx_start_matches(&eng, &v2), BX_START_NO, "another pid is another start");
    v2.pid = 0;
    is_int(bx_start_matches(&eng, &v2), BX_START_SAME, "the ns alone proves the start");
    v1.pid = 42;
    is_int(bx_start_matches(&eng, &v1), BX_START_SAME, "v1: the pid proves the start");
    v1.pid = 43;
    is_int(bx_start_matches(&eng, &v1), BX_START_NO, "v1: another pid in the same second");
    v1.pid = 42;
    eng.pid = 0; /* the session exited: no pid to compare */
    is_int(bx_start_matches(&eng, &v1), BX_START_SECOND, "v1, session gone: only the second");
    eng.started_ns = 999999999;
    is_int(bx_start_matches(&eng, &v1), BX_START_SECOND, "v1 knows no ns: not compared");
    eng.started_at = 101;
    is_int(bx_start_matches(&eng, &v1), BX_START_NO, "v1: another second");
    eng.started_at = 100;
    {
        bx_start other_start = {.container_id = A, .engine_id = "E1", .has_started = 1,
                                .started_at = 100, .has_ns = 1, .started_ns = 7, .pid = 50};
        bx_start other_ctr = other_start, same = v1;
        bx_start known[3];
        other_ctr.container_id = B;
        known[0] = v1;
        known[1] = other_ctr;
        ok(!bx_start_ambiguous(&v1, known, 2), "no other start of that session in that second");
        is_int(bx_start_takes(&eng, &v1, known, 2), BX_START_SECOND,
               "v1 to the second is taken when it is the only start known");
        known[2] = other_start;
        ok(bx_start_ambiguous(&v1, known, 3), "another start in that second (pid, ns differ)");
        is_int(bx_start_takes(&eng, &v1, known, 3), BX_START_AMBIGUOUS,
               "then v1 to the second is not taken");
        same.pid = 0;
        known[2] = same;
        ok(!bx_start_ambiguous(&v1, known, 3), "a copy of the same start is not another start");
        other_start.started_at = 101;
        known[2] = other_start;
        ok(!bx_start_ambiguous(&v1, known, 3), "a start in another second does not count");
        other_start.started_at = 100;
        other_start.engine_id = "E2";
        known[2] = other_start;
        ok(!bx_start_ambiguous(&v1, known, 3), "a start on another engine does not count");
        /* two v2 starts in one second, no pid known: the nanoseconds tell them apart */
        bx_start n5 = {.container_id = A, .has_started = 1, .started_at = 100, .has_ns = 1,
                       .started_ns = 5};
        bx_start n6 = n5;
        n6.started_ns = 6;
        known[0] = n5;
        known[1] = n6;
        ok(bx_start_ambiguous(&n5, known, 2), "another nanosecond in that second is another start");
        ok(!bx_start_ambiguous(&n5, known, 1), "the same start alone is not ambiguous");
    }
    /* an --expect start: to the ns with a fraction, else to the second */
    e.started_at = 100;
    e.has_ns = 1;
    e.started_ns = 5;
    v2 = eng;
    v2.started_ns = 5;
    is_int(bx_expect_names(&e, &v2, labels, kv, 1), BX_START_SAME, "--expect with a fraction");
    v2.started_ns = 6;
    is_int(bx_expect_names(&e, &v2, labels, kv, 1), BX_START_NO, "--expect: another fraction");
    e.has_ns = 0;
    is_int(bx_expect_names(&e, &v2, labels, kv, 1), BX_START_SECOND,
           "--expect without a fraction: to the second");
    json_decref(labels);
    json_decref(other);
    return tap_done();
}
