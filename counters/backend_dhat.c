/* counters/backend_dhat.c — the dhat backend's table (backend_ops.h): the
 * program runs under valgrind's DHAT, whose JSON output (--dhat-out-file,
 * valgrind's docs/dh-manual and dhat/dh_main.c) gives exact heap metrics
 * and, per allocation point, the stack that allocated:
 *
 *   heap-allocations  blocks allocated   (the sum of every point's "tbk")
 *   heap-bytes        bytes allocated    (the sum of "tb")
 *   heap-peak         live bytes at the global peak ("gb": each point's
 *                     share at the moment the heap was largest)
 *
 * DHAT counts every malloc, calloc, realloc, memalign and operator new the
 * program makes, by replacing them: the same program with the same input
 * gives the same figures on every run and every machine (valgrind's
 * version aside). Children are traced and summed: a driver's and its
 * children's allocations add up, and so do their peaks (each process's own;
 * their moments need not meet, so the sum is an upper bound of the peak
 * of them all together).
 *
 * It has no regions: a marked program and a Google Benchmark suite's timed
 * region cannot be told from the rest of the program, so a suite's heap
 * metrics are refused rather than given per program run, unlike its
 * instructions, which are per iteration (docs/metrics.md). */
#include "counters/backend_ops.h"
#include "counters/outdir.h"
#include "counters/valgrind.h"
#include "util/error.h"
#include "util/jsonfile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const name = "dhat";
static const char out_prefix[] = "dhat.out.";
static const char *const heap_metrics[] = {"heap-allocations", "heap-bytes", "heap-peak", NULL};

typedef struct dhat_meter {
    pg_meter parent;
    pg_valgrind *vg;
    pg_owned_dir dir;           /* DHAT's output, swept if perfgate is killed */
    char **wrapped;             /* the command of the current run */
} dhat_meter;

typedef struct dhat_rec {
    pg_stackrec parent;
    pg_valgrind *vg;
    pg_owned_dir dir;
    char **argv;                /* the DHAT command of the current run */
    int blocks;                 /* stacks weigh blocks (-e heap-allocations), not bytes */
} dhat_rec;

#define DHAT_GBENCH_REFUSAL                                                                                         \
    "heap metrics of a Google Benchmark suite cannot be measured per iteration (DHAT has no timed region); "      \
    "measure its heap with a program of its own, or leave heap-* out of --metrics"

/* The command under DHAT: its JSON output and valgrind's log into `dir`. */
static int wrap_dhat(const pg_valgrind *vg, char ***out, char *const *argv, const char *dir)
{
    char outfile[PATH_MAX + 32], logfile[PATH_MAX + 32];
    snprintf(outfile, sizeof outfile, "--dhat-out-file=%s/%s%%p", dir, out_prefix);
    snprintf(logfile, sizeof logfile, "--log-file=%s/valgrind.log.%%p", dir);
    const char *const opts[] = {"--tool=dhat", "--trace-children=yes", "-q", outfile, logfile, NULL};
    return pg_valgrind_wrap_tool(vg, out, argv, opts);
}

/* ---- DHAT's JSON ---- */

/* A number of `o`'s key `k` that a count can be: finite, whole, not
 * negative. The file is the benchmark's to overwrite (it runs in the same
 * process), so nothing in it is trusted. */
static int count_of(double *out, const cJSON *o, const char *k, const char *path)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 9007199254740992.0 ||
        v->valuedouble != (double)(unsigned long long)v->valuedouble)
        return pg_error_set(PG_EINVAL, "%s: DHAT output without a count \"%s\" in an allocation point", path, k);
    *out = v->valuedouble;
    return 0;
}

/* Parses one output file: its allocation points ("pps"), checked. */
static int parse_out(cJSON **doc, const cJSON **pps, const char *text, size_t len, const char *path)
{
    *pps = NULL;
    int rc = pg_json_parse(doc, text, len, path);
    if (rc < 0)
        return rc;
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(*doc, "dhatFileVersion");
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(*doc, "mode");
    *pps = cJSON_GetObjectItemCaseSensitive(*doc, "pps");
    if (!cJSON_IsNumber(ver) || ver->valuedouble != 2 || !cJSON_IsString(mode) || strcmp(mode->valuestring, "heap") ||
        !cJSON_IsArray(*pps)) {
        cJSON_Delete(*doc);
        *doc = NULL;
        *pps = NULL;
        return pg_error_set(PG_EINVAL, "%s: not DHAT's heap profile of file version 2", path);
    }
    return 0;
}

typedef struct totals {
    double blocks, bytes, peak;
} totals;

