#!/usr/bin/env bash
# What every start of perfgate pays for: the shared libraries the dynamic
# loader finds, maps and binds before main, whether the command calls them
# or not (issue 41: fixed costs). libdw, libelf, the compressors under them,
# zlib and yajl are linked from their static archives where the build found
# them position-independent (CMakeLists.txt, PG_CAN_LINK_ARCHIVES), as on the
# Debian images CI builds on; libgit2 and libpfm4 are opened when first
# needed (util/dlib.h). So none of those is loaded at start.
. "$(dirname "$0")/lib/common.sh"
require ldd
if [ "$(sed -n 's/^PG_CAN_LINK_ARCHIVES:INTERNAL=//p' "${PG_BUILD:?}/CMakeCache.txt")" != 1 ]; then
  echo "SKIP: this build links the shared libraries (no position-independent archives found)"; exit 0
fi
ldd "$PG" > "$T/libs"
for lib in libdw libelf libz libbz2 libyajl libgit2 libpfm; do
  lacks "$T/libs" "$lib." "perfgate does not load $lib at start"
done
expect_exit 0 "perfgate starts" "$PG" --version
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
