/* harness/cmd_record.c — `perfgate record`: sample one command, write a flamegraph
 * and/or folded stacks. */
#include "harness/commands.h"
#include "harness/runner.h"
#include "harness/sample_run.h"
#include "report/flamegraph.h"
#include "util/error.h"
#include "util/folded.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: perfgate record [OPTIONS] -- CMD [ARG...]\n"
    "\n"
    "Sample CMD's stacks (and its threads' and children's) and write a flamegraph.\n"
    "\n"
    "  -F, --freq HZ          samples per second (default 997)\n"
    "  -c, --count N          sample every N events instead of by frequency\n"
    "  -g, --call-graph M     dwarf (default: copy the stack, unwind with libunwind;\n"
    "                         works without frame pointers) or fp (frame pointers)\n"
    "      --stack-size B     dwarf: bytes of stack copied per sample (default 8192)\n"
    "  -e, --event EVENT      event to sample on (default: cycles, or cpu-clock when\n"
    "                         the machine has no PMU); any libpfm4 event name\n"
    "  -o, --output FILE.svg  the flamegraph (default flamegraph.svg unless --folded)\n"
    "      --folded FILE      folded stacks (flamegraph.pl / inferno / speedscope); - for stdout\n"
    "      --title TEXT       the flamegraph's title\n"
    "      --cpu N            pin the command to CPU N (default: chosen)\n"
    "      --no-pin           do not pin\n"
    "  -h, --help             this text\n"
    "\n"
    "The command's output is shown when it has finished (its stdout on stderr with\n"
    "--folded -). Stacks are user space only. See docs/sampling.md.\n"
    "Exit status: 0 recorded; 1 the command failed (the stacks are still written);\n"
    "2 usage or environment error (nothing written); 130 interrupted (stacks written).\n";

static int parse_ul(unsigned long long *out, const char *opt, const char *s, long long min)
{
    long long v;
    if (pg_parse_whole(&v, s, min, LLONG_MAX) < 0)
        return pg_error_set(PG_EINVAL, "%s: expected a whole number %s, got '%s'", opt, min ? "> 0" : ">= 0", s);
    *out = (unsigned long long)v;
    return 0;
}