/* An allocation point's counts: every one checked, whichever is used. */
static int point_of(totals *out, const cJSON *pp, const char *path)
{
    int rc = count_of(&out->blocks, pp, "tbk", path);
    if (rc == 0)
        rc = count_of(&out->bytes, pp, "tb", path);
    return rc < 0 ? rc : count_of(&out->peak, pp, "gb", path);
}

static int sum_out(void *ctx, const char *text, size_t len, const char *path)
{
    totals *t = ctx;
    cJSON *doc;
    const cJSON *pps = NULL, *pp;
    int rc = parse_out(&doc, &pps, text, len, path);
    if (rc < 0)
        return rc;
    cJSON_ArrayForEach(pp, pps) {
        totals one;
        if ((rc = point_of(&one, pp, path)) < 0)
            break;
        t->blocks += one.blocks, t->bytes += one.bytes, t->peak += one.peak;
    }
    cJSON_Delete(doc);
    return rc;
}

/* Whatever a run that is not read left behind. */
static int drop(void *ctx, const char *text, size_t len, const char *path)
{
    (void)ctx, (void)text, (void)len, (void)path;
    return 0;
}

/* ---- the meter ---- */

static dhat_meter *meter_of(pg_meter *m) { return (dhat_meter *)m; }

static int meter_open(pg_meter *m, const pg_meter_opts *o)
{
    (void)o;
    dhat_meter *d = meter_of(m);
    pg_owned_init(&d->dir);
    int rc = pg_valgrind_new(&d->vg);
    if (rc == 0)
        rc = pg_outdir_make(&d->dir, PG_OUTDIR_HEAP);
    if (rc == 0)
        snprintf(m->version, sizeof m->version, "%s", pg_valgrind_version(d->vg));
    return rc;
}

static void meter_close(pg_meter *m)
{
    dhat_meter *d = meter_of(m);
    pg_valgrind_free(d->vg);
    pg_valgrind_argv_free(d->wrapped);
    d->wrapped = NULL;
    pg_owned_release(&d->dir, 1);
}

static int target(pg_meter *m, const pg_meter_target *t)
{
    (void)t;
    if (m->ncalls)
        return pg_error_set(PG_ENOTSUP, "the dhat backend counts heap allocations, not calls: --count-calls needs "
                                        "the perf or valgrind backend");
    return 0;   /* regions: DHAT has none, the whole program is measured */
}

static int wrap(pg_meter *m, char ***out, char *const *argv, int gbench)
{
    dhat_meter *d = meter_of(m);
    pg_valgrind_argv_free(d->wrapped);
    d->wrapped = NULL;
    if (gbench)
        return pg_error_set(PG_ENOTSUP, DHAT_GBENCH_REFUSAL);
    int rc = wrap_dhat(d->vg, &d->wrapped, argv, d->dir.path);
    *out = d->wrapped;
    return rc;
}

static int attach(pg_meter *m, pid_t pid)
{
    (void)m, (void)pid;
    return 0;       /* DHAT measures from inside the child */
}

static int collect(pg_meter *m, pg_readings *out)
{
    dhat_meter *d = meter_of(m);
    totals t = {0};
    int rc = pg_valgrind_outputs(d->dir.path, out_prefix, sum_out, &t);
    if (rc < 0)
        return rc;
    if ((rc = pg_readings_add(out, heap_metrics[0], "count", name, t.blocks, 1.0)) == 0 &&
        (rc = pg_readings_add(out, heap_metrics[1], "bytes", name, t.bytes, 1.0)) == 0)
        rc = pg_readings_add(out, heap_metrics[2], "bytes", name, t.peak, 1.0);
    return rc;
}

static int collect_gbench(pg_meter *m, pg_readings *out, const char *report, size_t len)
{
    (void)out, (void)report, (void)len;
    dhat_meter *d = meter_of(m);
    pg_valgrind_outputs(d->dir.path, out_prefix, drop, NULL);   /* whatever ran is dropped */
    pg_error_clear();
    return pg_error_set(PG_ENOTSUP, DHAT_GBENCH_REFUSAL);
}

static const char *geometry(const pg_meter *m)
{
    (void)m;
    return "";
}

/* ---- stacks: DHAT's allocation points, folded ---- */

static dhat_rec *rec_of(pg_stackrec *r) { return (dhat_rec *)r; }

/* A frame of DHAT's frame table, "0x4005D6: big (alloc.c:8)" or "0x48417B4:
 * malloc (in /usr/lib/x.so)" or "0x1234: ???", as its function's name into
 * out (a frame with no symbol: "[x.so]", the file it is in, else "[unknown]"); 0 for the allocator's own frames (in valgrind's preloaded library),
 * which every stack would end in: the leaf is the function that allocated. */
