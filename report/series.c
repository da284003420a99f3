#include "report/series.h"

const char *pg_verdict_name(pg_verdict v)
{
    switch (v) {
    case PG_VERDICT_IMPROVED: return "improved";
    case PG_VERDICT_REGRESSED: return "regressed";
    case PG_VERDICT_INCONCLUSIVE: return "inconclusive";
    default: return "unchanged";
    }
}
