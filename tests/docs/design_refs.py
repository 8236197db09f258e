#!/usr/bin/python3
"""Every "design §N" in the project's files names a section of docs/design.md.

Usage: design_refs.py --root DIR [FILE ...]

A reference is "design", "design.md" or "Design", then (across spaces, commas and a comment's
line break: `//`, `#`, `*`) "§N", and every further "§M" listed after it ("design §5, §8",
"design.md §12 and §13"). docs/design.md's sections are its headings `## §N Title`. Without
FILEs every text file of the project is read: `git ls-files` when DIR is a git checkout, else
a walk that skips hidden folders, `build*/` and `out/`. Prints one line per reference to a
missing section (`file:line: ...`) and exits 1 when there is any, else 0.
"""

import argparse
import os
import re
import sys

from project_tree import project_files

DESIGN = os.path.join("docs", "design.md")
SECTION = "\u00a7"

_SECTION_HEADING = re.compile(r"^## " + SECTION + r"(\d+) \S", re.M)
# Between "design" and its first section, and between listed sections: spaces, line breaks
# with a comment's leader, a comma, "and"/"or".
_GAP = r"(?:[\s,(]|//+|#+|\*+)*"
_REFERENCE = re.compile(r"\bdesign(?:\.md)?\b" + _GAP + SECTION + r"\s?(\d+)"
                        r"((?:" + r"(?:[\s,]|//+|#+|\*+|\band\b|\bor\b)*" + SECTION
                        + r"\s?\d+)*)", re.I)
_LISTED = re.compile(SECTION + r"\s?(\d+)")


def sections(design_text):
    """The section numbers docs/design.md defines."""
    return {int(n) for n in _SECTION_HEADING.findall(design_text)}


def references(text):
    """(line number, section number) of every design reference in `text`."""
    for match in _REFERENCE.finditer(text):
        yield text.count("\n", 0, match.start(1)) + 1, int(match.group(1))
        for listed in _LISTED.finditer(match.group(2)):
            yield text.count("\n", 0, match.start(2) + listed.start()) + 1, int(listed.group(1))


def check(root, files):
    """One line per reference, in `files` (relative to `root`), to a section docs/design.md
    does not have; and the number of references seen."""
    with open(os.path.join(root, DESIGN), encoding="utf-8") as f:
        known = sections(f.read())
    problems = []
    seen = 0
    for name in files:
        try:
            with open(os.path.join(root, name), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, IsADirectoryError):
            continue  # not text
        for line, number in references(text):
            seen += 1
            if number not in known:
                problems.append("{}:{}: design {}{}: docs/design.md has no such section "
                                "(it has {})".format(name, line, SECTION, number,
                                                     ", ".join(SECTION + str(n)
                                                               for n in sorted(known))))
    return problems, seen


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the source tree")
    parser.add_argument("files", nargs="*", help="files to read (default: all of the project)")
    options = parser.parse_args(argv)
    root = os.path.abspath(options.root)
    files = [os.path.relpath(os.path.abspath(f), root) for f in options.files] \
        or project_files(root)
    problems, seen = check(root, files)
    for line in problems:
        print(line)
    print("{} files, {} design references, {} to missing sections".format(
        len(files), seen, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
