/* SPDX-License-Identifier: Apache-2.0 */
/* Selecting the sessions on every engine: /info (the engine's ID), the listing of every
 * container (those carrying every --label are the sessions; it also finds the expected
 * ones and tells orphans apart), and one inspect per session. */
#include "audit_internal.h"

#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

void bxu_engine_lost(bx_audit *a, size_t i, const bx_error *err)
{
    bxu_engine *e = &a->engines[i];

    pthread_mutex_lock(&a->mu);
    e->lost = 1;
    if (!e->error[0])
        bx_error_str(err, e->error, sizeof e->error);
    pthread_mutex_unlock(&a->mu);
}

static int is_id(const char *s)
{
    return s && strlen(s) == 64 && bx_is_lower_hex(s, 64);
}

/* A listing must be an array of objects with a 64-hex Id. */
static int check_listing(const json_t *l, const char *path, bx_error *err)
{
    size_t i;
    json_t *c;

    if (!json_is_array(l))
        return bx_error_set(err, BX_EINVAL, path, "the container listing is not an array");
    json_array_foreach(l, i, c)
    {
        if (!is_id(json_string_value(json_object_get(c, "Id"))))
            return bx_error_set(err, BX_EINVAL, path,
                                "listing entry %zu has no container Id (64 lowercase hex)", i);
    }
    return 0;
}

/* The first of the listing's Names, without its "/" (borrowed), or NULL. */
static const char *listed_name(const json_t *c)
{
    const char *n = json_string_value(json_array_get(json_object_get(c, "Names"), 0));
    return n ? n + (*n == '/') : NULL;
}

/* "<engine>:<Id>" of a session, for a->session_index. */
static void session_key(size_t engine, const char *id, char key[96])
{
    snprintf(key, 96, "%zu:%s", engine, id);
}

static long find_session(const bx_audit *a, size_t engine, const char *id)
{
    char key[96];

    session_key(engine, id, key);
    json_t *v = json_object_get(a->session_index, key);
    return v ? (long)json_integer_value(v) : -1;
}

static int add_session(bx_audit *a, size_t engine, const json_t *c, int selected, int expected,
                       bx_error *err)
{
    const char *id = json_string_value(json_object_get(c, "Id"));
    const char *name = listed_name(c), *state = json_string_value(json_object_get(c, "State"));
    long at = find_session(a, engine, id);
    bxu_session *s;

    if (at >= 0) {
        a->sessions[at].selected |= selected;
        a->sessions[at].expected |= expected;
        return 0;
    }
    if (!(s = bxu_grow(a->sessions, &a->nsessions, sizeof *a->sessions)))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    a->sessions = s;
    s = &a->sessions[a->nsessions - 1];
    s->engine = engine;
    memcpy(s->id, id, 65);
    s->selected = selected;
    s->expected = expected;
    s->where = BXU_PRESENT;
    snprintf(s->state, sizeof s->state, "%s", state ? state : "");
    char key[96];
    session_key(engine, id, key);
    if (json_object_set_new(a->session_index, key, json_integer((json_int_t)(a->nsessions - 1))))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if (name && !(s->name = strdup(name)))
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    return 0;
}

/* /info, then the listings. Failures mark the engine; only out of memory is returned. */
/* An engine's /version and /info, each asked on a connection of its own while the audit
 * goes on: Docker answers both slowly (it asks its runtimes for their versions). */
typedef struct {
    bx_engine *eng; /* owned: made from the engine's handle */
    const char *path;
    json_t *reply;
    int rc, threaded;
    bx_error err;
    pthread_t th;
} meta;

static void *ask(void *arg)
{
    meta *m = arg;
    m->rc = bx_engine_get(m->eng, m->path, &m->reply, NULL, NULL, &m->err);
    return NULL;
}

