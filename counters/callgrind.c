/* counters/callgrind.c — folded stacks from callgrind's caller contexts. */
#include "counters/callgrind.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/strindex.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pg_callgrind_wrap_more(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir,
                           const char *const *more)
{
    char outfile[PATH_MAX], logfile[PATH_MAX], depth[64], recs[64];
    snprintf(outfile, sizeof outfile, "--callgrind-out-file=%s/callgrind.out.%%p", outdir);
    snprintf(logfile, sizeof logfile, "--log-file=%s/valgrind.log.%%p", outdir);
    snprintf(depth, sizeof depth, "--separate-callers=%d", PG_CALLGRIND_DEPTH);
    snprintf(recs, sizeof recs, "--separate-recs=%d", PG_CALLGRIND_RECS);
    const char *opts[16] = {"--tool=callgrind", depth, recs, "--trace-children=yes", "-q",
                            "--compress-pos=no", outfile, logfile};
    size_t n = 8;
    for (size_t i = 0; more && more[i] && n + 1 < sizeof opts / sizeof opts[0]; i++)
        opts[n++] = more[i];
    opts[n] = NULL;
    return pg_valgrind_wrap_tool(vg, out_argv, argv, opts);
}

int pg_callgrind_wrap(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir)
{
    return pg_callgrind_wrap_more(vg, out_argv, argv, outdir, NULL);
}

/* Names by callgrind's compression id "(123)". A name an id had before it
 * was named again is kept until names_free: a caller may still hold it. */
typedef struct names {
    char **v;
    size_t n;
    char **old;
    size_t nold, capold;
} names;

static int names_set(names *t, size_t id, const char *s, size_t len)
{
    if (id >= t->n) {
        size_t n = t->n ? t->n : 256;
        while (n <= id)
            n *= 2;
        char **v = realloc(t->v, n * sizeof *v);
        if (!v)
            return PG_ENOMEM;
        memset(v + t->n, 0, (n - t->n) * sizeof *v);
        t->v = v;
        t->n = n;
    }
    if (t->v[id]) {
        if (pg_array_grow(&t->old, &t->capold, t->nold, sizeof *t->old, 16) < 0)
            return PG_ENOMEM;
        t->old[t->nold++] = t->v[id];
    }
    t->v[id] = strndup(s, len);
    return t->v[id] ? 0 : PG_ENOMEM;
}

static void names_free(names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    for (size_t i = 0; i < t->nold; i++)
        free(t->old[i]);
    free(t->old);
}

/* The decimal number at the start of p[0..len) into *out (saturating);
 * returns how many digits it had. Never reads past len: the text given to
 * pg_callgrind_parse need not end in a NUL. */
static size_t parse_num(unsigned long long *out, const char *p, size_t len)
{
    unsigned long long v = 0;
    size_t i = 0;
    for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        v = v > (ULLONG_MAX - d) / 10 ? ULLONG_MAX : v * 10 + d;
    }
    *out = v;
    return i;
}

/* "fn=(12) name", "fn=(12)" or "fn=name": the context's full name, defining
 * the id when the name is given. NULL on a reference to an unknown id. */
static const char *resolve(names *t, const char *p, size_t len, char *buf, size_t buflen)
{
    if (len && *p == '(') {
        unsigned long long id;
        size_t nd = parse_num(&id, p + 1, len - 1);
        if (nd == 0 || 1 + nd >= len || p[1 + nd] != ')' || id > 10000000)
            return NULL;
        const char *name = p + 2 + nd;
        size_t nlen = len - 2 - nd;
        while (nlen && *name == ' ')
            name++, nlen--;
        if (nlen) {
            if (names_set(t, id, name, nlen) < 0)
                return NULL;
        }
        return id < t->n ? t->v[id] : NULL;
    }
    snprintf(buf, buflen, "%.*s", (int)len, p);
    return buf;
}

/* Turns "hash'parse'2'main'(below main)'..." into frames root first, and adds
 * them with `cost`. Frames below main are dropped: they are the same libc
 * start-up in every program. */
static int add_context(pg_folded *f, const char *ctx, unsigned long long cost)
{
    char *copy = strdup(ctx);
    if (!copy)
        return PG_ENOMEM;
    const char *tok[PG_CALLGRIND_DEPTH * 2 + 8];
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(copy, "'", &save); t && n < sizeof tok / sizeof *tok;
         t = strtok_r(NULL, "'", &save))
        tok[n++] = t;
    const char *frames[PG_CALLGRIND_DEPTH * 4 + 8];
    size_t nf = 0, callers = 0;
    int saw_main = 0;
    /* tok[0] is the function, tok[1..] its callers, innermost first; a token of
     * digits is the recursion level of the name before it. Build leaf-first. */
    for (size_t i = 0; i < n && !saw_main; i++) {
        const char *name = tok[i];
        char *at = strstr(name, "@@");   /* symbol versions: noise in a profile */
        if (at)
            *at = '\0';
        /* Code without a symbol (PLT stubs, ld.so's entry) is named by its
         * address, which moves with every change to the binary: one name for
         * all of it keeps two commits' stacks comparable. */
        if (name[0] == '0' && name[1] == 'x' && name[2] && strspn(name + 2, "0123456789abcdefABCDEF") == strlen(name + 2))
            name = "[unknown]";
        int level = 1;
        if (i + 1 < n && strspn(tok[i + 1], "0123456789") == strlen(tok[i + 1])) {
            level = atoi(tok[i + 1]);
            i++;
        }
        for (int k = 0; k < level && nf < sizeof frames / sizeof *frames - 1; k++)
            frames[nf++] = name;
        if (i > 0)
            callers++;
        saw_main = !strcmp(name, "main");
    }
    if (!saw_main && callers >= PG_CALLGRIND_DEPTH)
        frames[nf++] = "[deeper]";
    /* Reverse to root first. */
    for (size_t i = 0; i < nf / 2; i++) {
        const char *x = frames[i];
        frames[i] = frames[nf - 1 - i];
        frames[nf - 1 - i] = x;
    }
    int rc = pg_folded_add_frames(f, frames, nf, cost);
    free(copy);
    return rc;
}

