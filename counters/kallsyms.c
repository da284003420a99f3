/* counters/kallsyms.c — /proc/kallsyms as a sorted table. See kallsyms.h. */
#include "counters/kallsyms.h"
#include "util/array.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ksym {
    uint64_t addr;
    char *frame;        /* "name_[k]" */
} ksym;

struct pg_kallsyms {
    ksym *v;
    size_t n, cap;
    int read, hidden;
};

#define UNKNOWN "[kernel.kallsyms]_[k]"

static int by_addr(const void *a, const void *b)
{
    const ksym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One line: "ffffffff81000000 T _stext", maybe "\t[module]" after the name. */
static int add_line(pg_kallsyms *k, char *line, size_t *zeros)
{
    char *end;
    unsigned long long addr = strtoull(line, &end, 16);
    if (end == line || *end != ' ')
        return 0;
    char type = end[1];
    if (!type || end[2] != ' ')
        return 0;
    char *name = end + 3;
    name[strcspn(name, " \t\n")] = '\0';
    if (!*name)
        return 0;
    /* Text only: a data symbol between two functions would name their code. */
    if (type != 't' && type != 'T' && type != 'w' && type != 'W')
        return 0;
    if (!addr) {
        ++*zeros;
        return 0;
    }
    if (pg_array_grow(&k->v, &k->cap, k->n, sizeof *k->v, 1024) < 0)
        return pg_error_set(PG_ENOMEM, "out of memory");
    size_t len = strlen(name);
    char *f = malloc(len + sizeof "_[k]");
    if (!f)
        return pg_error_set(PG_ENOMEM, "out of memory");
    memcpy(f, name, len);
    memcpy(f + len, "_[k]", sizeof "_[k]");
    k->v[k->n++] = (ksym){.addr = addr, .frame = f};
    return 0;
}

int pg_kallsyms_load(pg_kallsyms **out, const char *path)
{
    *out = NULL;
    pg_kallsyms *k = calloc(1, sizeof *k);
    if (!k)
        return pg_error_set(PG_ENOMEM, "out of memory");
    FILE *f = fopen(path ? path : "/proc/kallsyms", "r");
    if (f) {
        k->read = 1;
        char *line = NULL;
        size_t cap = 0, zeros = 0;
        int rc = 0;
        while (rc == 0 && getline(&line, &cap, f) > 0)
            rc = add_line(k, line, &zeros);
        free(line);
        fclose(f);
        if (rc < 0) {
            pg_kallsyms_free(k);
            return rc;
        }
        k->hidden = k->n == 0 && zeros > 0;
        if (k->n)
            qsort(k->v, k->n, sizeof *k->v, by_addr);
    }
    *out = k;
    return 0;
}

void pg_kallsyms_free(pg_kallsyms *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++)
        free(k->v[i].frame);
    free(k->v);
    free(k);
}

const char *pg_kallsyms_frame(const pg_kallsyms *k, uint64_t addr)
{
    /* The last symbol at or below addr. */
    size_t lo = 0, hi = k ? k->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->v[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? k->v[lo - 1].frame : UNKNOWN;
}

int pg_kallsyms_hidden(const pg_kallsyms *k) { return k && k->hidden; }
