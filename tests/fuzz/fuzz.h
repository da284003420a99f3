/* tests/fuzz/fuzz.h — what every fuzz target shares.
 *
 * A target is one LLVMFuzzerTestOneInput(). Built with clang's libFuzzer
 * (PERFGATE_FUZZ=ON, ci/fuzz.sh) it is fuzzed; built plainly it is linked
 * with replay.c, which feeds it the committed seeds and crash reproducers
 * (tests/fuzz/corpus/<parser>/, tests/fuzz/regressions/<parser>/) as a ctest
 * test, under ASan/UBSan in ci/test.sh's sanitized build.
 *
 * Besides not crashing, a target checks what a user relies on: a parser
 * that refuses its input says why in one non-empty line (util/error.h), and
 * what it accepts is consistent. A broken promise aborts, so the fuzzer
 * reports it as a crash.
 */
#ifndef PG_TESTS_FUZZ_H
#define PG_TESTS_FUZZ_H

#include "util/error.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PG_FUZZ_ASSERT(cond) do { \
    if (!(cond)) { \
        fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
        abort(); \
    } \
} while (0)

/* rc < 0 must come with a message: one line, not empty. */
static inline void pg_fuzz_check_error(int rc)
{
    if (rc >= 0)
        return;
    const char *m = pg_error_last();
    if (!m[0] || strchr(m, '\n')) {
        fprintf(stderr, "fuzz: error %d with a bad message: \"%s\"\n", rc, m);
        abort();
    }
}

#endif
