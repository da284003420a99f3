/* util/suggest.h — "did you mean ...?": the one way perfgate finds the known
 * name a user probably meant.
 *
 * Every "unknown X" error (commands, options, manifest keys, metrics, events,
 * benchmarks) offers its known names to one pg_suggest and asks for the
 * closest: the rule for what counts as a typo lives here only.
 *
 *     pg_suggest s;
 *     pg_suggest_init(&s, typed);
 *     for (each known name) pg_suggest_offer(&s, name);
 *     pg_error_set(PG_EINVAL, "unknown metric '%s'%s", typed, pg_suggest_clause(&s, buf, sizeof buf));
 */
#ifndef PG_UTIL_SUGGEST_H
#define PG_UTIL_SUGGEST_H

#include <stddef.h>

/* The Levenshtein distance of a and b, ignoring ASCII case (a typo in case is
 * still the closest name); a large number when either is longer than 63. */
size_t pg_str_distance(const char *a, const char *b);

#define PG_SUGGEST_MAX 3        /* names kept, closest first */

typedef struct pg_suggest {
    char typed[64];
    size_t limit;                       /* most edits a typo makes (from typed's length) */
    size_t n;                           /* names kept */
    size_t dist[PG_SUGGEST_MAX];
    char name[PG_SUGGEST_MAX][96];      /* copies: offered names may be temporaries */
} pg_suggest;

/* A typo is a few edits away: 1 for names up to 4 characters, else up to a
 * third of the name's length, and at least 2. `typed` longer than 63 bytes
 * matches nothing. */
void pg_suggest_init(pg_suggest *s, const char *typed);
/* Offers a known name; kept when close enough and among the closest
 * (the first offered of equally close ones stays ahead). */
void pg_suggest_offer(pg_suggest *s, const char *name);
/* The same, compared by `key` but suggested as `shown` ("cycles" for
 * "perf::cycles"). */
void pg_suggest_offer_as(pg_suggest *s, const char *key, const char *shown);

/* The closest name kept, or NULL. Valid while `s` is. */
const char *pg_suggest_best(const pg_suggest *s);
/* " (did you mean 'x'?)", or "" when no name is close: the tail of an error
 * message. Returns buf. */
const char *pg_suggest_clause(const pg_suggest *s, char *buf, size_t len);
/* Every kept name as "'a', 'b' or 'c'" ("" for none). Returns buf. */
const char *pg_suggest_list(const pg_suggest *s, char *buf, size_t len);

#endif