static int frame_name(char *out, size_t len, const char *f)
{
    const char *colon = strstr(f, ": ");
    const char *s = colon && f[0] == '0' && f[1] == 'x' ? colon + 2 : f;
    size_t n = strlen(s);
    if (strstr(s, "(in /") && strstr(s, "/vgpreload_"))
        return 0;
    const char *open = NULL;
    for (const char *p = s; (p = strstr(p, " (")); p++)
        open = p;
    if (open && n && s[n - 1] == ')')
        n = (size_t)(open - s);
    const char *in = open && !strncmp(open, " (in /", 6) ? strrchr(open, '/') + 1 : NULL;
    if (n == 3 && !strncmp(s, "???", 3) && in && strlen(in) > 1)
        snprintf(out, len, "[%.*s]", (int)(strlen(in) - 1), in);   /* no symbol: its file, as "[libgit2.so.1.5.1]" */
    else if (n == 0 || (n == 3 && !strncmp(s, "???", 3)))
        snprintf(out, len, "[unknown]");
    else
        snprintf(out, len, "%.*s", (int)n, s);
    return 1;
}

typedef struct fold_ctx {
    pg_folded *out;
    int blocks;
} fold_ctx;

/* One output file's allocation points into the folded stacks, root first. */
static int fold_out(void *ctx, const char *text, size_t len, const char *path)
{
    fold_ctx *fc = ctx;
    cJSON *doc;
    const cJSON *pps = NULL, *pp;
    int rc = parse_out(&doc, &pps, text, len, path);
    if (rc < 0)
        return rc;
    const cJSON *ftbl = cJSON_GetObjectItemCaseSensitive(doc, "ftbl"), *f;
    int nf = cJSON_GetArraySize(ftbl), at = 0;
    /* the frame table indexed once: cJSON_GetArrayItem walks the list */
    const cJSON **tbl = calloc(nf > 0 ? (size_t)nf : 1, sizeof *tbl);
    if (!tbl)
        rc = pg_error_set(PG_ENOMEM, "out of memory");
    else if (!cJSON_IsArray(ftbl))
        rc = pg_error_set(PG_EINVAL, "%s: DHAT output without its frame table", path);
    const cJSON *frames_of = rc == 0 ? ftbl : NULL;
    cJSON_ArrayForEach(f, frames_of) {
        if (!cJSON_IsString(f)) {
            rc = pg_error_set(PG_EINVAL, "%s: a frame of DHAT's table is not a string", path);
            break;
        }
        tbl[at++] = f;
    }
    enum { MAXF = 256 };
    char names[MAXF][256];
    const char *frames[MAXF];
    const cJSON *walk = rc == 0 ? pps : NULL;
    cJSON_ArrayForEach(pp, walk) {
        totals one;
        const cJSON *fs = cJSON_GetObjectItemCaseSensitive(pp, "fs"), *fi;
        if ((rc = point_of(&one, pp, path)) < 0)
            break;
        double w = fc->blocks ? one.blocks : one.bytes;
        if (!cJSON_IsArray(fs)) {
            rc = pg_error_set(PG_EINVAL, "%s: an allocation point without its frames", path);
            break;
        }
        int n = cJSON_GetArraySize(fs), k = 0;
        /* DHAT lists a point's frames leaf first; folded stacks are root first. */
        for (int i = n - 1; i >= 0 && rc == 0 && k < MAXF; i--) {
            fi = cJSON_GetArrayItem(fs, i);
            if (!cJSON_IsNumber(fi) || fi->valuedouble < 0 || fi->valuedouble >= nf ||
                fi->valuedouble != (double)(int)fi->valuedouble) {
                rc = pg_error_set(PG_EINVAL, "%s: an allocation point names a frame its table does not have", path);
                break;
            }
            if (frame_name(names[k], sizeof names[k], tbl[(int)fi->valuedouble]->valuestring))
                frames[k] = names[k], k++;
        }
        if (rc < 0)
            break;
        if (w > 0)
            rc = k ? pg_folded_add_frames(fc->out, frames, (size_t)k, (uint64_t)w) : pg_folded_add(fc->out, "[unknown]", (uint64_t)w);
    }
    free(tbl);
    cJSON_Delete(doc);
    return rc;
}

static int rec_open(pg_stackrec *r)
{
    dhat_rec *d = rec_of(r);
    pg_owned_init(&d->dir);
    /* -e heap-allocations weighs each stack by the blocks it allocated; bytes otherwise */
    const char *ev = r->o.sampler.event;
    if (ev && strcmp(ev, "heap-allocations") && strcmp(ev, "heap-bytes"))
        return pg_error_set(PG_EINVAL, "the dhat backend weighs stacks by heap-bytes or heap-allocations, not '%s'", ev);
    d->blocks = ev && !strcmp(ev, "heap-allocations");
    int rc = pg_valgrind_new(&d->vg);
    return rc < 0 ? rc : pg_outdir_make(&d->dir, PG_OUTDIR_HEAP);
}

