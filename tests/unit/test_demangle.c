/* C++ and Rust names demangled for flamegraphs (counters/demangle.h). The Rust
 * names are symbols of a program rustc 1.95 built, in both manglings. */
#include "counters/demangle.h"
#include "tests/check.h"

int main(void)
{
    char b[512];
    CHECK_STR(pg_demangle(b, sizeof b, "main"), "main");
    CHECK_STR(pg_demangle(b, sizeof b, "hash.constprop.0"), "hash.constprop.0");
    CHECK_STR(pg_demangle(b, sizeof b, "_Zbogus"), "_Zbogus");   /* not demanglable: left as is */
    CHECK_STR(pg_demangle(b, sizeof b, "_Rbogus"), "_Rbogus");
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN3foo3barEi"), "foo::bar(int)");
    CHECK_STR(pg_demangle(b, sizeof b, "_ZNSt6vectorIiSaIiEE9push_backERKi"),
              "std::vector<int, std::allocator<int> >::push_back(int const&)");
    /* Rust legacy: Itanium-style, the ::h<hash> dropped, $-escapes decoded */
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN5rwork8leaf_mix17h71d506b94f2e69deE"), "rwork::leaf_mix");
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN59_$LT$core..fmt..Arguments$u20$as$u20$core..fmt..Display$GT$3fmt17h0123456789abcdefE"),
              "<core::fmt::Arguments as core::fmt::Display>::fmt");
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17hce3fccab4590daafE"),
              "std::rt::lang_start::{{closure}}");
    /* ...and LLVM's suffix on a symbol it made local */
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN4core3ptr13drop_in_place17h0123456789abcdefE.llvm.1234567890"),
              "core::ptr::drop_in_place");
    /* a C++ name is never cut like a Rust hash */
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN1a17h0123456789abcdefEv"), "a::h0123456789abcdef()");
    /* Rust v0: crate disambiguators dropped, generic arguments and closures shown */
    CHECK_STR(pg_demangle(b, sizeof b, "_RNvCsgRL4ojyKh1O_5rwork8leaf_mix"), "rwork::leaf_mix");
    CHECK_STR(pg_demangle(b, sizeof b, "_RINvCsgRL4ojyKh1O_5rwork11sum_genericmEB2_"), "rwork::sum_generic::<u32>");
    CHECK_STR(pg_demangle(b, sizeof b, "_RNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0CsgRL4ojyKh1O_5rwork"),
              "std::rt::lang_start::<()>::{closure#0}");
    /* std's own v0 symbols, in a legacy-mangled program too */
    CHECK_STR(pg_demangle(b, sizeof b, "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal"),
              "std::rt::lang_start_internal");
    CHECK_STR(pg_demangle(b, sizeof b, "_RNvXs1g_NtCsgEmfK2I1SDS_4core3fmtRNtNtNtB8_3num5error12IntErrorKindNtB6_5Debug3fmtCsgRL4ojyKh1O_5rwork"),
              "<&core::num::error::IntErrorKind as core::fmt::Debug>::fmt");
    /* truncated to the buffer, still terminated */
    char small[8];
    CHECK_STR(pg_demangle(small, sizeof small, "_ZN3foo3barEi"), "foo::ba");
    return pg_check_done();
}
