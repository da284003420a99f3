#include "util/suggest.h"

#include <stdio.h>
#include <string.h>

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }

size_t pg_str_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (lower(a[i - 1]) != lower(b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

void pg_suggest_init(pg_suggest *s, const char *typed)
{
    memset(s, 0, sizeof *s);
    size_t len = strlen(typed);
    if (len >= sizeof s->typed) {
        s->limit = 0;           /* nothing is 0 edits from a name we cannot hold */
        s->typed[0] = '\0';
        return;
    }
    memcpy(s->typed, typed, len + 1);
    /* Short names: one edit, or every 3-letter name is "close" to every other. */
    s->limit = len <= 4 ? 1 : len / 3 > 2 ? len / 3 : 2;
}

void pg_suggest_offer_as(pg_suggest *s, const char *key, const char *shown)
{
    if (!s->limit || !key || !shown)
        return;
    size_t d = pg_str_distance(s->typed, key);
    if (d > s->limit || (d == 0 && !strcmp(s->typed, key)))
        return;         /* the exact name is no suggestion: it was not unknown */
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->name[i], shown))
            return;
    size_t at = s->n;
    while (at > 0 && d < s->dist[at - 1])
        at--;
    if (at >= PG_SUGGEST_MAX)
        return;
    size_t last = s->n < PG_SUGGEST_MAX ? s->n : PG_SUGGEST_MAX - 1;
    for (size_t k = last; k > at; k--) {
        s->dist[k] = s->dist[k - 1];
        memcpy(s->name[k], s->name[k - 1], sizeof s->name[k]);
    }
    s->dist[at] = d;
    snprintf(s->name[at], sizeof s->name[at], "%s", shown);
    if (s->n < PG_SUGGEST_MAX)
        s->n++;
}

void pg_suggest_offer(pg_suggest *s, const char *name) { pg_suggest_offer_as(s, name, name); }

const char *pg_suggest_best(const pg_suggest *s) { return s->n ? s->name[0] : NULL; }

const char *pg_suggest_clause(const pg_suggest *s, char *buf, size_t len)
{
    if (s->n)
        snprintf(buf, len, " (did you mean '%s'?)", s->name[0]);
    else if (len)
        buf[0] = '\0';
    return buf;
}

const char *pg_suggest_list(const pg_suggest *s, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < s->n; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s'%s'", i == 0 ? "" : i == s->n - 1 ? " or " : ", ", s->name[i]);
    }
    return buf;
}
