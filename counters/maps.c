/* counters/maps.c — per-process mappings replayed from side-band records. See maps.h. */
#include "counters/maps.h"
#include "util/array.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct proc {
    pid_t pid;
    pg_map *maps;
    size_t n, cap;
} proc;

typedef struct thread {
    pid_t tid;
    char comm[32];
} thread;

struct pg_procs {
    proc *procs;
    size_t nprocs, capprocs;
    thread *threads;
    size_t nthreads, capthreads;
    pg_elffile **files;
    size_t nfiles, capfiles;
    uint64_t gen;
};

int pg_procs_new(pg_procs **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

void pg_procs_free(pg_procs *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nprocs; i++)
        free(p->procs[i].maps);
    for (size_t i = 0; i < p->nfiles; i++)
        pg_elffile_free(p->files[i]);
    free(p->procs);
    free(p->threads);
    free(p->files);
    free(p);
}

static proc *find_proc(const pg_procs *p, pid_t pid)
{
    for (size_t i = 0; i < p->nprocs; i++)
        if (p->procs[i].pid == pid)
            return &p->procs[i];
    return NULL;
}

static proc *get_proc(pg_procs *p, pid_t pid)
{
    proc *r = find_proc(p, pid);
    if (r)
        return r;
    if (pg_array_grow(&p->procs, &p->capprocs, p->nprocs, sizeof *p->procs, 16) < 0)
        return NULL;
    r = &p->procs[p->nprocs++];
    memset(r, 0, sizeof *r);
    r->pid = pid;
    return r;
}

static thread *find_thread(const pg_procs *p, pid_t tid)
{
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i].tid == tid)
            return &p->threads[i];
    return NULL;
}

static int set_comm(pg_procs *p, pid_t tid, const char *comm)
{
    thread *t = find_thread(p, tid);
    if (!t) {
        if (pg_array_grow(&p->threads, &p->capthreads, p->nthreads, sizeof *p->threads, 16) < 0)
            return PG_ENOMEM;
        t = &p->threads[p->nthreads++];
        t->tid = tid;
    }
    snprintf(t->comm, sizeof t->comm, "%s", comm);
    return 0;
}

static pg_elffile *get_file(pg_procs *p, const char *path)
{
    for (size_t i = 0; i < p->nfiles; i++)
        if (!strcmp(p->files[i]->path, path))
            return p->files[i];
    if (pg_array_grow(&p->files, &p->capfiles, p->nfiles, sizeof *p->files, 16) < 0)
        return NULL;
    pg_elffile *f;
    if (pg_elffile_open(&f, path) < 0)
        return NULL;
    p->files[p->nfiles++] = f;
    return f;
}

int pg_procs_mmap(pg_procs *p, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff, unsigned prot,
                  const char *filename)
{
    proc *pr = get_proc(p, pid);
    pg_elffile *f = pr ? get_file(p, filename) : NULL;
    if (!f)
        return pg_error_set(PG_ENOMEM, "out of memory");
    uint64_t end = start + len < start ? UINT64_MAX : start + len;   /* a wrapped end would break the sorted lookup */
    /* A new mapping replaces whatever it overlaps (munmap records do not exist). */
    size_t k = 0;
    for (size_t i = 0; i < pr->n; i++) {
        pg_map *m = &pr->maps[i];
        if (m->end <= start || m->start >= end)
            pr->maps[k++] = *m;
    }
    pr->n = k;
    if (pg_array_grow(&pr->maps, &pr->cap, pr->n, sizeof *pr->maps, 16) < 0)
        return PG_ENOMEM;
    pg_map m = {.start = start, .end = end, .pgoff = pgoff, .file = f};
    if (f->ok)
        pg_elffile_map_bias(f, start, pgoff, prot, &m.bias);
    /* Keep sorted by start for the lookup. */
    size_t i = pr->n;
    while (i > 0 && pr->maps[i - 1].start > start) {
        pr->maps[i] = pr->maps[i - 1];
        i--;
    }
    pr->maps[i] = m;
    pr->n++;
    p->gen++;
    return 0;
}

int pg_procs_comm(pg_procs *p, pid_t pid, pid_t tid, const char *comm, int exec)
{
    if (exec) {
        proc *pr = get_proc(p, pid);
        if (!pr)
            return PG_ENOMEM;
        pr->n = 0;
        p->gen++;
    }
    return set_comm(p, tid, comm);
}

int pg_procs_fork(pg_procs *p, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid)
{
    const thread *parent = find_thread(p, ptid);
    if (!parent)
        parent = find_thread(p, ppid);
    if (parent) {
        char comm[32];
        snprintf(comm, sizeof comm, "%s", parent->comm);
        if (set_comm(p, tid, comm) < 0)
            return PG_ENOMEM;
    }
    if (pid == ppid)
        return 0;   /* a new thread shares its process's maps */
    proc *child = get_proc(p, pid);
    const proc *par = child ? find_proc(p, ppid) : NULL;
    if (!child)
        return PG_ENOMEM;
    if (par && par->n) {
        pg_map *copy = malloc(par->n * sizeof *copy);
        if (!copy)
            return pg_error_set(PG_ENOMEM, "out of memory");
        memcpy(copy, par->maps, par->n * sizeof *copy);
        free(child->maps);
        child->maps = copy;
        child->n = child->cap = par->n;
    }
    p->gen++;
    return 0;
}

const pg_map *pg_procs_find(const pg_procs *p, pid_t pid, uint64_t addr)
{
    const proc *pr = find_proc(p, pid);
    if (!pr)
        return NULL;
    size_t lo = 0, hi = pr->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (pr->maps[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pr->n && pr->maps[lo].start <= addr && addr < pr->maps[lo].end ? &pr->maps[lo] : NULL;
}

const char *pg_procs_comm_of(const pg_procs *p, pid_t pid, pid_t tid)
{
    const thread *t = find_thread(p, tid);
    if (!t)
        t = find_thread(p, pid);
    return t ? t->comm : "[unknown]";
}

uint64_t pg_procs_generation(const pg_procs *p) { return p->gen; }

int pg_procs_read(const pg_procs *p, pid_t pid, uint64_t addr, void *buf, size_t n)
{
    const proc *pr = find_proc(p, pid);
    if (!pr)
        return -1;
    const pg_map *m = pg_procs_find(p, pid, addr);
    if (m && m->file->ok && pg_elffile_read(m->file, addr - m->bias, buf, n) == 0)
        return 0;
    /* Unwind tables live in a read-only segment that is not an executable mapping:
     * try every mapped file's other segments at its bias. */
    for (size_t i = 0; i < pr->n; i++) {
        const pg_map *x = &pr->maps[i];
        if (x->file->ok && (i == 0 || x->file != pr->maps[i - 1].file) &&
            addr >= x->bias && pg_elffile_read(x->file, addr - x->bias, buf, n) == 0)
            return 0;
    }
    return -1;
}