static void meta_start(bx_audit *a, bxu_engine *e, meta *m, const char *path)
{
    memset(m, 0, sizeof *m);
    m->path = path;
    if (bx_engine_open_like(e->eng, e->flags, &m->eng, &m->err) != 0) {
        m->rc = m->err.code ? m->err.code : BX_EIO;
        return;
    }
    m->threaded = a->jobs > 1 && pthread_create(&m->th, NULL, ask, m) == 0;
    if (!m->threaded)
        ask(m);
}

static void meta_join(meta *m)
{
    if (m->threaded)
        pthread_join(m->th, NULL);
    m->threaded = 0;
}

static void meta_free(meta *m)
{
    meta_join(m);
    bx_engine_close(m->eng);
    json_decref(m->reply);
    memset(m, 0, sizeof *m);
}

/* The engine's answers to /version and /info: its ID, Podman or Docker; what they say is
 * given to every handle on it. Returns 0, or -1 when the engine is lost. */
static int meta_finish(bx_audit *a, size_t i, meta *v, meta *in)
{
    bxu_engine *e = &a->engines[i];
    size_t k;
    json_t *comp;

    meta_join(v);
    meta_join(in);
    if (v->rc != 0 || in->rc != 0) {
        bxu_engine_lost(a, i, v->rc != 0 ? &v->err : &in->err);
        return -1;
    }
    e->reachable = 1;
    if (json_is_string(json_object_get(in->reply, "ID")))
        snprintf(e->id, sizeof e->id, "%s", json_string_value(json_object_get(in->reply, "ID")));
    if (json_is_string(json_object_get(in->reply, "Name")))
        snprintf(e->name, sizeof e->name, "%s",
                 json_string_value(json_object_get(in->reply, "Name")));
    json_array_foreach(json_object_get(v->reply, "Components"), k, comp)
    {
        const char *n = json_string_value(json_object_get(comp, "Name"));
        if (n && strncmp(n, "Podman", 6) == 0)
            e->docker = 0;
    }
    bx_engine_adopt(e->eng, v->eng);
    bx_engine_adopt(e->eng, in->eng);
    for (size_t w = 0; w < e->nmore; w++)
        if (e->more[w])
            bx_engine_adopt(e->more[w], e->eng);
    return 0;
}

static int list_one(bxu_engine *e, const char *path, json_t **out, bx_error *err)
{
    int rc = bx_engine_get(e->eng, path, out, NULL, NULL, err);
    return rc != 0 ? rc : check_listing(*out, "/containers/json", err);
}

