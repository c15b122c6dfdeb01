/* SPDX-License-Identifier: Apache-2.0 */
/* boxcert seccomp module: what a chain of classic-BPF seccomp filters lets through, for
 * every syscall number of every ABI of this machine (docs/seccomp.md).
 *
 * A chain is the filters a task carries, given in installation order (chain[0] first).
 * The kernel runs all of them on every syscall and the strictest action wins
 * (KILL_PROCESS > KILL_THREAD > TRAP > ERRNO > USER_NOTIF > TRACE > LOG > ALLOW, the
 * signed order of the action bits; on a tie the most recently installed filter's data).
 *
 * For each (ABI, number) the verdict is
 *   ALLOW    let through for every argument and instruction-pointer value: the chain's
 *            action is ALLOW, LOG, TRACE or USER_NOTIF (the action is recorded);
 *   DENY     refused for every argument value: KILL_PROCESS, KILL_THREAD, TRAP, ERRNO,
 *            or an action value the kernel does not define (it kills the process);
 *   DEPENDS  some argument (or instruction pointer) values are let through, others not.
 * The analysis is conservative: a branch on an argument counts both ways, so DEPENDS may
 * stand where the filter in fact decides the same for every argument; ALLOW and DENY are
 * always exact for the numbers of the tables.
 *
 * Depends on common/ and libseccomp only; not linked into boxcert-verify.
 */
#ifndef BX_SECCOMP_H
#define BX_SECCOMP_H

#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <jansson.h>

#include "bx_common.h"

/* ---- ABIs ---------------------------------------------------------------------- */

/* The ABIs of this machine, in table order. */
#if defined(__x86_64__)
enum { BX_SECCOMP_ABI_X86_64 = 0, BX_SECCOMP_ABI_X32 = 1, BX_SECCOMP_ABI_X86 = 2 };
#define BX_SECCOMP_NABI 3
#elif defined(__aarch64__)
enum { BX_SECCOMP_ABI_AARCH64 = 0, BX_SECCOMP_ABI_ARM = 1 };
#define BX_SECCOMP_NABI 2
#else
#error "bx_seccomp: no ABI table for this architecture"
#endif

/* Syscall numbers 0 .. BX_SECCOMP_NR_COUNT-1 of each ABI (after its nr_base). */
#define BX_SECCOMP_NR_COUNT 1024

typedef struct {
    const char *name;    /* "x86_64", "x32", "x86", "aarch64", "arm" */
    uint32_t audit_arch; /* seccomp_data.arch: AUDIT_ARCH_* */
    uint32_t nr_base;    /* added to the number in seccomp_data.nr: 0, or 0x40000000 for x32 */
    uint32_t scmp_arch;  /* libseccomp's token (SCMP_ARCH_*) */
} bx_seccomp_abi_info;

/* ABI i (0 <= i < BX_SECCOMP_NABI); NULL otherwise. Borrowed, static. */
const bx_seccomp_abi_info *bx_seccomp_abi(size_t i);
/* The index of the ABI named name ("x86_64", ...), or -1. */
int bx_seccomp_abi_find(const char *name);

/* The syscall's name from libseccomp's resolver (seccomp_syscall_resolve_num_arch), or
 * NULL when libseccomp does not know the number (e.g. newer syscalls): callers then show
 * the number. Borrowed, static; thread-safe. */
const char *bx_seccomp_syscall_name(size_t abi, unsigned nr);

/* ---- programs and validation --------------------------------------------------- */

typedef struct {
    const struct sock_filter *insns; /* borrowed */
    size_t len;
} bx_seccomp_prog;

#define BX_SECCOMP_MAXINSNS 4096            /* BPF_MAXINSNS */
#define BX_SECCOMP_MAX_INSNS_PER_PATH 32768 /* (1 << 18) / sizeof(struct sock_filter) */

/* Check one program as the kernel does before installing it (bpf_check_classic, then
 * seccomp_check_filter): length 1..4096, only the opcodes seccomp accepts, jumps forward
 * and in range, shifts by constants below 32, no division by constant 0, scratch cells
 * below 16 and written on every path before they are read, loads of 32-bit aligned words
 * inside struct seccomp_data, last instruction a RET. BX_EINVAL with a message
 * "insn N: reason". */
int bx_seccomp_check(const struct sock_filter *insns, size_t len, bx_error *err) BX_WUR;
/* Check every program of a chain and the chain's length as the kernel does when each is
 * attached: this filter's length plus, for every earlier one, its length + 4 must stay
 * within 32768 (else the kernel's -ENOMEM). n must be 1..; where is "filter F". */
int bx_seccomp_check_chain(const bx_seccomp_prog *chain, size_t n, bx_error *err) BX_WUR;

/* Run a checked chain on one concrete input, as the kernel does: the returned value is
 * the winning filter's return value (action | data). For tests and the fuzz oracle. */
uint32_t bx_seccomp_run(const bx_seccomp_prog *chain, size_t n, const struct seccomp_data *sd);

/* ---- verdict tables -------------------------------------------------------------- */

