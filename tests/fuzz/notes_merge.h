/* tests/fuzz/notes_merge.h — the property both notes targets check
 * (fuzz_notes.c: the results note, fuzz_stacksnote.c: the stacks note).
 *
 * The input is two documents, `held` and `fetched`, split at the first form
 * feed (none: nothing held). Their union by the gate (harness/store/notedoc.h)
 * must: refuse with one line, or give a note that passes the same gate when
 * what was held did (merge(valid, any) is valid); hold every run that was
 * held (merging the held note in again adds nothing); and be idempotent
 * (merging the fetched one again adds nothing and changes no byte). */
#ifndef PG_TESTS_FUZZ_NOTES_MERGE_H
#define PG_TESTS_FUZZ_NOTES_MERGE_H

#include "tests/fuzz/fuzz.h"
#include "harness/store/notedoc.h"

#define PG_FUZZ_COMMIT "c0ffeec0ffeec0ffeec0ffeec0ffeec0ffee0001"

static inline int pg_fuzz_union(char **out, pg_notestat *st, const char *held, size_t hlen, const char *add,
                                size_t alen, const pg_notekind *kind)
{
    pg_notetext o = {held, hlen, "held"}, a = {add, alen, "fetched"};
    int rc = pg_notedoc_union(out, st, &o, &a, PG_FUZZ_COMMIT, kind);
    pg_fuzz_check_error(rc);
    return rc;
}

static inline void pg_fuzz_notes_merge(const uint8_t *data, size_t size, const pg_notekind *kind)
{
    const char *text = (const char *)data, *ff = memchr(text, '\f', size);
    const char *held = ff ? text : NULL, *add = ff ? ff + 1 : text;
    size_t hlen = ff ? (size_t)(ff - text) : 0, alen = size - (ff ? hlen + 1 : 0);
    pg_notetext h = {held, hlen, "held"};
    int held_valid = !held || pg_notedoc_check(&h, PG_FUZZ_COMMIT, kind) == 0;
    pg_error_clear();

    char *merged = NULL, *again = NULL, *back = NULL;
    pg_notestat st, st2, st3;
    if (pg_fuzz_union(&merged, &st, held, hlen, add, alen, kind) == 0) {
        PG_FUZZ_ASSERT(merged);
        pg_notetext m = {merged, strlen(merged), "merged"};
        if (held_valid)
            PG_FUZZ_ASSERT(pg_notedoc_check(&m, PG_FUZZ_COMMIT, kind) == 0);
        PG_FUZZ_ASSERT(pg_fuzz_union(&again, &st2, merged, strlen(merged), add, alen, kind) == 0);
        PG_FUZZ_ASSERT(st2.added == 0 && !strcmp(again, merged));
        if (held && held_valid) {
            PG_FUZZ_ASSERT(pg_fuzz_union(&back, &st3, merged, strlen(merged), held, hlen, kind) == 0);
            PG_FUZZ_ASSERT(st3.added == 0);
        }
    }
    free(merged);
    free(again);
    free(back);
}

#endif
