/* harness/measure/session.c — see session.h. */
#include "harness/measure/session.h"
#include "counters/probe.h"
#include "util/error.h"
#include "util/metrics.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/random.h>
#include <unistd.h>

int pg_session_open(pg_session *s, pg_backend_kind requested, const char *events, int user_only)
{
    memset(s, 0, sizeof *s);
    pg_probe probe;
    pg_backend_probe(&probe, requested);
    int rc = pg_backend_choose(&s->backend, s->notice, sizeof s->notice, requested, &probe);
    if (rc < 0)
        return rc;
    s->props = pg_backend_props_of(s->backend);
    if (events && !s->props->takes_events)
        pg_text_warn("note: -e %s is ignored by the %s backend", events, s->props->name);
    pg_meter_opts mo = {.backend = s->backend, .events = events, .user_only = user_only};
    if ((rc = pg_meter_new(&s->meter, &mo)) < 0)
        return rc;
    s->requested = requested;
    s->events = events;
    s->user_only = user_only;
    pg_machine_probe(&s->machine, pg_backend_name(s->backend), pg_meter_version(s->meter), pg_meter_geometry(s->meter));
    return 0;
}

void pg_session_tell(const pg_session *s)
{
    /* Most CI runners have no PMU: valgrind chosen for that is said in one
     * short line; `perfgate doctor` and the stored document have the why. */
    if (s->requested == PG_BACKEND_AUTO && s->props->chosen_why)
        pg_text_warn("note: %s", s->props->chosen_why);
    else if (s->notice[0])
        pg_text_warn("note: %s", s->notice);
}

void pg_session_close(pg_session *s)
{
    pg_meter_free(s->meter);
    pg_meter_free(s->native);
    s->meter = s->native = NULL;
}

int pg_session_open_native(pg_session *s)
{
    if (!s->props->native_time)
        return 0;
    s->native_asked = 1;
    char detail[512];
    if (pg_probe_event("task-clock", 0, detail, sizeof detail) != 0) {
        snprintf(s->native_why, sizeof s->native_why, "native time not measured: %s software events cannot be opened (%s)",
                 pg_backend_name(pg_backend_native()), detail);
        pg_text_warn("note: %s", s->native_why);
        return 0;
    }
    /* "" is software events only: no hardware group that could fail or
     * multiplex, and nothing counted twice with valgrind's counts. */
    pg_meter_opts mo = {.backend = pg_backend_native(), .events = "", .user_only = s->user_only};
    return pg_meter_new(&s->native, &mo);
}

static void iso_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Conditions perfgate could not control, recorded with the results. */
static int add_uncontrolled(pg_rundoc_strings *l, int pinned)
{
    char buf[128], s[200];
    int rc = 0;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
    if (f) {
        if (fgets(buf, sizeof buf, f)) {
            buf[strcspn(buf, "\n")] = '\0';
            if (strcmp(buf, "performance")) {
                snprintf(s, sizeof s, "cpu frequency governor is '%s', not 'performance'", buf);
                rc = pg_rundoc_strings_add(l, s);
            }
        }
        fclose(f);
    }
    f = fopen("/sys/devices/system/cpu/intel_pstate/no_turbo", "r");
    if (f) {
        if (rc == 0 && fgets(buf, sizeof buf, f) && buf[0] == '0')
            rc = pg_rundoc_strings_add(l, "turbo boost is on");
        fclose(f);
    }
    if (rc == 0 && !pinned)
        rc = pg_rundoc_strings_add(l, "benchmarks were not pinned to a CPU");
    double load[1];
    if (rc == 0 && getloadavg(load, 1) == 1 && load[0] > 0.5) {
        snprintf(buf, sizeof buf, "system load average was %.2f at the start", load[0]);
        rc = pg_rundoc_strings_add(l, buf);
    }
    return rc;
}

int pg_session_new_doc(pg_rundoc *doc, const pg_session *s, const char *commit, int cpu)
{
    char started[32], runid[64];
    iso_now(started, sizeof started);
    static int seq;
    /* Notes merge runs of many machines by id (harness/store/notes.h): two CI jobs
     * started in the same second in look-alike containers have the same pid,
     * so random bits make the id unique. */
    unsigned int rnd = 0;
    if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        rnd = (unsigned int)time(NULL) ^ ((unsigned int)getpid() << 16);
    snprintf(runid, sizeof runid, "%s-%d-%08x%s", started, (int)getpid(), rnd, seq++ ? "b" : "");
    /* Every run of this process is of one session: the first run's id
     * without its suffix (docs/metrics.md, "Time across sessions"). */
    static char session[64];
    if (!session[0])
        snprintf(session, sizeof session, "%s-%d-%08x", started, (int)getpid(), rnd);
    memset(doc, 0, sizeof *doc);
    doc->machine = s->machine;
    doc->cpu = cpu >= 0 ? cpu : -1;
    doc->aslr_disabled = 1;
    doc->user_only = s->user_only;
    double load[1];
    doc->load = getloadavg(load, 1) == 1 ? load[0] : -1;
    int rc;
    if ((rc = pg_rundoc_set(&doc->perfgate_version, PERFGATE_VERSION)) < 0 || (rc = pg_rundoc_set(&doc->id, runid)) < 0 ||
        (rc = pg_rundoc_set(&doc->session, session)) < 0 ||
        (rc = pg_rundoc_set(&doc->commit, commit)) < 0 || (rc = pg_rundoc_set(&doc->start_time, started)) < 0 ||
        (rc = pg_rundoc_set(&doc->backend, pg_backend_name(s->backend))) < 0 ||
        (rc = pg_rundoc_set(&doc->stdin_path, "/dev/null")) < 0 ||
        (s->props->takes_events &&
         (rc = pg_rundoc_set(&doc->events, s->events ? s->events : PG_METRICS_PERF_DEFAULT)) < 0) ||
        (rc = add_uncontrolled(&doc->uncontrolled, cpu >= 0)) < 0 ||
        (s->notice[0] && (rc = pg_rundoc_strings_add(&doc->notices, s->notice)) < 0) ||
        (s->native_why[0] && (rc = pg_rundoc_strings_add(&doc->notices, s->native_why)) < 0))
        return rc;
    if (s->props->native_time) {
        doc->has_native = 1;
        doc->native = s->native != NULL;
    }
    if ((rc = pg_rundoc_add_backend(doc, pg_backend_name(s->backend))) < 0)
        return rc;
    return s->native ? pg_rundoc_add_backend(doc, pg_backend_name(pg_backend_native())) : 0;
}

int pg_session_finish_doc(const pg_session *s, pg_rundoc *doc)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && pg_meter_unavailable(s->meter, i); i++) {
        /* The backend notice already said there are no hardware counters;
         * stderr hears it once, the document keeps every event's reason. */
        if (!s->notice[0])
            pg_text_warn("not counted, and not recorded: %s", pg_meter_unavailable(s->meter, i));
        rc = pg_rundoc_strings_add(&doc->notices, pg_meter_unavailable(s->meter, i));
    }
    char ended[32];
    iso_now(ended, sizeof ended);
    return rc < 0 ? rc : pg_rundoc_set(&doc->end_time, ended);
}

