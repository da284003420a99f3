/* report/profile_out.c — see profile_out.h. */
#include "report/profile_out.h"
#include "report/pprof.h"
#include "report/speedscope.h"
#include "util/fileio.h"

#include <stdlib.h>
#include <string.h>

const char *const pg_profile_format_names[] = {"svg", "pprof", "speedscope", NULL};

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

pg_profile_format pg_profile_format_of(const char *path)
{
    if (path && ends_with(path, ".pb.gz"))
        return PG_PROFILE_PPROF;
    if (path && ends_with(path, ".speedscope.json"))
        return PG_PROFILE_SPEEDSCOPE;
    return PG_PROFILE_SVG;
}

int pg_profile_encode(char **out, size_t *len, pg_profile_format fmt, pg_folded *f, const pg_flamegraph_opts *o)
{
    switch (fmt) {
    case PG_PROFILE_PPROF:
        return pg_pprof_encode((unsigned char **)out, len, f, o ? o->unit : NULL);
    case PG_PROFILE_SPEEDSCOPE:
        return pg_speedscope_encode(out, len, f, o ? o->title : NULL);
    case PG_PROFILE_SVG:
    default:
        return pg_flamegraph_render(out, len, f, o);
    }
}

int pg_profile_write_file(const char *path, pg_profile_format fmt, pg_folded *f, const pg_flamegraph_opts *o)
{
    char *data = NULL;
    size_t len = 0;
    int rc = pg_profile_encode(&data, &len, fmt, f, o);
    if (rc == 0)
        rc = pg_file_write_atomic(path, data, len);
    free(data);
    return rc;
}
