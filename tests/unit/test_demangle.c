/* C++ and Rust names demangled for flamegraphs (counters/demangle.h). */
#include "counters/demangle.h"
#include "tests/check.h"

int main(void)
{
    char b[512];
    CHECK_STR(pg_demangle(b, sizeof b, "main"), "main");
    CHECK_STR(pg_demangle(b, sizeof b, "hash.constprop.0"), "hash.constprop.0");
    CHECK_STR(pg_demangle(b, sizeof b, "_Zbogus"), "_Zbogus");   /* not demanglable: left as is */
    if (!pg_demangle_available()) {
        fprintf(stderr, "libstdc++.so.6 not found: C++ cases skipped\n");
        return pg_check_done();
    }
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN3foo3barEi"), "foo::bar(int)");
    CHECK_STR(pg_demangle(b, sizeof b, "_ZNSt6vectorIiSaIiEE9push_backERKi"),
              "std::vector<int, std::allocator<int> >::push_back(int const&)");
    /* Rust legacy: Itanium-style, the ::h<hash> dropped, $-escapes decoded */
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN59_$LT$core..fmt..Arguments$u20$as$u20$core..fmt..Display$GT$3fmt17h0123456789abcdefE"),
              "<core::fmt::Arguments as core::fmt::Display>::fmt");
    /* a C++ name is never cut like a Rust hash */
    CHECK_STR(pg_demangle(b, sizeof b, "_ZN1a17h0123456789abcdefEv"), "a::h0123456789abcdef()");
    /* truncated to the buffer, still terminated */
    char small[8];
    CHECK_STR(pg_demangle(small, sizeof small, "_ZN3foo3barEi"), "foo::ba");
    return pg_check_done();
}
