/* SPDX-License-Identifier: Apache-2.0 */
/* Abstract interpretation of one checked seccomp program (docs/seccomp.md "Design").
 *
 * One pass per arch value of this machine's ABIs, with that arch loaded as a constant and
 * the syscall number symbolic, plus one pass for every other arch value, both symbolic.
 * A symbolic coordinate ranges over a universe: the 32-bit values cut into disjoint
 * elements at every constant the program compares with, every table number being an
 * element of its own. An abstract state holds A, X and M[] (each a constant, unknown, the
 * number or arch itself, or a table of per-element values computed from the number) and
 * the set of elements (a bitmap) it stands for. Programs only jump forward, so one pass
 * over the instructions in order, with the states waiting at each instruction joined
 * there, visits each instruction once. A comparison with the number splits a state's set;
 * a comparison with an argument or the instruction pointer sends the state both ways. */
#include "seccomp_internal.h"

#include <stdlib.h>
#include <string.h>

_Thread_local bxsc_stats bxsc_last_stats;

enum { V_UNK = 0, V_CONST, V_NR, V_ARCH, V_FN };

typedef struct fn {
    struct fn *next; /* every table of a pass, freed at its end */
    uint64_t *known; /* element bitmap: v[e] is the value */
    uint32_t *v;
    uint64_t data[]; /* known, then v */
} fn;

typedef struct {
    uint8_t kind;
    uint32_t k;
    const fn *t;
} val;

#define NREGS (2 + BXSC_MEMWORDS) /* A, X, M[0..15] */

typedef struct st {
    struct st *next;
    val r[NREGS]; /* r[0] = A, r[1] = X, r[2 + i] = M[i] */
    uint64_t b[]; /* number set (nw words), then arch set (aw words) */
} st;

typedef struct {
    uint32_t *lo; /* element i is lo[i] .. lo[i + 1] - 1 (the last ends at UINT32_MAX) */
    size_t n, words;
} univ;

typedef struct {
    const struct sock_filter *f;
    size_t len;
    uint32_t *live; /* per instruction: registers read before written, bit per r[] */
    st **pend;      /* states waiting at each instruction */
    uint16_t *npend;
    univ nu, au;
    int other;     /* the pass for every other arch value */
    uint32_t arch; /* the arch value of a known-arch pass */
    size_t nw, aw, ssize;
    uint64_t *tabmask, *gapmask;
    int32_t *entry; /* per number element: abi * NR_COUNT + n, or -1 */
    bxsc_result *r;
    bxsc_outset beyond;
    st *freelist;
    fn *fns;
    size_t live_states, bytes, fn_bytes;
    size_t elem_steps;
    int oom;
} pass;

/* ---- universes ----------------------------------------------------------------------- */

/* Sorted, distinct 32-bit values. */
typedef struct {
    uint32_t *v;
    size_t n;
} vlist;

