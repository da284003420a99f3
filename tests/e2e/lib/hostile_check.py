#!/usr/bin/env python3
"""The hostile-name matrix: every output perfgate wrote for benchmarks with
hostile names, each validated by a real parser, one cell per name x output.

  hostile_check.py NAMES.json DIR

NAMES.json: {"names": [hex of each name's bytes], "function": hex of the
hostile function name}. DIR holds the outputs (see hostile_names.sh):
run.txt show.txt show.json store.json compare.txt compare.md compare.json
compare.xml fg/*.svg, and stacks/ (the store root the "stacks" paths of
store.json are relative to). Prints the matrix; exit 1 if any cell failed.

The expected forms of a name in each format are computed here from the rules
of util/text.h, independently of perfgate's code.
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

REPL = "\ufffd"
BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F}


def chars(b):
    """(char or None for an invalid byte, the bytes) per code point, strictly."""
    i = 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else 2 if 0xC2 <= c <= 0xDF else 3 if 0xE0 <= c <= 0xEF else 4 if 0xF0 <= c <= 0xF4 else 0
        if n:
            try:
                yield b[i:i + n].decode("utf-8"), b[i:i + n]   # strict: no surrogates, no overlongs
                i += n
                continue
            except UnicodeDecodeError:
                pass
        yield None, b[i:i + 1]
        i += 1


def repaired(b):
    return "".join(REPL if ch is None else ch for ch, _ in chars(b))


def term(b):
    out = []
    for ch, _ in chars(b):
        if ch is None:
            out.append(REPL)
        elif ch in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        elif 0x80 <= ord(ch) < 0xA0 or ord(ch) in BIDI:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def xml_value(b):
    """What an XML parser reads back from the escaped name."""
    out = []
    for ch, _ in chars(b):
        if ch is None or (ord(ch) < 0x20 and ch not in "\t\n\r") or 0x7F <= ord(ch) < 0xA0 or ch in "\ufffe\uffff":
            out.append(REPL)
        else:
            out.append(ch)
    return "".join(out)


def md(b):
    out = []
    for ch, _ in chars(b):
        if ch is None:
            out.append(REPL)
        elif ch in "&<>":
            out.append({"&": "&amp;", "<": "&lt;", ">": "&gt;"}[ch])
        elif ch in "\n\r\t":
            out.append(" ")
        elif ch in "|\\`*_[]#~":
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\\\x%02x" % ord(ch))
        elif 0x80 <= ord(ch) < 0xA0 or ord(ch) in BIDI:
            out.append("\\\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def text_safe(data):
    """None if `data` is valid UTF-8 with no control character but newline
    (no ESC, BEL, C1, bidi override) for a terminal, else why not."""
    try:
        s = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return "invalid UTF-8 at byte %d" % e.start
    for i, ch in enumerate(s):
        o = ord(ch)
        if (o < 0x20 and ch != "\n") or 0x7F <= o < 0xA0 or o in BIDI:
            return "raw U+%04X at character %d" % (o, i)
    return None


def json_strict(path):
    """Parsed document, via a strict UTF-8 decode (json.load alone would accept
    what Python can decode leniently)."""
    with open(path, "rb") as f:
        data = f.read()
    return json.loads(data.decode("utf-8"))


def xmllint(path):
    r = subprocess.run(["xmllint", "--noout", path], capture_output=True)
    return None if r.returncode == 0 else r.stderr.decode("utf-8", "replace").strip().splitlines()[0]


def md_tables_ok(text):
    """Every table row has the header's number of unescaped '|' (a name with '|' cannot add a column)."""
    want = None
    for line in text.split("\n"):
        if not line.startswith("|"):
            want = None
            continue
        n, i = 0, 0
        while i < len(line):
            if line[i] == "\\":
                i += 2
                continue
            n += line[i] == "|"
            i += 1
        if want is None:
            want = n
        elif n != want:
            return "row with %d cells where the header has %d: %.80r" % (n - 1, want - 1, line)
    return None


