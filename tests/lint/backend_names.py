#!/usr/bin/env python3
"""No file outside counters/ names a backend.

    backend_names.py SOURCE_DIR

Which backend measures is counters/' business (counters/backend.h): everyone
else asks a backend's properties (pg_backend_props: exact counts, simulated,
native time, the unit of its stacks...), so that a new backend is a new
table in counters/, not a search through the harness and the reports for
every place that tests a name. In the C files of util/, report/, harness/
and launch/, outside comments, this fails on:
  - the kinds: PG_BACKEND_PERF, PG_BACKEND_VALGRIND, PG_BACKEND_DHAT;
  - an identifier naming one (a `valgrind` flag, pg_metric_valgrind_events);
  - a string literal that is exactly a backend's name ("valgrind", "perf",
    "cachegrind", "callgrind", "dhat"): code comparing or choosing by name.
Sentences for users that mention a backend ("default: 5 perf, 1 valgrind")
are text, not code, and are allowed. Prints FILE:LINE: the line, and exits 1
when there is any.
"""
import os
import re
import sys

NAMES = ("valgrind", "cachegrind", "callgrind", "dhat")
KIND = re.compile(r"\bPG_BACKEND_(PERF|VALGRIND|DHAT)\b")
IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def code_lines(text):
    """(line number, code with comments removed and literals kept) per line."""
    out, i, line, cur, n = [], 0, 1, [], len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line_breaks = text.count("\n", i, j)
            for _ in range(line_breaks):
                out.append((line, "".join(cur)))
                cur, line = [], line + 1
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
        elif c == "\n":
            out.append((line, "".join(cur)))
            cur, line = [], line + 1
            i += 1
        else:
            cur.append(c)
            i += 1
    out.append((line, "".join(cur)))
    return out


def problems(code):
    if KIND.search(code):
        return True
    outside = LITERAL.sub('""', code)
    if any(n in w.lower() for w in IDENT.findall(outside) for n in NAMES):
        return True
    return any(lit[1:-1] in NAMES + ("perf",) for lit in LITERAL.findall(code))


def main():
    root = sys.argv[1]
    found = 0
    for top in ("util", "report", "harness", "launch"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, f)
                text = open(path, encoding="utf-8", errors="replace").read()
                for no, code in code_lines(text):
                    if problems(code):
                        print("%s:%d: %s" % (os.path.relpath(path, root), no, code.strip()))
                        found += 1
    if found:
        print("%d lines outside counters/ name a backend: ask its properties instead (counters/backend.h)" % found)
    else:
        print("no file outside counters/ names a backend")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
