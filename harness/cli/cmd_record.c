/* harness/cli/cmd_record.c — `perfgate record`: sample one command, write a flamegraph
 * and/or folded stacks. */
#include "counters/sampler.h"
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/measure/runner.h"
#include "harness/measure/sample_run.h"
#include "report/flamegraph.h"
#include "report/profile_out.h"
#include "util/error.h"
#include "util/folded.h"
#include "util/text.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate record",
    .usage = "usage: perfgate record [OPTIONS] -- CMD [ARG...]\n"
             "       perfgate record -a [OPTIONS] (--duration S | -- CMD [ARG...])\n"
             "\n"
             "Sample CMD's stacks (and its threads' and children's) and write a flamegraph;\n"
             "with -a, every process's on every CPU while CMD runs or for S seconds.\n",
    .footer = "The command's output is shown when it has finished (its stdout on stderr with\n"
              "--folded -). Stacks are user space only, but with -a where the kernel allows.\n"
              "See docs/sampling.md.\n"
              "Exit status: 0 recorded; 1 the command failed (the stacks are still written);\n"
              "2 usage or environment error (nothing written); " PG_XSTR(PG_EXIT_INTERRUPT)
              " interrupted (stacks written).\n",
    .rest = 1,
};

static int parse_callgraph(const pg_opt *opt, const char *name, const char *arg)
{
    return pg_callgraph_parse(opt->dest, arg);
}

static int parse_stack_size(const pg_opt *opt, const char *name, const char *arg)
{
    long long v;
    if (pg_opt_whole(&v, arg, 1, LLONG_MAX) < 0)
        return pg_error_set(PG_EINVAL, "%s: expected a whole number > 0, got '%s'", name, arg);
    if (v % 8 || v > PG_SAMPLE_STACK_MAX)
        return pg_error_set(PG_EINVAL, "%s %s: a multiple of 8 up to %d (the kernel's limit)", name, arg,
                            PG_SAMPLE_STACK_MAX);
    *(unsigned *)opt->dest = (unsigned)v;
    return 0;
}

/* More than a tenth of the stacks cut short is a flamegraph that misleads.
 * The fix depends on why: only stacks that ran out of the copied user stack
 * in a frame the unwinder could follow get the advice to copy more; stacks
 * that stopped in code without unwind information would stop there with any
 * copy, so they are told apart. */
static void warn_truncated(const pg_profile_stats *ps, const pg_sampler_opts *so)
{
    if (!ps->samples || ps->truncated * 10 <= ps->samples)
        return;
    double pct = 100.0 * (double)ps->truncated / (double)ps->samples;
    if (so->callgraph == PG_CALLGRAPH_FP) {
        fprintf(stderr, "perfgate: warning: %.1f%% of the stacks were truncated: frame pointers end early "
                "(build with -fno-omit-frame-pointer, or use --call-graph dwarf)\n", pct);
        return;
    }
    unsigned size = so->stack_size ? so->stack_size : PG_SAMPLE_STACK_DEFAULT;
    uint64_t other = ps->truncated - ps->truncated_stack;
    double deep = 100.0 * (double)ps->truncated_stack / (double)ps->samples;
    if (ps->truncated_stack * 10 > ps->samples && size < PG_SAMPLE_STACK_MAX)
        fprintf(stderr, "perfgate: warning: %.1f%% of the stacks were truncated: deeper than the %u bytes "
                "copied per sample; raise --stack-size (up to %d)\n", deep, size, PG_SAMPLE_STACK_MAX);
    else if (ps->truncated_stack * 10 > ps->samples)
        fprintf(stderr, "perfgate: warning: %.1f%% of the stacks were truncated although the most stack the "
                "kernel copies (%d bytes) was asked for: deep recursion\n", deep, PG_SAMPLE_STACK_MAX);
    if (other * 10 > ps->samples)
        fprintf(stderr, "perfgate: warning: %.1f%% of the stacks were truncated where unwinding could not go on: "
                "code without unwind information (.eh_frame) or memory no file backs (JIT code); "
                "--stack-size would not help\n", 100.0 * (double)other / (double)ps->samples);
}

