/* report/profile_out.h — one profile written in the format its reader wants:
 * a flamegraph SVG (report/flamegraph.h), a pprof profile (report/pprof.h)
 * or a speedscope file (report/speedscope.h). `perfgate flamegraph` and
 * `perfgate record -o` both choose here, by name or by the output's
 * extension, so the two never disagree about what `x.pb.gz` is.
 */
#ifndef PG_REPORT_PROFILE_OUT_H
#define PG_REPORT_PROFILE_OUT_H

#include "report/flamegraph.h"
#include "util/folded.h"

#include <stddef.h>

typedef enum pg_profile_format {
    PG_PROFILE_SVG = 0,
    PG_PROFILE_PPROF,
    PG_PROFILE_SPEEDSCOPE,
} pg_profile_format;

/* The names, in the enum's order, NULL-terminated: a PG_OPT_CHOICE table. */
extern const char *const pg_profile_format_names[];

/* By extension: ".pb.gz" pprof, ".speedscope.json" speedscope, anything
 * else (".svg", none, NULL) SVG. */
pg_profile_format pg_profile_format_of(const char *path);

/* `f` in format `fmt` into *out (malloc'd; *len its length). From `o`: an
 * SVG's every option; pprof's sample type is o->unit ("samples" when NULL);
 * speedscope's profile name is o->title ("perfgate" when NULL). Errors are
 * the encoders'. */
int pg_profile_encode(char **out, size_t *len, pg_profile_format fmt, pg_folded *f, const pg_flamegraph_opts *o);

/* The same written atomically to `path`. */
int pg_profile_write_file(const char *path, pg_profile_format fmt, pg_folded *f, const pg_flamegraph_opts *o);

#endif