enum { BX_SECCOMP_ALLOW = 0, BX_SECCOMP_DENY = 1, BX_SECCOMP_DEPENDS = 2 };

/* Action bits (bx_seccomp_entry.actions). */
enum {
    BX_SECCOMP_ACT_KILL_PROCESS = 1 << 0,
    BX_SECCOMP_ACT_KILL_THREAD = 1 << 1,
    BX_SECCOMP_ACT_TRAP = 1 << 2,
    BX_SECCOMP_ACT_ERRNO = 1 << 3,
    BX_SECCOMP_ACT_USER_NOTIF = 1 << 4,
    BX_SECCOMP_ACT_TRACE = 1 << 5,
    BX_SECCOMP_ACT_LOG = 1 << 6,
    BX_SECCOMP_ACT_ALLOW = 1 << 7,
    BX_SECCOMP_ACT_UNKNOWN = 1 << 8, /* a value the kernel does not define: kills the process */
};

typedef struct {
    uint8_t verdict;  /* BX_SECCOMP_ALLOW, _DENY or _DEPENDS */
    uint8_t uniform;  /* 1: every argument value gives the same return value, ret */
    uint16_t actions; /* BX_SECCOMP_ACT_* of every action that can result */
    uint32_t ret;     /* when uniform: the chain's return value (action | data); else 0 */
} bx_seccomp_entry;

typedef struct {
    /* nr[abi][n]: the syscall number n of ABI abi (seccomp_data.nr = nr_base + n). */
    bx_seccomp_entry nr[BX_SECCOMP_NABI][BX_SECCOMP_NR_COUNT];
    /* The out-of-range default of each ABI: every number its arch value can carry that is
     * in no table of that arch (x86_64 and x32 share AUDIT_ARCH_X86_64, so both get the
     * verdict over 1024..0x3fffffff and 0x40000400..0xffffffff, -1 included; i386 over
     * 1024..0xffffffff), combined: ALLOW/DENY when all of them agree, else DEPENDS. */
    bx_seccomp_entry beyond[BX_SECCOMP_NABI];
    /* Every number under every arch value that is no ABI's of this machine. */
    bx_seccomp_entry other_arch;
    unsigned char sha256[32]; /* of the chain (bx_seccomp_chain_sha256) */
    size_t filters, insns;    /* the chain's size */
} bx_seccomp_table;

/* Flags for bx_seccomp_eval. */
enum { BX_SECCOMP_NOCACHE = 1 }; /* neither read nor fill the in-process cache */

/* Evaluate a chain (chain[0] installed first). The chain is checked first
 * (bx_seccomp_check_chain; BX_EINVAL). Results are cached in-process by the chain's
 * SHA-256 (16 entries). Bounded: see docs/seccomp.md ("Bounds"); the work and memory of
 * one evaluation do not grow past them for any chain the kernel accepts.
 * Caller owns *out (free with bx_seccomp_table_free). BX_EIO when out of memory. */
int bx_seccomp_eval(const bx_seccomp_prog *chain, size_t n, unsigned flags, bx_seccomp_table **out,
                    bx_error *err) BX_WUR;
void bx_seccomp_table_free(bx_seccomp_table *t);

/* SHA-256 of a chain's canonical bytes: "bxsc1", the count, then each filter's length and
 * instructions (code, jt, jf, k), all little-endian. */
void bx_seccomp_chain_sha256(const bx_seccomp_prog *chain, size_t n, unsigned char out[32]);

/* Empty the cache (tests). */
void bx_seccomp_cache_clear(void);

/* "allow", "deny", "depends". */
const char *bx_seccomp_verdict_name(int verdict);
/* A return value as text: "allow", "log", "trace(5)", "user_notif", "errno(1)",
 * "trap(0)", "kill_thread", "kill_process", "unknown(0x00060000)". Returns buf. */
const char *bx_seccomp_ret_str(uint32_t ret, char *buf, size_t len);
/* BX_SECCOMP_ACT_* bit of a return value. */
unsigned bx_seccomp_ret_action(uint32_t ret);

/* An entry as JSON: {"verdict": "...", "actions": [...], "ret": "errno(1)" | null}.
 * Caller owns the result (json_decref); NULL when out of memory. */
json_t *bx_seccomp_entry_json(const bx_seccomp_entry *e);
/* The whole table: {"sha256", "filters", "insns", "abis": {"x86_64": {"allow": [...],
 * "deny": [...], "depends": [...], "beyond": {...}}, ...}, "otherArch": {...}}, where each
 * list holds {"nr", "name" (null when libseccomp does not know it), "entry"} objects.
 * Caller owns the result; NULL when out of memory. */
json_t *bx_seccomp_table_json(const bx_seccomp_table *t);

/* ---- comparison -------------------------------------------------------------------- */

/* Where two tables differ. abi is the ABI index; nr is the number, or -1 for the
 * out-of-range default and -2 for other arches (abi is then 0). */
typedef struct {
    int abi;
    int nr;
    const char *name; /* borrowed, NULL when unknown to libseccomp or nr < 0 */
    bx_seccomp_entry a, b;
} bx_seccomp_diff_item;

