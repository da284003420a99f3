/* harness/store/notes_stacks.c — see notes_stacks.h. */
#include "harness/store/notes_stacks.h"
#include "harness/store/git2.h"
#include "harness/store/notes.h"
#include "harness/store/results.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/jsonfile.h"
#include "util/text.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pg_notes_stacks_configured(pg_repo *r)
{
    git_config *cfg = NULL;
    int on = 0;
    if (r && git_repository_config_snapshot(&cfg, pg_repo_git(r)) == 0 &&
        git_config_get_bool(&on, cfg, "perfgate.notesStacks") < 0)
        on = 0;
    git_config_free(cfg);
    return on;
}

size_t pg_notes_stacks_max(pg_repo *r)
{
    return pg_notes_config_size(r, "perfgate.notesStacksMax", PG_NOTES_STACKS_MAX);
}

static void size_text(char *out, size_t len, size_t bytes)
{
    if (bytes < 1024)
        snprintf(out, len, "%zu bytes", bytes);
    else if (bytes >= 1024 * 1024)
        snprintf(out, len, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
    else
        snprintf(out, len, "%.1f KiB", (double)bytes / 1024.0);
}

/* Appends ", item" (or "item" to an empty list) while it fits. */
static void list_add(char *list, size_t len, const char *item)
{
    size_t used = strlen(list);
    if (used + 2 + strlen(item) < len)
        snprintf(list + used, len - used, "%s%s", used ? ", " : "", item);
}

/* {"schema", "commit", "runs": [{"id", "machine", "backend", "benchmarks": []}]}; *benches is that array. */
static cJSON *doc_new(const pg_rundoc *run, cJSON **benches)
{
    cJSON *doc = cJSON_CreateObject(), *runs, *r;
    if (!doc || !cJSON_AddStringToObject(doc, "schema", PG_STACKSDOC_SCHEMA) ||
        !cJSON_AddStringToObject(doc, "commit", run->commit) || !(runs = cJSON_AddArrayToObject(doc, "runs")) ||
        !(r = cJSON_CreateObject()) || !cJSON_AddItemToArray(runs, r) || !cJSON_AddStringToObject(r, "id", run->id) ||
        !cJSON_AddStringToObject(r, "machine", run->machine.id) ||
        !cJSON_AddStringToObject(r, "backend", run->backend ? run->backend : "") ||
        !(*benches = cJSON_AddArrayToObject(r, "benchmarks"))) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* `text`: the folded stacks, NUL-terminated (pg_file_read). The object
 * belongs to `benches` from the start, so a failure frees nothing twice. */
static int bench_add(cJSON *benches, const pg_rundoc_bench *b, const char *text)
{
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddItemToArray(benches, o)) {
        cJSON_Delete(o);
        o = NULL;
    }
    if (!o || !cJSON_AddStringToObject(o, "name", b->name) ||
        (b->stacks_weight && !cJSON_AddStringToObject(o, "weight", b->stacks_weight)) ||
        (b->stacks_note && !cJSON_AddStringToObject(o, "note", b->stacks_note)) ||
        !cJSON_AddStringToObject(o, "folded", text))
        return pg_error_set(PG_ENOMEM, "out of memory writing the stacks note");
    return 0;
}

int pg_stacksdoc_make(char **doc, size_t *n, char *big, size_t biglen, char *unreadable, size_t unreadlen,
                      const pg_rundoc *run, const char *store_root, size_t max)
{
    *doc = NULL;
    *n = 0;
    big[0] = unreadable[0] = '\0';
    if (!run->id || !run->commit)
        return pg_error_set(PG_EINVAL, "a run without an id or a commit has no stacks note");
    cJSON *benches = NULL, *d = doc_new(run, &benches);
    if (!d)
        return pg_error_set(PG_ENOMEM, "out of memory writing the stacks note");
    int rc = 0;
    for (size_t i = 0; i < run->nbench && rc == 0; i++) {
        const pg_rundoc_bench *b = &run->bench[i];
        char path[4096], item[600], size[32];
        char *text = NULL;
        size_t len = 0;
        if (!b->stacks || !*b->stacks)
            continue;
        if (pg_results_stacks_path(path, sizeof path, b->stacks, store_root) < 0 ||
            pg_file_read(&text, &len, path) < 0) {
            snprintf(item, sizeof item, "'%s' (%s)", b->name, pg_error_last());
            pg_error_clear();
            list_add(unreadable, unreadlen, item);
            continue;
        }
        if (len > max) {
            size_text(size, sizeof size, len);
            snprintf(item, sizeof item, "'%s' (%s)", b->name, size);
            list_add(big, biglen, item);
        } else if ((rc = bench_add(benches, b, text)) == 0) {
            (*n)++;
        }
        free(text);
    }
    if (rc == 0 && *n && !(*doc = pg_json_print(d, NULL)))
        rc = pg_error_set(PG_ENOMEM, "out of memory writing the stacks note");
    cJSON_Delete(d);
    return rc;
}

/* ---- the gate ---- */

/* One run of a stacks document: an "id" and an array of benchmarks, each a
 * "name" (docs/manifest.md's rule) and its "folded" text. Unknown keys are
 * kept and ignored. */
static int check_run(const cJSON *r, size_t i, const char *name, const char *commit)
{
    int rc = pg_notedoc_check_id(r, i, name, commit);
    if (rc == 0)
        rc = pg_json_check_strict(r, name);
    if (rc < 0)
        return rc;
    const cJSON *benches = cJSON_GetObjectItemCaseSensitive(r, "benchmarks"), *b;
    if (!cJSON_IsArray(benches))
        return pg_error_set(PG_EINVAL, "%s: runs[%zu].benchmarks: expected an array", name, i);
    size_t k = 0;
    cJSON_ArrayForEach(b, benches) {
        const char *bn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "name"));
        if (!bn || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(b, "folded")))
            return pg_error_set(PG_EINVAL, "%s: runs[%zu].benchmarks[%zu]: expected an object with strings \"name\" "
                                "and \"folded\"", name, i, k);
        if (!*bn || strchr(bn, '/') || strchr(bn, '\n'))
            return pg_error_set(PG_EINVAL, "%s: runs[%zu].benchmarks[%zu].name: not a benchmark name "
                                "(docs/manifest.md, Names)", name, i, k);
        k++;
    }
    return 0;
}

