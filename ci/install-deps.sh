#!/usr/bin/env bash
# Installs everything perfgate needs to build, run and test on Debian/Ubuntu.
# Idempotent: a package that is already installed costs nothing.
set -euo pipefail

pkgs=(
  build-essential cmake pkgconf git
  clang-14 libfuzzer-14-dev   # ci/fuzz.sh: libFuzzer targets (tests/fuzz/)
  libpfm4-dev libcjson-dev libgit2-dev libunwind-dev libdw-dev libelf-dev
  valgrind            # runtime dependency of the valgrind backend
  chromium            # the flamegraph SVG's interactive test runs in headless Chromium
  libxml2-utils       # xmllint: the tests validate JUnit and SVG output with a real XML parser
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
  exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