long long pg_callgrind_parse(pg_folded *f, const char *text, size_t len, const char *path)
{
    names fn_names = {0};
    /* Self cost per context, accumulated over the file: one context's cost
     * lines may come in several blocks. */
    typedef struct { char *ctx; unsigned long long cost; } self;
    self *acc = NULL;
    size_t nacc = 0, capacc = 0;
    pg_strindex by_ctx = {0};    /* context -> index into acc (keys: acc[i].ctx) */
    size_t cur = 0;
    int have_cur = 0;
    int skip_next_cost = 0;      /* the line after calls= is an inclusive call cost */
    int ir_col = -1;
    unsigned long long total = 0;   /* <= LLONG_MAX, so the return value holds it */
    int rc = 0;
    char buf[4096];
    const char *end = text + len;
    unsigned lineno = 0;
    for (const char *line = text; line < end && rc == 0;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t ll = nl ? (size_t)(nl - line) : (size_t)(end - line);
        lineno++;
        if (ll > 7 && !strncmp(line, "events:", 7)) {
            /* Which column is Ir (the first, unless told otherwise). */
            int col = 0;
            ir_col = -1;
            for (const char *p = line + 7; p < line + ll;) {
                while (p < line + ll && *p == ' ')
                    p++;
                const char *q = p;
                while (q < line + ll && *q != ' ')
                    q++;
                if (q > p && (size_t)(q - p) == 2 && !strncmp(p, "Ir", 2))
                    ir_col = col;
                if (q > p)
                    col++;
                p = q;
            }
        } else if (ll > 3 && !strncmp(line, "fn=", 3)) {
            const char *ctx = resolve(&fn_names, line + 3, ll - 3, buf, sizeof buf);
            if (!ctx) {
                rc = pg_error_set(PG_EINVAL, "%s:%u: a function id used before it was named", path, lineno);
                break;
            }
            if (!pg_strindex_get(&by_ctx, ctx, &cur)) {
                char *copy = strdup(ctx);
                if (!copy || pg_array_grow(&acc, &capacc, nacc, sizeof *acc, 256) < 0 ||
                    pg_strindex_put(&by_ctx, copy, nacc) < 0) {
                    free(copy);
                    rc = pg_error_set(PG_ENOMEM, "out of memory");
                    break;
                }
                acc[nacc] = (self){copy, 0};
                cur = nacc++;
            }
            have_cur = 1;
            skip_next_cost = 0;
        } else if (ll > 4 && !strncmp(line, "cfn=", 4)) {
            /* Only to learn the name of the id: callees become fn= later. */
            if (!resolve(&fn_names, line + 4, ll - 4, buf, sizeof buf)) {
                rc = pg_error_set(PG_EINVAL, "%s:%u: a function id used before it was named", path, lineno);
                break;
            }
        } else if (ll > 6 && !strncmp(line, "calls=", 6)) {
            skip_next_cost = 1;
        } else if (ll && (line[0] == '+' || line[0] == '-' || line[0] == '*' || (line[0] >= '0' && line[0] <= '9'))) {
            if (skip_next_cost) {
                skip_next_cost = 0;
            } else if (have_cur && ir_col >= 0) {
                /* position, then the costs in "events:" order */
                const char *p = line, *e = line + ll;
                while (p < e && *p != ' ')
                    p++;
                /* A cost left out at the end of the line is 0 (the format's rule). */
                unsigned long long v = 0;
                for (int col = 0; p < e && col <= ir_col; col++) {
                    while (p < e && *p == ' ')
                        p++;
                    unsigned long long x;
                    p += parse_num(&x, p, (size_t)(e - p));
                    if (col == ir_col)
                        v = x;
                    while (p < e && *p != ' ')
                        p++;
                }
                if (v > (unsigned long long)LLONG_MAX - total) {
                    rc = pg_error_set(PG_EINVAL, "%s:%u: instruction counts add up to more than 2^63", path, lineno);
                    break;
                }
                acc[cur].cost += v;
                total += v;
            }
        }
        line = nl ? nl + 1 : end;
    }
    if (rc == 0 && ir_col < 0)
        rc = pg_error_set(PG_EINVAL, "%s: no 'events:' line with Ir (not a callgrind output file?)", path);
    for (size_t i = 0; i < nacc; i++) {
        if (rc == 0 && acc[i].cost)
            rc = add_context(f, acc[i].ctx, acc[i].cost);
        free(acc[i].ctx);
    }
    free(acc);
    pg_strindex_free(&by_ctx);
    names_free(&fn_names);
    return rc < 0 ? rc : (long long)total;
}

