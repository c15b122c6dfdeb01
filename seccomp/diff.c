/* SPDX-License-Identifier: Apache-2.0 */
/* Verdict tables as JSON, and where two of them differ. */
#include "seccomp_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const action_names[] = {"kill_process", "kill_thread", "trap",
                                           "errno",        "user_notif",  "trace",
                                           "log",          "allow",       "unknown"};

json_t *bx_seccomp_entry_json(const bx_seccomp_entry *e)
{
    json_t *o = json_object(), *acts = json_array();
    char buf[48];

    if (!o || !acts)
        goto fail;
    for (unsigned i = 0; i < sizeof action_names / sizeof action_names[0]; i++) {
        if ((e->actions & (1u << i)) && json_array_append_new(acts, json_string(action_names[i])))
            goto fail;
    }
    if (json_object_set_new(o, "verdict", json_string(bx_seccomp_verdict_name(e->verdict))) ||
        json_object_set_new(o, "actions", acts))
        goto fail_o;
    if (json_object_set_new(o, "ret",
                            e->uniform ? json_string(bx_seccomp_ret_str(e->ret, buf, sizeof buf))
                                       : json_null()))
        goto fail_o;
    return o;
fail:
    json_decref(acts);
fail_o:
    json_decref(o);
    return NULL;
}

static json_t *numbered(int nr, const char *name, const bx_seccomp_entry *e)
{
    json_t *j = bx_seccomp_entry_json(e);
    json_t *o = j ? json_pack("{s:i, s:s?, s:o}", "nr", nr, "name", name, "entry", j) : NULL;
    return o;
}

json_t *bx_seccomp_table_json(const bx_seccomp_table *t)
{
    char hex[65];
    json_t *abis = json_object(), *root = NULL;

    if (!abis)
        return NULL;
    for (size_t a = 0; a < BX_SECCOMP_NABI; a++) {
        json_t *lists[3] = {json_array(), json_array(), json_array()};
        json_t *beyond = bx_seccomp_entry_json(&t->beyond[a]);
        json_t *o = json_pack("{s:o, s:o, s:o, s:o}", "allow", lists[0], "deny", lists[1],
                              "depends", lists[2], "beyond", beyond);
        if (!o || json_object_set_new(abis, bx_seccomp_abi(a)->name, o))
            goto fail;
        for (unsigned n = 0; n < BX_SECCOMP_NR_COUNT; n++) {
            const bx_seccomp_entry *e = &t->nr[a][n];
            json_t *item = numbered((int)n, bx_seccomp_syscall_name(a, n), e);
            if (!item || json_array_append_new(lists[e->verdict], item))
                goto fail;
        }
    }
    root = json_pack("{s:s, s:I, s:I, s:o, s:o}", "sha256", bx_hex_encode(t->sha256, 32, hex),
                     "filters", (json_int_t)t->filters, "insns", (json_int_t)t->insns, "abis", abis,
                     "otherArch", bx_seccomp_entry_json(&t->other_arch));
    return root;
fail:
    json_decref(abis);
    return NULL;
}

static int entry_eq(const bx_seccomp_entry *a, const bx_seccomp_entry *b)
{
    return a->verdict == b->verdict && a->uniform == b->uniform && a->ret == b->ret &&
           a->actions == b->actions;
}

int bx_seccomp_diff(const bx_seccomp_table *a, const bx_seccomp_table *b,
                    bx_seccomp_diff_item **items, size_t *n, bx_error *err)
{
    size_t cap = BX_SECCOMP_NABI * (BX_SECCOMP_NR_COUNT + 1) + 1, k = 0;
    bx_seccomp_diff_item *v = NULL;

    *items = NULL;
    *n = 0;
    for (size_t x = 0; x < BX_SECCOMP_NABI; x++) {
        for (unsigned nr = 0; nr <= BX_SECCOMP_NR_COUNT; nr++) {
            const bx_seccomp_entry *ea = nr < BX_SECCOMP_NR_COUNT ? &a->nr[x][nr] : &a->beyond[x];
            const bx_seccomp_entry *eb = nr < BX_SECCOMP_NR_COUNT ? &b->nr[x][nr] : &b->beyond[x];
            if (entry_eq(ea, eb))
                continue;
            if (!v && !(v = malloc(cap * sizeof *v)))
                return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            v[k].abi = (int)x;
            v[k].nr = nr < BX_SECCOMP_NR_COUNT ? (int)nr : -1;
            v[k].name = nr < BX_SECCOMP_NR_COUNT ? bx_seccomp_syscall_name(x, nr) : NULL;
            v[k].a = *ea;
            v[k].b = *eb;
            k++;
        }
    }
    if (!entry_eq(&a->other_arch, &b->other_arch)) {
        if (!v && !(v = malloc(cap * sizeof *v)))
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        v[k].abi = 0;
        v[k].nr = -2;
        v[k].name = NULL;
        v[k].a = a->other_arch;
        v[k].b = b->other_arch;
        k++;
    }
    *items = v;
    *n = k;
    return 0;
}

json_t *bx_seccomp_diff_json(const bx_seccomp_diff_item *items, size_t n)
{
    json_t *arr = json_array();

    for (size_t i = 0; arr && i < n; i++) {
        const bx_seccomp_diff_item *d = &items[i];
        json_t *nr = d->nr >= 0    ? json_integer(d->nr)
                     : d->nr == -1 ? json_string("beyond")
                                   : json_string("otherArch");
        json_t *o =
            json_pack("{s:s?, s:o, s:s?, s:o, s:o}", "abi",
                      d->nr == -2 ? NULL : bx_seccomp_abi(d->abi)->name, "nr", nr, "name", d->name,
                      "a", bx_seccomp_entry_json(&d->a), "b", bx_seccomp_entry_json(&d->b));
        if (!o || json_array_append_new(arr, o)) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}
