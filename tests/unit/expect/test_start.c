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
    json_decref(labels);
    json_decref(other);
    return tap_done();
}