const pg_notekind pg_notekind_stacks = {
    .ref = PG_NOTES_STACKS_REF,
    .schema = PG_STACKSDOC_SCHEMA,
    .noun = "stacks notes",
    .what = "run",
    .max_key = "perfgate.fetchStacksMax",
    .max_default = 64u << 20,
    .check_run = check_run,
};

void pg_notes_stacks_record(pg_repo *r, const pg_rundoc *run, const char *store_root)
{
    char *doc = NULL, big[1024], unreadable[1024], max[32], who[400], msg[600];
    size_t n = 0, added = 0, limit = pg_notes_stacks_max(r);
    int rc = pg_stacksdoc_make(&doc, &n, big, sizeof big, unreadable, sizeof unreadable, run, store_root, limit);
    size_text(max, sizeof max, limit);
    if (rc == 0 && big[0])
        pg_text_warn("notes: stacks over the %s limit for notes stay in the local store only: %s", max, big);
    if (rc == 0 && unreadable[0])
        pg_text_warn("warning: stacks not added to %s: %s", PG_NOTES_STACKS_REF, unreadable);
    if (rc == 0 && n) {
        pg_notes_describe(who, sizeof who, run, n);
        snprintf(msg, sizeof msg, "perfgate: stacks of run %s of %.12s on %s", run->id, run->commit, who);
        rc = pg_notes_add(&added, r, &pg_notekind_stacks, run->commit, doc, msg);
    }
    if (rc < 0)
        pg_text_warn("warning: the stacks are in the local store only, not in %s: %s", PG_NOTES_STACKS_REF,
                     pg_error_last());
    else if (n)
        pg_text_warn("notes: stacks of %zu benchmark%s added to %s on %.12s", n, n == 1 ? "" : "s",
                     PG_NOTES_STACKS_REF, run->commit);
    free(doc);
}

