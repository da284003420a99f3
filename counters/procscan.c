/* counters/procscan.c — /proc into COMM and MMAP2 records. See procscan.h. */
#include "counters/procscan.h"
#include "util/error.h"

#include <ctype.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Room for the largest record: header, fixed fields, a PATH_MAX name, trailer. */
typedef union rec {
    struct perf_event_header h;
    uint64_t align;
    unsigned char bytes[8 + 64 + 4096 + 16 + 16];
} rec;

/* The name, NUL-padded to 8 bytes, then the sample_id trailer sampler.h's
 * events carry (TID | TIME): {pid, tid}, time 0. */
static void finish(rec *r, size_t at, const char *name, unsigned pid, unsigned tid)
{
    size_t len = strlen(name) + 1;
    memcpy(r->bytes + at, name, len);
    size_t end = (at + len + 7) & ~(size_t)7;
    memset(r->bytes + at + len, 0, end - at - len);
    uint32_t ids[2] = {pid, tid};
    uint64_t time = 0;
    memcpy(r->bytes + end, ids, sizeof ids);
    memcpy(r->bytes + end + 8, &time, sizeof time);
    r->h.size = (uint16_t)(end + 16);
}

static int comm_rec(pg_procscan_fn fn, void *ctx, unsigned pid, unsigned tid, const char *comm)
{
    rec r;
    memset(&r.h, 0, sizeof r.h);
    r.h.type = PERF_RECORD_COMM;
    uint32_t ids[2] = {pid, tid};
    memcpy(r.bytes + 8, ids, sizeof ids);
    finish(&r, 16, comm, pid, tid);
    return fn(ctx, &r.h);
}

static int mmap_rec(pg_procscan_fn fn, void *ctx, unsigned pid, uint64_t start, uint64_t end, uint64_t pgoff,
                    unsigned prot, const char *path)
{
    rec r;
    memset(&r, 0, 8 + 64);
    r.h.type = PERF_RECORD_MMAP2;
    uint32_t ids[2] = {pid, pid};
    uint64_t w[3] = {start, end - start, pgoff};
    memcpy(r.bytes + 8, ids, sizeof ids);
    memcpy(r.bytes + 16, w, sizeof w);
    memcpy(r.bytes + 64, &prot, sizeof prot);
    finish(&r, 72, path, pid, pid);
    return fn(ctx, &r.h);
}

/* Reads a one-line file (a comm) into buf without its newline; 0 or -1. */
static int read_line(char *buf, size_t len, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int scan_threads(const char *proc, unsigned pid, pg_procscan_fn fn, void *ctx)
{
    char path[4200], comm[64];
    snprintf(path, sizeof path, "%s/%u/task", proc, pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int rc = 0;
    for (struct dirent *e; rc >= 0 && (e = readdir(d));) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        unsigned tid = (unsigned)strtoul(e->d_name, NULL, 10);
        snprintf(path, sizeof path, "%s/%u/task/%u/comm", proc, pid, tid);
        if (read_line(comm, sizeof comm, path) == 0)
            rc = comm_rec(fn, ctx, pid, tid, comm);
    }
    closedir(d);
    return rc;
}

/* "start-end perms offset dev inode   path": the executable file mappings. */
static int scan_maps(const char *proc, unsigned pid, pg_procscan_fn fn, void *ctx)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%u/maps", proc, pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (rc >= 0 && getline(&line, &cap, f) > 0) {
        unsigned long long start, end, off;
        char perms[8];
        int name_at = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &name_at) < 4 || !name_at)
            continue;
        char *name = line + name_at;
        name[strcspn(name, "\n")] = '\0';
        if (perms[2] != 'x' || (name[0] != '/' && strcmp(name, "[vdso]")) || strlen(name) >= 4096)
            continue;
        unsigned prot = PROT_EXEC | (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0);
        rc = mmap_rec(fn, ctx, pid, start, end, off, prot, name);
    }
    free(line);
    fclose(f);
    return rc;
}

int pg_procscan(const char *proc, pg_procscan_fn fn, void *ctx)
{
    if (!proc)
        proc = "/proc";
    DIR *d = opendir(proc);
    if (!d)
        return pg_error_errno(PG_EIO, "cannot read %s", proc);
    int n = 0, rc = 0;
    for (struct dirent *e; rc >= 0 && (e = readdir(d));) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        unsigned pid = (unsigned)strtoul(e->d_name, NULL, 10);
        /* The process's own comm first: its threads' may differ. */
        char path[4200], comm[64];
        snprintf(path, sizeof path, "%s/%u/comm", proc, pid);
        if (read_line(comm, sizeof comm, path) < 0)
            continue;       /* gone already */
        if ((rc = comm_rec(fn, ctx, pid, pid, comm)) < 0 || (rc = scan_maps(proc, pid, fn, ctx)) < 0 ||
            (rc = scan_threads(proc, pid, fn, ctx)) < 0)
            break;
        n++;
    }
    closedir(d);
    return rc < 0 ? rc : n;
}
