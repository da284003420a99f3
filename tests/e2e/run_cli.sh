#!/usr/bin/env bash
# The command line as a user meets it: help, version, bad options and bad
# manifests give one clear line and exit 2.
. "$(dirname "$0")/lib/common.sh"

expect_exit 0 "--version" "$PG" --version
contains "$T/out" "perfgate "
expect_exit 0 "--help" "$PG" --help
contains "$T/out" "compare"
expect_exit 2 "no command" "$PG"
expect_exit 2 "unknown command" "$PG" frobnicate
contains "$T/err" "'frobnicate' is not a perfgate command"
# Every command's help lists every option it takes (the help is generated from
# the table the options are parsed with; this is the list users rely on).
declare -A options=(
  [run]="--repeat --warmup --cpu --no-pin --events --backend --all-events --timeout --sample[=HZ] --filter --store --no-store --no-build --format --verbose --help"
  [compare]="--threshold --gate --format --output --flamegraph --run-missing --manifest --backend --repeat --sample[=HZ] --allow-cross-machine --store --verbose --help"
  [show]="--store --format --verbose --help"
  [record]="--freq --count --call-graph --stack-size --event --output --folded --title --cpu --no-pin --help"
  [flamegraph]="--output --title --subtitle --unit --width --minwidth --diff --reverse --raw --help"
  [doctor]="--help"
)
for c in run compare show record flamegraph doctor; do
  expect_exit 0 "$c --help" "$PG" $c --help
  contains "$T/out" "usage: perfgate $c"
  for o in ${options[$c]}; do
    grep -qF -- " $o" "$T/out" && ok || bad "$c --help lists $o"
  done
  expect_exit 0 "help $c" "$PG" help $c
  contains "$T/out" "usage: perfgate $c"
done
contains "$T/out" "Exit status: 0 something can be measured"
# One word each across the commands: the benchmarks' manifest is --manifest
# PATH, one benchmark by name --benchmark NAME; the old spellings are not listed.
for c in run compare calibrate bisect backfill; do
  expect_exit 0 "$c --help" "$PG" $c --help
  contains "$T/out" "      --manifest PATH " "$c --help lists --manifest PATH"
  lacks "$T/out" "--bench " "$c --help lists no --bench"
  lacks "$T/out" "--bench-dir" "$c --help lists no --bench-dir"
