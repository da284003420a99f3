/* harness/store/notedoc.c — see notedoc.h.
 *
 * The merge works on the JSON itself rather than the structs, so that a note
 * written by a newer perfgate keeps the keys this one does not know. What is
 * added is checked by the kind's gate first, run by run; what is held is
 * kept as it is. */
#include "harness/store/notedoc.h"
#include "harness/store/rundoc.h"
#include "harness/store/rundoc_json.h"
#include "util/error.h"
#include "util/jsonfile.h"
#include "util/strindex.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gate_fail(const char *name, size_t index, const char *why)
{
    return pg_error_set(PG_EINVAL, "%s: runs[%zu]: %s", name, index, why);
}

int pg_notedoc_check_id(const cJSON *run, size_t index, const char *name, const char *commit)
{
    if (!cJSON_IsObject(run))
        return gate_fail(name, index, "expected an object");
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "id"));
    size_t n = id ? strlen(id) : 0;
    if (!n || n > 128)
        return gate_fail(name, index, "expected an \"id\" of 1 to 128 characters");
    for (const char *p = id; *p; p++)
        if (*p <= ' ' || *p > '~')
            return gate_fail(name, index, "id: expected printable ASCII");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(run, "commit");
    if (c && (!cJSON_IsString(c) || strcmp(c->valuestring, commit)))
        return pg_error_set(PG_EINVAL, "%s: runs[%zu].commit: not the commit this note annotates (%.40s)", name, index,
                            commit);
    return 0;
}

int pg_notedoc_path_ok(const char *path)
{
    if (!*path || *path == '/')
        return 0;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += n;
        if (*p == '/' && !*++p)
            return 0;           /* a trailing '/' */
    }
    return 1;
}

/* A path of benchmark `k` named by `key`: absent, or one pg_notedoc_path_ok takes. */
static int bench_path_ok(const cJSON *b, const char *key, size_t index, size_t k, const char *name)
{
    const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, key));
    if (!path || pg_notedoc_path_ok(path))
        return 0;
    return pg_error_set(PG_EINVAL, "%s: runs[%zu].benchmarks[%zu].%s: a path that is absolute or leaves the store",
                        name, index, k, key);
}

static int is_hex(const char *s, size_t n)
{
    if (strlen(s) != n)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

/* The gate of a results note's run: the reader's checks, and what only a
 * note needs: its commit, measured on a clean tree, a machine id perfgate
 * made, paths that stay in the store. Read into `out` when not NULL. */
static int gate_run(pg_rundoc_list *out, const cJSON *run, size_t index, const char *name, const char *commit)
{
    int rc = pg_notedoc_check_id(run, index, name, commit);
    if (rc < 0)
        return rc;
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(run, "commit")))
        return gate_fail(name, index, "commit: missing (a run in a note measured its commit)");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "dirty")))
        return gate_fail(name, index, "dirty: a run of a dirty work tree did not measure the commit");
    const cJSON *mach = cJSON_GetObjectItemCaseSensitive(run, "machine");
    const char *mid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(mach, "id"));
    if (mid && !is_hex(mid, 12))
        return gate_fail(name, index, "machine.id: expected 12 hex digits");
    const cJSON *b;
    size_t k = 0;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(run, "benchmarks")) {
        /* stdout_log and stderr_log are shown, never opened: only stacks are read. */
        if ((rc = bench_path_ok(b, "stacks", index, k, name)) < 0)
            return rc;
        k++;
    }
    return pg_rundoc_read_run_json(out, run, name, index);
}

static int check_results_run(const cJSON *run, size_t index, const char *name, const char *commit)
{
    return gate_run(NULL, run, index, name, commit);
}

const pg_notekind pg_notekind_runs = {
    .ref = PG_NOTES_REF,
    .schema = PG_NOTEDOC_SCHEMA,
    .noun = "notes",
    .what = "run",
    .max_key = "perfgate.fetchMax",
    .max_default = 16u << 20,
    .check_run = check_results_run,
};

/* ---- the union ---- */

/* What a run is called in a message: its id when it has a printable one. */
static const char *run_label(char *buf, size_t len, const cJSON *run, size_t index)
{
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "id"));
    if (id && pg_text_utf8_valid(id, strlen(id)) && strlen(id) <= 128)
        return pg_text_escape_buf(buf, len, id, PG_TEXT_TERM);
    snprintf(buf, len, "runs[%zu]", index);
    return buf;
}

