#!/usr/bin/env bash
# perfgate record on a Rust program as today's rustc builds it (linked by its
# bundled lld, which puts code at file offsets that differ from its
# addresses), in both symbol manglings: every frame of the program resolved
# and demangled (crate::function, no hash, no _R or _ZN name, generic
# arguments and the closure named), complete stacks, and self shares close to
# perf's sampling the same run (perf unwinds nothing for self shares, so it
# is an independent reference). The three functions call nothing out of line,
# and what the compiler inlined into them (<u64>::wrapping_mul, a range's
# next) are frames of their own under them (tests/e2e/rust_inline.sh), so a
# function's share is that of the stacks holding it, which perf, without
# inline frames, counts as its self.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/rust.sh"
. "$(dirname "$0")/lib/record.sh"
require perf

for m in legacy v0; do
  prog=$(build_rwork $m) || { bad "cargo build of tests/rust/rwork ($m mangling)"; continue; }
  if [ $m = v0 ]; then walk='rwork::walk::<u32>' closure='rwork::main::{closure#0}'
  else walk='rwork::walk' closure='rwork::main::{{closure}}'; fi   # legacy symbols carry neither
  record $m -- "$prog"
  at_most "$m: truncated stacks" "$($F $m.folded truncated)" 5
  at_least "$m: stacks from _start" "$($F $m.folded share-contains 'rwork;_start;')" 95
  # A misread layout leaves most frames as addresses; one stray sample in
  # code no symbol covers (the PLT) may, on a busy machine (record_linkers.sh).
  at_most "$m: samples with a frame of the program left as an address" "$($F $m.folded share-contains 'rwork+0x')" 1
  check "$m: no mangled name (_R..., _ZN..., a ::h hash)" sh -c "! grep -E '(^|;)(_R|_ZN)|::h[0-9a-f]{16}' $m.folded"

  check "$m: std's own frames demangled" grep -q ';std::rt::lang_start_internal;' $m.folded
  at_least "$m: rwork::main;rwork::hash_all;rwork::mix" "$($F $m.folded share-contains 'rwork::main;rwork::hash_all;rwork::mix')" 35
  at_least "$m: rwork::main;$walk" "$($F $m.folded share-contains "rwork::main;$walk")" 15
  at_least "$m: rwork::main;$closure" "$($F $m.folded share-contains "rwork::main;$closure")" 8
  record_with_perf $m-perf "$prog"
  check "$m: self shares within 10 points of perf's in the same run" \
    $VS_PERF --comm rwork --with-inlined $m-perf.folded $m-perf.perf.txt 10 rwork::mix "$walk" "$closure"
done

finish
