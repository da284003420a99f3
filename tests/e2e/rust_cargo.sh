#!/usr/bin/env bash
# A manifest that names a cargo target (docs/manifest.md, "Cargo targets"):
# perfgate builds it offline with the entry's package, features and profile,
# and runs the executable cargo's JSON messages name, on every revision
# `compare --run-missing` checks out. The package has a library (whose
# test-harness executable the old `cargo bench --no-run` listing also
# prints), two bench targets and a feature the measured bench cannot build
# without. Asserted: the bench target is measured on both revisions (its own
# output in the log, not libtest's), the commit that doubles its rounds
# regresses by exactly the instructions those rounds cost, a
# CARGO_TARGET_DIR outside the checkouts is not where they build, and an
# unknown target, package or key is one line naming it with what there is,
# nothing built or stored.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/rust.sh"
require valgrind
unset RUSTFLAGS CARGO_BUILD_TARGET CARGO_TARGET_DIR

R=$T/repo
make_repo "$R"
mkdir -p "$R/app/src" "$R/app/benches" "$R/bench"
cat > "$R/app/Cargo.toml" <<'TOML'
[package]
name = "app"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]

[features]
x = []

[[bench]]
name = "count"
harness = false
required-features = ["x"]

[[bench]]
name = "other"
harness = false
TOML
cat > "$R/app/src/lib.rs" <<'RS'
/// One round per unit of work: a fixed number of instructions each.
#[inline(never)]
pub fn mix(rounds: u64) -> u64 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..rounds {
        h = std::hint::black_box(h.rotate_left(5) ^ i).wrapping_mul(0x100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    #[test]
    fn mixes() { assert_ne!(super::mix(1), 0); }
}
RS
cat > "$R/app/benches/count.rs" <<'RS'
#[cfg(not(feature = "x"))]
compile_error!("the count bench needs feature x");
const ROUNDS: u64 = 1000;
fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    println!("count: {:x} after {} rounds", app::mix(n * ROUNDS), n * ROUNDS);
}
RS
printf 'fn main() { println!("{}", app::mix(10)); }\n' > "$R/app/benches/other.rs"
printf '/app/target\n/.perfgate\n' > "$R/.gitignore"
cat > "$R/bench/perfgate.json" <<'JSON'
{ "benchmarks": [ { "name": "count", "args": ["3"],
    "cargo": { "bench": "count", "package": "app", "features": ["x"], "profile": "bench",
               "manifest_path": "../app/Cargo.toml" } } ] }
JSON
(cd "$R/app" && cargo generate-lockfile --offline -q)
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }
c0=$(commit "app: mix, its count bench")
sed -i 's/^const ROUNDS: u64 = 1000;$/const ROUNDS: u64 = 2000;/' "$R/app/benches/count.rs"
check "the change is made" grep -q '^const ROUNDS: u64 = 2000;$' "$R/app/benches/count.rs"
c1=$(commit "count: twice the rounds")

cd "$R"
mkdir "$T/shared" "$T/tmp"
# Two revisions measured in temporary checkouts, offline. CARGO_TARGET_DIR
# names one directory for both; each builds in its own checkout instead.
CARGO_TARGET_DIR=$T/shared TMPDIR=$T/tmp expect_exit 1 "compare --run-missing: the doubled rounds regress" \
  "$PG" compare "$c0" "$c1" --run-missing --backend valgrind --metrics instructions --format json
cp "$T/out" cmp.json
cp "$T/err" cmp.err
contains cmp.err "perfgate: building: cargo build --offline --message-format=json-render-diagnostics --manifest-path "
contains cmp.err "--package app --profile bench --features x --target-dir "
contains cmp.err " --bench count (log: "
check "two revisions built with cargo" [ "$(grep -c 'building: cargo build' cmp.err)" = 2 ]
check "verdict regressed" [ "$(json cmp.json "d['benchmarks'][0]['verdict']")" = regressed ]
check "nothing built in the shared CARGO_TARGET_DIR" [ -z "$(ls -A "$T/shared")" ]
check "the checkouts are gone" [ -z "$(ls -A "$T/tmp" | grep perfgate-rev)" ]
check "no target directory in the work tree" [ ! -e app/target ]

