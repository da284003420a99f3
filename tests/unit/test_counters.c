/* The counters: libpfm4 encoding of shared and raw names, suggestions for
 * misspelt ones, perf's scaling arithmetic, the backend fallback decision,
 * hardware events that fail to open (this machine has no PMU, so the failure
 * path is exercised for real; on a machine with one, the counts are checked
 * instead), and cachegrind output parsing. */
#include "counters/backend.h"
#include "counters/evlist.h"
#include "counters/evsel.h"
#include "counters/probe.h"
#include "counters/valgrind.h"
#include "tests/check.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_encoding(void)
{
    pg_evsel ev;
    CHECK_EQ_INT(pg_evsel_init(&ev, "instructions", 1), 0);
    CHECK_EQ_INT(ev.attr.type, PERF_TYPE_HARDWARE);
    CHECK_EQ_INT(ev.attr.config, PERF_COUNT_HW_INSTRUCTIONS);
    CHECK_EQ_INT(ev.attr.exclude_kernel, 1);
    CHECK_EQ_INT(ev.attr.exclude_user, 0);
    CHECK(ev.is_hardware);
    CHECK_STR(ev.unit, "count");
    CHECK_STR(ev.pfm_name, "perf::PERF_COUNT_HW_INSTRUCTIONS");

    CHECK_EQ_INT(pg_evsel_init(&ev, "instructions", 0), 0);
    CHECK_EQ_INT(ev.attr.exclude_kernel, 0);

    CHECK_EQ_INT(pg_evsel_init(&ev, "branch-misses", 1), 0);
    CHECK_EQ_INT(ev.attr.config, PERF_COUNT_HW_BRANCH_MISSES);
    CHECK_EQ_INT(pg_evsel_init(&ev, "cache-misses", 1), 0);
    CHECK_EQ_INT(ev.attr.config, PERF_COUNT_HW_CACHE_MISSES);

    /* A hardware cache event by its perf:: name. */
    CHECK_EQ_INT(pg_evsel_init(&ev, "perf::L1-dcache-load-misses", 1), 0);
    CHECK_EQ_INT(ev.attr.type, PERF_TYPE_HW_CACHE);
    CHECK_EQ_INT(ev.attr.config, PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                     (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
    CHECK_STR(ev.name, "perf::L1-dcache-load-misses");

    /* Software events count kernel-side work too, even with user_only. */
    CHECK_EQ_INT(pg_evsel_init(&ev, "context-switches", 1), 0);
    CHECK_EQ_INT(ev.attr.type, PERF_TYPE_SOFTWARE);
    CHECK_EQ_INT(ev.attr.exclude_kernel, 0);
    CHECK(!ev.is_hardware);
    CHECK_EQ_INT(pg_evsel_init(&ev, "task-clock", 1), 0);
    CHECK_STR(ev.unit, "ns");

    /* Unknown names: an error that suggests the close ones. */
    CHECK_EQ_INT(pg_evsel_init(&ev, "instrucions", 1), PG_ENOTFOUND);
    CHECK_CONTAINS(pg_error_last(), "unknown event 'instrucions'; did you mean 'instructions'");
    CHECK_EQ_INT(pg_evsel_init(&ev, "brnch-misses", 1), PG_ENOTFOUND);
    CHECK_CONTAINS(pg_error_last(), "'branch-misses'");
    CHECK_EQ_INT(pg_evsel_init(&ev, "zzzzzzzzzzzzzzzzzzzzzz", 1), PG_ENOTFOUND);
    CHECK_CONTAINS(pg_error_last(), "unknown event 'zzzzzzzzzzzzzzzzzzzzzz'");
    CHECK(!strstr(pg_error_last(), "did you mean"));
    CHECK_EQ_INT(pg_evsel_init(&ev, "", 1), PG_EINVAL);

    /* A bad list fails as a whole, before anything runs. */
    pg_evlist *l = NULL;
    CHECK_EQ_INT(pg_evlist_new(&l, "instructions,cyclez", 1), PG_ENOTFOUND);
    CHECK_CONTAINS(pg_error_last(), "'cyclez'");
    CHECK_EQ_INT(pg_evlist_new(&l, NULL, 1), 0);
    /* 4 default hardware events + 4 software events always counted. */
    CHECK_EQ_INT(pg_evlist_count(l), 8);
    CHECK_STR(pg_evlist_get(l, 0)->name, "instructions");
    CHECK_STR(pg_evlist_get(l, 7)->name, "cpu-migrations");
    pg_evlist_free(l);
    /* Duplicates and spaces collapse. */
    CHECK_EQ_INT(pg_evlist_new(&l, " cycles , cycles,task-clock", 1), 0);
    CHECK_EQ_INT(pg_evlist_count(l), 5);
    pg_evlist_free(l);
}

/* The built-in table of perf's generic events must encode exactly as libpfm4. */
static void test_generic_table(void)
{
    const char *name;
    size_t i = 0;
    for (; (name = pg_evsel_generic_name(i)); i++) {
        for (int user_only = 0; user_only < 2; user_only++) {
            pg_evsel fast, pfm;
            CHECK_EQ_INT(pg_evsel_init(&fast, name, user_only), 0);
            CHECK_EQ_INT(pg_evsel_init_pfm(&pfm, name, user_only), 0);
            if (memcmp(&fast.attr, &pfm.attr, sizeof fast.attr))
                fprintf(stderr, "encoding of %s (user_only %d) differs from libpfm4's\n", name, user_only);
            CHECK(memcmp(&fast.attr, &pfm.attr, sizeof fast.attr) == 0);
            CHECK_STR(fast.pfm_name, pfm.pfm_name);
            CHECK_STR(fast.unit, pfm.unit);
            CHECK_EQ_INT(fast.is_hardware, pfm.is_hardware);
        }
    }
    CHECK_EQ_INT(i, 11);
}

static void test_scaling(void)
{
    double v, f;
    pg_evsel_scale(1000, 2000, 2000, &v, &f);      /* not multiplexed */
    CHECK_NEAR(v, 1000, 0);
    CHECK_NEAR(f, 1.0, 0);
    pg_evsel_scale(1000, 4000, 1000, &v, &f);      /* on the PMU a quarter of the time */
    CHECK_NEAR(v, 4000, 1e-9);
    CHECK_NEAR(f, 0.25, 1e-12);
    pg_evsel_scale(333, 1000, 333, &v, &f);
    CHECK_NEAR(v, 1000, 1e-9);
    CHECK_NEAR(f, 0.333, 1e-12);
    pg_evsel_scale(5, 100, 0, &v, &f);             /* never ran: "not counted", not zero */
    CHECK_NEAR(v, 0, 0);
    CHECK_NEAR(f, 0, 0);
    pg_evsel_scale(7, 100, 101, &v, &f);           /* rounding: running past enabled */
    CHECK_NEAR(v, 7, 0);
    CHECK_NEAR(f, 1.0, 0);
    /* 64-bit counts survive the arithmetic. */
    pg_evsel_scale(1ULL << 40, 3000000000ULL, 1500000000ULL, &v, &f);
    CHECK_NEAR(v, (double)(1ULL << 41), 1.0);
}

static void test_strerror(void)
{
    char buf[512];
    CHECK_CONTAINS(pg_evsel_strerror(ENOENT, buf, sizeof buf), "no hardware performance counters");
    CHECK_CONTAINS(buf, "--backend valgrind");
    CHECK_CONTAINS(pg_evsel_strerror(EACCES, buf, sizeof buf), "perf_event_paranoid");
    CHECK_CONTAINS(buf, "sysctl kernel.perf_event_paranoid=1");
    CHECK_CONTAINS(pg_evsel_strerror(EBUSY, buf, sizeof buf), "in use");
}

static pg_probe fake_probe(int hw, int sw, int vg)
{
    pg_probe p;
    memset(&p, 0, sizeof p);
    pg_backend_fit *perf = &p.fit[PG_BACKEND_PERF], *val = &p.fit[PG_BACKEND_VALGRIND];
    perf->fit = hw ? PG_FIT_FULL : sw ? PG_FIT_PART : PG_FIT_NONE;
    snprintf(perf->why, sizeof perf->why, "%s", hw ? "" : sw ? "hardware counters unavailable (NO-PMU-REASON)" : "NO-SW-REASON");
    snprintf(perf->part, sizeof perf->part, "counting software events only");
    val->fit = vg ? PG_FIT_FULL : PG_FIT_NONE;
    snprintf(val->why, sizeof val->why, "%s", vg ? "" : "NO-VG-REASON");
    return p;
}

static void test_fallback(void)
{
    pg_backend_kind k;
    char notice[1024];
    pg_probe p = fake_probe(1, 1, 1);
    CHECK_EQ_INT(pg_backend_choose(&k, notice, sizeof notice, PG_BACKEND_AUTO, &p), 0);
    CHECK_EQ_INT(k, PG_BACKEND_PERF);
    CHECK_STR(notice, "");

    p = fake_probe(0, 1, 1);                       /* this machine: no PMU */
    CHECK_EQ_INT(pg_backend_choose(&k, notice, sizeof notice, PG_BACKEND_AUTO, &p), 0);
    CHECK_EQ_INT(k, PG_BACKEND_VALGRIND);
    CHECK_CONTAINS(notice, "NO-PMU-REASON");
    CHECK_CONTAINS(notice, "using the valgrind backend");

    p = fake_probe(0, 1, 0);                       /* no PMU, no valgrind */
    CHECK_EQ_INT(pg_backend_choose(&k, notice, sizeof notice, PG_BACKEND_AUTO, &p), 0);
    CHECK_EQ_INT(k, PG_BACKEND_PERF);
    CHECK_CONTAINS(notice, "software events only");
    CHECK_CONTAINS(notice, "NO-VG-REASON");

    p = fake_probe(0, 0, 0);
    CHECK_EQ_INT(pg_backend_choose(&k, notice, sizeof notice, PG_BACKEND_AUTO, &p), PG_ENOTSUP);
    CHECK_CONTAINS(pg_error_last(), "nothing can be measured");

    p = fake_probe(1, 1, 0);                       /* forced valgrind without valgrind */
    CHECK_EQ_INT(pg_backend_choose(&k, notice, sizeof notice, PG_BACKEND_VALGRIND, &p), PG_ENOTSUP);
    CHECK_CONTAINS(pg_error_last(), "NO-VG-REASON");

    p = fake_probe(0, 1, 1);                       /* forced perf without PMU: software, said */
    CHECK_EQ_INT(pg_backend_choose(&k, notice, sizeof notice, PG_BACKEND_PERF, &p), 0);
    CHECK_EQ_INT(k, PG_BACKEND_PERF);
    CHECK_CONTAINS(notice, "software events only");

    p = fake_probe(0, 0, 1);
    CHECK_EQ_INT(pg_backend_choose(&k, notice, sizeof notice, PG_BACKEND_PERF, &p), PG_ENOTSUP);

    CHECK_EQ_INT(pg_backend_parse(&k, "valgrind"), 0);
    CHECK_EQ_INT(k, PG_BACKEND_VALGRIND);
    CHECK_EQ_INT(pg_backend_parse(&k, "gpu"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "unknown backend 'gpu'");
}

/* Counts a real child: forked, held on a pipe, counters opened, released to exec. */
static void test_count_child(void)
{
    pg_probe probe;
    pg_probe_init(&probe);
    pg_probe_perf(&probe);
    pg_evlist *l = NULL;
    CHECK_EQ_INT(pg_evlist_new(&l, NULL, 1), 0);
    if (!l)
        return;
    int go[2];
    CHECK_EQ_INT(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 1)
            _exit(99);
        execl("/bin/sh", "sh", "-c", "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done", (char *)NULL);
        _exit(98);
    }
    close(go[0]);
    CHECK_EQ_INT(pg_evlist_open(l, pid), 0);
    CHECK_EQ_INT(write(go[1], "g", 1), 1);
    close(go[1]);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    pg_readings rd = {0};
    CHECK_EQ_INT(pg_evlist_read(l, &rd), 0);
    const pg_reading *tc = pg_readings_find(&rd, "task-clock");
    CHECK(tc && tc->value > 0 && tc->running == 1.0);
    const pg_reading *pf = pg_readings_find(&rd, "page-faults");
    CHECK(pf && pf->value > 10);     /* exec of a shell faults in pages */
    CHECK(pg_readings_find(&rd, "context-switches") != NULL);
    const pg_reading *in = pg_readings_find(&rd, "instructions");
    if (probe.hw_instructions) {
        CHECK(in && in->value > 1e5);
        CHECK_EQ_INT(pg_evlist_unavailable_count(l), 0);
    } else {
        /* No PMU: the hardware events are reported, with the reason, and never stored as 0. */
        CHECK(in == NULL);
        CHECK(pg_readings_find(&rd, "cycles") == NULL);
        CHECK_EQ_INT(pg_evlist_unavailable_count(l), 4);
        const char *why = NULL;
        CHECK_STR(pg_evlist_unavailable(l, 0, &why), "instructions");
        CHECK_CONTAINS(why, "fix:");
        CHECK(pg_evlist_unavailable(l, 4, NULL) == NULL);
    }
    pg_readings_free(&rd);
    pg_evlist_free(l);
}

static void test_valgrind_parse(void)
{
    const char *text =
        "desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
        "cmd: ./work 1000\n"
        "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
        "fl=work.c\n"
        "fn=main\n"
        "12 5 1 1 0 0 0 0 0 0 0 0 0 0\n"
        "summary: 1000 10 5 300 20 7 200 4 3 150 12 6 2\n";
    unsigned long long t[13] = {0};
    unsigned present = 0;
    CHECK_EQ_INT(pg_valgrind_parse(t, &present, text, "a.out"), 13);
    CHECK_EQ_INT(present, 0x1fff);
    CHECK_EQ_INT(t[0], 1000);
    CHECK_EQ_INT(t[12], 2);
    /* A second file (a traced child process) adds to the totals. */
    CHECK_EQ_INT(pg_valgrind_parse(t, &present, text, "b.out"), 13);
    CHECK_EQ_INT(t[0], 2000);
    CHECK_EQ_INT(t[10], 24);
    /* Without branch simulation: fewer columns, still in place. */
    unsigned long long u[13] = {0};
    present = 0;
    CHECK_EQ_INT(pg_valgrind_parse(u, &present, "events: Ir Dr\nsummary: 77 33\n", "c.out"), 2);
    CHECK_EQ_INT(u[0], 77);
    CHECK_EQ_INT(u[3], 33);
    CHECK_EQ_INT(present, 1u << 0 | 1u << 3);   /* Ir and Dr only: the others are absent, not 0 */
    /* --cache-sim=no --branch-sim=no: instructions only. */
    unsigned long long v[13] = {0};
    present = 0;
    CHECK_EQ_INT(pg_valgrind_parse(v, &present, "events: Ir\nsummary: 4242\n", "ir.out"), 1);
    CHECK_EQ_INT(v[0], 4242);
    CHECK_EQ_INT(present, 1);
    CHECK_EQ_INT(pg_valgrind_parse(u, &present, "events: Ir Dr\nsummary: 77\n", "short.out"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "short.out: summary has 1 values for 2 events");
    CHECK_EQ_INT(pg_valgrind_parse(u, &present, "hello\n", "junk.out"), PG_EINVAL);
    CHECK_CONTAINS(pg_error_last(), "junk.out: no 'summary:' line");
}

/* One output file of a run, with `cmd` as its tool writes it. */
static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    REQUIRE(pg_file_write_atomic_nosync(path, text, strlen(text)) == 0);
}

/* Which processes of a run ran the command: cachegrind's "cmd: " and
 * callgrind's "cmd:  ", forks of the command allowed, an exec'd program
 * (or a file without a name) not. */
static void test_valgrind_others(void)
{
    char dir[256], out[128], *wrapped[] = {"valgrind.bin", "--vgdb=no", "--tool=cachegrind", "./prog", "in put", NULL};
    REQUIRE(pg_mkdtemp(dir, sizeof dir, "pg-vgcmd-") == 0);
    put(dir, "cachegrind.out.10", "desc: I1 cache: 32768 B\ncmd: ./prog in put\nevents: Ir\nsummary: 5\n");
    put(dir, "cachegrind.out.11", "cmd: ./prog in put\nevents: Ir\nsummary: 7\n");
    put(dir, "callgrind.out.12", "version: 1\npid: 12\ncmd:  ./prog in put\npart: 1\n");
    CHECK_EQ_INT(pg_valgrind_others(out, sizeof out, dir, "cachegrind.out.", wrapped), 0);
    CHECK_STR(out, "");
    CHECK_EQ_INT(pg_valgrind_others(out, sizeof out, dir, "callgrind.out.", wrapped), 0);
    put(dir, "callgrind.out.13", "version: 1\npid: 13\ncmd:  /usr/bin/other x\npart: 1\n");
    CHECK_EQ_INT(pg_valgrind_others(out, sizeof out, dir, "callgrind.out.", wrapped), 1);
    CHECK_STR(out, "/usr/bin/other x");
    put(dir, "cachegrind.out.14", "events: Ir\nsummary: 9\n");
    CHECK_EQ_INT(pg_valgrind_others(out, sizeof out, dir, "cachegrind.out.", wrapped), 1);
    CHECK_STR(out, "a process whose command valgrind did not write");
    CHECK_EQ_INT(pg_remove_tree(dir), 0);
}

/* Backend words outside counters/ come from the registry (backend.h). */
static void test_registry_words(void)
{
    char buf[256];
    CHECK_STR(pg_backend_expand(buf, sizeof buf, "{backends}"), "auto (default), perf, valgrind or dhat");
    CHECK_STR(pg_backend_expand(buf, sizeof buf, "only ({names})"), "only (perf, valgrind or dhat)");
    CHECK_STR(pg_backend_expand(buf, sizeof buf, "{native-time} backend, {exact}; {takes-events} events"),
              "valgrind or dhat backend, valgrind or dhat; perf events");
    CHECK_STR(pg_backend_expand(buf, sizeof buf, "default: {repeat}; {warmup}; {unknown}"),
              "default: 5 perf, 1 valgrind, 1 dhat; 1 perf, 0 valgrind, 0 dhat; {unknown}");
    CHECK_STR(pg_backend_expand(buf, 12, "{backends}"), "auto (defau");    /* cut to fit */
    int d1mr = 0;
    for (const char *const *e = pg_backend_events(); *e; e++)
        d1mr |= !strcmp(*e, "D1mr");
    CHECK(d1mr);
    CHECK_STR(pg_backend_env_keep(0), "VALGRIND_LIB");
    CHECK(pg_backend_env_keep(1) == NULL);
    CHECK(pg_backend_props_of(pg_backend_native())->native);
}

int main(void)
{
    test_registry_words();
    test_encoding();
    test_generic_table();
    test_scaling();
    test_strerror();
    test_fallback();
    test_count_child();
    test_valgrind_parse();
    test_valgrind_others();
    return pg_check_done();
}
