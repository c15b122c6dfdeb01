/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the seccomp module: outcome sets, the per-filter abstract interpreter,
 * the arithmetic the kernel does. */
#ifndef BXSC_INT_H
#define BXSC_INT_H

#include "bx_seccomp.h"

#define BXSC_ACTION_FULL 0xffff0000u
/* The kernel's precedence key: the lower wins (kernel/seccomp.c ACTION_ONLY). */
#define BXSC_AO(ret) ((int32_t)((ret)&BXSC_ACTION_FULL))
#define BXSC_AO_MAX INT32_MAX

/* Scratch cells (BPF_MEMWORDS). */
#define BXSC_MEMWORDS 16

/* ---- outcome sets ------------------------------------------------------------------ */

/* The return values a filter (or chain) can give one syscall: up to BXSC_OUT_MAX exact
 * values, plus, when any is set, every value whose precedence key is <= any_bound
 * (an unknown return value is any with bound BXSC_AO_MAX). */
#define BXSC_OUT_MAX 8
typedef struct {
    uint8_t n;
    uint8_t any;
    int32_t any_bound;
    uint32_t v[BXSC_OUT_MAX];
} bxsc_outset;

void bxsc_out_add(bxsc_outset *o, uint32_t ret);
void bxsc_out_add_any(bxsc_outset *o, int32_t bound);
void bxsc_out_union(bxsc_outset *o, const bxsc_outset *p);
/* acc holds what the newer filters give; fold in an older filter's cur, as
 * seccomp_run_filters does (the older replaces only when strictly stricter). */
void bxsc_out_chain(bxsc_outset *acc, const bxsc_outset *cur);
/* Verdict, uniformity and actions of an outcome set. */
void bxsc_out_entry(const bxsc_outset *o, bx_seccomp_entry *e);
/* 1 when the value lets the syscall through (ALLOW, LOG, TRACE, USER_NOTIF). */
int bxsc_ret_lets_through(uint32_t ret);

/* ---- one filter's outcomes ---------------------------------------------------------- */

typedef struct {
    bxsc_outset nr[BX_SECCOMP_NABI][BX_SECCOMP_NR_COUNT];
    bxsc_outset beyond[BX_SECCOMP_NABI];
    bxsc_outset other_arch;
} bxsc_result;

/* Evaluation limits (docs/seccomp.md "Bounds"). */
#define BXSC_STATES_PER_PC 16         /* distinct abstract states kept at one instruction */
#define BXSC_LIVE_MAX 8192            /* states alive at once; past it every join widens */
#define BXSC_ELEM_BUDGET (1u << 24)   /* per-element steps on number-derived values, per pass */
#define BXSC_FN_BYTES_MAX (16u << 20) /* bytes of per-element value tables, per pass */

/* Abstract interpretation of one checked program into r (zeroed by the caller).
 * BX_EIO when out of memory. */
int bxsc_eval_filter(const struct sock_filter *insns, size_t len, bxsc_result *r,
                     bx_error *err) BX_WUR;

/* Statistics of the last bxsc_eval_filter on this thread (tests of the bounds). */
typedef struct {
    size_t states_max; /* most states alive at once */
    size_t widened;    /* joins that lost precision */
    size_t elem_steps; /* per-element steps used */
    size_t bytes_max;  /* most bytes held by states and tables */
} bxsc_stats;
extern _Thread_local bxsc_stats bxsc_last_stats;

/* ---- arithmetic ---------------------------------------------------------------------- */

/* A = A op b for a BPF_ALU opcode (BPF_OP bits), as the kernel's interpreter and JITs:
 * 32-bit, shifts by b & 31. Division by 0 sets *divzero (the program returns 0). */
uint32_t bxsc_alu(unsigned op, uint32_t a, uint32_t b, int *divzero);
/* The jump condition of a BPF_JMP opcode (BPF_OP bits) other than JA. */
int bxsc_jmp(unsigned op, uint32_t a, uint32_t b);

#endif