# The bench target ran, with its arguments: its own line, in each revision's log.
for c in $c0 $c1; do
  log=$(grep -rl "count: " .perfgate/logs/$c 2>/dev/null | head -1)
  check "${c:0:7}: the count bench's output is logged" [ -n "$log" ]
done
check "$c0: 3000 rounds" grep -rqF "after 3000 rounds" .perfgate/logs/$c0
check "$c1: 6000 rounds" grep -rqF "after 6000 rounds" .perfgate/logs/$c1
check "not libtest's harness" sh -c "! grep -rqF 'running 0 tests' .perfgate/logs"

check "both revisions stored" [ -n "$(ls .perfgate/results/$c0/*.json .perfgate/results/$c1/*.json)" ]
i0=$(json cmp.json "int(d['benchmarks'][0]['metrics'][0]['baseline'])")
i1=$(json cmp.json "int(d['benchmarks'][0]['metrics'][0]['candidate'])")
echo "count: $i0 -> $i1 instructions"
# 3000 rounds more, and nothing else: a whole number of instructions per round.
check "more instructions ($i0 -> $i1)" [ "$i1" -gt "$i0" ]
check "3000 rounds more: a multiple of 3000 ($((i1 - i0)))" [ $(((i1 - i0) % 3000)) = 0 ]

# Unknown names: one line naming it and what there is; exit 2, nothing built or stored.
bad_manifest() {  # CARGO-OBJECT
  printf '{ "benchmarks": [ { "name": "count", "cargo": %s } ] }\n' "$1" > "$T/bad.json"
}
bad_manifest '{ "bench": "cont", "package": "app", "manifest_path": "../repo/app/Cargo.toml" }'
cp "$T/bad.json" "$T/bad/perfgate.json" 2>/dev/null || { mkdir "$T/bad"; cp "$T/bad.json" "$T/bad/perfgate.json"; }
expect_exit 2 "an unknown bench target" "$PG" run --no-store --backend valgrind "$T/bad"
check "one line" [ "$(grep -c . "$T/err")" -le 2 ]
contains "$T/err" "benchmark \"count\": no bench target \"cont\" in package \"app\" (did you mean \"count\"? its bench targets: count, other)"
lacks "$T/err" "building: cargo build"
bad_manifest '{ "bin": "count", "manifest_path": "../repo/app/Cargo.toml" }'
cp "$T/bad.json" "$T/bad/perfgate.json"
expect_exit 2 "an unknown bin target" "$PG" run --no-store --backend valgrind "$T/bad"
contains "$T/err" "benchmark \"count\": no bin target \"count\": package \"app\" has no bin targets"
bad_manifest '{ "bench": "count", "package": "ap", "manifest_path": "../repo/app/Cargo.toml" }'
cp "$T/bad.json" "$T/bad/perfgate.json"
expect_exit 2 "an unknown package" "$PG" run --no-store --backend valgrind "$T/bad"
contains "$T/err" "benchmark \"count\": no package \"ap\" in the cargo workspace $R/app (did you mean \"app\"? its packages: app)"
bad_manifest '{ "bench": "count", "feature": ["x"] }'
cp "$T/bad.json" "$T/bad/perfgate.json"
expect_exit 2 "a misspelt key" "$PG" run --no-store --backend valgrind "$T/bad"
contains "$T/err" "perfgate.json: benchmarks[0].cargo: unknown key \"feature\" (did you mean \"features\"?)"
printf '{ "benchmarks": [ { "name": "c", "cargo": { "bench": "count" }, "command": ["./x"] } ] }\n' > "$T/bad/perfgate.json"
expect_exit 2 "command and cargo" "$PG" run --no-store "$T/bad"
contains "$T/err" "benchmarks[0]: \"command\" and \"cargo\" both given"
check "nothing stored by the refused runs" [ ! -e "$T/bad/.perfgate" ]
printf '{ "benchmarks": [ { "name": "c", "cargo": { "bench": "count" } } ] }\n' > "$T/bad/perfgate.json"
if ! PATH=/usr/bin:/bin command -v cargo >/dev/null; then    # rustup's cargo only: the system has none
  PATH=/usr/bin:/bin expect_exit 2 "no cargo on PATH" "$PG" run --no-store "$T/bad"
  contains "$T/err" "perfgate.json names cargo targets, and there is no cargo on PATH (rustup puts it in ~/.cargo/bin)"
fi

finish
