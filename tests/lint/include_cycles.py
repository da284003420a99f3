#!/usr/bin/env python3
"""No include cycle between perfgate's modules.

    include_cycles.py SOURCE_DIR

A module is a .c/.h pair (harness/store/notes.c and .h). Module A depends on
B when a file of A includes B's header. cmake/layers.cmake keeps the
directories in order; this keeps the modules inside one directory in order
too: a cycle (notes.c calling notes_stacks.c calling notes.c) means neither
can be understood, tested or moved without the other. Prints every cycle,
each as its modules, and exits 1 when there is one.
"""
import os
import re
import sys

INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)\.h"')
DIRS = ("util", "counters", "report", "harness", "launch")


def graph(root):
    edges = {}
    for top in DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, f)
                mod = os.path.relpath(path, root)[:-2]
                for line in open(path, encoding="utf-8", errors="replace"):
                    m = INCLUDE.match(line)
                    if m and m.group(1) != mod and os.path.exists(os.path.join(root, m.group(1) + ".h")):
                        edges.setdefault(mod, set()).add(m.group(1))
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan's, iterative)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = n
        n += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    root = sys.argv[1]
    found = cycles(graph(root))
    for c in found:
        print("include cycle: " + " <-> ".join(c))
    if not found:
        print("no include cycle among %d modules" % len(graph(root)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
