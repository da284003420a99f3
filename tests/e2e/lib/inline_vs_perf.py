#!/usr/bin/env python3
"""perfgate's inlined frames against perf's samples expanded by addr2line.

  inline_vs_perf.py FOLDED PERF_SCRIPT PROGRAM COMM POINTS PATH...

FOLDED is what `perfgate record --folded` wrote for a `perf record -g` of
PROGRAM (both sample the same run); PERF_SCRIPT is
`perf script -F comm,ip,sym,symoff,dso --no-demangle` of perf's data. The
reference stackcollapse: each sample of COMM whose innermost frame is in
PROGRAM gets, under perf's callers, the chain `addr2line -f -i -C` reads at
its address (symbol address from `nm` + perf's offset), which is what
`perf script --inline` prints where it can (Debian's perf 6.1, built
without libbfd, prints no inlined frame, for C or Rust: it never starts
addr2line, as strace shows; so the expansion is done here). A PATH is frames joined by ';'; its share is the part of COMM's
samples whose stack holds those frames in a row. Prints one line per path;
exits 1 when perfgate's and the reference's shares differ by more than
POINTS percentage points, or the reference has none of it.
"""
import subprocess
import sys


def holds(frames, path):
    n = len(path)
    return any(frames[i:i + n] == path for i in range(len(frames) - n + 1))


def perfgate_stacks(folded, comm):
    out = []
    for line in open(folded, encoding="utf-8"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        frames = stack.split(";")
        if stack and frames[0] == comm:
            out.append((frames, int(count)))
    return out


def reference_stacks(script, program, comm):
    addrs = {}
    for line in subprocess.run(["nm", program], capture_output=True, text=True, check=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3:
            addrs.setdefault(f[2], int(f[0], 16))
    samples, cur = [], None
    for line in open(script, encoding="utf-8", errors="replace"):
        if not line.strip():
            cur = None
        elif not line[0].isspace():
            cur = [] if line.split()[0] == comm else None
            if cur is not None:
                samples.append(cur)
        elif cur is not None:
            # "   ip sym+0xoff (dso)"
            parts = line.split(None, 1)
            rest = parts[1] if len(parts) > 1 else ""
            sym, _, dso = rest.rpartition(" (")
            cur.append((sym, dso.rstrip(")\n")))
    leaves = {}
    for s in samples:
        if s and s[0][1] == program and "+0x" in s[0][0]:
            name, _, off = s[0][0].rpartition("+0x")
            if name in addrs:
                leaves[s[0][0]] = addrs[name] + int(off, 16)
    keys = sorted(leaves)
    chain = {}
    if keys:
        text = subprocess.run(["addr2line", "-f", "-i", "-C", "-a", "-e", program] + ["%x" % leaves[k] for k in keys],
                              capture_output=True, text=True, check=True).stdout.splitlines()
        # -a: each address's block starts with "0x...", then name/line pairs, innermost first
        blocks, cur = [], None
        for line in text:
            if line.startswith("0x"):
                cur = []
                blocks.append(cur)
            elif cur is not None:
                cur.append(line)
        for k, b in zip(keys, blocks):
            chain[k] = [b[i] for i in range(0, len(b), 2)][::-1]
    out = []
    for s in samples:
        callers = [sym.rpartition("+0x")[0] or sym for sym, _ in s[1:]][::-1]
        leaf = chain.get(s[0][0]) if s else None
        out.append((callers + (leaf or [s[0][0] if s else "[unknown]"]), 1))
    return out


def shares(stacks, paths):
    total = sum(c for _, c in stacks)
    return {p: (100.0 * sum(c for f, c in stacks if holds(f, p.split(";"))) / total if total else 0.0) for p in paths}


def main():
    folded, script, program, comm, points, paths = sys.argv[1:5] + [float(sys.argv[5]), sys.argv[6:]]
    ours = shares(perfgate_stacks(folded, comm), paths)
    ref = shares(reference_stacks(script, program, comm), paths)
    ok = bool(paths)
    print("%-60s %9s %9s %7s" % ("frames (share of samples)", "perfgate", "perf+a2l", "diff"))
    for p in paths:
        good = ref[p] > 0 and abs(ours[p] - ref[p]) <= points
        ok = ok and good
        print("%-60s %8.1f%% %8.1f%% %+7.1f %s" % (p, ours[p], ref[p], ours[p] - ref[p],
                                                  "ok" if good else "FAIL (more than %g points apart)" % points))
    sys.exit(0 if ok else 1)


main()