/* Radix sort, then drop repeats. */
static int vlist_sort(vlist *l)
{
    uint32_t *tmp = malloc((l->n ? l->n : 1) * sizeof *tmp), *a = l->v, *b = tmp;
    size_t k = 0;

    if (!tmp)
        return -1;
    for (int shift = 0; shift < 32; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < l->n; i++)
            count[((a[i] >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < l->n; i++)
            b[count[(a[i] >> shift) & 0xff]++] = a[i];
        uint32_t *t = a;
        a = b;
        b = t;
    }
    /* an even number of passes: the sorted values are back in l->v */
    for (size_t i = 0; i < l->n; i++) {
        if (k == 0 || a[k - 1] != a[i])
            a[k++] = a[i];
    }
    l->n = k;
    free(tmp);
    return 0;
}

/* Breakpoints from the program: every constant a value may be compared with. */
static int bp_program(vlist *l, const struct sock_filter *f, size_t len)
{
    if (!(l->v = malloc((2 * len + 1) * sizeof *l->v)))
        return -1;
    l->n = 0;
    l->v[l->n++] = 0;
    for (size_t pc = 0; pc < len; pc++) {
        uint16_t c = f[pc].code;
        uint32_t k = f[pc].k;
        int at = 0, after = 0;
        if (c == (BPF_JMP | BPF_JEQ | BPF_K) || c == (BPF_LD | BPF_IMM) || c == (BPF_LDX | BPF_IMM))
            at = after = 1;
        else if (c == (BPF_JMP | BPF_JGT | BPF_K))
            after = 1;
        else if (c == (BPF_JMP | BPF_JGE | BPF_K))
            at = 1;
        if (at)
            l->v[l->n++] = k;
        if (after && k != UINT32_MAX)
            l->v[l->n++] = k + 1;
    }
    return vlist_sort(l);
}

/* The universe cut at the program's breakpoints and at extra (sorted, distinct). */
static int univ_build(univ *u, const vlist *prog, const uint32_t *extra, size_t nextra)
{
    size_t i = 0, j = 0;

    if (!(u->lo = malloc((prog->n + nextra) * sizeof *u->lo)))
        return -1;
    u->n = 0;
    while (i < prog->n || j < nextra) {
        uint32_t v;
        if (j == nextra || (i < prog->n && prog->v[i] < extra[j]))
            v = prog->v[i++];
        else if (i == prog->n || extra[j] < prog->v[i])
            v = extra[j++];
        else {
            v = prog->v[i++];
            j++;
        }
        u->lo[u->n++] = v;
    }
    u->words = (u->n + 63) / 64;
    return 0;
}

static uint32_t u_hi(const univ *u, size_t e)
{
    return e + 1 < u->n ? u->lo[e + 1] - 1 : UINT32_MAX;
}

static int u_single(const univ *u, size_t e)
{
    return u_hi(u, e) == u->lo[e];
}

/* The element holding v. */
static size_t u_find(const univ *u, uint32_t v)
{
    size_t lo = 0, hi = u->n; /* lo[lo] <= v < lo[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (u->lo[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- bitmaps ------------------------------------------------------------------------- */

static int bm_any(const uint64_t *b, size_t w)
{
    for (size_t i = 0; i < w; i++) {
        if (b[i])
            return 1;
    }
    return 0;
}

static int bm_test(const uint64_t *b, size_t e)
{
    return (b[e / 64] >> (e % 64)) & 1;
}

static void bm_set(uint64_t *b, size_t e)
{
    b[e / 64] |= 1ull << (e % 64);
}

static void bm_clear(uint64_t *b, size_t e)
{
    b[e / 64] &= ~(1ull << (e % 64));
}

/* dst = src restricted to elements [from, to). */
static void bm_range(uint64_t *dst, const uint64_t *src, size_t w, size_t from, size_t to)
{
    for (size_t i = 0; i < w; i++) {
        uint64_t m = 0;
        size_t a = i * 64, z = a + 64;
        if (from < z && to > a) {
            size_t s = from > a ? from - a : 0, t = to < z ? to - a : 64;
            m = (t == 64 ? ~0ull : (1ull << t) - 1) & ~((1ull << s) - 1);
        }
        dst[i] = src[i] & m;
    }
}

static size_t bm_count(const uint64_t *b, size_t w)
{
    size_t n = 0;
    for (size_t i = 0; i < w; i++)
        n += (size_t)__builtin_popcountll(b[i]);
    return n;
}

/* ---- states -------------------------------------------------------------------------- */

static uint64_t *nrset(st *s)
{
    return s->b;
}

static uint64_t *archset(pass *p, st *s)
{
    return s->b + p->nw;
}

static st *st_new(pass *p)
{
    st *s = p->freelist;
    if (s) {
        p->freelist = s->next;
    } else {
        s = malloc(p->ssize);
        if (!s) {
            p->oom = 1;
            return NULL;
        }
    }
    s->next = NULL;
    p->live_states++;
    size_t bytes = p->live_states * p->ssize + p->fn_bytes;
    if (p->live_states > bxsc_last_stats.states_max)
        bxsc_last_stats.states_max = p->live_states;
    if (bytes > bxsc_last_stats.bytes_max)
        bxsc_last_stats.bytes_max = bytes;
    return s;
}

static void st_free(pass *p, st *s)
{
    s->next = p->freelist;
    p->freelist = s;
    p->live_states--;
}

static st *st_clone(pass *p, const st *s)
{
    st *c = st_new(p);
    if (c) {
        memcpy(c, s, p->ssize);
        c->next = NULL;
    }
    return c;
}

static int val_eq(const val *a, const val *b)
{
    if (a->kind != b->kind)
        return 0;
    if (a->kind == V_CONST)
        return a->k == b->k;
    if (a->kind == V_FN)
        return a->t == b->t;
    return 1;
}

static val vconst(uint32_t k)
{
    val v = {V_CONST, k, NULL};
    return v;
}

static val vunk(void)
{
    val v = {V_UNK, 0, NULL};
    return v;
}

static void join_into(pass *p, st *t, const st *s)
{
    for (int i = 0; i < NREGS; i++) {
        if (!val_eq(&t->r[i], &s->r[i]))
            t->r[i] = vunk();
    }
    for (size_t i = 0; i < p->nw + p->aw; i++)
        t->b[i] |= s->b[i];
}

/* Hand s to instruction pc: registers pc never reads before writing are forgotten, so that
 * states differing only there are one; a state equal in every register to one already
 * waiting merges into it exactly (the union of their sets); past the bound it is joined
 * into one, losing what they disagree on. */
static void push(pass *p, size_t pc, st *s)
{
    uint32_t live = p->live[pc];
    for (int i = 0; i < NREGS; i++) {
        if (!(live & (1u << i)))
            s->r[i] = vunk();
    }
    for (st *t = p->pend[pc]; t; t = t->next) {
        int same = 1;
        for (int i = 0; i < NREGS && same; i++)
            same = val_eq(&t->r[i], &s->r[i]);
        if (!same)
            continue;
        if (!p->other || memcmp(archset(p, t), archset(p, s), p->aw * 8) == 0) {
            for (size_t i = 0; i < p->nw; i++)
                t->b[i] |= s->b[i];
        } else if (memcmp(nrset(t), nrset(s), p->nw * 8) == 0) {
            for (size_t i = 0; i < p->aw; i++)
                archset(p, t)[i] |= archset(p, s)[i];
        } else {
            continue;
        }
        st_free(p, s);
        return;
    }
    size_t bound = p->live_states > BXSC_LIVE_MAX ? 1 : BXSC_STATES_PER_PC;
    if (p->pend[pc] && p->npend[pc] >= bound) {
        join_into(p, p->pend[pc], s);
        bxsc_last_stats.widened++;
        st_free(p, s);
        return;
    }
    s->next = p->pend[pc];
    p->pend[pc] = s;
    p->npend[pc]++;
}

/* ---- outcomes ------------------------------------------------------------------------ */

/* Record that the state's points return ret (exact) or, with any, anything up to bound. */
static void record(pass *p, st *s, int any, uint32_t ret)
{
    if (p->other) {
        if (any)
            bxsc_out_add_any(&p->r->other_arch, BXSC_AO_MAX);
        else
            bxsc_out_add(&p->r->other_arch, ret);
        return;
    }
    const uint64_t *set = nrset(s);
    for (size_t w = 0; w < p->nw; w++) {
        uint64_t bits = set[w] & p->tabmask[w];
        while (bits) {
            size_t e = w * 64 + (size_t)__builtin_ctzll(bits);
            int32_t idx = p->entry[e];
            bxsc_outset *o = &p->r->nr[idx / BX_SECCOMP_NR_COUNT][idx % BX_SECCOMP_NR_COUNT];
            bits &= bits - 1;
            if (any)
                bxsc_out_add_any(o, BXSC_AO_MAX);
            else
                bxsc_out_add(o, ret);
        }
        if (set[w] & p->gapmask[w]) {
            if (any)
                bxsc_out_add_any(&p->beyond, BXSC_AO_MAX);
            else
                bxsc_out_add(&p->beyond, ret);
        }
    }
}

/* The value of a number-derived (or constant) v at number element e. */
static int nrval(const pass *p, const val *v, size_t e, uint32_t *out)
{
    switch (v->kind) {
    case V_CONST:
        *out = v->k;
        return 1;
    case V_NR:
        if (!u_single(&p->nu, e))
            return 0;
        *out = p->nu.lo[e];
        return 1;
    case V_FN:
        if (!bm_test(v->t->known, e))
            return 0;
        *out = v->t->v[e];
        return 1;
    }
    return 0;
}

static int budget(pass *p, const st *s)
{
    size_t n = bm_count(s->b, p->nw);
    if (p->elem_steps + n > BXSC_ELEM_BUDGET)
        return 0;
    p->elem_steps += n;
    bxsc_last_stats.elem_steps = p->elem_steps;
    return 1;
}

static void ret_a(pass *p, st *s)
{
    const val *a = &s->r[0];

    if (a->kind == V_CONST) {
        record(p, s, 0, a->k);
        return;
    }
    if (p->other || (a->kind != V_NR && a->kind != V_FN) || !budget(p, s)) {
        record(p, s, 1, 0);
        return;
    }
    /* Per element: the value where it is known, anything where it is not. */
    const uint64_t *set = nrset(s);
    for (size_t w = 0; w < p->nw; w++) {
        uint64_t bits = set[w];
        while (bits) {
            size_t e = w * 64 + (size_t)__builtin_ctzll(bits);
            uint32_t v = 0;
            int known = nrval(p, a, e, &v);
            bxsc_outset *o = p->entry[e] >= 0 ? &p->r->nr[p->entry[e] / BX_SECCOMP_NR_COUNT]
                                                         [p->entry[e] % BX_SECCOMP_NR_COUNT]
                                              : &p->beyond;
            bits &= bits - 1;
            if (known)
                bxsc_out_add(o, v);
            else
                bxsc_out_add_any(o, BXSC_AO_MAX);
        }
    }
}

/* ---- arithmetic on number-derived values ---------------------------------------------- */

static int nr_derived(const val *v)
{
    return v->kind == V_NR || v->kind == V_FN;
}

/* a = a op b elementwise over the state's set. Returns 0, or 1 when some element divides
 * by zero (the caller records the return value 0 for the state). */
static int alu_fn(pass *p, st *s, unsigned op, val b, val *out)
{
    size_t bytes = sizeof(fn) + p->nw * 8 + p->nu.n * 4;
    int dz_any = 0;

    if (!budget(p, s) || p->fn_bytes + bytes > BXSC_FN_BYTES_MAX) {
        *out = vunk();
        return 1; /* cannot tell whether a division meets 0 */
    }
    fn *t = calloc(1, bytes);
    if (!t) {
        p->oom = 1;
        *out = vunk();
        return 0;
    }
    t->known = t->data;
    t->v = (uint32_t *)(t->data + p->nw);
    t->next = p->fns;
    p->fns = t;
    p->fn_bytes += bytes;

    const uint64_t *set = nrset(s);
    int first = 1, all_same = 1, all_known = 1;
    uint32_t same = 0;
    for (size_t w = 0; w < p->nw; w++) {
        uint64_t bits = set[w];
        while (bits) {
            size_t e = w * 64 + (size_t)__builtin_ctzll(bits);
            uint32_t x = 0, y = 0;
            int kx = nrval(p, &s->r[0], e, &x), ky = nrval(p, &b, e, &y);
            bits &= bits - 1;
            if ((op == BPF_DIV || op == BPF_MOD) && (!ky || y == 0)) {
                dz_any = 1; /* this element may return 0 here; it goes on as unknown */
                all_known = 0;
                continue;
            }
            if (kx && ky) {
                int dz = 0;
                uint32_t v = bxsc_alu(op, x, y, &dz);
                t->v[e] = v;
                bm_set(t->known, e);
                if (first)
                    same = v;
                else if (v != same)
                    all_same = 0;
                first = 0;
            } else {
                all_known = 0;
            }
        }
    }
    if (all_known && all_same && !first)
        *out = vconst(same);
    else {
        val v = {V_FN, 0, t};
        *out = v;
    }
    return dz_any;
}

/* ---- jumps --------------------------------------------------------------------------- */

/* Split a set (bitmap of w words over universe u) by pred(id, c) (id on the left when
 * left, else pred(c, id)) where id is the coordinate itself. */
static void split_id(const univ *u, const uint64_t *set, size_t w, unsigned op, uint32_t c,
                     int left, uint64_t *t, uint64_t *f)
{
    size_t e = u_find(u, c);
    uint32_t lo = u->lo[e], hi = u_hi(u, e);

    if (op == BPF_JEQ) {
        memset(t, 0, w * 8);
        memcpy(f, set, w * 8);
        if (bm_test(set, e)) {
            bm_set(t, e);
            if (lo == hi)
                bm_clear(f, e);
        }
        return;
    }
    /* Normalise to: id > c, id >= c (left) or id < c, id <= c (right). */
    int gt = op == BPF_JGT;
    uint64_t *above = left ? t : f, *below = left ? f : t;
    bm_range(above, set, w, e + 1, u->n);
    bm_range(below, set, w, 0, e);
    if (!bm_test(set, e))
        return;
    /* The element holding c: which outcomes its values give. */
    int has_true, has_false;
    if (left) {
        has_true = gt ? hi > c : 1;  /* values > c (resp. >= c) */
        has_false = gt ? 1 : lo < c; /* values <= c (resp. < c) */
    } else {
        has_true = gt ? lo < c : 1; /* c > id: values < c; c >= id: values <= c */
        has_false = gt ? 1 : hi > c;
    }
    if (has_true)
        bm_set(t, e);
    if (has_false)
        bm_set(f, e);
}

/* Split by (id & c) != 0: single values exactly, wider elements both ways. */
static void split_jset_id(const univ *u, const uint64_t *set, size_t w, uint32_t c, uint64_t *t,
                          uint64_t *f)
{
    memset(t, 0, w * 8);
    memset(f, 0, w * 8);
    for (size_t i = 0; i < w; i++) {
        uint64_t bits = set[i];
        while (bits) {
            size_t e = i * 64 + (size_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            if (!u_single(u, e) || (u->lo[e] & c))
                bm_set(t, e);
            if (!u_single(u, e) || !(u->lo[e] & c))
                bm_set(f, e);
        }
    }
}

/* Split by pred(a, b) elementwise over the number set; unknown elements go both ways. */
static int split_elem(pass *p, st *s, unsigned op, const val *a, const val *b, uint64_t *t,
                      uint64_t *f)
{
    if (!budget(p, s))
        return 0;
    memset(t, 0, p->nw * 8);
    memset(f, 0, p->nw * 8);
    const uint64_t *set = nrset(s);
    for (size_t w = 0; w < p->nw; w++) {
        uint64_t bits = set[w];
        while (bits) {
            size_t e = w * 64 + (size_t)__builtin_ctzll(bits);
            uint32_t x = 0, y = 0;
            bits &= bits - 1;
            if (nrval(p, a, e, &x) && nrval(p, b, e, &y)) {
                if (bxsc_jmp(op, x, y))
                    bm_set(t, e);
                else
                    bm_set(f, e);
            } else {
                bm_set(t, e);
                bm_set(f, e);
            }
        }
    }
    return 1;
}

/* A conditional jump: each state goes to jt, jf, or (split, or unknown) both. */
static void jump(pass *p, size_t pc, st *s)
{
    const struct sock_filter *ins = &p->f[pc];
    unsigned op = BPF_OP(ins->code);
    size_t jt = pc + 1 + ins->jt, jf = pc + 1 + ins->jf;
    val a = s->r[0], b = BPF_SRC(ins->code) == BPF_X ? s->r[1] : vconst(ins->k);
    uint64_t tb[p->nw > p->aw ? p->nw : p->aw], fb[p->nw > p->aw ? p->nw : p->aw];
    uint64_t *set = NULL; /* the coordinate split, or NULL for "both ways, unsplit" */
    size_t w = 0;

    if (jt == jf) {
        push(p, jt, s);
        return;
    }
    if (a.kind == V_CONST && b.kind == V_CONST) {
        push(p, bxsc_jmp(op, a.k, b.k) ? jt : jf, s);
        return;
    }
    if (op == BPF_JSET && ((a.kind == V_CONST && a.k == 0) || (b.kind == V_CONST && b.k == 0))) {
        push(p, jf, s); /* nothing & 0 is set */
        return;
    }
    if ((a.kind == V_ARCH && b.kind == V_CONST) || (a.kind == V_CONST && b.kind == V_ARCH)) {
        set = archset(p, s);
        w = p->aw;
        if (op == BPF_JSET)
            split_jset_id(&p->au, set, w, a.kind == V_CONST ? a.k : b.k, tb, fb);
        else
            split_id(&p->au, set, w, op, a.kind == V_CONST ? a.k : b.k, a.kind == V_ARCH, tb, fb);
    } else if (op != BPF_JSET &&
               ((a.kind == V_NR && b.kind == V_CONST) || (a.kind == V_CONST && b.kind == V_NR))) {
        set = nrset(s);
        w = p->nw;
        split_id(&p->nu, set, w, op, a.kind == V_CONST ? a.k : b.k, a.kind == V_NR, tb, fb);
    } else if ((nr_derived(&a) || a.kind == V_CONST) && (nr_derived(&b) || b.kind == V_CONST) &&
               split_elem(p, s, op, &a, &b, tb, fb)) {
        set = nrset(s);
        w = p->nw;
    }
    if (!set) { /* an argument, the instruction pointer, or past the budget */
        st *c = st_clone(p, s);
        if (!c) {
            st_free(p, s);
            return;
        }
        push(p, jt, s);
        push(p, jf, c);
        return;
    }
    int t_any = bm_any(tb, w), f_any = bm_any(fb, w);
    if (t_any && f_any) {
        st *c = st_clone(p, s);
        if (!c) {
            st_free(p, s);
            return;
        }
        memcpy(set, tb, w * 8);
        memcpy(set == nrset(s) ? nrset(c) : archset(p, c), fb, w * 8);
        push(p, jt, s);
        push(p, jf, c);
    } else if (t_any) {
        memcpy(set, tb, w * 8);
        push(p, jt, s);
    } else if (f_any) {
        memcpy(set, fb, w * 8);
        push(p, jf, s);
    } else {
        st_free(p, s);
    }
}

/* ---- one instruction ----------------------------------------------------------------- */

static void step(pass *p, size_t pc, st *s)
{
    const struct sock_filter *ins = &p->f[pc];
    val *a = &s->r[0], *x = &s->r[1];

    switch (BPF_CLASS(ins->code)) {
    case BPF_LD:
    case BPF_LDX: {
        val *dst = BPF_CLASS(ins->code) == BPF_LD ? a : x;
        switch (BPF_MODE(ins->code)) {
        case BPF_ABS:
            if (ins->k == 0) {
                val v = {V_NR, 0, NULL};
                *dst = v;
            } else if (ins->k == 4) {
                val v = {p->other ? V_ARCH : V_CONST, p->other ? 0 : p->arch, NULL};
                *dst = v;
            } else {
                *dst = vunk(); /* instruction pointer, arguments */
            }
            break;
        case BPF_LEN:
            *dst = vconst(sizeof(struct seccomp_data));
            break;
        case BPF_IMM:
            *dst = vconst(ins->k);
            break;
        case BPF_MEM:
            *dst = s->r[2 + ins->k];
            break;
        }
        break;
    }
    case BPF_ST:
        s->r[2 + ins->k] = *a;
        break;
    case BPF_STX:
        s->r[2 + ins->k] = *x;
        break;
    case BPF_MISC:
        if (BPF_MISCOP(ins->code) == BPF_TAX)
            *x = *a;
        else
            *a = *x;
        break;
    case BPF_ALU: {
        unsigned op = BPF_OP(ins->code);
        val b = op == BPF_NEG ? vconst(0) : BPF_SRC(ins->code) == BPF_X ? *x : vconst(ins->k);
        int dz = 0;
        if ((op == BPF_DIV || op == BPF_MOD) && b.kind == V_CONST && b.k == 0) {
            record(p, s, 0, 0); /* X == 0: the kernel's translation returns 0 */
            st_free(p, s);
            return;
        }
        if (a->kind == V_CONST && b.kind == V_CONST) {
            uint32_t v = bxsc_alu(op, a->k, b.k, &dz);
            if (dz) { /* the kernel's translation returns 0 */
                record(p, s, 0, 0);
                st_free(p, s);
                return;
            }
            *a = vconst(v);
        } else if (!p->other && (nr_derived(a) || a->kind == V_CONST) &&
                   (nr_derived(&b) || b.kind == V_CONST)) {
            dz = alu_fn(p, s, op, b, a);
        } else {
            dz = (op == BPF_DIV || op == BPF_MOD) && b.kind != V_CONST;
            *a = vunk();
        }
        if (dz)
            record(p, s, 0, 0); /* some values divide by zero: those return 0 */
        break;
    }
    case BPF_JMP:
        if (BPF_OP(ins->code) == BPF_JA)
            push(p, pc + 1 + ins->k, s);
        else
            jump(p, pc, s);
        return;
    case BPF_RET:
        if (BPF_RVAL(ins->code) == BPF_A)
            ret_a(p, s);
        else
            record(p, s, 0, ins->k);
        st_free(p, s);
        return;
    }
    push(p, pc + 1, s);
}

/* ---- liveness ------------------------------------------------------------------------ */

static void liveness(const struct sock_filter *f, size_t len, uint32_t *live)
{
    for (size_t i = len; i-- > 0;) {
        uint16_t c = f[i].code;
        uint32_t use = 0, def = 0, out = 0;
        int ends = 0;
        switch (BPF_CLASS(c)) {
        case BPF_LD:
            def = 1;
            if (BPF_MODE(c) == BPF_MEM)
                use = 1u << (2 + f[i].k);
            break;
        case BPF_LDX:
            def = 2;
            if (BPF_MODE(c) == BPF_MEM)
                use = 1u << (2 + f[i].k);
            break;
        case BPF_ST:
            use = 1;
            def = 1u << (2 + f[i].k);
            break;
        case BPF_STX:
            use = 2;
            def = 1u << (2 + f[i].k);
            break;
        case BPF_ALU:
            use = 1 | (BPF_SRC(c) == BPF_X && BPF_OP(c) != BPF_NEG ? 2 : 0);
            def = 1;
            break;
        case BPF_MISC:
            use = BPF_MISCOP(c) == BPF_TAX ? 1 : 2;
            def = BPF_MISCOP(c) == BPF_TAX ? 2 : 1;
            break;
        case BPF_JMP:
            if (BPF_OP(c) == BPF_JA) {
                out = live[i + 1 + f[i].k];
            } else {
                use = 1 | (BPF_SRC(c) == BPF_X ? 2 : 0);
                out = live[i + 1 + f[i].jt] | live[i + 1 + f[i].jf];
            }
            ends = 1;
            break;
        case BPF_RET:
            use = BPF_RVAL(c) == BPF_A ? 1 : 0;
            ends = 1;
            break;
        }
        if (!ends)
            out = live[i + 1];
        live[i] = use | (out & ~def);
    }
}

/* ---- passes -------------------------------------------------------------------------- */

static uint32_t pass_archs(uint32_t *archs)
{
    uint32_t n = 0;
    for (size_t i = 0; i < BX_SECCOMP_NABI; i++) {
        uint32_t a = bx_seccomp_abi(i)->audit_arch, seen = 0;
        for (uint32_t j = 0; j < n; j++)
            seen |= archs[j] == a;
        if (!seen)
            archs[n++] = a;
    }
    return n;
}

static void pass_free(pass *p)
{
    for (size_t pc = 0; p->pend && pc < p->len; pc++) {
        while (p->pend[pc]) {
            st *s = p->pend[pc];
            p->pend[pc] = s->next;
            free(s);
        }
    }
    while (p->freelist) {
        st *s = p->freelist;
        p->freelist = s->next;
        free(s);
    }
    while (p->fns) {
        fn *t = p->fns;
        p->fns = t->next;
        free(t);
    }
    free(p->pend);
    free(p->npend);
    free(p->nu.lo);
    free(p->au.lo);
    free(p->tabmask);
    free(p->gapmask);
    free(p->entry);
}

static void sort_small(uint32_t *v, size_t *n)
{
    size_t k = 0;
    for (size_t i = 1; i < *n; i++) {
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint32_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    }
    for (size_t i = 0; i < *n; i++) {
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    }
    *n = k;
}

static int run_pass(const struct sock_filter *f, size_t len, const uint32_t *live, const vlist *bp,
                    int other, uint32_t arch, bxsc_result *r, bx_error *err)
{
    pass p = {.f = f, .len = len, .live = (uint32_t *)live, .other = other, .arch = arch, .r = r};
    uint32_t archs[BX_SECCOMP_NABI], bases[BX_SECCOMP_NABI], aextra[2 * BX_SECCOMP_NABI];
    uint32_t narch = pass_archs(archs);
    size_t nbase = 0, naextra = 0, nn = 0;
    uint32_t *nextra = NULL;
    int rc = BX_EIO;

    /* Every table number is an element of its own: breakpoints base .. base + 1024. */
    for (size_t i = 0; !other && i < BX_SECCOMP_NABI; i++) {
        if (bx_seccomp_abi(i)->audit_arch == arch)
            bases[nbase++] = bx_seccomp_abi(i)->nr_base;
    }
    sort_small(bases, &nbase);
    if (!(nextra = malloc((nbase * (BX_SECCOMP_NR_COUNT + 1) + 1) * sizeof *nextra)))
        goto out;
    for (size_t b = 0; b < nbase; b++) {
        for (uint32_t n = 0; n <= BX_SECCOMP_NR_COUNT; n++) {
            uint64_t v = (uint64_t)bases[b] + n;
            if (v <= UINT32_MAX && (nn == 0 || nextra[nn - 1] < v))
                nextra[nn++] = (uint32_t)v;
        }
    }
    for (uint32_t i = 0; i < narch; i++) {
        aextra[naextra++] = archs[i];
        if (archs[i] != UINT32_MAX)
            aextra[naextra++] = archs[i] + 1;
    }
    sort_small(aextra, &naextra);
    if (univ_build(&p.nu, bp, nextra, nn) != 0 || univ_build(&p.au, bp, aextra, naextra) != 0)
        goto out;
    p.nw = p.nu.words;
    p.aw = other ? p.au.words : 0;
    p.ssize = sizeof(st) + (p.nw + p.aw) * 8;
    p.pend = calloc(len, sizeof *p.pend);
    p.npend = calloc(len, sizeof *p.npend);
    p.tabmask = calloc(p.nw, 8);
    p.gapmask = calloc(p.nw, 8);
    p.entry = malloc(p.nu.n * sizeof *p.entry);
    if (!p.pend || !p.npend || !p.tabmask || !p.gapmask || !p.entry)
        goto out;
    for (size_t e = 0; e < p.nu.n; e++) {
        p.entry[e] = -1;
        for (size_t i = 0; !other && i < BX_SECCOMP_NABI && u_single(&p.nu, e); i++) {
            const bx_seccomp_abi_info *abi = bx_seccomp_abi(i);
            uint32_t v = p.nu.lo[e] - abi->nr_base;
            if (abi->audit_arch == arch && p.nu.lo[e] >= abi->nr_base && v < BX_SECCOMP_NR_COUNT)
                p.entry[e] = (int32_t)(i * BX_SECCOMP_NR_COUNT + v);
        }
        bm_set(p.entry[e] >= 0 ? p.tabmask : p.gapmask, e);
    }

    st *s0 = st_new(&p);
    if (!s0)
        goto out;
    memset(s0, 0, p.ssize);
    s0->r[0] = vconst(0); /* A and X start at 0 */
    s0->r[1] = vconst(0);
    for (size_t e = 0; e < p.nu.n; e++)
        bm_set(nrset(s0), e);
    if (other) {
        for (size_t e = 0; e < p.au.n; e++) {
            int known = 0;
            for (uint32_t i = 0; i < narch; i++)
                known |= u_single(&p.au, e) && p.au.lo[e] == archs[i];
            if (!known)
                bm_set(archset(&p, s0), e);
        }
    }
    push(&p, 0, s0);
    for (size_t pc = 0; pc < len && !p.oom; pc++) {
        st *s = p.pend[pc];
        p.pend[pc] = NULL;
        p.npend[pc] = 0;
        while (s) {
            st *next = s->next;
            s->next = NULL;
            step(&p, pc, s);
            s = next;
        }
    }
    if (p.oom)
        goto out;
    for (size_t i = 0; !other && i < BX_SECCOMP_NABI; i++) {
        if (bx_seccomp_abi(i)->audit_arch == arch)
            r->beyond[i] = p.beyond;
    }
    rc = 0;
out:
    free(nextra);
    pass_free(&p);
    if (rc != 0)
        return bx_error_set(err, BX_ENOMEM, NULL, "seccomp evaluation: out of memory");
    return 0;
}

int bxsc_eval_filter(const struct sock_filter *insns, size_t len, bxsc_result *r, bx_error *err)
{
    uint32_t live[BX_SECCOMP_MAXINSNS];
    uint32_t archs[BX_SECCOMP_NABI];
    uint32_t narch = pass_archs(archs);
    int rc = 0;

    vlist bp = {0};

    memset(&bxsc_last_stats, 0, sizeof bxsc_last_stats);
    if (bp_program(&bp, insns, len) != 0) {
        free(bp.v);
        return bx_error_set(err, BX_ENOMEM, NULL, "seccomp evaluation: out of memory");
    }
    liveness(insns, len, live);
    for (uint32_t i = 0; i < narch && rc == 0; i++)
        rc = run_pass(insns, len, live, &bp, 0, archs[i], r, err);
    if (rc == 0)
        rc = run_pass(insns, len, live, &bp, 1, 0, r, err);
    free(bp.v);
    return rc;
}
