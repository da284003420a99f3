/* tests/fuzz/capture_records.c — makes seeds for fuzz_records from a real run.
 *
 * Usage: capture_records OUT fp|dwarf STACK_BYTES MAX_BYTES CMD [ARG...]
 * Runs CMD sampled as `perfgate record` does (pinned, ASLR off, the sampler
 * attached before exec) and writes OUT in fuzz_records' input format: the
 * options byte (the call graph; tail 0), then the records in time order.
 * Every side-band record is kept; samples only while the file is under
 * MAX_BYTES, so seeds stay small. STACK_BYTES: the dwarf stack copy size. */
#include "counters/sampler.h"
#include "harness/measure/spawn.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct out {
    pg_sampler *s;
    FILE *f;
    size_t bytes, max;
    unsigned long samples, other;
} out;

static int attach(void *ctx, pid_t pid) { return pg_sampler_attach(((out *)ctx)->s, pid); }
static size_t pollfds(void *ctx, int *fds, size_t max) { return pg_sampler_pollfds(((out *)ctx)->s, fds, max); }
static int readable(void *ctx) { return pg_sampler_drain(((out *)ctx)->s); }

static int write_rec(void *ctx, const struct perf_event_header *h)
{
    out *o = ctx;
    if (h->type == PERF_RECORD_SAMPLE) {
        if (o->bytes + h->size > o->max)
            return 0;
        o->samples++;
    } else {
        o->other++;
    }
    o->bytes += h->size;
    return fwrite(h, 1, h->size, o->f) == h->size ? 0 : pg_error_set(PG_EIO, "cannot write");
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: capture_records OUT fp|dwarf STACK_BYTES MAX_BYTES CMD [ARG...]\n");
        return 2;
    }
    pg_sampler_opts so = {.stack_size = (unsigned)atoi(argv[3]), .pinned_cpu = -1};
    out o = {.max = (size_t)atol(argv[4])};
    if (pg_callgraph_parse(&so.callgraph, argv[2]) < 0 || pg_sampler_new(&o.s, &so) < 0) {
        fprintf(stderr, "capture_records: %s\n", pg_error_last());
        return 2;
    }
    o.f = fopen(argv[1], "wb");
    if (!o.f) {
        perror(argv[1]);
        return 2;
    }
    unsigned char flags = so.callgraph == PG_CALLGRAPH_FP;
    fwrite(&flags, 1, 1, o.f);
    o.bytes = 1;
    pg_spawn_hooks hooks = {.ctx = &o, .attach = attach, .pollfds = pollfds, .readable = readable};
    pg_spawn_opts sp = {.argv = argv + 5, .cpu = -1, .aslr_off = 1, .quiet_stdout = 1, .hooks = &hooks};
    pg_spawn_result res;
    int rc = pg_spawn_run(&res, &sp);
    if (rc == 0)
        rc = pg_sampler_finish(o.s);
    if (rc == 0)
        rc = pg_sampler_flush(o.s, write_rec, &o);
    pg_spawn_result_free(&res);
    pg_sampler_free(o.s);
    if (fclose(o.f) != 0 && rc == 0)
        rc = pg_error_set(PG_EIO, "cannot write %s", argv[1]);
    if (rc < 0) {
        fprintf(stderr, "capture_records: %s\n", pg_error_last());
        return 1;
    }
    fprintf(stderr, "capture_records: %s: %lu samples, %lu other records, %zu bytes\n", argv[1], o.samples,
            o.other, o.bytes);
    return 0;
}
