#!/usr/bin/env bash
# perfgate run and compare across two commits of a Cargo project (a copy of
# tests/rust/rwork in a scratch repository), with the valgrind backend's exact
# counts: the commit that gives rwork::mix two more rounds regresses, and
# compare's function table names rwork::mix with exactly the instructions mix
# grew by, as callgrind counts them inside mix alone. (Not exactly the
# headline's delta: Rust's start-up reads /proc/self/maps through glibc's
# pthread_getattr_np, whose cost varies by a few hundred instructions with
# the program's path and inode.) Legacy mangling through `run` at each commit; v0 (RUSTFLAGS
# in the build command of a manifest kept outside the repository) through
# `compare --run-missing` from a fresh clone, as CI would run it.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/rust.sh"
require valgrind
unset RUSTFLAGS CARGO_TARGET_DIR CARGO_BUILD_TARGET

R=$T/repo
make_repo "$R"
cp -r "$RWORK_SRC/Cargo.toml" "$RWORK_SRC/Cargo.lock" "$RWORK_SRC/src" "$R/"
echo /target > "$R/.gitignore"
mkdir "$R/bench"
cat > "$R/bench/perfgate.json" <<'JSON'
{ "build": "cargo build --release --offline --locked --quiet",
  "benchmarks": [ { "name": "rwork", "command": ["../target/release/rwork", "1"] } ] }
JSON
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
c0=$(commit "rwork")
sed -i 's/^const MIX_ROUNDS: u64 = 32;$/const MIX_ROUNDS: u64 = 34;/' "$R/src/main.rs"
check "the change is made" grep -q '^const MIX_ROUNDS: u64 = 34;$' "$R/src/main.rs"
c1=$(commit "mix: two more rounds")

cd "$R"
for c in $c0 $c1; do
  git checkout -q "$c"
  expect_exit 0 "run ${c:0:7} (legacy mangling)" "$PG" run --backend valgrind --sample bench/
  cp target/release/rwork "$T/rwork-$c"
done
git checkout -q main

# The instructions executed inside rwork::mix, by callgrind alone.
mix_ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='rwork::mix' "$1" 1 2>&1 >/dev/null |
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
}
m0=$(mix_ir "$T/rwork-$c0"); m1=$(mix_ir "$T/rwork-$c1"); mix=$((m1 - m0))
check "callgrind: mix grew ($m0 -> $m1)" [ "$m0" -gt 0 -a "$mix" -gt 0 ]

count() {  # COMMIT: the stored instructions of rwork
  python3 - "$R/.perfgate/results/$1" <<'PY'
import json, glob, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))
print(int(d["runs"][0]["benchmarks"][0]["metrics"]["instructions"]["samples"][0]))
PY
}
i0=$(count $c0); i1=$(count $c1); delta=$((i1 - i0))
check "two more rounds of mix: more instructions ($i0 -> $i1)" [ "$delta" -gt 0 ]
expect_exit 1 "legacy: regressed" "$PG" compare "$c0" "$c1" --format json
cp "$T/out" legacy.json
check "legacy: verdict regressed" [ "$(json legacy.json "d['benchmarks'][0]['verdict']")" = regressed ]
check "legacy: the headline delta is the stored counts' ($delta)" \
  [ "$(json legacy.json "int(d['benchmarks'][0]['metrics'][0]['delta'])")" = $delta ]
check "legacy: the top function is rwork::mix, +$mix exactly" \
  [ "$(json legacy.json "(d['benchmarks'][0]['functions']['top'][0]['name'], int(d['benchmarks'][0]['functions']['top'][0]['delta']))")" = "('rwork::mix', $mix)" ]
check "legacy: mix is the regression (headline +$delta, mix +$mix)" python3 -c "import sys; sys.exit(not abs($delta - $mix) <= 0.01 * $mix)"
expect_exit 1 "legacy: text" "$PG" compare HEAD~1 HEAD
contains "$T/out" "rwork: self cost by function (instructions), largest changes"
check "legacy: text row rwork::mix +$mix" grep -qE "^    rwork::mix +[0-9,]+ +[0-9,]+ +$(python3 -c "print('\\+{:,}'.format($mix))") " "$T/out"

# v0 mangling, from a clone with nothing stored: --run-missing builds each
# revision in a temporary checkout with the manifest's build command.
mkdir "$T/v0"
cat > "$T/v0/perfgate.json" <<'JSON'
{ "build": "RUSTFLAGS='-C symbol-mangling-version=v0' cargo build --release --offline --locked --quiet",
  "benchmarks": [ { "name": "rwork", "command": ["./target/release/rwork", "1"] } ] }
JSON
git clone -q "$R" "$T/clone"
mkdir "$T/tmp"
cd "$T/clone"
TMPDIR=$T/tmp expect_exit 1 "v0: --run-missing regressed" "$PG" compare "$c0" "$c1" --run-missing --sample \
  --backend valgrind --metrics instructions --manifest "$T/v0" --format json
cp "$T/out" v0.json
contains "$T/err" "perfgate: building: RUSTFLAGS="
check "v0: verdict regressed" [ "$(json v0.json "d['benchmarks'][0]['verdict']")" = regressed ]
d0=$(json v0.json "int(d['benchmarks'][0]['metrics'][0]['delta'])")
check "v0: more instructions (+$d0)" [ "$d0" -gt 0 ]
check "v0: the top function is rwork::mix, +$mix exactly (the mangling changes no instruction)" \
  [ "$(json v0.json "(d['benchmarks'][0]['functions']['top'][0]['name'], int(d['benchmarks'][0]['functions']['top'][0]['delta']))")" = "('rwork::mix', $mix)" ]
check "v0: the revisions' stacks hold v0-demangled names" \
  grep -rqF 'rwork::walk::<u32>' .perfgate/stacks/$c0
check "v0: build products stay out of the clone" [ ! -e target ]
check "v0: temporary trees removed" [ -z "$(ls -A "$T/tmp" | grep perfgate-rev)" ]

finish