/* Every (ABI, number) whose entries differ in verdict, in uniformity or return value, or
 * in the action set; then the out-of-range defaults and other arches. Caller owns
 * *items (free()); *n = 0 and *items NULL when the tables agree. */
int bx_seccomp_diff(const bx_seccomp_table *a, const bx_seccomp_table *b,
                    bx_seccomp_diff_item **items, size_t *n, bx_error *err) BX_WUR;
/* The differences as JSON [{"abi", "nr", "name", "a": entry, "b": entry}, ...]; "nr" is
 * "beyond" or "otherArch" for the two defaults. Caller owns the result. */
json_t *bx_seccomp_diff_json(const bx_seccomp_diff_item *items, size_t n);

/* ---- OCI profiles ------------------------------------------------------------------ */

/* Compile an OCI runtime spec's linux.seccomp object (defaultAction, defaultErrnoRet,
 * architectures, flags, listenerPath, listenerMetadata, syscalls[{names, action, errnoRet,
 * args[{index, value, valueTwo, op}]}]) with libseccomp, as runc does: this machine's
 * native ABI is always in the filter; rules whose action is the default are dropped;
 * names libseccomp does not know are skipped (listed in *skipped when skipped is
 * non-NULL: caller owns that array); a rule naming one argument twice becomes one rule
 * per condition. ERRNO and TRACE without errnoRet use EPERM. The program comes from
 * seccomp_export_bpf into a memfd. Unknown members, actions, operators or architectures
 * are BX_EINVAL (where a JSON pointer); an architecture libseccomp cannot handle is
 * BX_EUNSUPPORTED. Caller owns *insns (free()). */
int bx_seccomp_profile_compile(const json_t *seccomp, struct sock_filter **insns, size_t *len,
                               json_t **skipped, bx_error *err) BX_WUR;
/* bx_seccomp_profile_compile then bx_seccomp_eval of the one-filter chain. */
int bx_seccomp_profile_eval(const json_t *seccomp, unsigned flags, bx_seccomp_table **out,
                            bx_error *err) BX_WUR;

/* Docker's own profile format (moby's profiles/seccomp/default.json: archMap,
 * includes/excludes by arches, caps and minKernel) to the linux.seccomp object Docker
 * hands the runtime, as moby's setupSeccomp does for goarch ("amd64", "arm64", ...), the
 * container's capabilities caps (NULL-terminated, "CAP_*") and kernel version
 * kmajor.kminor. Caller owns *out. */
int bx_seccomp_docker_to_oci(const json_t *profile, const char *goarch, const char *const *caps,
                             int kmajor, int kminor, json_t **out, bx_error *err) BX_WUR;

/* Docker's default capabilities (NULL-terminated). */
extern const char *const bx_seccomp_docker_default_caps[];

/* ---- argument conditions (docs/seccomp.md "Argument conditions") ------------------- */

/* The namespace bits of clone(2)'s and unshare(2)'s flags. CLONE_NEWTIME (0x80) is a
 * namespace bit for unshare only: in clone's flags those bits are the exit signal. */
#define BX_SECCOMP_NS_USER 0x10000000u
#define BX_SECCOMP_NS_MNT 0x00020000u
#define BX_SECCOMP_NS_PID 0x20000000u
#define BX_SECCOMP_NS_NET 0x40000000u
#define BX_SECCOMP_NS_IPC 0x08000000u
#define BX_SECCOMP_NS_UTS 0x04000000u
#define BX_SECCOMP_NS_CGROUP 0x02000000u
#define BX_SECCOMP_NS_TIME 0x00000080u

typedef struct {
    int reachable; /* some call reaches an allowing return in every filter */
    uint32_t bits; /* the asked bits b for which some argument value with b set (in the
                    * argument's low 32 bits) reaches an allowing return in every filter */
    int widened;   /* the path budget ran out: the answer is every asked bit, reachable */
} bx_seccomp_argreach;

/* For the syscall named name of ABI abi, follow every path of each filter of the chain
 * with seccomp_data.nr and .arch fixed, tracking what each comparison admits of the two
 * 32-bit halves of argument argi (bits known set, bits known clear, an unsigned range);
 * loads of other fields are unknown (both branches). The answer over-approximates: a bit
 * is left out only when no path admits it. Allowing returns: ALLOW, LOG, TRACE and
 * USER_NOTIF. BX_ENOTFOUND when libseccomp knows no such syscall for the ABI. */
int bx_seccomp_arg_reach(const bx_seccomp_prog *chain, size_t n, size_t abi, const char *name,
                         unsigned argi, uint32_t bits, bx_seccomp_argreach *out,
                         bx_error *err) BX_WUR;
/* Whether a call of name whose argument argi has value in its low 32 bits, the high half
 * being anything (the syscall reads an int: socket's family, personality's persona),
 * reaches an allowing return in every filter: *reachable 1 or 0 (1 on error). */
int bx_seccomp_arg_value_reach(const bx_seccomp_prog *chain, size_t n, size_t abi, const char *name,
                               unsigned argi, uint32_t value, int *reachable, bx_error *err) BX_WUR;

#endif
