/* harness/store/machine.h — which machine a result was measured on.
 *
 * Results are only comparable on the same machine, measured the same way, so
 * the fingerprint holds what changes counts: the CPU model, the kernel, the
 * core count, the backend, its version and its cache geometry. The machine id
 * is a short hash of exactly those fields: equal ids, comparable results.
 */
#ifndef PG_HARNESS_MACHINE_H
#define PG_HARNESS_MACHINE_H

typedef struct pg_machine {
    char cpu_model[160];
    char kernel[200];
    int cores;
    char backend[16];
    char backend_version[96];
    char geometry[96];
    char hostname[96];      /* shown, not part of the id: CI runners are renamed every time */
    char id[13];            /* 12 hex digits */
} pg_machine;

void pg_machine_probe(pg_machine *m, const char *backend, const char *backend_version, const char *geometry);

#endif