/* What a system-wide recording could not see, and how to see it. */
static void warn_system(const pg_profile_stats *ps)
{
    if (ps->kernel && ps->kernel_hidden)
        fprintf(stderr, "perfgate: warning: kernel frames are unnamed ([kernel.kallsyms]_[k]): the kernel hides its "
                "symbols' addresses (kernel.kptr_restrict); fix: sudo sysctl kernel.kptr_restrict=0\n");
    if (ps->unmapped && ps->unmapped * 100 >= ps->samples)
        fprintf(stderr, "perfgate: warning: %llu samples (%.1f%%) fell where perfgate knew no mapping: processes that "
                "exited before perfgate read /proc, or code no file backs (JIT); their frames read [unknown]\n",
                (unsigned long long)ps->unmapped, 100.0 * (double)ps->unmapped / (double)ps->samples);
}

/* The flamegraph of `f` at `path` (the subtitle says how it was sampled), or
 * by its extension a pprof profile or a speedscope file (report/profile_out.h). */
static int write_output(const char *path, pg_folded *f, const char *title, const char *cmdline,
                     const pg_sample_result *sr, const pg_sampler_opts *so, int exact)
{
    char t[512], sub[512];
    snprintf(t, sizeof t, "%s", title ? title : cmdline);
    char rate[64];
    if (so->period)
        snprintf(rate, sizeof rate, "every %llu events", (unsigned long long)so->period);
    else
        snprintf(rate, sizeof rate, "%lu Hz", so->freq ? so->freq : PG_SAMPLE_FREQ_DEFAULT);
    snprintf(sub, sizeof sub, "%s%s, %s, %s unwinding, %llu samples, %.1f%% truncated stacks",
             sr->event, so->system_wide ? " on every CPU" : "", rate, so->callgraph == PG_CALLGRAPH_FP ? "frame-pointer" : "DWARF",
             (unsigned long long)sr->profile.samples,
             sr->profile.samples ? 100.0 * (double)sr->profile.truncated / (double)sr->profile.samples : 0.0);
    if (exact)
        snprintf(sub, sizeof sub, "%s, exact", sr->event);
    pg_flamegraph_opts fo;
    pg_flamegraph_opts_init(&fo);
    fo.title = t;
    fo.subtitle = sub;
    fo.unit = exact ? sr->event : "samples";
    return pg_profile_write_file(path, pg_profile_format_of(path), f, &fo);
}

/* The command's output, after it ran; its stdout goes to stderr when stdout
 * carries the folded stacks, so a pipe into flamegraph.pl stays clean. */
static void replay_output(const pg_spawn_result *res, int stdout_taken)
{
    if (res->out_len)
        fwrite(res->out_log, 1, res->out_len, stdout_taken ? stderr : stdout);
    fflush(stdout);
    if (res->err_len)
        fwrite(res->err_log, 1, res->err_len, stderr);
}

/* What the command line asked for. */
typedef struct record_args {
    pg_sampler_opts so;
    const char *svg, *folded, *title;
    int cpu;
    char **cmd;
    int ncmd;
    int all;                /* -a: system-wide */
    double duration;        /* -a --duration S: the command is `sleep S` */
    pg_backend_kind backend;/* --backend: AUTO is perf_event's sampling (pg_backend_native) */
    char *sleep_argv[3];
    char sleep_for[32];
} record_args;

/* --backend names one that does not sample with perf_event (an exact one:
 * its stacks weigh what it counts). */
static int other_backend(const record_args *a)
{
    return a->backend != PG_BACKEND_AUTO && a->backend != pg_backend_native();
}