/* The "folded" text of benchmark `bench` of run `id` in a parsed stacks document, or NULL. */
static const cJSON *find_folded(const cJSON *doc, const char *id, const char *bench)
{
    const cJSON *r, *b;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "runs")) {
        const char *rid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "id"));
        if (!rid || strcmp(rid, id))
            continue;
        cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(r, "benchmarks")) {
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "name"));
            if (name && !strcmp(name, bench))
                return cJSON_GetObjectItemCaseSensitive(b, "folded");
        }
    }
    return NULL;
}

/* The parsed stacks note of `commit`: NULL when there is none or it is
 * damaged (a warning: the runs keep their unresolved paths). */
static cJSON *note_load(pg_repo *r, const char *commit)
{
    char *text = NULL, name[128];
    cJSON *doc = NULL;
    snprintf(name, sizeof name, "the note of %.12s in %s", commit, PG_NOTES_STACKS_REF);
    int rc = pg_notes_read(&text, r, PG_NOTES_STACKS_REF, commit);
    pg_notetext note = {text, text ? strlen(text) : 0, name};
    if (rc == 0 && text && (rc = pg_notedoc_check(&note, commit, &pg_notekind_stacks)) == 0)
        rc = pg_json_parse(&doc, text, strlen(text), name);
    if (rc < 0) {
        pg_text_warn("warning: stacks from notes not used: %s", pg_error_last());
        pg_error_clear();
    }
    free(text);
    return doc;
}

/* Writes `folded` to <store_root>/<rel> unless it is there already. */
static int materialise(const char *store_root, const char *rel, const char *folded)
{
    char path[4096], dir[4096];
    snprintf(path, sizeof path, "%s/%s", store_root, rel);
    if (access(path, F_OK) == 0)
        return 0;
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    int rc = pg_mkdirs(dir);
    return rc < 0 ? rc : pg_file_write_atomic(path, folded, strlen(folded));
}

void pg_notes_stacks_fill(pg_rundoc_list *runs, const char *store_root, pg_repo *r, const char *commit)
{
    cJSON *doc = NULL;
    int loaded = 0;
    if (!r || !store_root || !*store_root)
        return;
    for (size_t i = 0; i < runs->n; i++) {
        pg_rundoc *run = &runs->v[i];
        for (size_t k = 0; run->id && k < run->nbench; k++) {
            pg_rundoc_bench *b = &run->bench[k];
            char path[4096], rel[3 * PG_SAFE_NAME_SIZE + 64], sid[PG_SAFE_NAME_SIZE], sname[PG_SAFE_NAME_SIZE],
                scommit[PG_SAFE_NAME_SIZE];
            if (!b->stacks || !*b->stacks)
                continue;
            if (pg_results_stacks_path(path, sizeof path, b->stacks, store_root) == 0 && access(path, R_OK) == 0)
                continue;
            pg_error_clear();
            if (!loaded) {
                doc = note_load(r, commit);
                loaded = 1;
            }
            const char *folded = cJSON_GetStringValue(find_folded(doc, run->id, b->name));
            if (!folded)
                continue;
            /* Names from another clone's note: made file names, never paths. */
            pg_path_safe_name(scommit, commit);
            pg_path_safe_name(sid, run->id);
            pg_path_safe_name(sname, b->name);
            snprintf(rel, sizeof rel, "notes-stacks/%s/%s/%s.folded", scommit, sid, sname);
            if (materialise(store_root, rel, folded) < 0) {
                pg_text_warn("warning: %s: stacks from %s not used: %s", b->name, PG_NOTES_STACKS_REF, pg_error_last());
                pg_error_clear();
                continue;
            }
            if (pg_rundoc_set(&b->stacks, rel) < 0) {
                pg_error_clear();
                continue;
            }
        }
    }
    cJSON_Delete(doc);
}