def main():
    spec = json.load(open(sys.argv[1]))
    d = sys.argv[2]
    names = [bytes.fromhex(h) for h in spec["names"]]
    func = bytes.fromhex(spec["function"])
    rows = {n: {} for n in names}
    whole = {}
    store, cmp_json = {"runs": []}, {"benchmarks": []}   # what could not be parsed has nothing

    def cell(name, col, problem):
        rows[name][col] = problem

    def read(p):
        with open(os.path.join(d, p), "rb") as f:
            return f.read()

    # Text outputs: nothing a terminal would obey, and each name shown escaped.
    for col, path in (("run", "run.txt"), ("show", "show.txt"), ("cmp-text", "compare.txt")):
        data = read(path)
        whole[col] = text_safe(data)
        s = data.decode("utf-8", "replace")
        for n in names:
            shown = term(n)[:16]     # a table column may cut it
            cell(n, col, whole[col] or (None if shown in s else "name not shown as %r" % shown))

    # JSON: strict parse; each name present exactly as repaired.
    for col, path in (("show-json", "show.json"), ("store", "store.json"), ("cmp-json", "compare.json")):
        try:
            doc = json_strict(os.path.join(d, path))
            whole[col] = None
        except (ValueError, UnicodeDecodeError) as e:
            doc, whole[col] = None, "not JSON: %s" % e
        if doc is None:
            got = []
        elif col == "cmp-json":
            got = [b["name"] for b in doc["benchmarks"]]
        else:
            runs = doc["runs"] if isinstance(doc, dict) else doc
            got = [b["name"] for r in runs for b in r["benchmarks"]]
        for n in names:
            cell(n, col, whole[col] or (None if repaired(n) in got else "name missing"))
        if col == "store" and doc:
            store = doc
        if col == "cmp-json" and doc:
            cmp_json = doc

    # compare --format json: the function tables hold the hostile function.
    for n in names:
        b = [x for x in cmp_json["benchmarks"] if x["name"] == repaired(n)]
        fns = [f["name"] for f in b[0].get("functions", {}).get("top", [])] if b else []
        if rows[n]["cmp-json"] is None and repaired(func) not in fns:
            cell(n, "cmp-json", "function table lacks the hostile function (has %r)" % fns)

    # Markdown: terminal-safe, tables intact, within a comment's size, names escaped.
    data = read("compare.md")
    text = data.decode("utf-8", "replace")
    whole["cmp-md"] = text_safe(data) or md_tables_ok(text) or (
        "%d bytes, over the 60,000 cap" % len(data) if len(data) > 60000 else None) or (
        "<details> not balanced" if text.count("<details") != text.count("</details>") else None)
    for n in names:
        shown = md(n)[:24]
        cell(n, "cmp-md", whole["cmp-md"] or (None if shown in text else "name not shown as %r" % shown))

    # JUnit: xmllint, then each name read back as a testcase name.
    whole["junit"] = xmllint(os.path.join(d, "compare.xml"))
    cases = [] if whole["junit"] else [t.get("name") for t in ET.parse(os.path.join(d, "compare.xml")).iter("testcase")]
    for n in names:
        cell(n, "junit", whole["junit"] or (None if xml_value(n) in cases else "no testcase named %r" % xml_value(n)[:40]))

    # Flamegraphs: two per regressed benchmark, each valid XML, titled with its name.
    svgs = sorted(f for f in os.listdir(os.path.join(d, "fg")) if f.endswith(".svg"))
    titles = {}
    for f in svgs:
        p = os.path.join(d, "fg", f)
        if len(f.encode()) > 255:
            titles.setdefault("", []).append("file name over 255 bytes: " + f)
            continue
        bad = xmllint(p)
        if bad:
            titles.setdefault("", []).append("%s: %s" % (f, bad))
            continue
        tree = ET.parse(p)
        t = next(e for e in tree.iter() if e.get("id") == "title")
        # A title longer than its line is cut, and whole in its <title> tooltip.
        whole_title = next((e.text for e in t if e.tag.endswith("title")), None)
        titles.setdefault(whole_title if whole_title is not None else t.text, []).append(f)
        if not any(xml_value(func) in (e.text or "") for e in tree.iter() if e.tag.endswith("title")):
            titles.setdefault("", []).append("%s lacks the hostile function" % f)
    whole["svg"] = "; ".join(titles.get("", [])) or None
    for n in names:
        prefix = xml_value(n)[:30]
        mine = [f for t, fs in titles.items() if t and t.startswith(prefix) for f in fs]
        cell(n, "svg", whole["svg"] or (None if len(mine) == 2 else "%d flamegraphs titled %r" % (len(mine), prefix)))

    # Stacks files of run --sample: one per benchmark, distinct, bounded names, valid UTF-8 text.
    paths = {}
    for r in store["runs"][:1]:
        for b in r["benchmarks"]:
            paths[b["name"]] = b.get("stacks")
    seen = {}
    for n in names:
        rel = paths.get(repaired(n))
        problem = None
        if not rel:
            problem = "no stacks stored"
        else:
            p = os.path.join(d, "stacks", rel)
            base = os.path.basename(p)
            if rel in seen:
                problem = "shares %s with another benchmark" % base
            elif len(base.encode()) > 255 - len(".tmp.XXXXXX"):
                problem = "file name of %d bytes" % len(base.encode())
            elif not os.path.isfile(p):
                problem = "missing file " + base
            else:
                data = open(p, "rb").read()
                try:
                    lines = data.decode("utf-8").splitlines()
                    ok = all(l.rpartition(" ")[2].isdigit() and l.rpartition(" ")[0] for l in lines if l)
                    problem = None if ok and lines else "malformed folded stacks"
                    if not problem and repaired(func) not in data.decode("utf-8"):
                        problem = "hostile function missing"
                except UnicodeDecodeError as e:
                    problem = "invalid UTF-8 at byte %d" % e.start
            seen[rel] = n
        cell(n, "stacks", problem)

    cols = ["run", "show", "show-json", "store", "cmp-text", "cmp-md", "cmp-json", "junit", "svg", "stacks"]
    failed = 0
    print("%-28s %s" % ("name \\ output", " ".join("%-9s" % c for c in cols)))
    for n in names:
        label = term(n)
        label = label if len(label) <= 26 else label[:18] + "..(%dB)" % len(n)
        marks = []
        for c in cols:
            marks.append("%-9s" % ("valid" if rows[n][c] is None else "FAIL"))
            failed += rows[n][c] is not None
        print("%-28s %s" % (label, " ".join(marks)))
    for n in names:
        for c in cols:
            if rows[n][c] is not None:
                print("FAIL %s x %s: %s" % (term(n)[:40], c, rows[n][c]))
    print("matrix: %d names x %d outputs, %d cells valid, %d failed" % (len(names), len(cols), len(names) * len(cols) - failed, failed))
    sys.exit(1 if failed else 0)


main()