/* 0, or 1 with the exit status in *status. */
static int parse_args(int *status, record_args *a, pg_ctx *ctx, int argc, char **argv)
{
    *a = (record_args){.so = {.freq = PG_SAMPLE_FREQ_DEFAULT}, .cpu = -1};
    pg_sampler_opts *so = &a->so;
    const pg_opt opts[] = {
        PG_OPT_INT('F', "freq", "HZ", "samples per second (default " PG_XSTR(PG_SAMPLE_FREQ_DEFAULT) ")", &so->freq, 1,
                   100000, .what = "a whole number > 0"),
        PG_OPT_INT('c', "count", "N", "sample every N events instead of by frequency", &so->period, 1, LLONG_MAX,
                   .what = "a whole number > 0"),
        PG_OPT_CALLBACK('g', "call-graph", "M", "dwarf (default: copy the stack, unwind with libunwind;\n"
                        "works without frame pointers) or fp (frame pointers)", &so->callgraph, parse_callgraph),
        PG_OPT_CALLBACK(0, "stack-size", "B", "dwarf: bytes of stack copied per sample (default "
                        PG_XSTR(PG_SAMPLE_STACK_DEFAULT) ", at most " PG_XSTR(PG_SAMPLE_STACK_MAX) ")",
                        &so->stack_size, parse_stack_size),
        PG_OPT_STRING('e', "event", "EVENT", "event to sample on (default: cycles, or cpu-clock when\n"
                      "the machine has no PMU); any libpfm4 event name", &so->event),
        PG_OPT_STRING('o', "output", "FILE", "the flamegraph (default flamegraph.svg unless --folded);\n"
                      "FILE.pb.gz: a pprof profile, FILE.speedscope.json: speedscope", &a->svg),
        PG_OPT_STRING(0, "folded", "FILE", "folded stacks (flamegraph.pl / inferno / speedscope); - for stdout",
                      &a->folded),
        PG_OPT_STRING(0, "title", "TEXT", "the flamegraph's title", &a->title),
        PG_OPT_INT(0, "cpu", "N", "pin the command to CPU N (default: chosen)", &a->cpu, 0, INT_MAX),
        PG_OPT_SET_INT(0, "no-pin", "do not pin", &a->cpu, -2),
        PG_OPT_FLAG('a', "all-cpus", "every process on every CPU, kernel stacks where the\n"
                    "kernel allows (as perf record -ag)", &a->all),
        PG_OPT_CALLBACK(0, "backend", "B", "whose stacks: a backend's name (perfgate doctor lists them;\n"
                        "default: sampling with perf_event); exact ones weigh what they\n"
                        "count (docs/sampling.md, \"Other backends\")", &a->backend, pg_cmd_opt_backend),
        PG_OPT_DOUBLE(0, "duration", "S", "with -a: record for S seconds instead of while a command runs",
                      &a->duration, 0.001, 1e7),
        PG_OPT_END(),
    };
    if (pg_cmd_parse(status, ctx, &spec, opts, argc, argv))
        return 1;
    a->cmd = ctx->args.rest;
    a->ncmd = ctx->args.nrest;
    if (ctx->args.nargs > 0)
        *status = pg_die("unexpected argument '%s': put the command after '--'", ctx->args.args[0]);
    else if (a->duration > 0 && !a->all)
        *status = pg_die("--duration is for -a: a command is recorded while it runs");
    else if (a->all && a->duration > 0 && a->ncmd > 0)
        *status = pg_die("-a: --duration or a command, not both (the recording lasts while the command runs)");
    else if (a->all && a->ncmd == 0 && !(a->duration > 0))
        *status = pg_die("-a: what to record while: a command (perfgate record -a -- sleep 5) or --duration S");
    else if (a->ncmd == 0 && !a->all)
        *status = pg_die("no command to record: perfgate record [OPTIONS] -- CMD [ARG...]");
    else if (a->all && a->backend != PG_BACKEND_AUTO && a->backend != pg_backend_native())
        *status = pg_die("-a records every CPU with perf_event's sampling, not with the %s backend",
                         pg_backend_name(a->backend));
    else if (a->cpu >= 0 && pg_check_cpu(a->cpu) < 0)
        *status = pg_die_last();
    else
        *status = PG_EXIT_OK;
    if (*status != PG_EXIT_OK)
        return 1;
    if (!a->svg && !a->folded)
        a->svg = "flamegraph.svg";
    if (a->all) {
        /* The machine as it runs: nothing pinned unless asked, kernel stacks where allowed. */
        so->system_wide = 1;
        so->kernel = 1;
        if (a->duration > 0) {
            snprintf(a->sleep_for, sizeof a->sleep_for, "%.3f", a->duration);
            a->sleep_argv[0] = "sleep";
            a->sleep_argv[1] = a->sleep_for;
            a->cmd = a->sleep_argv;
            a->ncmd = 2;
        }
    } else if (a->cpu == -1) {
        a->cpu = pg_runner_pick_cpu();
    }
    /* Memory bound of a long recording (docs/sampling.md); small values make tests flush often. */
    const char *fb = getenv("PERFGATE_SAMPLE_FLUSH");
    if (fb && *fb)
        so->flush_bytes = (size_t)strtoull(fb, NULL, 10);
    return 0;
}

