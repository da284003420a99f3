#!/usr/bin/env python3
"""Questions about a folded-stacks file, for the sampling tests.

  folded.py FILE share SUFFIX         % of samples whose stack ends with SUFFIX
  folded.py FILE share-contains PART  % of samples whose stack contains PART
  folded.py FILE total                total samples
  folded.py FILE truncated            % of samples in stacks marked [truncated]
  folded.py FILE check                every line is "frames count" (exit 1 if not)
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
else:
    sys.exit("unknown question " + what)
