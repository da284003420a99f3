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
# The launcher benchmarks are forked from, found from where perfgate was installed.
check "perfgate-launch installed in libexec/perfgate/" test -x "$T/prefix/libexec/perfgate/perfgate-launch"
expect_exit 0 "installed perfgate: a small program's max-rss" env PATH="$T/prefix/bin:$PATH" perfgate run --backend perf \
  --no-store --repeat 1 --format json -- /bin/true
check "is the program's, not perfgate's" python3 -c "import json, sys
d = json.load(open(sys.argv[1])); sys.exit(not d['benchmarks'][0]['metrics']['max-rss']['samples'][0] < 5 << 19)" "$T/out"
# The region markers: the header and its pkg-config file, usable by a benchmark's build.
check "perfgate.h installed" test -f "$T/prefix/include/perfgate.h"
pc=$(find "$T/prefix" -name perfgate.pc | head -1)
check "perfgate.pc installed" test -n "$pc"
cflags=$(PKG_CONFIG_PATH=$(dirname "${pc:-/x}") pkg-config --cflags perfgate | tr -d " ")
check "pkg-config names the installed include directory ($cflags)" [ "$(realpath "${cflags#-I}")" = "$(realpath "$T/prefix/include")" ]
printf '#include <perfgate.h>\nint main(void) { PERFGATE_START(); PERFGATE_STOP(); return 0; }\n' > "$T/m.c"
expect_exit 0 "a marked program builds with pkg-config's flags" cc -Wall -Wextra -Werror $cflags -o "$T/m" "$T/m.c"
expect_exit 0 "and runs outside perfgate, doing nothing" "$T/m"
finish