/* The stacks to their files (folded, the picture); an exit status. */
static int write_results(const record_args *a, pg_folded *f, const char *cmdline, const pg_sample_result *sr)
{
    if (a->folded && !strcmp(a->folded, "-")) {
        int rc = pg_folded_write(f, stdout);
        fflush(stdout);
        if (rc < 0)
            return pg_die_last();
    } else if (a->folded && pg_folded_write_file(f, a->folded) < 0) {
        return pg_die_last();
    }
    if (a->svg && write_output(a->svg, f, a->title, cmdline, sr, &a->so, other_backend(a)) < 0)
        return pg_die_last();
    return PG_EXIT_OK;
}

/* The one line perf record ends with, and the warnings worth acting on. */
static void print_summary(const record_args *a, const pg_folded *f, const pg_sample_result *sr,
                          const pg_spawn_result *res)
{
    const pg_profile_stats *ps = &sr->profile;
    const pg_sampler_opts *so = &a->so;
    if (other_backend(a)) {
        fprintf(stderr, "perfgate record: %llu %s in %zu distinct stacks (the %s backend, exact); the command ran "
                "%.0f ms under it\n", (unsigned long long)pg_folded_total(f), sr->event, pg_folded_count(f),
                pg_backend_name(a->backend), res->wall_ns / 1e6);
        if (a->svg)
            fprintf(stderr, "wrote: %s\n", a->svg);
        if (a->folded && strcmp(a->folded, "-"))
            fprintf(stderr, "wrote: %s\n", a->folded);
        return;
    }
    fprintf(stderr, "perfgate record: %llu samples (%s, ", (unsigned long long)ps->samples, sr->event);
    if (so->period)
        fprintf(stderr, "every %llu events", (unsigned long long)so->period);
    else
        fprintf(stderr, "%lu Hz", so->freq);
    fprintf(stderr, ", %s%s), %llu lost, %.1f%% truncated stacks, %zu distinct stacks; "
            "%s %.0f ms, unwinding after it took %.0f ms\n",
            so->callgraph == PG_CALLGRAPH_FP ? "fp" : "dwarf", a->all ? ", every CPU" : "",
            (unsigned long long)sr->sampler.lost,
            ps->samples ? 100.0 * (double)ps->truncated / (double)ps->samples : 0.0,
            pg_folded_count(f), a->all ? "recorded for" : "the command ran", res->wall_ns / 1e6, sr->unwind_ns / 1e6);
    if (a->all)
        warn_system(ps);
    if (so->flush_bytes)     /* only with PERFGATE_SAMPLE_FLUSH: says whether it had an effect */
        fprintf(stderr, "perfgate record: %llu stacks unwound while the command ran (flush past %zu bytes)\n",
                (unsigned long long)sr->early, so->flush_bytes);
    if (sr->sampler.dropped)
        fprintf(stderr, "perfgate: warning: %llu samples dropped (more than 512 MiB of stacks buffered)\n",
                (unsigned long long)sr->sampler.dropped);
    if (sr->sampler.lost)
        fprintf(stderr, "perfgate: warning: the kernel lost %llu samples (buffer full); lower -F\n",
                (unsigned long long)sr->sampler.lost);
    warn_truncated(ps, so);
    if (a->svg)
        fprintf(stderr, "wrote: %s\n", a->svg);
    if (a->folded && strcmp(a->folded, "-"))
        fprintf(stderr, "wrote: %s\n", a->folded);
}

/* What the recorded command's own end makes of `status`: interrupted, or a
 * failure named as a shell would (a usage error stays one). */
