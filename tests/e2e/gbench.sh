#!/usr/bin/env bash
# A real Google Benchmark suite (tests/progs/gbench/gb_demo.cc, built against
# Debian's libbenchmark-dev): recognised and listed, each benchmark named after
# itself; under valgrind exact instructions per iteration, only inside the
# timed region and identical from run to run; natively the library's own JSON;
# compare gates a change in one benchmark.
. "$(dirname "$0")/lib/common.sh"
GB=$PROGS/gb_demo
if [ ! -x "$GB" ]; then
  echo "FAIL: $GB was not built: libbenchmark-dev is missing (ci/install-deps.sh installs it)" >&2
  exit 1
fi
cd "$T"
m() { json "$1" "{b['name']: b for b in d['benchmarks']}['$2']['metrics']['$3']['samples'][0]"; }

# Valgrind: the executable given as it is; its benchmarks named after themselves.
expect_exit 0 "valgrind run of a Google Benchmark executable" "$PG" run --backend valgrind --no-store --format json "$GB"
cp "$T/out" base.json
check "every benchmark of the suite, named after it ('/' -> ':')" \
  [ "$(json base.json "[b['name'] for b in d['benchmarks']]")" = "['BM_lcg:100', 'BM_lcg:200', 'BM_scaled', 'BM_needs_cpu', 'BM_pause']" ]
c100=$(m base.json BM_lcg:100 instructions); c200=$(m base.json BM_lcg:200 instructions)
# BM_lcg/N does N equal steps: a + b*N, with nothing of start-up (millions) or
# of the library's timer in a.
check "per iteration: 100 more steps cost exactly 100 equal steps ($c100, $c200)" \
  python3 -c "a,b=int($c100),int($c200); s=(b-a)//100; assert b>a and (b-a)%100==0 and 0<=a-100*s<100, (a,b)"
check "one iteration counted" [ "$(m base.json BM_lcg:100 iterations)" = 1 ]
check "untimed work between PauseTiming and ResumeTiming not counted" \
  python3 -c "assert $(m base.json BM_pause instructions) < $c200"
check "the exact kind of count" [ "$(json base.json "d['benchmarks'][0]['metrics']['instructions']['backend']")" = valgrind ]

# Another process with another environment (so another start-up): the same
# per-iteration counts; BM_scaled, made to do 100 more steps, costs exactly
# what 100 steps cost in BM_lcg.
GB_DEMO_SCALE=2 expect_exit 0 "the changed run" "$PG" run --backend valgrind --no-store --format json --pass-env GB_DEMO_SCALE \
  --filter 'lcg:100|scaled' "$GB"
cp "$T/out" cand.json
check "identical over two runs: BM_lcg/100" [ "$(m cand.json BM_lcg:100 instructions)" = "$c100" ]
check "the change costs exactly 100 steps" \
  [ "$(python3 -c "print(int($(m cand.json BM_scaled instructions) - $(m base.json BM_scaled instructions)))")" = $((c200 - c100)) ]

# compare gates them like any benchmark.
# (the candidate ran a filter: three benchmarks vanished, which --allow-missing accepts)
expect_exit 2 "compare: vanished benchmarks are not gated" "$PG" compare base.json cand.json
contains "$T/err" "BM_lcg:200 (not in the candidate), BM_needs_cpu (not in the candidate), BM_pause (not in the candidate); pass --allow-missing"
expect_exit 1 "compare: the change is a regression" "$PG" compare --allow-missing base.json cand.json
contains "$T/out" "verdict: regressed -- 1 regressed, 1 unchanged of 2 benchmarks compared; 3 vanished"
check "BM_scaled regressed" grep -qE '^BM_scaled +instructions .* regressed$' "$T/out"
check "BM_lcg:100 unchanged" grep -qE '^BM_lcg:100 +instructions .* 0 +0.00% .* unchanged$' "$T/out"
expect_exit 0 "compare: no change" "$PG" compare base.json base.json

# Stacks of a Google Benchmark under valgrind are its timed region's, per
# iteration: the function table adds up to the per-iteration headline, with
# nothing unattributed, and BM_pause's untimed work (1000 times the timed)
# is not in them.
mkdir repo && (cd repo && git init -q -b main && git config user.email t@e.invalid && git config user.name t &&
  git commit -q --allow-empty -m a && git commit -q --allow-empty -m b && git checkout -q HEAD~1)
cd repo
expect_exit 0 "stacks of the base" "$PG" run --backend valgrind --no-native --no-notes --sample --filter 'scaled|pause' "$GB"
git checkout -q main
GB_DEMO_SCALE=2 expect_exit 0 "stacks of the candidate" "$PG" run --backend valgrind --no-native --no-notes --sample \
  --filter 'scaled|pause' --pass-env GB_DEMO_SCALE "$GB"
expect_exit 1 "compare: the function table of a Google Benchmark" "$PG" compare HEAD~1 HEAD
contains "$T/out" "BM_scaled: self cost by function (instructions per iteration, the timed region only)"
check "the rows add up to the headline: nothing unattributed, so no row for it" \
  sh -c '! grep -q "measured apart" "$1" && grep -qE "^ += instructions \\(headline\\) " "$1"' - "$T/out"
