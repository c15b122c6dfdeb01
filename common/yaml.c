/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* One open mapping or sequence. node is borrowed: it already belongs to its parent
 * (or is doc->root), so freeing the root on error frees everything. */
typedef struct {
    json_t *node;
    char *ptr; /* owned JSON pointer of node */
    char *key; /* mapping: the key waiting for its value, owned */
    yaml_mark_t keymark;
    size_t index; /* sequence: index of the next item */
} frame;

typedef struct {
    bx_yaml_doc *doc;
    frame *stack;
    size_t depth, cap, max_depth, max_events;
    int ndocs;
    bx_error *err;
} builder;

/* Messages quote the input (keys, tags): keep them one line. */
static void one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

static int fail_at(builder *b, yaml_mark_t m, const char *fmt, ...) BX_FMT(3, 4);
static int oom_at(builder *b, yaml_mark_t m);

static int fail_at(builder *b, yaml_mark_t m, const char *fmt, ...)
{
    char where[128], msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    one_line(msg);
    snprintf(where, sizeof where, "%s:%zu:%zu", b->doc->file, m.line + 1, m.column + 1);
    return bx_error_set(b->err, BX_ECONFIG, where, "%s", msg);
}

static int oom_at(builder *b, yaml_mark_t m)
{
    char where[128];
    snprintf(where, sizeof where, "%s:%zu:%zu", b->doc->file, m.line + 1, m.column + 1);
    return bx_error_set(b->err, BX_ENOMEM, where, "out of memory");
}

