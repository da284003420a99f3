#!/usr/bin/env python3
"""No call (or any reference to a symbol) the wrong way between the layers.

    link_layers.py SOURCE_DIR NM MODULE=LIBRARY.a...

cmake/layers.cmake checks includes; this checks what the compiled code
references, which an include check cannot see (a prototype written by hand,
a declaration copied from a header above) and the link of perfgate cannot
either: its link line holds every library, so a static library's reference
to a symbol of a library above it resolves there silently. For each library
(tests/CMakeLists.txt passes each module's, module named by the folder of its
sources), `nm` lists the symbols its objects leave undefined and the symbols
every library defines. A reference fails when the symbol is defined neither
in the module itself nor in one of lower rank, but in one above it or beside
it (counters and report, one rank, never reference each other): one line
each, naming the source file, the symbol, the module that defines it and the
two ranks. The ranks are read from cmake/layers.cmake's PG_LAYERS, the one
list of them. Exits 1 on a wrong-way reference, 2 when a library or nm
cannot be read.
"""
import os
import re
import subprocess
import sys

LAYERS = re.compile(r"set\(\s*PG_LAYERS\b(.*?)\)", re.S)
ENTRY = re.compile(r'"([^"=]+)=(\d+)"')
# nm -A -P: "lib.a[member.o]: symbol type [value size]"
NM_LINE = re.compile(r"^(.*)\[([^\[\]]+)\]: (\S+) (\S)")
UNDEFINED = "Uwv"   # nm's types for a symbol referenced, not defined


def die(msg):
    print(f"link_layers: {msg}", file=sys.stderr)
    sys.exit(2)


def ranks(src):
    path = os.path.join(src, "cmake", "layers.cmake")
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        die(f"cannot read {path}: {e.strerror}")
    m = LAYERS.search(text)
    found = dict((name, int(rank)) for name, rank in ENTRY.findall(m.group(1))) if m else {}
    if not found:
        die(f"{path}: no PG_LAYERS list of \"module=rank\" entries")
    return found


def symbols(nm, lib):
    """(defined, undefined): defined a set of names, undefined a list of (member, name)."""
    try:
        out = subprocess.run([nm, "-A", "-P", "-g", lib], capture_output=True, text=True)
    except OSError as e:
        die(f"cannot run {nm}: {e.strerror}")
    if out.returncode != 0:
        die(f"{nm} {lib}: {out.stderr.strip() or 'exit %d' % out.returncode}")
    defined, undefined = set(), []
    for line in out.stdout.splitlines():
        m = NM_LINE.match(line)
        if not m:
            continue
        member, name, kind = m.group(2), m.group(3), m.group(4)
        if kind in UNDEFINED:
            undefined.append((member, name))
        else:
            defined.add(name)
    if not defined:
        die(f"{lib}: {nm} lists no defined symbol (not a static library of perfgate's objects?)")
    return defined, undefined


def source_of(module, member):
    """harness/store/store.c for pg_store's store.c.o (CMake names an object after its source)."""
    return f"{module}/{member[:-2]}" if member.endswith(".o") else f"{module}: {member}"


def main(argv):
    if len(argv) < 4:
        die("usage: link_layers.py SOURCE_DIR NM MODULE=LIBRARY.a...")
    src, nm, pairs = argv[1], argv[2], argv[3:]
    rank = ranks(src)
    libs = {}
    for pair in pairs:
        module, sep, lib = pair.partition("=")
        if not sep or not lib:
            die(f"'{pair}': expected MODULE=LIBRARY.a")
        if module not in rank:
            die(f"{lib}: its sources are in {module}/, which cmake/layers.cmake's PG_LAYERS does not rank")
        libs[module] = lib

    defined, undefined = {}, {}
    for module, lib in libs.items():
        defined[module], undefined[module] = symbols(nm, lib)
    owners = {}
    for module, names in defined.items():
        for name in names:
            owners.setdefault(name, set()).add(module)

    bad, down = 0, 0
    for module in sorted(libs, key=lambda m: (rank[m], m)):
        for member, name in sorted(undefined[module]):
            where = owners.get(name)
            if not where:
                continue   # the C library or another outside perfgate
            if module in where:
                continue
            if any(rank[w] < rank[module] for w in where):
                down += 1
                continue
            for w in sorted(where, key=lambda m: (rank[m], m)):
                way = "beside" if rank[w] == rank[module] else "above"
                print(f"{source_of(module, member)}: references {name}, defined in {w}/ "
                      f"(rank {rank[w]}, {way} {module}/, rank {rank[module]}; "
                      f"{os.path.basename(libs[w])})")
            bad += 1
    if bad:
        print(f"link_layers: {bad} wrong-way reference{'s' if bad != 1 else ''}: a module may use only "
              "its own symbols and those of the modules below it (docs/architecture.md, \"Layers\")",
              file=sys.stderr)
        return 1
    if down == 0:
        die(f"no reference from one library to another among {len(libs)}: nothing was checked")
    print(f"link_layers: {len(libs)} libraries, {down} references between them, all downward")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