int pg_callgrind_collect(pg_folded *f, const char *outdir)
{
    DIR *d = opendir(outdir);
    if (!d)
        return pg_error_errno(PG_EIO, "cannot read %s", outdir);
    int files = 0, rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", outdir, e->d_name);
        if (!strncmp(e->d_name, "callgrind.out.", 14)) {
            char *text = NULL;
            size_t len;
            if (rc == 0 && (rc = pg_file_read(&text, &len, path)) == 0) {
                long long got = pg_callgrind_parse(f, text, len, path);
                rc = got < 0 ? (int)got : 0;
                files++;
            }
            free(text);
            unlink(path);
        } else if (!strncmp(e->d_name, "valgrind.log.", 13)) {
            unlink(path);
        }
    }
    closedir(d);
    if (rc == 0 && files == 0)
        rc = pg_error_set(PG_EIO, "callgrind wrote no profile (the program could not start under valgrind)");
    return rc;
}

int pg_callgrind_wrap_count(const pg_valgrind *vg, char ***out_argv, char *const *argv, const char *outdir,
                            int regions)
{
    char outfile[PATH_MAX], logfile[PATH_MAX];
    snprintf(outfile, sizeof outfile, "--callgrind-out-file=%s/callgrind.out.%%p", outdir);
    snprintf(logfile, sizeof logfile, "--log-file=%s/valgrind.log.%%p", outdir);
    const char *const opts[] = {
        "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
        "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64",
        "--trace-children=yes", "-q",
        regions ? "--instr-atstart=no" : "--instr-atstart=yes", outfile, logfile, NULL,
    };
    return pg_valgrind_wrap_tool(vg, out_argv, argv, opts);
}

/* Does the callee name `name` (len bytes, maybe "fn'2" for a recursion level,
 * maybe "(id) fn" compressed) denote `fn`? */
static int callee_is(const char *name, size_t len, const char *fn)
{
    size_t fl = strlen(fn);
    return len >= fl && !memcmp(name, fn, fl) && (len == fl || name[fl] == '\'');
}

int pg_callgrind_calls(unsigned long long *calls, const char *const *fns, size_t n, const char *text, size_t len,
                       const char *path)
{
    names ids = {0};
    char buf[4096];
    const char *callee = NULL;
    size_t callee_len = 0;
    const char *end = text + len;
    unsigned lineno = 0;
    int rc = 0;
    for (const char *line = text; line < end && rc == 0;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t ll = nl ? (size_t)(nl - line) : (size_t)(end - line);
        lineno++;
        if ((ll > 3 && !strncmp(line, "fn=", 3)) || (ll > 4 && !strncmp(line, "cfn=", 4))) {
            size_t k = line[0] == 'c' ? 4 : 3;
            const char *nm = resolve(&ids, line + k, ll - k, buf, sizeof buf);
            if (!nm)
                rc = pg_error_set(PG_EINVAL, "%s:%u: a function id used before it was named", path, lineno);
            else if (k == 4) {
                callee = nm == buf ? line + k : nm;   /* buf is reused: point into the text */
                callee_len = nm == buf ? ll - k : strlen(nm);
            }
        } else if (ll > 6 && !strncmp(line, "calls=", 6)) {
            unsigned long long c = 0;
            if (!callee || parse_num(&c, line + 6, ll - 6) == 0)
                rc = pg_error_set(PG_EINVAL, "%s:%u: 'calls=' without a callee before it", path, lineno);
            for (size_t i = 0; i < n && rc == 0; i++)
                if (callee_is(callee, callee_len, fns[i]))
                    calls[i] += c;
        }
        line = nl ? nl + 1 : end;
    }
    names_free(&ids);
    return rc;
}

typedef struct counts_ctx {
    unsigned long long *totals;
    unsigned *present;
    unsigned long long *calls;
    const char *const *fns;
    size_t n;
} counts_ctx;

static int parse_counts(void *ctx, const char *text, size_t len, const char *path)
{
    counts_ctx *c = ctx;
    int k = pg_valgrind_parse_key(c->totals, c->present, text, path, "totals:");
    return k < 0 ? k : pg_callgrind_calls(c->calls, c->fns, c->n, text, len, path);
}

int pg_callgrind_collect_counts(unsigned long long totals[13], unsigned *present, unsigned long long *calls,
                                const char *const *fns, size_t n, const char *outdir)
{
    counts_ctx c = {totals, present, calls, fns, n};
    int rc = pg_valgrind_outputs(outdir, "callgrind.out.", parse_counts, &c);
    return rc < 0 ? rc : 0;
}