/* Append s, escaped per RFC 6901, to "parent/". Caller owns the result. */
static char *child_ptr(const char *parent, const char *s)
{
    size_t plen = strlen(parent), n = 0;
    for (const char *c = s; *c; c++)
        n += (*c == '~' || *c == '/') ? 2 : 1;
    char *out = malloc(plen + n + 2), *o;
    if (!out)
        return NULL;
    memcpy(out, parent, plen);
    o = out + plen;
    *o++ = '/';
    for (const char *c = s; *c; c++) {
        if (*c == '~' || *c == '/') {
            *o++ = '~';
            *o++ = *c == '~' ? '0' : '1';
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
    return out;
}

static char *index_ptr(const char *parent, size_t i)
{
    char num[32];
    snprintf(num, sizeof num, "%zu", i);
    return child_ptr(parent, num);
}

static int add_mark(builder *b, const char *ptr, yaml_mark_t m, int quoted, const frame *parent)
{
    json_t *mark;
    if (parent && json_is_object(parent->node))
        mark =
            json_pack("[I,I,i,I,I]", (json_int_t)m.line + 1, (json_int_t)m.column + 1, quoted,
                      (json_int_t)parent->keymark.line + 1, (json_int_t)parent->keymark.column + 1);
    else
        mark = json_pack("[I,I,i]", (json_int_t)m.line + 1, (json_int_t)m.column + 1, quoted);
    if (!mark || json_object_set_new(b->doc->marks, ptr, mark) != 0)
        return oom_at(b, m);
    return 0;
}

/* Add v (stolen) to the open container (or make it the root) and return its pointer
 * (owned), NULL when out of memory. */
static char *place(builder *b, frame *top, json_t *v)
{
    char *ptr;
    if (!top) {
        json_decref(b->doc->root);
        b->doc->root = v;
        return strdup("");
    }
    if (json_is_array(top->node)) {
        ptr = index_ptr(top->ptr, top->index++);
        if (!ptr || json_array_append_new(top->node, v) != 0) {
            json_decref(ptr ? NULL : v); /* the _new calls free v themselves */
            free(ptr);
            return NULL;
        }
        return ptr;
    }
    ptr = child_ptr(top->ptr, top->key);
    if (!ptr || json_object_set_new(top->node, top->key, v) != 0) {
        json_decref(ptr ? NULL : v);
        free(ptr);
        return NULL;
    }
    return ptr;
}

/* Attach v (stolen) at the current position; *ptr_out (owned) gets its pointer. */
static int attach(builder *b, json_t *v, yaml_mark_t m, int quoted, char **ptr_out)
{
    frame *top = b->depth ? &b->stack[b->depth - 1] : NULL;
    char *ptr = place(b, top, v);
    int rc;

    if (!ptr)
        return oom_at(b, m);
    rc = add_mark(b, ptr, m, quoted, top);
    if (top && json_is_object(top->node)) {
        free(top->key);
        top->key = NULL;
    }
    if (rc == 0 && ptr_out) {
        *ptr_out = ptr;
        ptr = NULL;
    }
    free(ptr);
    return rc;
}

static int check_props(builder *b, yaml_mark_t m, const yaml_char_t *anchor, const yaml_char_t *tag)
{
    if (anchor)
        return fail_at(b, m, "anchor '&%.64s' not allowed", (const char *)anchor);
    if (tag)
        return fail_at(b, m, "tag '%.64s' not allowed", (const char *)tag);
    return 0;
}

/* A scalar in key position of a mapping: remember it, refusing duplicates. */
static int take_key(builder *b, frame *top, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    if (json_object_get(top->node, s)) {
        char *p = child_ptr(top->ptr, s);
        json_t *first = p ? json_object_get(b->doc->marks, p) : NULL;
        free(p);
        return fail_at(b, ev->start_mark, "duplicate key '%.64s' (first at line %lld)", s,
                       (long long)json_integer_value(json_array_get(first, 3)));
    }
    top->key = strdup(s);
    if (!top->key)
        return oom_at(b, ev->start_mark);
    top->keymark = ev->start_mark;
    return 0;
}

static int on_scalar(builder *b, const yaml_event_t *ev)
{
    frame *top = b->depth ? &b->stack[b->depth - 1] : NULL;
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    json_t *v;

    int rc = check_props(b, ev->start_mark, ev->data.scalar.anchor, ev->data.scalar.tag);
    if (rc)
        return rc;
    if (memchr(s, '\0', len))
        return fail_at(b, ev->start_mark, "NUL character in scalar");
    if (top && json_is_object(top->node) && !top->key)
        return take_key(b, top, ev);
    if (plain && (len == 0 || strcmp(s, "null") == 0 || strcmp(s, "~") == 0))
        v = json_null();
    else
        v = json_stringn(s, len);
    if (!v)
        return fail_at(b, ev->start_mark, "invalid UTF-8 in scalar");
    return attach(b, v, ev->start_mark, !plain, NULL);
}

static int on_start(builder *b, const yaml_event_t *ev, int is_map)
{
    frame *top = b->depth ? &b->stack[b->depth - 1] : NULL;
    const yaml_char_t *anchor =
        is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    const yaml_char_t *tag = is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
    char *ptr = NULL;

    int rc = check_props(b, ev->start_mark, anchor, tag);
    if (rc)
        return rc;
    if (top && json_is_object(top->node) && !top->key)
        return fail_at(b, ev->start_mark, "mapping key must be a scalar");
    if (b->depth >= b->max_depth)
        return fail_at(b, ev->start_mark, "nesting deeper than %zu", b->max_depth);
    if (b->depth == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        frame *s = realloc(b->stack, cap * sizeof *s);
        if (!s)
            return oom_at(b, ev->start_mark);
        b->stack = s;
        b->cap = cap;
    }
    json_t *node = is_map ? json_object() : json_array();
    if (!node)
        return oom_at(b, ev->start_mark);
    rc = attach(b, node, ev->start_mark, 0, &ptr);
    if (rc)
        return rc;
    b->stack[b->depth++] = (frame){.node = node, .ptr = ptr};
    return 0;
}

static void pop(builder *b)
{
    frame *top = &b->stack[--b->depth];
    free(top->ptr);
    free(top->key);
}

static int on_event(builder *b, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++b->ndocs > 1)
            return fail_at(b, ev->start_mark, "more than one document");
        if (ev->data.document_start.tag_directives.start !=
            ev->data.document_start.tag_directives.end)
            return fail_at(b, ev->start_mark, "%%TAG directives not allowed");
        return 0;
    case YAML_ALIAS_EVENT:
        return fail_at(b, ev->start_mark, "alias '*%.64s' not allowed",
                       (const char *)ev->data.alias.anchor);
    case YAML_SCALAR_EVENT:
        return on_scalar(b, ev);
    case YAML_SEQUENCE_START_EVENT:
        return on_start(b, ev, 0);
    case YAML_MAPPING_START_EVENT:
        return on_start(b, ev, 1);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (b->depth)
            pop(b);
        return 0;
    case YAML_STREAM_END_EVENT:
        if (b->ndocs == 0)
            return fail_at(b, ev->start_mark, "empty document");
        return 0;
    default:
        return 0;
    }
}

