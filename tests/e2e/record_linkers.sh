#!/usr/bin/env bash
# perfgate record on one C program linked by each linker, as executable and
# PIE, with and without -z separate-code: GNU ld and gold keep a segment's
# address and file offset a page multiple apart, lld and mold pack segments
# into the file so that the code's address and offset differ (0x1000 in a
# small PIE). Every build must unwind to _start and name its functions with
# the shares the program spends; lld's and mold's also with the shares perf
# gives, sampling the same run, a shared library of each, and lld's with its
# DWARF in a separate file (.gnu_debuglink).
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
require cc perf ld.lld ld.mold objcopy strip
src=${PG_SRC:?}/tests/progs

# NAME then the compiler's flags; gold has no -z separate-code.
builds=(
  "bfd -fuse-ld=bfd -Wl,-z,separate-code"
  "bfd-noseparate -fuse-ld=bfd -Wl,-z,noseparate-code"
  "bfd-nopie -fuse-ld=bfd -no-pie -fno-PIE"
  "gold -fuse-ld=gold"
  "lld -fuse-ld=lld"
  "lld-separate -fuse-ld=lld -Wl,-z,separate-code"
  "lld-nopie -fuse-ld=lld -no-pie -fno-PIE"
  "mold -fuse-ld=mold"
  "mold-separate -fuse-ld=mold -Wl,-z,separate-code"
  "mold-nopie -fuse-ld=mold -no-pie -fno-PIE"
)
for b in "${builds[@]}"; do
  read -r name flags <<<"$b"
  prog=$T/shares-$name
  # shellcheck disable=SC2086
  if ! cc -O2 -g -fomit-frame-pointer $flags -o "$prog" "$src/shares.c" 2>"$T/cc.err"; then
    if [ "$name" = gold ]; then echo "gold cannot link here: skipped ($(head -1 "$T/cc.err"))"; continue; fi
    bad "link with $name"; sed 's/^/  | /' "$T/cc.err" >&2; continue
  fi
  # (half the default work: ten programs are recorded)
  record $name -- "$prog" 50
  at_most "$name: truncated stacks" "$($F $name.folded truncated)" 5
  # A linker whose layout the symbolizer misreads leaves most of the program's
  # frames as addresses; a stray sample in code no symbol covers (the PLT) may
  # leave one, which a loaded machine made happen once in a load test.
  at_most "$name: samples with a frame of the program left as an address" \
    "$($F $name.folded share-contains "shares-$name+0x")" 1
  at_least "$name: main;hash_all;mix" "$($F $name.folded share 'main;hash_all;mix')" 35
  at_least "$name: main;walk" "$($F $name.folded share 'main;walk')" 15
  at_least "$name: main;step" "$($F $name.folded share 'main;step')" 8
done

for name in lld mold; do
  record_with_perf $name-perf "$T/shares-$name"
  check "$name: self shares within 10 points of perf's in the same run" \
    $VS_PERF --comm shares-$name $name-perf.folded $name-perf.perf.txt 10 mix walk step

  # A shared library and the program that calls it, both linked by $name.
  mkdir -p "$T/lib-$name"
  if cc -O2 -g -fomit-frame-pointer -shared -fPIC -fuse-ld=$name -o "$T/lib-$name/libpgsample.so" "$src/lib/pgsample.c" &&
     cc -O2 -g -fomit-frame-pointer -fuse-ld=$name -o "$T/lib-$name/sample_lib" "$src/sample_lib.c" \
        -L"$T/lib-$name" -lpgsample -Wl,-rpath,"$T/lib-$name"; then
    record lib-$name -- "$T/lib-$name/sample_lib"
    at_least "$name: a shared library's path" "$($F lib-$name.folded share 'main;lib_work;pgsample_entry;lib_inner')" 80
    at_most "$name: shared library, truncated stacks" "$($F lib-$name.folded truncated)" 5
  else
    bad "build the shared library test with $name"
  fi
done

# lld's build with its DWARF in a separate file, found by .gnu_debuglink.
mkdir "$T/debuglink" && cp "$T/shares-lld" "$T/debuglink/shares" &&
  (cd "$T/debuglink" && objcopy --only-keep-debug shares shares.debug && strip --strip-all shares &&
   objcopy --add-gnu-debuglink=shares.debug shares)
check "debuglink: the program itself has no symbols" sh -c "! nm '$T/debuglink/shares' 2>/dev/null | grep -q mix"
record debuglink -- "$T/debuglink/shares" 50
at_least "debuglink: main;hash_all;mix from the separate DWARF" "$($F debuglink.folded share 'main;hash_all;mix')" 35
at_least "debuglink: main;walk (the DWARF name of walk.constprop.0)" "$($F debuglink.folded share 'main;walk')" 15
at_most "debuglink: truncated stacks" "$($F debuglink.folded truncated)" 5

finish