int bxu_host_daemon(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct ucred cr = {0};
    socklen_t len = sizeof cr;
    char comm[64] = "", proc[64];
    int fd = -1, cfd = -1, yes = 0;
    ssize_t n;

    if (strlen(path) >= sizeof sa.sun_path)
        return 0;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || cr.pid <= 0)
        goto out;
    snprintf(proc, sizeof proc, "/proc/%d/comm", (int)cr.pid);
    if ((cfd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        goto out;
    if ((n = read(cfd, comm, sizeof comm - 1)) <= 0)
        goto out;
    comm[n] = '\0';
    yes = strcmp(comm, "dockerd\n") == 0;
out:
    if (cfd >= 0)
        close(cfd);
    if (fd >= 0)
        close(fd);
    return yes;
}

/* The socket file of a unix:// endpoint, stat'ed: 0, or -1 when it is not one. */
static int socket_of(const bxu_engine *e, struct stat *st)
{
    if (strncmp(e->endpoint, "unix://", 7) != 0 || stat(e->endpoint + 7, st) != 0)
        return -1;
    return S_ISSOCK(st->st_mode) ? 0 : -1;
}

/* What an engine holds, to tell two engines apart: {Id: State.StartedAt} of every container
 * it lists (a container removed between the listing and its inspect is left out). 0, or the
 * error that loses the engine. */
static int holdings(bxu_engine *e, json_t **out, bx_error *err)
{
    json_t *all = NULL, *set = json_object(), *c, *ins = NULL;
    size_t k;
    int rc;

    *out = NULL;
    if (!set)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    if ((rc = list_one(e, "/containers/json?all=1", &all, err)) != 0)
        goto out;
    json_array_foreach(all, k, c)
    {
        const char *id = json_string_value(json_object_get(c, "Id")), *started;
        char path[128];
        if (!is_id(id))
            continue; /* check_listing refused it already */
        snprintf(path, sizeof path, "/containers/%s/json", id);
        rc = bx_engine_get(e->eng, path, &ins, NULL, NULL, err);
        if (rc == BX_ENOTFOUND) {
            rc = 0;
            continue;
        }
        if (rc != 0)
            goto out;
        started = json_string_value(json_object_get(json_object_get(ins, "State"), "StartedAt"));
        if (json_object_set_new(set, id, json_string(started ? started : "")) != 0) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        json_decref(ins);
        ins = NULL;
    }
    *out = set;
    set = NULL;
out:
    json_decref(ins);
    json_decref(all);
    json_decref(set);
    return rc;
}

/* Engines i and j answer with the same /info ID: are they one engine? The same local socket
 * proves it (BXU_SAME_SOCKET); else the same containers with the same starts, listed
 * alternately (j, i, j, ...) until two listings in a row agree, BXU_SAME_ROUNDS each at most,
 * so that a container started or removed meanwhile raises no false conflict
 * (BXU_SAME_LISTINGS). 0 when they differ; < 0 when one was lost (*lost its index). */
static int same_engine(bx_audit *a, size_t i, size_t j, size_t *lost, bx_error *err)
{
    struct stat si, sj;
    json_t *prev = NULL, *cur = NULL;
    int rc = 0;

    if (socket_of(&a->engines[i], &si) == 0 && socket_of(&a->engines[j], &sj) == 0 &&
        si.st_dev == sj.st_dev && si.st_ino == sj.st_ino)
        return BXU_SAME_SOCKET;
    for (int n = 0; n < 2 * BXU_SAME_ROUNDS; n++) {
        size_t w = n % 2 ? i : j;
        if (holdings(&a->engines[w], &cur, err) != 0) {
            *lost = w;
            rc = -1;
            goto out;
        }
        if (prev && json_equal(prev, cur)) {
            rc = BXU_SAME_LISTINGS;
            goto out;
        }
        json_decref(prev);
        prev = cur;
        cur = NULL;
    }
out:
    json_decref(prev);
    json_decref(cur);
    return rc;
}

/* Engine i answered with an ID an earlier engine has: alias it to the first it is proven to
 * be, else mark the conflict (both are audited). 1 aliased, 0 not, -1 an engine was lost
 * (the caller stops with i when it was i). */
static int settle_id(bx_audit *a, size_t i)
{
    bxu_engine *e = &a->engines[i];
    bx_error ee = {0};

    for (size_t j = 0; e->id[0] && j < i; j++) {
        bxu_engine *o = &a->engines[j];
        size_t lost = 0;
        int how;
        if (!o->reachable || o->lost || o->alias_of >= 0 || strcmp(o->id, e->id) != 0)
            continue;
        if ((how = same_engine(a, i, j, &lost, &ee)) < 0) {
            bxu_engine_lost(a, lost, &ee);
            if (lost == i)
                return -1;
            continue;
        }
        if (how > 0) {
            e->alias_of = (long)j;
            e->same_by = how;
            e->conflict = 0;
            return 1;
        }
        if (!e->conflict) {
            e->conflict = 1;
            e->conflict_of = j;
        }
    }
    return 0;
}

/* /_ping, /version and /info beside the listing; the sessions labelled. pending: when
 * not NULL, /version and /info may still be answered on return (the caller finishes them,
 * meta_finish); with several engines they are waited for here (an engine reached through
 * two endpoints is one engine: its ID decides before its sessions are listed). */
static int list_engine(bx_audit *a, size_t i, meta pending[2], bx_error *err)
{
    bxu_engine *e = &a->engines[i];
    meta local[2] = {0}, *m = pending ? pending : local; /* the threads write into m */
    bx_error ee;
    int rc = 0;
    size_t k;
    json_t *comp;

    if (bx_engine_ping(e->eng, &ee) != 0) {
        bxu_engine_lost(a, i, &ee);
        goto out;
    }
    if (e->local) /* does it share this host's containerd? (orphans, tasks.c) */
        e->host_daemon = bxu_host_daemon(e->endpoint + 7);
    meta_start(a, e, &m[0], "/version");
    meta_start(a, e, &m[1], "/info");
    if (!pending) {
        if (meta_finish(a, i, &m[0], &m[1]) != 0)
            goto out;
        /* the same ID is one engine only when they prove it (a host cloned from another's
         * image shares its engine ID) */
        if (settle_id(a, i) != 0)
            goto out;
    } else {
        e->reachable = 1; /* it answered /_ping; lost if /version or /info fails */
    }
    if (list_one(e, "/containers/json?all=1", &e->all, &ee) != 0) {
        bxu_engine_lost(a, i, &ee);
        goto out;
    }
    /* the sessions: the listing's containers that carry every --label (exact key and
     * value, as the engine's label filter matches; one listing serves both) */
    json_array_foreach(a->o.nlabels ? e->all : NULL, k, comp)
    {
        if (bxu_carries_labels(a, json_object_get(comp, "Labels")) &&
            (rc = add_session(a, i, comp, 1, 0, err)) != 0)
            goto out;
    }
out:
    meta_free(&local[0]);
    meta_free(&local[1]);
    return rc;
}

/* Sessions named by --expect that are on an engine (exact Id, else exact name). */
static int find_expected(bx_audit *a, bx_error *err)
{
    const bx_expect *x = a->o.expect;
    json_t *by = NULL, *c, *n;
    size_t k, m;
    int rc = 0;

    for (size_t i = 0; x && x->n && i < a->nengines; i++) {
        bxu_engine *e = &a->engines[i];
        if (!e->reachable || e->alias_of >= 0 || !e->all)
            continue;
        /* this engine's containers by "id:<Id>" and "name:<name>" (exact) */
        if (!(by = json_object())) {
            rc = bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
            goto out;
        }
        json_array_foreach(e->all, k, c)
        {
            char key[320];
            snprintf(key, sizeof key, "id:%s", json_string_value(json_object_get(c, "Id")));
            json_object_set(by, key, c);
            json_array_foreach(json_object_get(c, "Names"), m, n)
            {
                const char *s = json_string_value(n);
                if (s && *s == '/' && strlen(s) < 300) {
                    snprintf(key, sizeof key, "name:%s", s + 1);
                    json_object_set(by, key, c);
                }
            }
        }
        for (size_t q = 0; q < x->n; q++) {
            const bx_expect_entry *en = &x->v[q];
            char key[320];
            if (en->id[0])
                snprintf(key, sizeof key, "id:%s", en->id);
            else
                snprintf(key, sizeof key, "name:%s", en->name);
            if ((c = json_object_get(by, key)) && (rc = add_session(a, i, c, 0, 1, err)) != 0)
                goto out;
        }
        json_decref(by);
        by = NULL;
    }
out:
    json_decref(by);
    return rc;
}

int bxu_carries_labels(const bx_audit *a, const json_t *labels)
{
    for (size_t i = 0; i < a->o.nlabels; i++)
        if (!bx_label_matches(labels, a->o.labels[i]))
            return 0;
    return 1;
}
/* Read the inspect of a present session into s. A reply that is not a container inspect
 * of this Id is the engine's fault (BX_EINVAL). */
static int read_inspect(bx_audit *a, bxu_session *s, const json_t *c, bx_error *err)
{
    const char *id = json_string_value(json_object_get(c, "Id"));
    const char *name = json_string_value(json_object_get(c, "Name"));
    const json_t *st = json_object_get(c, "State");
    const char *status = json_string_value(json_object_get(st, "Status"));
    const char *started = json_string_value(json_object_get(st, "StartedAt"));
    const json_t *pid = json_object_get(st, "Pid");
    int64_t t = 0;
    int32_t ns = 0;
    int frac;
    bx_error e2;

    if (!id || strcmp(id, s->id) != 0 || !name || !status || !started)
        return bx_error_set(err, BX_EINVAL, "/containers/{id}/json",
                            "the inspect of %.12s lacks Id, Name or State", s->id);
    name += *name == '/';
    if (!s->name || strcmp(s->name, name) != 0) {
        char *n = strdup(name);
        if (!n)
            return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
        free(s->name);
        s->name = n;
    }
    snprintf(s->state, sizeof s->state, "%s", status);
    /* a container never started carries the zero time 0001-01-01T00:00:00Z */
    if (bx_time_parse_ns(started, &t, &ns, &frac, &e2) == 0 && t > 0) {
        s->has_started = 1;
        s->started_at = t;
        s->started_ns = ns;
    }
    /* the session's process while it runs (0 once it exited): a certificate's session.pid
     * must be it */
    s->pid = json_is_integer(pid) && json_integer_value(pid) > 0 ? json_integer_value(pid) : 0;
    if (s->selected &&
        !bxu_carries_labels(a, json_object_get(json_object_get(c, "Config"), "Labels"))) {
        s->selected = 0;
        s->dropped = !s->expected;
    }
    return 0;
}

typedef struct {
    size_t done;
} inspect_job;

/* One session's inspect (a worker's). */
static void inspect_one(bx_audit *a, unsigned worker, size_t i, void *ud)
{
    inspect_job *job = ud;
    bxu_session *s = &a->sessions[i];
    char path[128], *raw = NULL;
    size_t len = 0;
    json_t *c = NULL;
    bx_error ee;
    int rc;

    bxu_progress(a, "sessions", __atomic_fetch_add(&job->done, 1, __ATOMIC_RELAXED),
                 a->nsessions);
    if (bxu_engine_is_lost(a, s->engine)) {
        s->where = BXU_LOST;
        return;
    }
    snprintf(path, sizeof path, "/containers/%s/json", s->id);
    rc = bx_engine_get(bxu_engine_for(a, s->engine, worker), path, &c, a->o.collect ? &raw : NULL,
                       &len, &ee);
    if (rc == 0)
        rc = read_inspect(a, s, c, &ee);
    if (rc == 0 && a->o.collect && strcmp(s->state, "running") == 0) {
        /* the first observation of its collection */
        s->inspect = c;
        s->inspect_raw = raw;
        s->inspect_raw_len = len;
        c = NULL;
        raw = NULL;
    }
    json_decref(c);
    free(raw);
    if (rc == BX_ENOTFOUND) {
        s->where = BXU_GONE; /* removed since the listing */
        s->state[0] = '\0';
    } else if (rc != 0) {
        /* any other failure, a reply that is not this inspect included, loses the
         * engine: its remaining sessions are not asked about */
        bxu_engine_lost(a, s->engine, &ee);
        s->where = BXU_LOST;
    }
}

static void inspect_all(bx_audit *a)
{
    inspect_job job = {0};

    bxu_parallel(a, a->nsessions, inspect_one, &job);
    bxu_progress(a, "sessions", a->nsessions, a->nsessions);
}

int bxu_scan(bx_audit *a, bx_error *err)
{
    meta pending[2] = {0};
    int rc, one = a->nengines == 1;

    for (size_t i = 0; i < a->nengines; i++) {
        if (a->o.progress)
            a->o.progress(a->o.progress_ud, "engines", i, a->nengines);
        if ((rc = list_engine(a, i, one ? pending : NULL, err)) != 0)
            goto out;
    }
    if ((rc = find_expected(a, err)) != 0)
        goto out;
    inspect_all(a);
    /* one engine: its /version and /info were asked while it was listed and inspected */
    if (one && pending[0].path && !bxu_engine_is_lost(a, 0))
        meta_finish(a, 0, &pending[0], &pending[1]);
out:
    meta_free(&pending[0]);
    meta_free(&pending[1]);
    return rc;
}
