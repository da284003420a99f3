#!/usr/bin/env python3
"""No file outside counters/ names a backend.

    backend_names.py SOURCE_DIR

Which backend measures is counters/' business (counters/backend.h): everyone
else asks a backend's properties (pg_backend_props: exact counts, simulated,
native time, the unit of its stacks...) and takes its words from the
registry (pg_backend_expand's {backends}, pg_backend_name, the backend a
document names), so that a new backend is a new table in counters/, not a
search through the harness and the reports for every place that tests or
says a name. In the C files of util/, report/, harness/ and launch/,
outside comments, this fails on:
  - the kinds: PG_BACKEND_PERF, PG_BACKEND_VALGRIND, PG_BACKEND_DHAT;
  - an identifier naming one (a `valgrind` flag, pg_metric_valgrind_events);
  - a string literal with a backend's name in it as a word ("valgrind",
    "auto (default), perf or valgrind", "+%d valgrind metrics"): code
    choosing by name, or words a new backend would be missing from.
ALLOWED lists the few literals that speak of a tool, not of a backend.
Prints FILE:LINE: the line, and exits 1 when there is any (or when an
ALLOWED entry matches nothing any more).
"""

import os
import re
import sys

NAMES = ("valgrind", "cachegrind", "callgrind", "dhat")
KIND = re.compile(r"\bPG_BACKEND_(PERF|VALGRIND|DHAT)\b")
IN_LITERAL = re.compile(r"\b(perf|valgrind|cachegrind|callgrind|dhat)\b", re.I)

# (file, text in the literal): literals that name a tool, not a backend
# chosen or described; each says why. Keep it short.
ALLOWED = (
    # libpfm4's name space of generic events ("perf::L1-dcache-load-misses"),
    # said when no hardware PMU is known to it: an event's name, not a backend
    ("harness/cli/cmd_doctor.c", "only the generic perf:: events"),
    # record -a likened to linux's perf tool, which users know
    ("harness/cli/cmd_record.c", "(as perf record -ag)"),
    # perfgate's one-paragraph description atop `perfgate --help`, as README's
    ("harness/cli/main.c", "(perf_event, or valgrind where there is no PMU)"),
)
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


def problems(code, path, used):
    if KIND.search(code):
        return True
    outside = LITERAL.sub('""', code)
    if any(n in w.lower() for w in IDENT.findall(outside) for n in NAMES):
        return True
    for lit in LITERAL.findall(code):
        if not IN_LITERAL.search(lit):
            continue
        allowed = [a for a in ALLOWED if a[0] == path and a[1] in lit]
        if not allowed:
            return True
        used.update(allowed)
    return False


def main():
    root = sys.argv[1]
    found = 0
    used = set()
    for top in ("util", "report", "harness", "launch"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, f)
                text = open(path, encoding="utf-8", errors="replace").read()
                for no, code in code_lines(text):
                    if problems(code, os.path.relpath(path, root), used):
                        print("%s:%d: %s" % (os.path.relpath(path, root), no, code.strip()))
                        found += 1
    for a in ALLOWED:
        if a not in used:
            print("%s: ALLOWED entry %r matches no literal any more: remove it" % a)
            found += 1
    if found:
        print("%d lines outside counters/ name a backend: ask its properties instead (counters/backend.h)" % found)
    else:
        print("no file outside counters/ names a backend")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
