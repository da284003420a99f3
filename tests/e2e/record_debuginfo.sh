#!/usr/bin/env bash
# Symbols from wherever they are: the symbol table of a binary without DWARF
# (compiler clones keep their clone names), DWARF from a separate debug file
# found by .gnu_debuglink (source names), and module+0xADDR when there is
# nothing at all.
. "$(dirname "$0")/lib/common.sh"
F="python3 $(cd "$(dirname "$0")" && pwd)/lib/folded.py"
command -v objcopy >/dev/null && command -v strip >/dev/null || { echo "binutils not installed: skipped"; exit 77; }
cd "$T"
nm "$PROGS/sample_tree" | grep -q ' hash\.' || { echo "this compiler made no clone of hash: skipped"; exit 77; }

mkdir symtab debuglink bare
cp "$PROGS/sample_tree" symtab/ && strip --strip-debug symtab/sample_tree
cp "$PROGS/sample_tree" debuglink/ && (cd debuglink && objcopy --only-keep-debug sample_tree sample_tree.debug &&
  strip --strip-all sample_tree && objcopy --add-gnu-debuglink=sample_tree.debug sample_tree)
cp "$PROGS/sample_tree" bare/ && strip --strip-all bare/sample_tree

expect_exit 0 "record, symbol table only" "$PG" record --folded s.folded -- symtab/sample_tree parse
share=$($F s.folded share-contains ';main;parse.')
check "symtab: clone names (main;parse.constprop...: $share%)" python3 -c "import sys; sys.exit(not $share >= 80)"

expect_exit 0 "record, separate debug file" "$PG" record --folded d.folded -- debuglink/sample_tree parse
share=$($F d.folded share 'main;parse;hash')
check "debuglink: DWARF names main;parse;hash ($share%)" python3 -c "import sys; sys.exit(not $share >= 80)"

expect_exit 0 "record, no symbols" "$PG" record --folded b.folded -- bare/sample_tree parse
share=$($F b.folded share-contains ';sample_tree+0x')
check "stripped: frames named module+0xADDR ($share%)" python3 -c "import sys; sys.exit(not $share >= 80)"
tr=$($F b.folded truncated)
check "stripped: complete stacks, _start known by the entry point ($tr% truncated)" python3 -c "import sys; sys.exit(not $tr <= 5)"
# ...one frame per function, at the address addr2line wants: the heaviest leaf is hash
addr=$(sort -t' ' -k2 -rn b.folded | head -1 | cut -d' ' -f1 | tr ';' '\n' | tail -1 | sed 's/.*+//')
if command -v addr2line >/dev/null; then
  check "addr2line -f $addr names hash" sh -c "addr2line -f -e '$PROGS/sample_tree' $addr | head -1 | grep -q '^hash'"
fi
finish