doc=$(ls .perfgate/results/"$(git rev-parse HEAD)"/*.json)
check "BM_pause's stacks per iteration are its headline (the untimed work left out)" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['runs'][0]
b = [b for b in d['benchmarks'] if b['name'] == 'BM_pause'][0]
total = sum(int(l.rsplit(' ', 1)[1]) for l in open('.perfgate/' + b['stacks']) if l.strip())
head = b['metrics']['instructions']['samples'][0]
sys.exit(not (total / b['stacks_iterations'] == head and head < 5000))" "$doc"
cd ..

# A listing longer than perfgate reads (16 MiB) is refused, never cut into a
# list whose truncation mark would be taken for a benchmark's name.
printf '#!/bin/sh\ncase "$*" in *--benchmark_list_tests*) yes BM_many | head -c 17000000; exit 0;; esac\nexit 1\n' > big-suite
chmod +x big-suite
echo '{"benchmarks":[{"kind":"google-benchmark","name":"big","command":["./big-suite"]}]}' > big.json
expect_exit 2 "a listing over 16 MiB" "$PG" run --no-store big.json
contains "$T/err" "big-suite --benchmark_list_tests printed more than 16 MiB: too many benchmarks for one suite entry"

# A benchmark that skips itself under valgrind (as one needing AVX-512 does)
# fails with its own message and the reason it may happen only there.
GB_DEMO_SKIP=1 expect_exit 1 "a benchmark that skips itself" "$PG" run --backend valgrind --no-store \
  --pass-env GB_DEMO_SKIP --filter needs_cpu "$GB"
cat "$T/out" "$T/err" > skip.txt
contains skip.txt "the benchmark reported an error: no AVX-512 (under valgrind: it emulates no AVX-512"

# Natively: the library's JSON report; a manifest entry with a prefix and a filter.
cat > perfgate.json <<EOF
{ "benchmarks": [ { "kind": "google-benchmark", "name": "demo", "filter": "BM_lcg/100\$",
    "command": ["$GB", "--benchmark_min_time=0.001"], "repeat": 2, "warmup": 0 } ] }
EOF
expect_exit 0 "native run from a manifest" "$PG" run --backend perf --no-store --format json perfgate.json
cp "$T/out" native.json
check "prefixed name, filter applied" [ "$(json native.json "[b['name'] for b in d['benchmarks']]")" = "['demo:BM_lcg:100']" ]
check "time per iteration, one sample per run" \
  [ "$(json native.json "[(len(d['benchmarks'][0]['metrics'][k]['samples']), d['benchmarks'][0]['metrics'][k]['unit']) for k in ('real-time', 'cpu-time')]")" = "[(2, 'ns'), (2, 'ns')]" ]
check "user counter" [ "$(m native.json demo:BM_lcg:100 counter:steps)" = 100 ]
check "no whole-process counters" [ "$(json native.json "'task-clock' in d['benchmarks'][0]['metrics']")" = False ]
expect_exit 0 "text output" "$PG" run --backend perf --no-store --repeat 1 --warmup 0 perfgate.json
# (in whatever unit fits: a loaded machine makes an iteration microseconds or more)
check "time per iteration shown with its unit" grep -qE '^  real-time +[0-9.]+ (ns|us|ms|s) ' "$T/out"

# Errors say what is wrong.
echo '{"benchmarks":[{"name":"x","filter":"a","command":["/bin/true"]}]}' > bad.json
expect_exit 2 "filter without kind" "$PG" run --no-store bad.json
contains "$T/err" 'bad.json: benchmarks[0].filter: only for "kind": "google-benchmark"'
echo '{"benchmarks":[{"kind":"googlebenchmark","command":["/bin/true"]}]}' > bad.json
expect_exit 2 "unknown kind" "$PG" run --no-store bad.json
contains "$T/err" 'bad.json: benchmarks[0].kind: expected "command" or "google-benchmark"'
echo '{"benchmarks":[{"kind":"google-benchmark","command":["/bin/true"]}]}' > bad.json
expect_exit 2 "not a Google Benchmark executable" "$PG" run --no-store bad.json
contains "$T/err" "/bin/true lists no benchmark"

# A report with a number JSON reads as infinity fails that benchmark, saying
# why, and is not stored (it was stored as null, and the store then refused
# every later run).
cat > infgb <<'EOF'
#!/bin/sh
case "$*" in *list_tests*) echo BM_inf; exit 0 ;; esac
echo '{"benchmarks": [{"name": "BM_inf", "run_type": "iteration", "iterations": 10, "real_time": 1e999, "cpu_time": 5, "time_unit": "ns"}]}'
EOF
chmod +x infgb
echo '{"benchmarks":[{"kind":"google-benchmark","command":["./infgb"],"repeat":1,"warmup":0}]}' > inf.json
for i in 1 2; do
  expect_exit 1 "a report with an infinite time (run $i)" "$PG" run --backend perf --store "$T/st" inf.json
  contains "$T/out" "BM_inf  FAILED: the Google Benchmark JSON report: benchmarks[0].real_time is not a finite number"
  lacks "$T/err" "corrupt"
done
finish
