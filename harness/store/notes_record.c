/* harness/store/notes_record.c — see notes_record.h. */
#include "harness/store/notes_record.h"
#include "harness/store/notes.h"
#include "harness/store/notes_stacks.h"
#include "util/error.h"
#include "util/text.h"

void pg_notes_record(pg_repo *r, const pg_rundoc *run, const char *store_root, int stacks)
{
    if (!r || !run->commit)
        return;
    if (run->dirty) {
        pg_text_warn("note: not added to %s: the work tree was dirty, so the run did not measure %.12s", PG_NOTES_REF,
                     run->commit);
        return;
    }
    stacks = stacks || pg_notes_stacks_configured(r);
    if (pg_notes_add_run(r, run->commit, run) < 0) {
        pg_text_warn("warning: the run is in the local store only, not in %s: %s", PG_NOTES_REF, pg_error_last());
        return;
    }
    pg_text_warn("notes: run added to %s on %.12s (logs %sstay in the local store; 'perfgate push' shares the notes)",
                 PG_NOTES_REF, run->commit, stacks ? "" : "and stacks ");
    if (stacks)
        pg_notes_stacks_record(r, run, store_root);
}
