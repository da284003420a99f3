/* harness/store/gitdiff.c — see gitdiff.h. */
#include "harness/store/gitdiff.h"
#include "harness/store/git2.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int git_fail(const char *what)
{
    return pg_error_set(PG_ERROR, "%s: %s", what, pg_repo_git_msg());
}

static int tree_of(git_tree **out, git_repository *repo, const git_oid *id)
{
    git_commit *c = NULL;
    int rc = git_commit_lookup(&c, repo, id) == 0 && git_commit_tree(out, c) == 0 ? 0 : -1;
    git_commit_free(c);
    return rc;
}

/* The file's hunks as ranges of new-side lines; a deletion is the line after it. */
static int add_file(pg_change *ch, git_patch *p, const char *path, size_t *total)
{
    size_t nh = git_patch_num_hunks(p);
    pg_change_file *nf = realloc(ch->files, (ch->nfiles + 1) * sizeof *nf);
    if (!nf)
        return pg_error_set(PG_ENOMEM, "out of memory");
    ch->files = nf;
    pg_change_file *f = &ch->files[ch->nfiles++];
    *f = (pg_change_file){.path = strdup(path), .range = calloc(nh + 1, sizeof *f->range)};
    if (!f->path || !f->range)
        return pg_error_set(PG_ENOMEM, "out of memory");
    for (size_t h = 0; h < nh; h++) {
        const git_diff_hunk *hk;
        size_t nl;
        if (git_patch_get_hunk(&hk, &nl, p, h) < 0)
            return git_fail(path);
        int lo = hk->new_lines ? hk->new_start : hk->new_start + 1;
        int hi = hk->new_lines ? hk->new_start + hk->new_lines - 1 : lo;
        f->range[f->nrange][0] = lo;
        f->range[f->nrange++][1] = hi;
        *total += (size_t)(hi - lo + 1);
    }
    return 0;
}

static int diff_lines(pg_change *ch, git_repository *repo, git_tree *a, git_tree *b)
{
    git_diff_options o;
    git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
    o.context_lines = 0;
    o.interhunk_lines = 0;
    git_diff *d = NULL;
    if (git_diff_tree_to_tree(&d, repo, a, b, &o) < 0 || git_diff_find_similar(d, NULL) < 0) {
        git_diff_free(d);
        return git_fail("git diff");
    }
    int rc = 0;
    size_t total = 0, n = git_diff_num_deltas(d);
    for (size_t i = 0; rc == 0 && i < n && total <= PG_GITDIFF_MAX_LINES; i++) {
        const git_diff_delta *dl = git_diff_get_delta(d, i);
        if (dl->status == GIT_DELTA_DELETED || (dl->flags & GIT_DIFF_FLAG_BINARY))
            continue;
        git_patch *p = NULL;
        if (git_patch_from_diff(&p, d, i) < 0)
            rc = git_fail(dl->new_file.path);
        else if (p && !(dl->flags & GIT_DIFF_FLAG_BINARY) && git_patch_num_hunks(p))
            rc = add_file(ch, p, dl->new_file.path, &total);
        git_patch_free(p);
    }
    git_diff_free(d);
    if (rc == 0 && total > PG_GITDIFF_MAX_LINES) {
        pg_change_free(ch);
        snprintf(ch->note, sizeof ch->note, "the change is too large to map (over %d changed lines)",
                 PG_GITDIFF_MAX_LINES);
    }
    return rc;
}

int pg_repo_change(pg_change *out, pg_repo *r, const char *base, const char *head)
{
    memset(out, 0, sizeof *out);
    git_repository *repo = pg_repo_git(r);
    git_oid a, b;
    if (git_oid_fromstr(&a, base) < 0 || git_oid_fromstr(&b, head) < 0)
        return pg_error_set(PG_EINVAL, "not a commit id: %s..%s", base, head);
    if (!git_oid_equal(&a, &b) && git_graph_descendant_of(repo, &b, &a) != 1) {
        snprintf(out->note, sizeof out->note,
                 "the baseline %.12s is not an ancestor of the candidate %.12s: their diff would hold the other "
                 "branch's changes too", base, head);
        return 0;
    }
    git_tree *ta = NULL, *tb = NULL;
    int rc = tree_of(&ta, repo, &a) < 0 || tree_of(&tb, repo, &b) < 0 ? git_fail("reading a commit's tree")
                                                                       : diff_lines(out, repo, ta, tb);
    git_tree_free(ta);
    git_tree_free(tb);
    if (rc < 0)
        pg_change_free(out);
    return rc;
}