/* The flamegraph of `f` at `path`; the subtitle says how it was sampled. */
static int write_svg(const char *path, pg_folded *f, const char *title, const char *cmdline,
                     const pg_sample_result *sr, const pg_sampler_opts *so)
{
    char t[512], sub[512];
    snprintf(t, sizeof t, "%s", title ? title : cmdline);
    char rate[64];
    if (so->period)
        snprintf(rate, sizeof rate, "every %llu events", (unsigned long long)so->period);
    else
        snprintf(rate, sizeof rate, "%lu Hz", so->freq ? so->freq : 997);
    snprintf(sub, sizeof sub, "%s, %s, %s unwinding, %llu samples, %.1f%% truncated stacks",
             sr->event, rate, so->callgraph == PG_CALLGRAPH_FP ? "frame-pointer" : "DWARF",
             (unsigned long long)sr->profile.samples,
             sr->profile.samples ? 100.0 * (double)sr->profile.truncated / (double)sr->profile.samples : 0.0);
    pg_flamegraph_opts fo;
    pg_flamegraph_opts_init(&fo);
    fo.title = t;
    fo.subtitle = sub;
    fo.unit = "samples";
    return pg_flamegraph_write_file(path, f, &fo);
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

int pg_cmd_record(int argc, char **argv)
{
    enum { O_FOLDED = 256, O_CPU, O_NOPIN, O_STACK, O_TITLE };
    static const struct option longopts[] = {
        {"freq", required_argument, 0, 'F'}, {"count", required_argument, 0, 'c'},
        {"call-graph", required_argument, 0, 'g'}, {"event", required_argument, 0, 'e'},
        {"output", required_argument, 0, 'o'}, {"folded", required_argument, 0, O_FOLDED},
        {"cpu", required_argument, 0, O_CPU}, {"no-pin", no_argument, 0, O_NOPIN},
        {"stack-size", required_argument, 0, O_STACK}, {"title", required_argument, 0, O_TITLE},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    char **cmd;
    int ncmd;
    int nopt = pg_split_dashdash(argc, argv, &cmd, &ncmd);
    pg_sampler_opts so = {.freq = 997};
    const char *svg = NULL, *folded = NULL, *title = NULL;
    int cpu = -1, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(nopt, argv, ":F:c:g:e:o:h", longopts, NULL)) != -1) {
        int rc = 0;
        unsigned long long v = 0;
        switch (c) {
        case 'F':
            if ((rc = parse_ul(&v, "-F", optarg, 1)) == 0) {
                if (v > 100000)
                    rc = pg_error_set(PG_EINVAL, "-F %s: at most 100000 Hz", optarg);
                so.freq = (unsigned long)v;
            }
            break;
        case 'c':
            if ((rc = parse_ul(&v, "-c", optarg, 1)) == 0)
                so.period = v;
            break;
        case 'g': rc = pg_callgraph_parse(&so.callgraph, optarg); break;
        case 'e': so.event = optarg; break;
        case 'o': svg = optarg; break;
        case O_FOLDED: folded = optarg; break;
        case O_TITLE: title = optarg; break;
        case O_CPU:
            if ((rc = parse_ul(&v, "--cpu", optarg, 0)) == 0 && (rc = pg_check_cpu(v > INT_MAX ? INT_MAX : (int)v)) == 0)
                cpu = (int)v;
            break;
        case O_NOPIN: cpu = -2; break;
        case O_STACK:
            if ((rc = parse_ul(&v, "--stack-size", optarg, 1)) == 0) {
                if (v % 8 || v > 65000)
                    rc = pg_error_set(PG_EINVAL, "--stack-size %s: a multiple of 8 up to 65000", optarg);
                so.stack_size = (unsigned)v;
            }
            break;
        case 'h': fputs(usage_text, stdout); return PG_EXIT_OK;
        case ':': return pg_die("option '%s' needs a value; see 'perfgate record --help'", argv[optind - 1]);
        default: return pg_die("unknown option '%s'; see 'perfgate record --help'", argv[optind - 1]);
        }
        if (rc < 0)
            return pg_die_last();
    }
    if (optind < nopt)
        return pg_die("unexpected argument '%s': put the command after '--'", argv[optind]);
    if (ncmd == 0)
        return pg_die("no command to record: perfgate record [OPTIONS] -- CMD [ARG...]");
    if (!svg && !folded)
        svg = "flamegraph.svg";
    if (cpu == -1)
        cpu = pg_runner_pick_cpu();
    /* Memory bound of a long recording (docs/sampling.md); small values make tests flush often. */
    const char *fb = getenv("PERFGATE_SAMPLE_FLUSH");
    if (fb && *fb)
        so.flush_bytes = (size_t)strtoull(fb, NULL, 10);

    char cmdline[512] = "";
    for (int i = 0; i < ncmd; i++) {
        size_t l = strlen(cmdline);
        snprintf(cmdline + l, sizeof cmdline - l, "%s%s", i ? " " : "", cmd[i]);
    }

    pg_spawn_install_sigint();
    pg_spawn_opts sp = {
        .argv = cmd, .cpu = cpu >= 0 ? cpu : -1, .aslr_off = 1, .log_cap = 4u << 20,
    };
    pg_folded *f;
    if (pg_folded_new(&f) < 0)
        return pg_die_last();
    pg_sample_result sr;
    pg_spawn_result res;
    int rc = pg_sample_run(f, &sr, &res, &sp, &so);
    replay_output(&res, folded && !strcmp(folded, "-"));
    if (rc < 0 && !res.started) {
        pg_spawn_result_free(&res);
        pg_folded_free(f);
        return pg_die("cannot record %s: %s", cmd[0], pg_error_last());
    }
    if (!res.started) {
        /* exec failed: spawn put the reason in the captured stderr, already shown */
        pg_spawn_result_free(&res);
        pg_folded_free(f);
        return PG_EXIT_USAGE;
    }
    if (sr.notice[0])
        fprintf(stderr, "perfgate: note: %s\n", sr.notice);
    int status = PG_EXIT_OK;
    if (rc < 0) {
        status = pg_die_last();
    } else if (pg_folded_total(f) == 0) {
        pg_die("no samples: %s ran for %.0f ms%s", cmd[0], res.wall_ns / 1e6,
                        sr.sampler.lost ? " and every sample was lost" :
                        so.period ? "; lower -c or record a longer run" : "; raise -F or record a longer run");
        status = res.signal || res.exit_code || res.timed_out ? PG_EXIT_FAIL : PG_EXIT_USAGE;
    } else {
        if (folded && !strcmp(folded, "-")) {
            if (pg_folded_write(f, stdout) < 0)
                status = pg_die_last();
            fflush(stdout);
        } else if (folded && pg_folded_write_file(f, folded) < 0) {
            status = pg_die_last();
        }
        if (status == PG_EXIT_OK && svg && write_svg(svg, f, title, cmdline, &sr, &so) < 0)
            status = pg_die_last();
    }
    if (status == PG_EXIT_OK) {
        const pg_profile_stats *ps = &sr.profile;
        fprintf(stderr, "perfgate record: %llu samples (%s, ", (unsigned long long)ps->samples, sr.event);
        if (so.period)
            fprintf(stderr, "every %llu events", (unsigned long long)so.period);
        else
            fprintf(stderr, "%lu Hz", so.freq);
        fprintf(stderr, ", %s), %llu lost, %.1f%% truncated stacks, %zu distinct stacks; "
                "the command ran %.0f ms, unwinding after it took %.0f ms\n",
                so.callgraph == PG_CALLGRAPH_FP ? "fp" : "dwarf", (unsigned long long)sr.sampler.lost,
                ps->samples ? 100.0 * (double)ps->truncated / (double)ps->samples : 0.0,
                pg_folded_count(f), res.wall_ns / 1e6, sr.unwind_ns / 1e6);
        if (so.flush_bytes)     /* only with PERFGATE_SAMPLE_FLUSH: says whether it had an effect */
            fprintf(stderr, "perfgate record: %llu stacks unwound while the command ran (flush past %zu bytes)\n",
                    (unsigned long long)sr.early, so.flush_bytes);
        if (sr.sampler.dropped)
            fprintf(stderr, "perfgate: warning: %llu samples dropped (more than 512 MiB of stacks buffered)\n",
                    (unsigned long long)sr.sampler.dropped);
        if (sr.sampler.lost)
            fprintf(stderr, "perfgate: warning: the kernel lost %llu samples (buffer full); lower -F\n",
                    (unsigned long long)sr.sampler.lost);
        if (svg)
            fprintf(stderr, "wrote: %s\n", svg);
        if (folded && strcmp(folded, "-"))
            fprintf(stderr, "wrote: %s\n", folded);
    }
    if (res.interrupted) {
        status = status == PG_EXIT_OK ? 130 : status;
    } else if (status != PG_EXIT_USAGE && (res.signal || res.exit_code || res.timed_out)) {
        if (res.signal)
            fprintf(stderr, "perfgate: %s was killed by signal %d (SIG%s)\n", cmd[0], res.signal,
                    sigabbrev_np(res.signal) ? sigabbrev_np(res.signal) : "?");
        else
            fprintf(stderr, "perfgate: %s exited with status %d\n", cmd[0], res.exit_code);
        status = PG_EXIT_FAIL;
    }
    pg_spawn_result_free(&res);
    pg_folded_free(f);
    return status;
}
