/* counters/maps.h — the address spaces of the sampled processes, replayed from
 * perf's side-band records (MMAP2, COMM, FORK, EXIT) in time order.
 *
 * Per process (pid): its executable mappings, each naming an ELF file (opened
 * once per path for the whole profile, elffile.h) and the load bias that turns
 * a run-time address into the file's link-time address. An exec (COMM with
 * the exec flag) empties the process's maps, so addresses after it resolve
 * against the new program. A fork copies the parent's maps; a new thread
 * shares its process's. Per thread (tid): its comm.
 */
#ifndef PG_COUNTERS_MAPS_H
#define PG_COUNTERS_MAPS_H

#include "counters/elffile.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct pg_map {
    uint64_t start, end, pgoff;
    uint64_t bias;              /* run-time address - link-time address (when file->ok) */
    pg_elffile *file;           /* never NULL; owned by the pg_procs */
} pg_map;

typedef struct pg_procs pg_procs;

int pg_procs_new(pg_procs **out);
void pg_procs_free(pg_procs *p);

/* A mapping of `filename` at [start, start+len) from file offset `pgoff`, with
 * permissions `prot` (PROT_*; MMAP2 records carry them, older MMAP records
 * are of executable mappings). Its bias comes from the file's program
 * headers (pg_elffile_map_bias). */
int pg_procs_mmap(pg_procs *p, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff, unsigned prot,
                  const char *filename);
int pg_procs_comm(pg_procs *p, pid_t pid, pid_t tid, const char *comm, int exec);
int pg_procs_fork(pg_procs *p, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid);

/* The mapping holding `addr` in process `pid`, or NULL. */
const pg_map *pg_procs_find(const pg_procs *p, pid_t pid, uint64_t addr);
/* The thread's name, else its process's, else "[unknown]". */
const char *pg_procs_comm_of(const pg_procs *p, pid_t pid, pid_t tid);
/* Bumped whenever some mapping changes (unwinders flush their caches). */
uint64_t pg_procs_generation(const pg_procs *p);

/* Reads n bytes at run-time address `addr` of `pid` from the backing file
 * (any PT_LOAD segment of a mapped file, not only the mapped one). -1 when none. */
int pg_procs_read(const pg_procs *p, pid_t pid, uint64_t addr, void *buf, size_t n);

#endif