static void drop(pg_notestat *st, const pg_notekind *kind, const cJSON *run, size_t index)
{
    char label[400];
    pg_text_warn("warning: %s %s dropped: %s", kind->what, run_label(label, sizeof label, run, index),
                 pg_error_last());
    pg_error_clear();
    st->dropped++;
}

static int oom(void) { return pg_error_set(PG_ENOMEM, "out of memory merging notes"); }

static int new_doc(cJSON **out, const char *commit, const char *schema)
{
    cJSON *doc = cJSON_CreateObject();
    if (!doc || !cJSON_AddStringToObject(doc, "schema", schema) ||
        !cJSON_AddStringToObject(doc, "commit", commit) || !cJSON_AddArrayToObject(doc, "runs")) {
        cJSON_Delete(doc);
        return oom();
    }
    *out = doc;
    return 0;
}

/* The "runs" of a note document of `kind` (or, for the results note, a store
 * document, an array of runs or one run: *single is set to it). */
static int runs_of(const cJSON **runs, const cJSON **single, const cJSON *doc, const pg_notetext *t,
                   const char *commit, const pg_notekind *kind, int held)
{
    *runs = *single = NULL;
    int results = kind == &pg_notekind_runs;
    if (cJSON_IsArray(doc) && results && !held) {
        *runs = doc;
        return 0;
    }
    if (!cJSON_IsObject(doc))
        return pg_error_set(PG_EINVAL, "%s: not a note document (expected a JSON object)", t->name);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(doc, "runs");
    if (!r && results && !held && cJSON_GetObjectItemCaseSensitive(doc, "benchmarks")) {
        *single = doc;
        return 0;
    }
    const char *schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "schema"));
    if (!schema || !(pg_schema_ok(schema, kind->schema) || (results && pg_schema_ok(schema, PG_STOREDOC_SCHEMA))))
        return pg_error_set(PG_EINVAL, "%s: not a %s document (schema %s)", t->name, kind->schema,
                            schema ? "not supported" : "missing");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "commit");
    if (c && !cJSON_IsNull(c) && (!cJSON_IsString(c) || strcmp(c->valuestring, commit)))
        return pg_error_set(PG_EINVAL, "%s: commit: not the commit this note annotates (%.40s)", t->name, commit);
    if (!cJSON_IsArray(r))
        return pg_error_set(PG_EINVAL, "%s: runs: expected an array", t->name);
    *runs = r;
    return 0;
}

/* The runs held, by id. */
typedef struct held {
    pg_strindex ids;        /* id -> index in v */
    const cJSON **v;
    size_t n, cap;
} held;

static int held_add(held *h, const cJSON *run)
{
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "id"));
    if (!id)
        return 0;
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 8;
        const cJSON **v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return oom();
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n] = run;
    size_t k;
    if (pg_strindex_get(&h->ids, id, &k))
        return 0;           /* a damaged held note with an id twice: the first one answers */
    return pg_strindex_put(&h->ids, id, h->n++) < 0 ? oom() : 0;
}

static void held_free(held *h)
{
    pg_strindex_free(&h->ids);
    free(h->v);
}

/* Adds `run` (already through the gate) unless its id is held: the same
 * content is the same run (nothing to do), other content is a conflict. */
static int add_run(cJSON *into, held *h, const cJSON *run, size_t index, const char *name, pg_notestat *st,
                   const pg_notekind *kind)
{
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "id"));
    size_t k;
    if (pg_strindex_get(&h->ids, id, &k)) {
        if (!cJSON_Compare(h->v[k], run, 1)) {
            pg_error_set(PG_EINVAL, "%s: runs[%zu]: another %s with this id is held already (kept that one)", name,
                         index, kind->what);
            drop(st, kind, run, index);
        }
        return 0;
    }
    cJSON *copy = cJSON_Duplicate(run, 1);
    if (!copy || !cJSON_AddItemToArray(into, copy)) {
        cJSON_Delete(copy);
        return oom();
    }
    st->added++;
    return held_add(h, copy);
}

static int parse(cJSON **doc, const pg_notetext *t)
{
    return pg_json_parse(doc, t->text, t->len, t->name);
}

