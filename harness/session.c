/* harness/session.c — see session.h. */
#include "harness/session.h"
#include "counters/probe.h"
#include "util/error.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int pg_session_open(pg_session *s, pg_backend_kind requested, const char *events, int user_only)
{
    memset(s, 0, sizeof *s);
    pg_probe probe;
    pg_probe_run(&probe, requested == PG_BACKEND_PERF ? PG_PROBE_PERF
                         : requested == PG_BACKEND_VALGRIND ? PG_PROBE_VALGRIND : PG_PROBE_ALL);
    int rc = pg_backend_choose(&s->backend, s->notice, sizeof s->notice, requested, &probe);
    if (rc < 0)
        return rc;
    if (events && s->backend == PG_BACKEND_VALGRIND)
        pg_text_warn("note: -e %s is ignored by the valgrind backend", events);
    pg_meter_opts mo = {.backend = s->backend, .events = events, .user_only = user_only};
    if ((rc = pg_meter_new(&s->meter, &mo)) < 0)
        return rc;
    if (s->notice[0])
        pg_text_warn("note: %s", s->notice);
    s->events = events;
    s->user_only = user_only;
    pg_machine_probe(&s->machine, pg_backend_name(s->backend), pg_meter_version(s->meter), pg_meter_geometry(s->meter));
    return 0;
}

void pg_session_close(pg_session *s)
{
    pg_meter_free(s->meter);
    s->meter = NULL;
}

static void iso_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Conditions perfgate could not control, recorded with the results. */
static void add_uncontrolled(cJSON *arr, int pinned)
{
    char buf[128];
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
    if (f) {
        if (fgets(buf, sizeof buf, f)) {
            buf[strcspn(buf, "\n")] = '\0';
            if (strcmp(buf, "performance")) {
                char s[200];
                snprintf(s, sizeof s, "cpu frequency governor is '%s', not 'performance'", buf);
                cJSON_AddItemToArray(arr, cJSON_CreateString(s));
            }
        }
        fclose(f);
    }
    f = fopen("/sys/devices/system/cpu/intel_pstate/no_turbo", "r");
    if (f) {
        if (fgets(buf, sizeof buf, f) && buf[0] == '0')
            cJSON_AddItemToArray(arr, cJSON_CreateString("turbo boost is on"));
        fclose(f);
    }
    if (!pinned)
        cJSON_AddItemToArray(arr, cJSON_CreateString("benchmarks were not pinned to a CPU"));
    double load[1];
    if (getloadavg(load, 1) == 1 && load[0] > 0.5) {
        snprintf(buf, sizeof buf, "system load average was %.2f at the start", load[0]);
        cJSON_AddItemToArray(arr, cJSON_CreateString(buf));
    }
}

cJSON *pg_session_new_doc(const pg_session *s, const char *commit, int dirty, int cpu)
{
    char started[32], runid[64];
    iso_now(started, sizeof started);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", "perfgate-run/1");
    cJSON_AddStringToObject(doc, "perfgate_version", PERFGATE_VERSION);
    static int seq;
    snprintf(runid, sizeof runid, "%s-%d%s", started, (int)getpid(), seq++ ? "b" : "");
    cJSON_AddStringToObject(doc, "id", runid);
    if (commit)
        cJSON_AddStringToObject(doc, "commit", commit);
    else
        cJSON_AddNullToObject(doc, "commit");
    cJSON_AddBoolToObject(doc, "dirty", dirty);
    cJSON_AddStringToObject(doc, "start_time", started);
    cJSON_AddItemToObject(doc, "machine", pg_machine_to_json(&s->machine));
    cJSON_AddStringToObject(doc, "backend", pg_backend_name(s->backend));
    cJSON *settings = cJSON_AddObjectToObject(doc, "settings");
    if (cpu >= 0)
        cJSON_AddNumberToObject(settings, "cpu", cpu);
    else
        cJSON_AddNullToObject(settings, "cpu");
    cJSON_AddBoolToObject(settings, "aslr_disabled", 1);
    cJSON_AddStringToObject(settings, "stdin", "/dev/null");
    if (s->backend == PG_BACKEND_PERF) {
        cJSON_AddStringToObject(settings, "events", s->events ? s->events : "instructions,cycles,cache-misses,branch-misses");
        cJSON_AddBoolToObject(settings, "user_only", s->user_only);
    }
    add_uncontrolled(cJSON_AddArrayToObject(doc, "uncontrolled"), cpu >= 0);
    cJSON *notes = cJSON_AddArrayToObject(doc, "notices");
    if (s->notice[0])
        cJSON_AddItemToArray(notes, cJSON_CreateString(s->notice));
    cJSON_AddArrayToObject(doc, "benchmarks");
    return doc;
}

void pg_session_finish_doc(const pg_session *s, cJSON *doc)
{
    cJSON *notes = cJSON_GetObjectItemCaseSensitive(doc, "notices");
    for (size_t i = 0; pg_meter_unavailable(s->meter, i); i++) {
        /* The backend notice already said there are no hardware counters;
         * stderr hears it once, the document keeps every event's reason. */
        if (!s->notice[0])
            pg_text_warn("not counted, and not recorded: %s", pg_meter_unavailable(s->meter, i));
        cJSON_AddItemToArray(notes, cJSON_CreateString(pg_meter_unavailable(s->meter, i)));
    }
    char ended[32];
    iso_now(ended, sizeof ended);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "end_time");
    cJSON_AddStringToObject(doc, "end_time", ended);
}

int pg_session_build(const char *cmd, const char *dir)
{
    pg_text_warn("building: %s", cmd);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return pg_error_errno(PG_ERROR, "cannot fork for the build command");
    if (pid == 0) {
        if (dir && chdir(dir) < 0)
            _exit(126);
        dup2(2, 1);     /* keep stdout for perfgate's own output (--format json) */
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return pg_error_set(PG_ERROR, "the manifest's build command failed (%s %d): %s",
                            WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), cmd);
    return 0;
}
