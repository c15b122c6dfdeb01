/* SPDX-License-Identifier: Apache-2.0 */
/* Sets of return values and what they mean: the kernel's actions, their precedence
 * (kernel/seccomp.c seccomp_run_filters and __seccomp_filter), verdicts. */
#include "seccomp_internal.h"

#include <stdio.h>

unsigned bx_seccomp_ret_action(uint32_t ret)
{
    switch (ret & BXSC_ACTION_FULL) {
    case SECCOMP_RET_KILL_PROCESS:
        return BX_SECCOMP_ACT_KILL_PROCESS;
    case SECCOMP_RET_KILL_THREAD:
        return BX_SECCOMP_ACT_KILL_THREAD;
    case SECCOMP_RET_TRAP:
        return BX_SECCOMP_ACT_TRAP;
    case SECCOMP_RET_ERRNO:
        return BX_SECCOMP_ACT_ERRNO;
    case SECCOMP_RET_USER_NOTIF:
        return BX_SECCOMP_ACT_USER_NOTIF;
    case SECCOMP_RET_TRACE:
        return BX_SECCOMP_ACT_TRACE;
    case SECCOMP_RET_LOG:
        return BX_SECCOMP_ACT_LOG;
    case SECCOMP_RET_ALLOW:
        return BX_SECCOMP_ACT_ALLOW;
    }
    return BX_SECCOMP_ACT_UNKNOWN; /* __seccomp_filter's default case: the process is killed */
}

#define LET_THROUGH                                                                                \
    (BX_SECCOMP_ACT_ALLOW | BX_SECCOMP_ACT_LOG | BX_SECCOMP_ACT_TRACE | BX_SECCOMP_ACT_USER_NOTIF)

int bxsc_ret_lets_through(uint32_t ret)
{
    return (bx_seccomp_ret_action(ret) & LET_THROUGH) != 0;
}

/* The actions of every value whose precedence key is <= bound. */
static unsigned actions_upto(int32_t bound)
{
    static const uint32_t known[] = {
        SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP, SECCOMP_RET_ERRNO,
        SECCOMP_RET_USER_NOTIF,   SECCOMP_RET_TRACE,       SECCOMP_RET_LOG,  SECCOMP_RET_ALLOW};
    unsigned bits = 0;

    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (BXSC_AO(known[i]) <= bound)
            bits |= bx_seccomp_ret_action(known[i]);
    }
    /* Undefined action values lie between the defined ones from KILL_PROCESS + 1 on. */
    if (bound > BXSC_AO(SECCOMP_RET_KILL_PROCESS))
        bits |= BX_SECCOMP_ACT_UNKNOWN;
    return bits;
}

void bxsc_out_add_any(bxsc_outset *o, int32_t bound)
{
    if (!o->any || bound > o->any_bound)
        o->any_bound = bound;
    o->any = 1;
}

void bxsc_out_add(bxsc_outset *o, uint32_t ret)
{
    for (unsigned i = 0; i < o->n; i++) {
        if (o->v[i] == ret)
            return;
    }
    if (o->n < BXSC_OUT_MAX) {
        o->v[o->n++] = ret;
        return;
    }
    /* Full: every exact value folds into "anything up to the highest key". */
    int32_t hi = BXSC_AO(ret);
    for (unsigned i = 0; i < o->n; i++) {
        if (BXSC_AO(o->v[i]) > hi)
            hi = BXSC_AO(o->v[i]);
    }
    o->n = 0;
    bxsc_out_add_any(o, hi);
}

void bxsc_out_union(bxsc_outset *o, const bxsc_outset *p)
{
    for (unsigned i = 0; i < p->n; i++)
        bxsc_out_add(o, p->v[i]);
    if (p->any)
        bxsc_out_add_any(o, p->any_bound);
}

/* The value a newer result r keeps against an older filter's c: c only if stricter. */
static void comb_exact(bxsc_outset *out, uint32_t c, uint32_t r)
{
    bxsc_out_add(out, BXSC_AO(c) < BXSC_AO(r) ? c : r);
}

