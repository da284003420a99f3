/* tests/check.h — the unit tests' few macros.
 *
 * CHECK(cond) records a failure with file:line and goes on; a test file's
 * main returns pg_check_done(), which prints "N passed, N failed" and is
 * non-zero when anything failed. REQUIRE(cond) is for what the rest of the
 * test stands on (a scratch directory): it fails the test there and then,
 * so a test can never pass by skipping its work.
 */
#ifndef PG_TESTS_CHECK_H
#define PG_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pg_check_pass, pg_check_fail;

#define CHECK(cond) do { \
    if (cond) pg_check_pass++; \
    else { pg_check_fail++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define REQUIRE(cond) do { \
    if (!(cond)) { fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); exit(1); } \
} while (0)

#define CHECK_EQ_INT(a, b) do { \
    long long a_ = (long long)(a), b_ = (long long)(b); \
    if (a_ == b_) pg_check_pass++; \
    else { pg_check_fail++; fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, a_, b_); } \
} while (0)

#define CHECK_NEAR(a, b, eps) do { \
    double a_ = (double)(a), b_ = (double)(b); \
    if (fabs(a_ - b_) <= (eps)) pg_check_pass++; \
    else { pg_check_fail++; fprintf(stderr, "%s:%d: %s ~= %s failed: %.17g vs %.17g\n", __FILE__, __LINE__, #a, #b, a_, b_); } \
} while (0)

#define CHECK_STR(a, b) do { \
    const char *a_ = (a), *b_ = (b); \
    if (a_ && b_ && strcmp(a_, b_) == 0) pg_check_pass++; \
    else { pg_check_fail++; fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" vs \"%s\"\n", __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } \
} while (0)

#define CHECK_CONTAINS(hay, needle) do { \
    const char *h_ = (hay), *n_ = (needle); \
    if (h_ && strstr(h_, n_)) pg_check_pass++; \
    else { pg_check_fail++; fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, h_ ? h_ : "(null)", n_); } \
} while (0)

static inline int pg_check_done(void)
{
    printf("%d passed, %d failed\n", pg_check_pass, pg_check_fail);
    return pg_check_fail ? 1 : 0;
}

#endif
