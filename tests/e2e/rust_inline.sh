#!/usr/bin/env bash
# Inlined calls of an optimized Rust program as frames of their own. rustc
# nests every function's DWARF in namespaces (crate, impl block), which have
# no address ranges: a lookup that prunes what does not hold the address
# (libdw's dwarf_getscopes) found no function there, and every Rust frame
# came from the symbol table with nothing under it. tests/rust/rinline.rs,
# built with `rustc -O -g`: `hot` inlines `score` (which inlines `scramble`)
# and the method `Acc::add`. perfgate record's stacks must hold those frames
# at the shares of perf's samples of the same run expanded by addr2line -i
# (lib/inline_vs_perf.py), within 5 points. Skipped where rustc is missing.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/record.sh"
require perf addr2line nm
command -v rustc >/dev/null || PATH=${HOME:-/nonexistent}/.cargo/bin:$PATH
require rustc
VS_A2L="python3 ${PG_SRC:?}/tests/e2e/lib/inline_vs_perf.py"

prog=$T/rinline
check "rustc -O -g tests/rust/rinline.rs" rustc -O -g -o "$prog" "$PG_SRC/tests/rust/rinline.rs"

record_with_perf rec "$prog" 80000000
perf script -i "$T/rec.perf.data" -F comm,ip,sym,symoff,dso --no-demangle >"$T/rec.script" 2>/dev/null
at_least "samples of rinline::hot" "$($F rec.folded share-contains 'rinline::main;rinline::hot')" 90
# Frames are named as addr2line -C names them: the crate's path, the method by its type.
for path in 'rinline::hot;rinline::score;rinline::scramble' 'rinline::hot;rinline::Acc::add'; do
  at_least "samples under $path" "$($F rec.folded share-contains "$path")" 15
done
check "inlined frames within 5 points of perf + addr2line -i in the same run" \
  $VS_A2L "$T/rec.folded" "$T/rec.script" "$prog" rinline 5 \
  'rinline::hot;rinline::score' 'rinline::hot;rinline::score;rinline::scramble' 'rinline::hot;rinline::Acc::add'

finish