static void rec_close(pg_stackrec *r)
{
    dhat_rec *d = rec_of(r);
    pg_owned_release(&d->dir, 1);
    pg_valgrind_free(d->vg);
}

static int rec_begin(pg_stackrec *r, char ***argv_out, char *const *argv, int cpu)
{
    (void)cpu;      /* valgrind runs where the spawner pinned it */
    dhat_rec *d = rec_of(r);
    if (r->timed)
        return pg_error_set(PG_ENOTSUP, DHAT_GBENCH_REFUSAL);
    int rc = wrap_dhat(d->vg, &d->argv, argv, d->dir.path);
    *argv_out = d->argv;
    return rc;
}

static void rec_reset(pg_stackrec *r)
{
    dhat_rec *d = rec_of(r);
    pg_valgrind_argv_free(d->argv);
    d->argv = NULL;
}

/* What DHAT left is read out of the directory (and removed), so the next
 * run's stacks are that run's alone; a run that did not happen keeps none. */
static int rec_end(pg_stackrec *r, int ran, pg_stackrec_stats *stats)
{
    dhat_rec *d = rec_of(r);
    if (stats)
        snprintf(stats->event, sizeof stats->event, "%s", d->blocks ? "heap-allocations" : "heap-bytes");
    if (ran)
        return pg_valgrind_outputs(d->dir.path, out_prefix, fold_out, &(fold_ctx){.out = r->out, .blocks = d->blocks}) < 0
                   ? -1 : 0;
    pg_valgrind_outputs(d->dir.path, out_prefix, drop, NULL);
    pg_error_clear();
    return 0;
}

static int rec_collect_timed(pg_stackrec *r, pg_folded *out, double *iterations, const char *report, size_t len)
{
    (void)r, (void)out, (void)iterations, (void)report, (void)len;
    return 0;
}

/* ---- whether it works here ---- */

/* DHAT is a tool of every valgrind perfgate can use (JSON output since
 * 3.15): it works wherever valgrind does. */
static void probe(pg_probe *p, pg_backend_fit *out) { pg_backend_valgrind_ops.probe(p, out); }

/* doctor's probe is auto's, which leaves this backend out (priority 0):
 * its own answer then. */
static const pg_backend_fit *fit_of(const pg_probe *p, pg_backend_fit *own)
{
    const pg_backend_fit *f = &p->fit[PG_BACKEND_DHAT];
    if (f->fit != PG_FIT_NONE || strcmp(f->why, "not probed"))
        return f;
    probe(NULL, own);
    return own;
}

static void doctor(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    pg_backend_fit own;
    const pg_backend_fit *f = fit_of(p, &own);
    line(ctx, "--backend dhat", f->fit == PG_FIT_FULL, f->fit == PG_FIT_FULL ? "" : f->why);
}

static void doctor_tools(const pg_probe *p, pg_doctor_line *line, void *ctx)
{
    pg_backend_fit own;
    const pg_backend_fit *f = fit_of(p, &own);
    line(ctx, "dhat (heap metrics)", f->fit == PG_FIT_FULL,
         f->fit == PG_FIT_FULL ? f->version : f->why);
}

static const char *choice_note(const pg_probe *p)
{
    (void)p;
    return " (exact heap metrics from valgrind's DHAT)";
}

const pg_backend_ops pg_backend_dhat_ops = {
    .props = {.name = "dhat", .kind = PG_BACKEND_DHAT, .exact = 1, .simulated = 1, .native_time = 1,
              .stacks_unit = "bytes", .stacks_metric = "heap-bytes", .repeat = 1, .warmup = 0, .chosen_why = NULL,
              .gives = "exact heap allocations, bytes and peak", .metrics = heap_metrics},
    .priority = 0,      /* never chosen by auto: by name, or by its metrics beside another backend */
    .probe = probe,
    .meter_size = sizeof(dhat_meter),
    .rec_size = sizeof(dhat_rec),
    .meter_open = meter_open,
    .meter_close = meter_close,
    .target = target,
    .wrap = wrap,
    .attach = attach,
    .collect = collect,
    .collect_gbench = collect_gbench,
    .geometry = geometry,
    .rec_open = rec_open,
    .rec_close = rec_close,
    .rec_begin = rec_begin,
    .rec_reset = rec_reset,
    .rec_end = rec_end,
    .rec_collect_timed = rec_collect_timed,
    .stacks_note = "DHAT's allocation points: each stack weighs the heap bytes (or blocks) its leaf function allocated",
    .doctor = doctor,
    .doctor_tools = doctor_tools,
    .choice_note = choice_note,
};
