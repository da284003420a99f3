/* Unit tests: counters/kallsyms.h (kernel frames named from /proc/kallsyms)
 * and counters/procscan.h (the processes already running, as the records
 * a system-wide recording replays). */
#include "../check.h"
#include "counters/kallsyms.h"
#include "counters/procscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/pg-kallsyms-XXXXXX";

static void put(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    if (!f) {
        perror(p);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static void test_kallsyms(void)
{
    put("kallsyms", "ffffffff81000000 T _stext\n"
                    "ffffffff81001000 t do_one\n"
                    "ffffffff81001800 D some_data\n"       /* data: never a frame's name */
                    "ffffffff81002000 W weak_fn\n"
                    "ffffffffc0000000 t mod_fn\t[mymod]\n"
                    "garbage line\n");
    char p[512];
    snprintf(p, sizeof p, "%s/kallsyms", dir);
    pg_kallsyms *k;
    CHECK_EQ_INT(pg_kallsyms_load(&k, p), 0);
    CHECK_STR(pg_kallsyms_frame(k, 0xffffffff81001010ull), "do_one_[k]");
    CHECK_STR(pg_kallsyms_frame(k, 0xffffffff81001900ull), "do_one_[k]");   /* past some_data: still do_one's code */
    CHECK_STR(pg_kallsyms_frame(k, 0xffffffff81002000ull), "weak_fn_[k]");
    CHECK_STR(pg_kallsyms_frame(k, 0xffffffffc0000004ull), "mod_fn_[k]");
    CHECK_STR(pg_kallsyms_frame(k, 0xffffffff80000000ull), "[kernel.kallsyms]_[k]");
    CHECK_EQ_INT(pg_kallsyms_hidden(k), 0);
    pg_kallsyms_free(k);

    /* kptr_restrict: every address 0, nothing can be named, and that is said. */
    put("hidden", "0000000000000000 T _stext\n0000000000000000 t do_one\n");
    snprintf(p, sizeof p, "%s/hidden", dir);
    CHECK_EQ_INT(pg_kallsyms_load(&k, p), 0);
    CHECK_EQ_INT(pg_kallsyms_hidden(k), 1);
    CHECK_STR(pg_kallsyms_frame(k, 0xffffffff81001010ull), "[kernel.kallsyms]_[k]");
    pg_kallsyms_free(k);
    /* No file: an empty table, not an error. */
    CHECK_EQ_INT(pg_kallsyms_load(&k, "/nonexistent/kallsyms"), 0);
    CHECK_STR(pg_kallsyms_frame(k, 0xffffffff81001010ull), "[kernel.kallsyms]_[k]");
    CHECK_EQ_INT(pg_kallsyms_hidden(k), 0);
    pg_kallsyms_free(k);
    CHECK(pg_kallsyms_is_kernel(0xffffffff81000000ull) && !pg_kallsyms_is_kernel(0x7fff00001000ull));
}

typedef struct seen {
    int comms, mmaps;
    char text[2048];
} seen;

static int collect(void *ctx, const struct perf_event_header *h)
{
    seen *s = ctx;
    const uint32_t *u = (const uint32_t *)(h + 1);
    size_t l = strlen(s->text);
    /* Every record ends with the sample_id trailer: time 0, before every real record. */
    uint64_t time;
    memcpy(&time, (const char *)h + h->size - 8, sizeof time);
    CHECK(time == 0 && h->size % 8 == 0);
    if (h->type == PERF_RECORD_COMM) {
        s->comms++;
        snprintf(s->text + l, sizeof s->text - l, "comm %u/%u %s\n", u[0], u[1], (const char *)(u + 2));
    } else if (h->type == PERF_RECORD_MMAP2) {
        s->mmaps++;
        const uint64_t *w = (const uint64_t *)(u + 2);
        uint32_t prot;
        memcpy(&prot, (const char *)h + 64, sizeof prot);
        snprintf(s->text + l, sizeof s->text - l, "mmap %u %llx+%llx@%llx %s%s\n", u[0], (unsigned long long)w[0],
                 (unsigned long long)w[1], (unsigned long long)w[2], prot & PROT_EXEC ? "x " : "", (const char *)h + 72);
    }
    return 0;
}

static void test_procscan(void)
{
    char p[512];
    snprintf(p, sizeof p, "%s/proc", dir);
    mkdir(p, 0755);
    mkdir(strcat(p, "/42"), 0755);
    mkdir(strcat(p, "/task"), 0755);
    snprintf(p, sizeof p, "%s/proc/42/task/42", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/proc/42/task/43", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/proc/self", dir);     /* not a pid: skipped */
    mkdir(p, 0755);
    put("proc/42/comm", "busy\n");
    put("proc/42/task/42/comm", "busy\n");
    put("proc/42/task/43/comm", "worker\n");
    put("proc/42/maps", "55d0a000-55d0b000 r--p 00000000 08:01 1234   /usr/bin/busy\n"
                        "55d0b000-55d0c000 r-xp 00001000 08:01 1234   /usr/bin/busy\n"
                        "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
                        "7f0000002000-7f0000003000 r-xp 00000000 00:00 0   [vdso]\n"
                        "7f0000004000-7f0000005000 r-xp 00000000 00:00 0   [anon:jit]\n"
                        "7f0000006000-7f0000007000 r-xp 00002000 08:01 99   /lib/a b.so\n");
    snprintf(p, sizeof p, "%s/proc", dir);
    seen s = {0};
    CHECK_EQ_INT(pg_procscan(p, collect, &s), 1);
    CHECK_EQ_INT(s.comms, 3);
    CHECK_EQ_INT(s.mmaps, 3);
    /* The process's comm first, its mappings, then its threads' (in readdir's order). */
    static const char head[] = "comm 42/42 busy\n"
                               "mmap 42 55d0b000+1000@1000 x /usr/bin/busy\n"
                               "mmap 42 7f0000002000+1000@0 x [vdso]\n"
                               "mmap 42 7f0000006000+1000@2000 x /lib/a b.so\n";
    CHECK(!strncmp(s.text, head, sizeof head - 1));
    CHECK_CONTAINS(s.text + sizeof head - 1, "comm 42/42 busy\n");
    CHECK_CONTAINS(s.text + sizeof head - 1, "comm 42/43 worker\n");
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    test_kallsyms();
    test_procscan();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return pg_check_done();
}