void bxsc_out_chain(bxsc_outset *acc, const bxsc_outset *cur)
{
    bxsc_outset out = {0};

    for (unsigned i = 0; i < acc->n; i++) {
        uint32_t r = acc->v[i];
        int32_t kr = BXSC_AO(r);
        for (unsigned j = 0; j < cur->n; j++)
            comb_exact(&out, cur->v[j], r);
        if (cur->any) {
            /* cur: anything with key <= b. Those strictly below kr win, the rest keep r. */
            if (cur->any_bound >= kr)
                bxsc_out_add(&out, r);
            if (kr > INT32_MIN)
                bxsc_out_add_any(&out, cur->any_bound < kr ? cur->any_bound : kr - 1);
        }
    }
    if (acc->any) {
        int32_t ba = acc->any_bound;
        for (unsigned j = 0; j < cur->n; j++) {
            int32_t kc = BXSC_AO(cur->v[j]);
            /* acc's values above kc lose to c; those at or below it stay. */
            if (ba > kc)
                bxsc_out_add(&out, cur->v[j]);
            bxsc_out_add_any(&out, ba < kc ? ba : kc);
        }
        if (cur->any)
            bxsc_out_add_any(&out, ba < cur->any_bound ? ba : cur->any_bound);
    }
    *acc = out;
}

void bxsc_out_entry(const bxsc_outset *o, bx_seccomp_entry *e)
{
    int let = 0, deny = 0;
    unsigned bits = 0;

    if (o->n == 0 && !o->any) {
        /* Nothing recorded cannot happen for a sound analysis; fail closed, not open. */
        bxsc_outset all = {.any = 1, .any_bound = BXSC_AO_MAX};
        bxsc_out_entry(&all, e);
        return;
    }
    for (unsigned i = 0; i < o->n; i++) {
        bits |= bx_seccomp_ret_action(o->v[i]);
        if (bxsc_ret_lets_through(o->v[i]))
            let = 1;
        else
            deny = 1;
    }
    if (o->any) {
        bits |= actions_upto(o->any_bound);
        deny = 1; /* KILL_PROCESS is always below the bound */
        if (o->any_bound >= BXSC_AO(SECCOMP_RET_USER_NOTIF))
            let = 1;
    }
    e->actions = (uint16_t)bits;
    e->uniform = o->n == 1 && !o->any;
    e->ret = e->uniform ? o->v[0] : 0;
    e->verdict = let && deny ? BX_SECCOMP_DEPENDS : deny ? BX_SECCOMP_DENY : BX_SECCOMP_ALLOW;
}

const char *bx_seccomp_verdict_name(int verdict)
{
    switch (verdict) {
    case BX_SECCOMP_ALLOW:
        return "allow";
    case BX_SECCOMP_DENY:
        return "deny";
    case BX_SECCOMP_DEPENDS:
        return "depends";
    }
    return "?";
}

const char *bx_seccomp_ret_str(uint32_t ret, char *buf, size_t len)
{
    unsigned data = ret & SECCOMP_RET_DATA;

    switch (bx_seccomp_ret_action(ret)) {
    case BX_SECCOMP_ACT_KILL_PROCESS:
        snprintf(buf, len, "kill_process");
        break;
    case BX_SECCOMP_ACT_KILL_THREAD:
        snprintf(buf, len, "kill_thread");
        break;
    case BX_SECCOMP_ACT_TRAP:
        snprintf(buf, len, "trap(%u)", data);
        break;
    case BX_SECCOMP_ACT_ERRNO:
        /* __seccomp_filter caps the errno at MAX_ERRNO. */
        snprintf(buf, len, "errno(%u)", data > 4095 ? 4095 : data);
        break;
    case BX_SECCOMP_ACT_USER_NOTIF:
        snprintf(buf, len, "user_notif");
        break;
    case BX_SECCOMP_ACT_TRACE:
        snprintf(buf, len, "trace(%u)", data);
        break;
    case BX_SECCOMP_ACT_LOG:
        snprintf(buf, len, "log");
        break;
    case BX_SECCOMP_ACT_ALLOW:
        snprintf(buf, len, "allow");
        break;
    default:
        snprintf(buf, len, "unknown(0x%08x)", ret);
    }
    return buf;
}
