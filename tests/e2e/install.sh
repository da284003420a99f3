#!/usr/bin/env bash
# `cmake --install` puts a working perfgate on the PATH.
. "$(dirname "$0")/lib/common.sh"
: "${PG_BUILD:?}"
expect_exit 0 "cmake --install" cmake --install "$PG_BUILD" --prefix "$T/prefix"
check "perfgate installed in bin/" test -x "$T/prefix/bin/perfgate"
expect_exit 0 "installed perfgate runs from the PATH" env PATH="$T/prefix/bin:$PATH" perfgate --version
contains "$T/out" "perfgate "
expect_exit 0 "installed perfgate measures" env PATH="$T/prefix/bin:$PATH" perfgate run --backend perf --no-store --repeat 1 -- /bin/true
contains "$T/out" "true  (1 run)"
finish