static int child_status(int status, const pg_spawn_result *res, const char *cmd)
{
    if (res->interrupted)
        return status == PG_EXIT_OK ? PG_EXIT_INTERRUPT : status;
    if (status == PG_EXIT_USAGE || !(res->signal || res->exit_code || res->timed_out))
        return status;
    if (res->signal)
        pg_text_warn("%s was killed by signal %d (SIG%s)", cmd, res->signal,
                     sigabbrev_np(res->signal) ? sigabbrev_np(res->signal) : "?");
    else
        pg_text_warn("%s exited with status %d", cmd, res->exit_code);
    return PG_EXIT_FAIL;
}

/* The command's stacks recorded by the backend --backend names, once it
 * says it works here; -e chooses what they weigh where it can. */
static int record_with(pg_folded *f, pg_sample_result *sr, pg_spawn_result *res, const pg_spawn_opts *sp,
                       const record_args *a)
{
    memset(sr, 0, sizeof *sr);
    memset(res, 0, sizeof *res);
    pg_probe probe;
    pg_backend_kind k;
    char notice[1024];
    pg_backend_probe(&probe, a->backend);
    int rc = pg_backend_choose(&k, notice, sizeof notice, a->backend, &probe);
    pg_stackrec *r = NULL;
    if (rc == 0)
        rc = pg_stackrec_new(&r, &(pg_stackrec_opts){.backend = k, .sampler = a->so});
    if (rc == 0)
        rc = pg_stackrec_run(r, f, sr, res, sp);
    if (r && !sr->event[0])
        snprintf(sr->event, sizeof sr->event, "%s", pg_stackrec_weight(r));
    pg_stackrec_free(r);
    return rc;
}

/* Runs the command under the sampler: *status is set when it did not start. */
static int sample(pg_folded *f, pg_sample_result *sr, pg_spawn_result *res, int *status, const record_args *a)
{
    pg_spawn_install_sigint();
    pg_spawn_opts sp = {
        .argv = a->cmd, .cpu = a->cpu >= 0 ? a->cpu : -1, .aslr_off = 1, .log_cap = 4u << 20,
    };
    int rc = other_backend(a) ? record_with(f, sr, res, &sp, a) : pg_sample_run(f, sr, res, &sp, &a->so);
    replay_output(res, a->folded && !strcmp(a->folded, "-"));
    if (rc < 0 && !res->started)
        *status = pg_die("cannot record %s: %s", a->all ? "every CPU" : a->cmd[0], pg_error_last());
    else if (!res->started)
        *status = PG_EXIT_USAGE;    /* exec failed: spawn put the reason in the captured stderr, already shown */
    return rc;
}

int pg_cmd_record(pg_ctx *ctx, int argc, char **argv)
{
    record_args a;
    int status;
    if (parse_args(&status, &a, ctx, argc, argv))
        return status;
    char cmdline[512] = "";
    for (int i = 0; i < a.ncmd; i++) {
        size_t l = strlen(cmdline);
        snprintf(cmdline + l, sizeof cmdline - l, "%s%s", i ? " " : "", a.cmd[i]);
    }
    pg_folded *f;
    if (pg_folded_new(&f) < 0)
        return pg_die_last();
    pg_sample_result sr;
    pg_spawn_result res;
    status = -1;
    int rc = sample(f, &sr, &res, &status, &a);
    if (status < 0) {
        if (sr.notice[0])
            pg_text_warn("note: %s", sr.notice);
        if (rc < 0) {
            status = pg_die_last();
        } else if (pg_folded_total(f) == 0 && other_backend(&a)) {
            status = pg_die("no stacks: the %s backend counted nothing of %s (%s)", pg_backend_name(a.backend),
                            a.cmd[0], sr.event);
        } else if (pg_folded_total(f) == 0) {
            pg_die("no samples: %s ran for %.0f ms%s", a.cmd[0], res.wall_ns / 1e6,
                   sr.sampler.lost ? " and every sample was lost" :
                   a.so.period ? "; lower -c or record a longer run" : "; raise -F or record a longer run");
            status = res.signal || res.exit_code || res.timed_out ? PG_EXIT_FAIL : PG_EXIT_USAGE;
        } else {
            status = write_results(&a, f, cmdline, &sr);
        }
        if (status == PG_EXIT_OK)
            print_summary(&a, f, &sr, &res);
        status = child_status(status, &res, a.cmd[0]);
    }
    pg_spawn_result_free(&res);
    pg_folded_free(f);
    return status;
}
