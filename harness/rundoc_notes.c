/* harness/rundoc_notes.c — the note documents (git notes): runs of every
 * machine and backend for one commit, merged by run id. See rundoc.h. The
 * union by run id is shared with the stacks note (harness/notes_stacks.h).
 *
 * The merge works on the JSON itself rather than the structs, so that a note
 * written by a newer perfgate keeps the keys this one does not know. Both
 * sides are validated by the one reader first. */
#include "harness/rundoc.h"
#include "util/error.h"
#include "util/jsonfile.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Parses one side, validated by `check` first. */
static int parse_side(cJSON **out, const char *text, size_t len, const char *name, pg_notedoc_check check)
{
    int rc = check(text, len, name);
    if (rc == 0)
        rc = pg_json_parse(out, text, len, name);
    return rc;
}

/* The one reader of run documents validates a results note. */
static int check_runs(const char *text, size_t len, const char *name)
{
    pg_rundoc_list l = {0};
    int rc = pg_rundoc_parse(&l, text, len, name);
    pg_rundoc_list_free(&l);
    return rc;
}

/* The array of runs in a parsed document (store, note, array of runs); a
 * single run document is not in an array: *single is set to it. */
static cJSON *runs_of(cJSON *doc, cJSON **single)
{
    *single = NULL;
    if (cJSON_IsArray(doc))
        return doc;
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs");
    if (runs)
        return runs;
    *single = doc;
    return NULL;
}

/* Same id and same content: the same run, written twice (the store's copy
 * and the note's, or a note fetched back). */
static int contains(const cJSON *runs, const cJSON *run)
{
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "id"));
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        const char *rid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "id"));
        if ((!id) == (!rid) && (!id || !strcmp(id, rid)) && cJSON_Compare(r, run, 1))
            return 1;
    }
    return 0;
}

static int add_run(cJSON *runs, const cJSON *run, size_t *added)
{
    if (contains(runs, run))
        return 0;
    cJSON *copy = cJSON_Duplicate(run, 1);
    if (!copy || !cJSON_AddItemToArray(runs, copy)) {
        cJSON_Delete(copy);
        return pg_error_set(PG_ENOMEM, "out of memory merging notes");
    }
    (*added)++;
    return 0;
}

static int new_doc(cJSON **out, const char *commit, const char *schema)
{
    cJSON *doc = cJSON_CreateObject();
    if (!doc || !cJSON_AddStringToObject(doc, "schema", schema) ||
        !cJSON_AddStringToObject(doc, "commit", commit) || !cJSON_AddArrayToObject(doc, "runs")) {
        cJSON_Delete(doc);
        return pg_error_set(PG_ENOMEM, "out of memory merging notes");
    }
    *out = doc;
    return 0;
}

int pg_notedoc_union(char **text, size_t *added, const char *old, size_t old_len, const char *old_name,
                     const char *add, size_t add_len, const char *add_name, const char *commit, const char *schema,
                     pg_notedoc_check check)
{
    cJSON *base = NULL, *more = NULL, *single;
    size_t n = 0;
    int rc = old ? parse_side(&base, old, old_len, old_name, check) : new_doc(&base, commit, schema);
    if (rc == 0 && old && !cJSON_GetObjectItemCaseSensitive(base, "runs"))
        rc = pg_error_set(PG_EINVAL, "%s: not a note document (no \"runs\")", old_name);
    if (rc == 0)
        rc = parse_side(&more, add, add_len, add_name, check);
    if (rc == 0) {
        cJSON *into = cJSON_GetObjectItemCaseSensitive(base, "runs"), *from = runs_of(more, &single), *r;
        if (single)
            rc = add_run(into, single, &n);
        cJSON_ArrayForEach(r, from) {
            if (rc < 0)
                break;
            rc = add_run(into, r, &n);
        }
    }
    if (rc == 0 && !(*text = pg_json_print(base, NULL)))
        rc = pg_error_set(PG_ENOMEM, "out of memory writing a note");
    if (added)
        *added = rc == 0 ? n : 0;
    cJSON_Delete(base);
    cJSON_Delete(more);
    return rc;
}

int pg_notedoc_merge(char **text, size_t *added, const char *old, size_t old_len, const char *old_name,
                     const char *add, size_t add_len, const char *add_name, const char *commit)
{
    return pg_notedoc_union(text, added, old, old_len, old_name, add, add_len, add_name, commit, PG_NOTEDOC_SCHEMA,
                            check_runs);
}
