/* Symbolization (counters/symbolize.h) on a known binary — this test itself:
 * a noinline function by name, an inlined call as its own frame, an address
 * no symbol covers as module+0xADDR, the per-address cache; and the
 * address-space bookkeeping (counters/maps.h) that feeds it. */
#include "counters/elffile.h"
#include "counters/maps.h"
#include "counters/symbolize.h"
#include "tests/check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static volatile uintptr_t probe_ret;
static volatile int sink;

__attribute__((noinline)) static void probe(void)
{
    probe_ret = (uintptr_t)__builtin_return_address(0);
    __asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) int inlined_helper(int x)
{
    probe();
    return x * 3;
}

/* Not static: the symbol table must hold it by this name. */
int pg_test_known_function(int x);
__attribute__((noinline)) int pg_test_known_function(int x)
{
    int r = inlined_helper(x) + 1;
    sink = r;
    return r;
}

/* Our own mapping that holds `addr`: path, start, file offset, permissions. */
static int self_map(char *path, size_t len, uint64_t *start, uint64_t *pgoff, unsigned *prot, uintptr_t addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        unsigned long long lo, hi, off;
        char perms[8];
        int n = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &n) < 4)
            continue;
        if (addr >= lo && addr < hi) {
            char *p = line + n;
            p[strcspn(p, "\n")] = '\0';
            snprintf(path, len, "%s", p);
            *start = lo;
            *pgoff = off;
            *prot = (perms[0] == 'r' ? PROT_READ : 0u) | (perms[1] == 'w' ? PROT_WRITE : 0u) |
                    (perms[2] == 'x' ? PROT_EXEC : 0u);
            found = 1;
        }
    }
    if (f)
        fclose(f);
    return found ? 0 : -1;
}

int main(void)
{
    pg_test_known_function(2);
    uintptr_t fn = (uintptr_t)&pg_test_known_function;
    char path[4096];
    uint64_t start = 0, pgoff = 0;
    unsigned prot = 0;
    CHECK(self_map(path, sizeof path, &start, &pgoff, &prot, fn) == 0);

    pg_elffile *f;
    CHECK(pg_elffile_open(&f, path) == 0);
    CHECK(f->ok);
    CHECK(f->has_eh);
    uint64_t bias = 0;
    CHECK(pg_elffile_map_bias(f, start, pgoff, prot, &bias) == 0);
    uint64_t v = fn - bias;

    pg_symbolizer *s;
    CHECK(pg_symbolizer_new(&s) == 0);
    CHECK_STR(pg_symbolize(s, f, (uintptr_t)&probe - bias), "probe");
    CHECK(!strncmp(pg_symbolize(s, f, v), "pg_test_known_function", 22));
    const char *again = pg_symbolize(s, f, v);
    CHECK(again == pg_symbolize(s, f, v));     /* cached: the same string */
    /* The call to probe() sits inside the inlined helper: two frames, outer first. */
    CHECK_STR(pg_symbolize(s, f, probe_ret - 1 - bias), "pg_test_known_function;inlined_helper");
    /* Past every symbol: module+0xADDR */
    char want[256];
    snprintf(want, sizeof want, "%s+0x%llx", f->base, 0x7ffffff0ULL);
    CHECK_STR(pg_symbolize(s, f, 0x7ffffff0ULL), want);
    /* The unwinder reads the file's code through the link-time address. */
    unsigned char code[4];
    CHECK(pg_elffile_read(f, v, code, sizeof code) == 0);
    CHECK(memcmp(code, (const void *)fn, sizeof code) == 0);

    /* A file that does not exist is still named. */
    pg_elffile *gone;
    CHECK(pg_elffile_open(&gone, "/nonexistent/libgone.so") == 0);
    CHECK(!gone->ok);
    CHECK_STR(gone->base, "libgone.so");

    /* Address spaces: exec empties, fork copies, threads share, comm per thread. */
    pg_procs *p;
    CHECK(pg_procs_new(&p) == 0);
    CHECK(pg_procs_comm(p, 100, 100, "parent", 1) == 0);
    CHECK(pg_procs_mmap(p, 100, start, 0x1000, pgoff, prot, path) == 0);
    const pg_map *m = pg_procs_find(p, 100, start + 8);
    CHECK(m != NULL);
    CHECK(m && m->bias == bias);
    CHECK(pg_procs_find(p, 100, start + 0x1000) == NULL);
    CHECK(pg_procs_fork(p, 101, 100, 101, 100) == 0);      /* a child process */
    CHECK(pg_procs_find(p, 101, start + 8) != NULL);
    CHECK_STR(pg_procs_comm_of(p, 101, 101), "parent");
    CHECK(pg_procs_fork(p, 100, 100, 102, 100) == 0);      /* a thread */
    CHECK(pg_procs_comm(p, 100, 102, "worker", 0) == 0);
    CHECK_STR(pg_procs_comm_of(p, 100, 102), "worker");
    CHECK_STR(pg_procs_comm_of(p, 100, 100), "parent");
    uint64_t gen = pg_procs_generation(p);
    CHECK(pg_procs_comm(p, 101, 101, "newprog", 1) == 0);  /* exec in the child */
    CHECK(pg_procs_find(p, 101, start + 8) == NULL);
    CHECK(pg_procs_find(p, 100, start + 8) != NULL);       /* the parent keeps its maps */
    CHECK(pg_procs_generation(p) != gen);
    /* A new mapping over an old one replaces it. */
    CHECK(pg_procs_mmap(p, 100, start, 0x1000, 0, prot, "/nonexistent/other") == 0);
    m = pg_procs_find(p, 100, start + 8);
    CHECK(m && !m->file->ok);
    /* Reading file contents by run-time address. */
    CHECK(pg_procs_mmap(p, 100, start, 0x1000, pgoff, prot, path) == 0);
    CHECK(pg_procs_read(p, 100, fn, code, sizeof code) == 0);
    CHECK(memcmp(code, (const void *)fn, sizeof code) == 0);
    CHECK(pg_procs_read(p, 100, 16, code, sizeof code) < 0);

    pg_procs_free(p);
    pg_elffile_free(gone);
    pg_symbolizer_free(s);
    pg_elffile_free(f);
    return pg_check_done();
}
