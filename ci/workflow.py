"""ci/workflow.py - what annotate.py and comment.py print, safe to print.

A GitHub runner reads every line a step prints, on stdout and stderr, for a
workflow command (`::warning ...::`, `::add-mask::`, `::stop-commands::`...).
Whatever these scripts print that comes from data (a report's names, an API's
answer, PG_REPO, a path) could end its line and start a command of its own:
so every such piece goes through escape(), GitHub's escaping of a command's
message (or, with prop, of a property such as file=), on every line they
print, commands or not. Python's standard library only.
"""
import sys


def escape(s, prop=False):
    """GitHub's escaping of a workflow command's message, or of a property:
    no '\\r' or '\\n' is left to end the line, and '%' is escaped first so
    that the escapes read back as written."""
    s = str(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return s.replace(":", "%3A").replace(",", "%2C") if prop else s


def warning(msg):
    """perfgate's one warning line, as a workflow command."""
    return f"::warning title=perfgate::{escape(msg)}"


def printable():
    """Text that is no valid UTF-8 (a JSON "\\ud800", a file name's bytes)
    is printed as backslash escapes, not a traceback."""
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(errors="backslashreplace")