int pg_notedoc_union(char **text, pg_notestat *st, const pg_notetext *old, const pg_notetext *add,
                     const char *commit, const pg_notekind *kind)
{
    cJSON *base = NULL, *more = NULL;
    const cJSON *from = NULL, *single = NULL, *held_runs, *unused, *r;
    held h = {0};
    *text = NULL;
    st->added = st->dropped = 0;
    int rc = old->text ? parse(&base, old) : new_doc(&base, commit, kind->schema);
    if (rc == 0 && old->text)
        rc = runs_of(&held_runs, &unused, base, old, commit, kind, 1);
    cJSON *into = rc == 0 ? cJSON_GetObjectItemCaseSensitive(base, "runs") : NULL;
    cJSON_ArrayForEach(r, into) {
        if (rc < 0)
            break;
        rc = held_add(&h, r);
    }
    if (rc == 0)
        rc = parse(&more, add);
    if (rc == 0)
        rc = runs_of(&from, &single, more, add, commit, kind, 0);
    size_t i = 0;
    for (r = single ? single : from ? from->child : NULL; rc == 0 && r; r = single ? NULL : r->next, i++) {
        if (kind->check_run(r, i, add->name, commit) < 0)
            drop(st, kind, r, i);
        else
            rc = add_run(into, &h, r, i, add->name, st, kind);
    }
    if (rc == 0 && !(*text = pg_json_print(base, NULL)))
        rc = oom();
    if (rc < 0)
        st->added = 0;
    held_free(&h);
    cJSON_Delete(base);
    cJSON_Delete(more);
    return rc;
}

/* The runs of the note document `doc`, each through the gate, ids distinct;
 * *n counts them. */
static int check_runs(size_t *n, const cJSON *doc, const pg_notetext *note, const char *commit,
                      const pg_notekind *kind)
{
    const cJSON *runs = NULL, *single, *r;
    held h = {0};
    size_t i = 0, k;
    int rc = runs_of(&runs, &single, doc, note, commit, kind, 1);
    cJSON_ArrayForEach(r, runs) {
        if ((rc = kind->check_run(r, i, note->name, commit)) < 0)
            break;
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "id"));
        if (pg_strindex_get(&h.ids, id, &k)) {
            rc = pg_error_set(PG_EINVAL, "%s: runs[%zu]: id given twice", note->name, i);
            break;
        }
        if ((rc = held_add(&h, r)) < 0)
            break;
        i++;
    }
    held_free(&h);
    *n = i;
    return rc;
}

int pg_notedoc_check(const pg_notetext *note, const char *commit, const pg_notekind *kind)
{
    cJSON *doc = NULL;
    size_t n;
    int rc = parse(&doc, note);
    if (rc == 0)
        rc = check_runs(&n, doc, note, commit, kind);
    cJSON_Delete(doc);
    return rc;
}

/* Whether the note document `doc` is strict JSON but for its runs, which
 * the gate checks one by one (each kind's check_run: not twice over). */
static int strict_but_runs(cJSON *doc, const char *name)
{
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs");
    cJSON *kept = runs ? runs->child : NULL;
    if (cJSON_IsArray(runs))
        runs->child = NULL;             /* keys and the rest only; put back below */
    int ok = pg_json_check_strict(doc, name) == 0;
    if (cJSON_IsArray(runs))
        runs->child = kept;
    return ok;
}

int pg_notedoc_intact(size_t *runs, const pg_notetext *note, const char *commit, const pg_notekind *kind)
{
    const char *end = NULL;
    *runs = 0;
    cJSON *doc = cJSON_ParseWithLengthOpts(note->text, note->len, &end, 0);
    if (!doc)
        return 0;
    /* One value and nothing after it but white space: bytes after it (a NUL
     * first: git_note_message stops there) would be read by someone else. */
    const char *stop = note->text + note->len;
    while (end && end < stop && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
        end++;
    const char *schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "schema"));
    int ok = end == stop && schema && pg_schema_ok(schema, kind->schema) && strict_but_runs(doc, note->name) &&
             check_runs(runs, doc, note, commit, kind) == 0;
    if (!ok)
        pg_error_clear();
    cJSON_Delete(doc);
    return ok;
}

int pg_notedoc_read_runs(pg_rundoc_list *out, const pg_notetext *note, const char *commit)
{
    cJSON *doc = NULL;
    const cJSON *runs, *single, *r;
    int rc = parse(&doc, note);
    if (rc == 0 && (rc = runs_of(&runs, &single, doc, note, commit, &pg_notekind_runs, 1)) == 0) {
        size_t i = 0;
        cJSON_ArrayForEach(r, runs) {
            if (gate_run(out, r, i, note->name, commit) < 0) {
                char label[400];
                pg_text_warn("warning: run %s ignored: %s", run_label(label, sizeof label, r, i), pg_error_last());
                pg_error_clear();
            }
            i++;
        }
    }
    cJSON_Delete(doc);
    return rc;
}
