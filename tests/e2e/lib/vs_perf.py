#!/usr/bin/env python3
"""perfgate's self shares against perf's, on the same program.

  vs_perf.py [--comm COMM] [--with-inlined] FOLDED PERF_REPORT POINTS FUNCTION...

FOLDED is what `perfgate record --folded` wrote; PERF_REPORT what
`perf report --stdio --no-children --sort sym -g none` printed for a
`perf record` of the same binary (best of the same run: `perfgate record --
perf record -- PROGRAM`). With --comm, only FOLDED's stacks of that command
name count (not perf's own). A function's self share is the part of the
user-space samples whose innermost frame it is: perfgate's leaf frame, perf's
symbol ([.] lines). Kernel frames, if any, are left out of both totals (perf's
[k] lines, perfgate's _[k] leaves of `record -a`): how much a loaded machine
has a program wait in the kernel (page faults, exec) is not what is compared. perf names a compiler clone by its symbol
(walk.constprop.0), perfgate by its DWARF name (walk): the clone suffixes are
dropped before comparing. With --with-inlined, perfgate's share of a function
is that of the stacks holding it as a frame: its own samples and those of the
calls inlined into it, which perf (without --inline) counts as the
function's self; for functions that call nothing out of line. Prints one line per function; exits 1 when a
function's shares differ by more than POINTS percentage points, or when
either side has no samples of it.
"""
import re
import sys

CLONE = re.compile(r"(\.(constprop|isra|part|cold|lto_priv)\.\d+)+$")


def perfgate_self(path, comm, funcs=None):
    self_, total = {}, 0
    for line in open(path, encoding="utf-8"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or (comm is not None and stack.split(";", 1)[0] != comm):
            continue
        n = int(count)
        leaf = stack.rsplit(";", 1)[-1]
        if leaf.endswith("_[k]"):
            continue    # a kernel frame (record -a as root): perf's [k] lines are left out too
        total += n
        if funcs is None:
            self_[leaf] = self_.get(leaf, 0) + n
            continue
        frames = stack.split(";")[1:]
        for f in funcs:
            if f in frames:
                self_[f] = self_.get(f, 0) + n
    return {k: 100.0 * v / total for k, v in self_.items()} if total else {}


def perf_self(path):
    rows = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^\s*([\d.]+)%\s+\[\.\]\s+(.+?)\s*$", line)
        if m:
            name = CLONE.sub("", m.group(2))
            rows[name] = rows.get(name, 0.0) + float(m.group(1))
    user = sum(rows.values())
    return {k: 100.0 * v / user for k, v in rows.items()} if user else {}


def main():
    args, comm, inlined = sys.argv[1:], None, False
    if args[:1] == ["--comm"]:
        comm, args = args[1], args[2:]
    if args[:1] == ["--with-inlined"]:
        inlined, args = True, args[1:]
    folded, report, points, funcs = args[0], args[1], float(args[2]), args[3:]
    ours, theirs = perfgate_self(folded, comm, funcs if inlined else None), perf_self(report)
    ok = bool(funcs)
    print("%-40s %9s %9s %7s" % ("function (self share)", "perfgate", "perf", "diff"))
    for f in funcs:
        a, b = ours.get(f), theirs.get(f)
        good = a is not None and b is not None and abs(a - b) <= points
        ok = ok and good
        print("%-40s %8s%% %8s%% %7s %s" % (f, "-" if a is None else "%.1f" % a, "-" if b is None else "%.1f" % b,
                                            "-" if a is None or b is None else "%+.1f" % (a - b),
                                            "ok" if good else "FAIL (more than %g points apart)" % points))
    sys.exit(0 if ok else 1)


main()