static int parse_error(builder *b, const yaml_parser_t *parser)
{
    const char *problem = parser->problem ? parser->problem : "invalid YAML";
    if (parser->context)
        return fail_at(b, parser->problem_mark, "%s %s", problem, parser->context);
    return fail_at(b, parser->problem_mark, "%s", problem);
}

static int find_nul(builder *b, const char *buf, size_t len)
{
    const char *nul = memchr(buf, '\0', len);
    if (!nul)
        return 0;
    yaml_mark_t m = {0, 0, 0};
    for (const char *c = buf; c < nul; c++) {
        if (*c == '\n') {
            m.line++;
            m.column = 0;
        } else {
            m.column++;
        }
    }
    return fail_at(b, m, "NUL byte in input");
}

static int run(builder *b, const char *buf, size_t len)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int rc = 0, done = 0;

    if (!yaml_parser_initialize(&parser))
        return bx_error_set(b->err, BX_ENOMEM, b->doc->file, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    while (!done && rc == 0) {
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = parse_error(b, &parser);
            break;
        }
        if (++b->doc->events > b->max_events)
            rc = fail_at(b, ev.start_mark, "more than %zu YAML events", b->max_events);
        else
            rc = on_event(b, &ev);
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
}

int bx_yaml_load(const char *buf, size_t len, const char *file, size_t max_depth, size_t max_events,
                 bx_yaml_doc *doc, bx_error *err)
{
    builder b = {.doc = doc, .max_depth = max_depth, .max_events = max_events, .err = err};
    int rc;

    if (!buf) {
        buf = "";
        len = 0;
    }
    memset(doc, 0, sizeof *doc);
    snprintf(doc->file, sizeof doc->file, "%s", file ? file : "<input>");
    doc->marks = json_object();
    if (!doc->marks) {
        rc = bx_error_set(err, BX_ENOMEM, doc->file, "out of memory");
        goto out;
    }
    rc = find_nul(&b, buf, len);
    if (rc == 0)
        rc = run(&b, buf, len);
out:
    while (b.depth)
        pop(&b);
    free(b.stack);
    if (rc) {
        size_t events = doc->events;
        bx_yaml_free(doc);
        doc->events = events;
    }
    return rc;
}

void bx_yaml_free(bx_yaml_doc *doc)
{
    if (!doc)
        return;
    json_decref(doc->root);
    json_decref(doc->marks);
    doc->root = doc->marks = NULL;
    doc->events = 0;
}

/* The mark of pointer, or of its nearest parent that has one. */
static const json_t *find_mark(const bx_yaml_doc *doc, const char *pointer)
{
    char buf[512];
    if (!doc || !doc->marks || !pointer)
        return NULL;
    snprintf(buf, sizeof buf, "%s", pointer);
    for (;;) {
        const json_t *m = json_object_get(doc->marks, buf);
        char *slash = strrchr(buf, '/');
        if (m)
            return m;
        if (!slash)
            return NULL;
        *slash = '\0';
    }
}

static int verror(const bx_yaml_doc *doc, const char *pointer, int key, bx_error *err, int code,
                  const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

static int verror(const bx_yaml_doc *doc, const char *pointer, int key, bx_error *err, int code,
                  const char *fmt, va_list ap)
{
    char where[128], msg[256];
    const json_t *m = find_mark(doc, pointer);
    size_t i = key && json_array_size(m) == 5 ? 3 : 0;

    vsnprintf(msg, sizeof msg, fmt, ap);
    one_line(msg);
    if (m)
        snprintf(where, sizeof where, "%s:%lld:%lld", doc->file,
                 (long long)json_integer_value(json_array_get(m, i)),
                 (long long)json_integer_value(json_array_get(m, i + 1)));
    else
        snprintf(where, sizeof where, "%s", doc ? doc->file : "");
    return bx_error_set(err, code, where, "%s", msg);
}

int bx_yaml_error(const bx_yaml_doc *doc, const char *pointer, bx_error *err, int code,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(doc, pointer, 0, err, code, fmt, ap);
    va_end(ap);
    return code;
}

int bx_yaml_key_error(const bx_yaml_doc *doc, const char *pointer, bx_error *err, int code,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(doc, pointer, 1, err, code, fmt, ap);
    va_end(ap);
    return code;
}

int bx_yaml_quoted(const bx_yaml_doc *doc, const char *pointer)
{
    const json_t *m = doc && doc->marks && pointer ? json_object_get(doc->marks, pointer) : NULL;
    return m ? (int)json_integer_value(json_array_get(m, 2)) : 0;
}