done
contains "$T/out" "      --part I/N " "backfill --help lists --part"
expect_exit 0 "bisect --help" "$PG" bisect --help
contains "$T/out" "      --benchmark NAME "
expect_exit 0 "run -h" "$PG" run -h
contains "$T/out" "130 interrupted (nothing stored)"
contains "$T/out" "(default 997 Hz)"
cd "$T"
expect_exit 2 "unknown option" "$PG" run --frobnicate
contains "$T/err" "unknown option '--frobnicate'; see 'perfgate run --help'"
expect_exit 2 "misspelt option" "$PG" compare --treshold 1% a b
contains "$T/err" "unknown option '--treshold' (did you mean '--threshold'?)"
expect_exit 2 "ambiguous option" "$PG" run --no
contains "$T/err" "option '--no' is ambiguous (--no-pin, --no-native, --no-store, --no-notes, --notes-stacks, --no-build)"
expect_exit 2 "misspelt command" "$PG" comapre
contains "$T/err" "'comapre' is not a perfgate command (did you mean 'compare'?)"
expect_exit 2 "option without its value" "$PG" show --format
contains "$T/err" "option '--format' needs a value; see 'perfgate show --help'"
expect_exit 2 "bad --format" "$PG" show --format yaml
contains "$T/err" "--format: expected text or json, got 'yaml'"
expect_exit 2 "bad --timeout" "$PG" run --timeout -1 -- /bin/true
contains "$T/err" "--timeout: expected a number of seconds > 0, got '-1'"
expect_exit 2 "doctor takes no arguments" "$PG" doctor now
contains "$T/err" "doctor takes no arguments, got 'now'"
expect_exit 2 "bad --repeat" "$PG" run --repeat zero -- /bin/true
contains "$T/err" "--repeat: expected a whole number >= 1, got 'zero'"
expect_exit 2 "bad --backend" "$PG" run --backend gpu -- /bin/true
contains "$T/err" "unknown backend 'gpu'"
expect_exit 2 "missing path" "$PG" run --no-store "$T/nothing-here"
contains "$T/err" "nothing-here"
expect_exit 2 "empty command after --" "$PG" run --
# No PATH, no command and no bench/: what was looked for, and how to make it, in one line.
expect_exit 2 "run with no bench/" "$PG" run
check "no bench/: one line says it all ($(cat "$T/err"))" [ "$(cat "$T/err")" = "perfgate: nothing to run: no bench/ in $(pwd -P) (looked for bench/perfgate.json, or executables in bench/); make bench/perfgate.json (docs/manifest.md), or name them: perfgate run PATH... or perfgate run -- CMD" ]
mkdir -p m
bad_manifest() { # DESCRIPTION JSON EXPECTED-TEXT
  printf '%s\n' "$2" > m/perfgate.json
  expect_exit 2 "$1" "$PG" run --no-store m
  contains "$T/err" "$3" "$1: error should say '$3'"
  [ "$(wc -l < "$T/err")" -le 2 ] && ok || bad "$1: error should be one line"
}
bad_manifest "invalid JSON" '{ "benchmarks": [ }' "m/perfgate.json:1:"
bad_manifest "unknown key" '{ "benchmarks": [ { "name": "a", "comand": ["/bin/true"] } ] }' 'm/perfgate.json: benchmarks[0]: unknown key "comand" (did you mean "command"?)'
bad_manifest "wrong type" '{ "benchmarks": [ { "name": "a", "command": ["/bin/true"], "repeat": "3" } ] }' 'm/perfgate.json: benchmarks[0].repeat: expected a whole number >= 1'
bad_manifest "missing command" '{ "benchmarks": [ { "name": "a" } ] }' 'benchmarks[0].command: required'
bad_manifest "duplicate name" '{ "benchmarks": [ { "name": "a", "command": ["/bin/true"] }, { "name": "a", "command": ["/bin/true"] } ] }' '"a" is used twice'
bad_manifest "bad threshold" '{ "defaults": { "thresholds": { "instructions": "lots" } }, "benchmarks": [ { "name": "a", "command": ["/bin/true"] } ] }' 'defaults.thresholds.instructions: expected a percentage'
bad_manifest "empty benchmarks" '{ "benchmarks": [] }' 'benchmarks: required, a non-empty array'

# --filter selects by name; a filter matching nothing is an error.
printf '%s\n' '{ "benchmarks": [ { "name": "alpha", "command": ["/bin/true"] }, { "name": "beta", "command": ["/bin/true"] } ] }' > m/perfgate.json
expect_exit 0 "--filter" "$PG" run --backend perf --no-store --repeat 1 --filter '^be' m
contains "$T/out" "beta"
lacks "$T/out" "alpha"
expect_exit 2 "--filter matching nothing" "$PG" run --no-store --filter zzz m
contains "$T/err" "--filter 'zzz' matches no benchmark"

# A directory without a manifest runs each executable in it, by name.
mkdir -p d && cp /bin/true d/t1 && cp /bin/true d/t2 && echo text > d/notes.txt
expect_exit 0 "directory of executables" "$PG" run --backend perf --no-store --repeat 1 d
contains "$T/out" "t1  (1 run)"
contains "$T/out" "t2  (1 run)"
lacks "$T/out" "notes.txt"

# Unknown perf events get a suggestion.
expect_exit 2 "misspelt event" "$PG" run --backend perf --no-store -e instrucions -- /bin/true
contains "$T/err" "instructions"
finish
