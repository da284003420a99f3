// tests/progs/gbench/gb_demo.cc — a real Google Benchmark suite for the tests
// (tests/e2e/gbench.sh), built against Debian's libbenchmark-dev.
//
// BM_lcg/N runs N dependent steps per iteration, so its instructions per
// iteration are a + b*N exactly. BM_scaled does GB_DEMO_SCALE times 100
// steps (the environment is read before the timed loop): the "change" the
// test gates. BM_pause does untimed work between PauseTiming/ResumeTiming,
// which must not be counted.
#include <benchmark/benchmark.h>

#include <cstdlib>

static unsigned lcg(unsigned x, long n)
{
    for (long i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        benchmark::DoNotOptimize(x);
    }
    return x;
}

static void BM_lcg(benchmark::State &state)
{
    unsigned x = 1;
    for (auto _ : state)
        x = lcg(x, state.range(0));
    state.counters["steps"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_lcg)->Arg(100)->Arg(200);

static void BM_scaled(benchmark::State &state)
{
    const char *s = std::getenv("GB_DEMO_SCALE");
    long scale = s ? std::atol(s) : 1;
    unsigned x = 1;
    for (auto _ : state)
        x = lcg(x, 100 * scale);
}
BENCHMARK(BM_scaled);

// Skips itself as a benchmark that needs AVX-512 does under valgrind (asked
// for by GB_DEMO_SKIP, so that the test does not depend on the CPU).
static void BM_needs_cpu(benchmark::State &state)
{
    if (std::getenv("GB_DEMO_SKIP")) {
        state.SkipWithError("no AVX-512");
        return;
    }
    unsigned x = 1;
    for (auto _ : state)
        x = lcg(x, 100);
}
BENCHMARK(BM_needs_cpu);

static void BM_pause(benchmark::State &state)
{
    unsigned x = 1;
    for (auto _ : state) {
        state.PauseTiming();
        x = lcg(x, 100000);   // untimed: not counted
        state.ResumeTiming();
        x = lcg(x, 100);
    }
}
BENCHMARK(BM_pause);

BENCHMARK_MAIN();
