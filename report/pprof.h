/* report/pprof.h — folded stacks as a pprof profile (google/pprof's
 * profile.proto, gzip-compressed: what `go tool pprof`, pprof's web UI,
 * Grafana Pyroscope and speedscope open).
 *
 * The profile has one sample type, {TYPE, "count"} where TYPE is what the
 * counts are ("samples", or "instructions" for valgrind stacks), and the same
 * as its period type, with period 1. One Function per distinct name (ids
 * from 1, name and system_name the name, made valid UTF-8 as proto3 strings
 * must be), one Location per Function (the same id, one Line naming it, no
 * address), and one Sample per stack, its location ids leaf first as pprof
 * orders them, its value the count. A recursive stack repeats its location,
 * as pprof's own profiles do. Where `f` knows a frame's source
 * (pg_folded_source: `record` notes it from the debug info), its Function
 * gets the source file and start line, its Line that line, and its Location
 * the Mapping of the file it is in (path and build id; one per file).
 *
 * The protobuf is encoded here by hand (varints and length-delimited fields;
 * repeated scalars packed, as proto3 writes them) and compressed with zlib.
 */
#ifndef PG_REPORT_PPROF_H
#define PG_REPORT_PPROF_H

#include "util/folded.h"

#include <stddef.h>

/* `f` as a .pb.gz into *out (malloc'd; *len its length). `type` NULL is
 * "samples". PG_EINVAL when `f` has no samples or a count is over 2^63-1
 * (an int64 value); PG_ENOMEM. `f` is only read. */
int pg_pprof_encode(unsigned char **out, size_t *len, pg_folded *f, const char *type);


#endif
