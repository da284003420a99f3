#!/usr/bin/env python3
"""Questions about a folded-stacks file, for the sampling tests.

  folded.py FILE share SUFFIX         % of samples whose stack ends with SUFFIX
  folded.py FILE share-contains PART  % of samples whose stack contains PART
  folded.py FILE total                total samples
  folded.py FILE truncated            % of samples in stacks marked [truncated]
  folded.py FILE check                every line is "frames count" (exit 1 if not)
  folded.py FILE agree OTHER SUFFIX...
      the share of each SUFFIX, and of truncated stacks, is the same in FILE
      and OTHER up to sampling noise: within 5 standard errors of the
      difference of two proportions, at least 3 points (exit 1 if not)
"""
import sys

def load(path):
    out = []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, sep, count = line.rpartition(" ")
        if not sep or not count.isdigit() or not stack:
            sys.exit("%s:%d: malformed line: %r" % (path, n, line))
        out.append((stack, int(count)))
    return out

def share(rows, suffix):
    total = sum(c for _, c in rows)
    if suffix == "[truncated]":
        hit = sum(c for s, c in rows if ";[truncated];" in s + ";")
    else:
        hit = sum(c for s, c in rows if s == suffix or s.endswith(";" + suffix))
    return hit / total if total else 0.0

path, what = sys.argv[1], sys.argv[2]
rows = load(path)
total = sum(c for _, c in rows)
if what == "total":
    print(total)
elif what == "check":
    pass
elif what == "share":
    suffix = sys.argv[3]
    hit = sum(c for s, c in rows if s == suffix or s.endswith(";" + suffix))
    print("%.1f" % (100.0 * hit / total if total else 0))
elif what == "share-contains":
    part = sys.argv[3]
    hit = sum(c for s, c in rows if part in s)
    print("%.1f" % (100.0 * hit / total if total else 0))
elif what == "truncated":
    hit = sum(c for s, c in rows if ";[truncated];" in s + ";")
    print("%.1f" % (100.0 * hit / total if total else 0))
elif what == "agree":
    other = load(sys.argv[3])
    n1, n2 = total, sum(c for _, c in other)
    some = n1 > 0 and n2 > 0
    ok = some
    for suffix in sys.argv[4:] + ["[truncated]"]:
        p1, p2 = share(rows, suffix), share(other, suffix)
        p = (p1 * n1 + p2 * n2) / (n1 + n2) if some else 0
        tol = max(0.03, 5 * (p * (1 - p) * (1 / max(n1, 1) + 1 / max(n2, 1))) ** 0.5)
        good = some and abs(p1 - p2) <= tol
        ok = ok and good
        print("%s %s: %.1f%% of %d vs %.1f%% of %d (tolerance %.1f)"
              % ("ok  " if good else "FAIL", suffix, 100 * p1, n1, 100 * p2, n2, 100 * tol))
    sys.exit(0 if ok else 1)
else:
    sys.exit("unknown question " + what)
