/* harness/cli/cmd_doctor.c — `perfgate doctor`: what can be measured here, and
 * for each thing that cannot, why and how to fix it. */
#include "counters/backend.h"
#include "counters/evsel.h"
#include "counters/probe.h"
#include "counters/uprobe.h"
#include "harness/cli/builtin.h"
#include "harness/cli/commands.h"
#include "harness/measure/canon.h"
#include "harness/measure/contain.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>

static const pg_opt_cmd spec = {
    .prog = "perfgate doctor",
    .usage = "usage: perfgate doctor\n"
             "\n"
             "Says which backends and events work on this machine, which backend\n"
             "'--backend auto' would choose, and for each thing that does not work, why\n"
             "and how to fix it.\n",
    .footer = "Exit status: 0 something can be measured, 2 nothing can.\n",
};

static void line(const char *what, int ok, const char *detail)
{
    printf("  %-34s %-4s %s\n", what, ok ? "ok" : "no", detail);
}

/* The backends' own lines (counters/backend.h); ok < 0 is a section's heading. */
static void backend_line(void *ctx, const char *what, int ok, const char *detail)
{
    if (ok < 0)
        printf("\n%s\n", what);
    else
        line(what, ok, detail);
}

/* One event tried on this process, counted. */
static void event_line(const char *name)
{
    char why[512];
    int ok = pg_probe_event(name, 0, why, sizeof why) == 0;
    if (ok) {
        char shown[520];
        snprintf(shown, sizeof shown, "(%s)", why);
        line(name, ok, shown);
        return;
    }
    /* Four events failing for one reason read better said once. */
    static char last_why[512];
    if (!strcmp(why, last_why)) {
        line(name, ok, "(same reason as above)");
        return;
    }
    snprintf(last_why, sizeof last_why, "%s", why);
    line(name, 0, why);
}

int pg_cmd_doctor(pg_ctx *ctx, int argc, char **argv)
{
    static const pg_opt opts[] = {PG_OPT_END()};
    int status;
    if (pg_cmd_parse(&status, ctx, &spec, opts, argc, argv))
        return status;
    if (ctx->args.nargs > 0 || ctx->args.dashdash)
        return pg_die("doctor takes no arguments, got '%s'; see 'perfgate doctor --help'",
                      ctx->args.nargs ? ctx->args.args[0] : "--");

    pg_probe p;
    pg_backend_probe(&p, PG_BACKEND_AUTO);
    pg_probe_perf(&p);
    printf("perf_event (kernel counters)\n");
    char buf[160];
    snprintf(buf, sizeof buf, "%d%s", p.paranoid,
             p.paranoid > 2 ? " (counting other users' or kernel events needs root)" : "");
    line("perf_event_paranoid", p.paranoid != -99, p.paranoid == -99 ? "unknown (no /proc/sys/kernel/perf_event_paranoid)" : buf);
    char pmu[64];
    pg_pfm_default_pmu(pmu, sizeof pmu);
    line("libpfm4 default PMU", pmu[0] != 0, pmu[0] ? pmu : "none detected: only the generic perf:: events are known");
    static const pg_metric_kind kinds[] = {PG_METRIC_HARDWARE, PG_METRIC_SOFTWARE};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        const char *names[16];
        size_t n = pg_metric_names(names, 16, kinds[k]);
        for (size_t i = 0; i < n && i < 16; i++)
            event_line(names[i]);
    }
    line("sampling on cycles", p.sampling_hw, p.sampling_hw ? "" : "needs hardware counters (above)");
    line("sampling on cpu-clock", p.sampling_sw, p.sampling_sw ? "" : p.sw_why);
    char uwhy[512];
    int uprobes = pg_uprobe_probe(uwhy, sizeof uwhy);
    char ucalls[128];
    snprintf(ucalls, sizeof ucalls, "(exact call counts with the %s backend)", pg_backend_name(pg_backend_native()));
    line("uprobes (--count-calls)", uprobes, uprobes ? ucalls : uwhy);

    pg_backend_doctor_tools(&p, backend_line, NULL);

    printf("\nbenchmark processes (what a benchmark starts ends with its run)\n");
    line("process group, parent-death signal", 1, "");
    line("subreaper sweep", 1, "(daemons that leave the group: setsid())");
    char where[700];
    int cgroup = pg_contain_cgroup(where, sizeof where);
    line("cgroup v2 per run", cgroup, where);
    if (!cgroup)
        printf("  %-34s      %s\n", "", "without one, a setsid() daemon of a benchmark outlives a perfgate that is SIGKILLed");
    /* Same program, same count: docs/metrics.md, "The execution context". */
    line("its tree at " PG_CANON_TREE, pg_canon_tree_ready(), pg_canon_tree_how());

    printf("\nbackends\n");
    pg_backend_doctor(&p, backend_line, NULL);
    pg_backend_kind chosen;
    char notice[1024];
    if (pg_backend_choose(&chosen, notice, sizeof notice, PG_BACKEND_AUTO, &p) < 0) {
        printf("\n--backend auto: nothing can be measured here: %s\n", pg_error_last());
        return PG_EXIT_USAGE;
    }
    printf("\n--backend auto chooses: %s%s\n", pg_backend_name(chosen), pg_backend_choice_note(chosen, &p));
    if (notice[0])
        printf("  because %s\n", notice);
    return PG_EXIT_OK;
}
