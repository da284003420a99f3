/* report/format.h — numbers for people, shared by every renderer (and by
 * `perfgate run`'s tables). */
#ifndef PG_REPORT_FORMAT_H
#define PG_REPORT_FORMAT_H

#include <stddef.h>

/* Formats a value of `unit`: counts with thousands separators, ns as ms or s,
 * bytes as KiB/MiB. Writes the unit shown into `unit_out`. NAN prints "-". */
void pg_format_value(char *buf, size_t len, char *unit_out, size_t ulen, double v, const char *unit);

/* The same with the unit appended ("1,234", "12.500 ms", "3.1 MiB"); counts
 * show no unit. `sign` forces a leading + for positive values (deltas). */
void pg_format_with_unit(char *buf, size_t len, double v, const char *unit, int sign);

/* "+3.02%", "-0.50%", "0.00%" (|pct| < 0.005); NAN (no baseline, or a change
 * from zero) prints "-". */
void pg_format_pct(char *buf, size_t len, double pct);
/* As pg_format_pct, but a change too small for two decimals is shown with
 * two significant digits ("0.0000051%") rather than as "0.00%": where a
 * difference of a few counts is the finding (a control's A/A delta). */
void pg_format_pct_fine(char *buf, size_t len, double pct);

/* A threshold: "1%", "0.5%", "12.25%". */
void pg_format_threshold(char *buf, size_t len, double pct);

/* Integer with thousands separators ("-1,234,567"). */
void pg_format_thousands(char *buf, size_t len, double v);

#endif
