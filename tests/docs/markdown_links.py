#!/usr/bin/python3
"""Every relative link and #anchor between the project's Markdown files resolves.

Usage: markdown_links.py --root DIR [FILE.md ...]

Checks inline links and images (`[text](dest)`, `![alt](dest)`) and reference definitions
(`[label]: dest`) outside code blocks and code spans. A destination with a scheme (`https:`,
`mailto:`) is left alone; any other must name a file or folder inside DIR, relative to the
linking file (a leading `/` is DIR itself, as on GitHub). A `#fragment` into a Markdown file
(or `#fragment` alone, into the linking file) must be one of its anchors: a heading's slug as
GitHub makes it (lowercase; every character but letters, digits, `_`, `-` and spaces dropped;
spaces to `-`; a repeated slug gets `-1`, `-2`, ...) or an HTML `<a name=...>`/`id=...`.

Without FILEs every Markdown file of the project is checked: `git ls-files` when DIR is a git
checkout, else a walk that skips hidden folders, `build*/` and `out/`. Prints one line per
broken link (`file:line: ...`) and exits 1 when there is any, else 0.
"""

import argparse
import os
import re
import sys
import unicodedata
import urllib.parse

from project_tree import project_files

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_HTML_ANCHOR = re.compile(r"<a\s[^>]*?(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.I)
# [text](destination "title"): the text may hold one level of brackets, the destination one
# level of parentheses.
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
                          r"\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
                          r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _blank_code_spans(line):
    """`line` with the contents of its code spans (and their backticks) turned into spaces."""
    out = []
    i = 0
    while i < len(line):
        if line[i] != "`":
            out.append(line[i])
            i += 1
            continue
        run = len(line[i:]) - len(line[i:].lstrip("`"))
        ticks = line[i:i + run]
        end = line.find(ticks, i + run)
        while end != -1 and line[end + run:end + run + 1] == "`":
            end = line.find(ticks, end + run + 1)
        if end == -1:  # an unmatched run is literal text
            out.append(ticks)
            i += run
            continue
        out.append(" " * (end + run - i))
        i = end + run
    return "".join(out)


def prose_lines(text):
    """(line number, line) of every line outside fenced code blocks, code spans blanked.
    Headings are given whole (their code spans are part of their slug)."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not line.strip()[len(match.group(1)):].strip():
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        yield number, line


def slug(heading_text):
    """The anchor GitHub gives a heading with this (Markdown) text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading_text)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = text.lower()
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char in " -" or category[0] in "LMN" or category == "Pc":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


def anchors(text):
    """Every anchor of a Markdown document: heading slugs (numbered when repeated) and HTML
    name/id attributes."""
    found = set()
    counts = {}
    for _, line in prose_lines(text):
        heading = _HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else "{}-{}".format(base, n))
        for name in _HTML_ANCHOR.findall(_blank_code_spans(line)):
            found.add(name)
    return found


def links(text):
    """(line number, destination) of every link of a Markdown document outside code."""
    for number, line in prose_lines(text):
        line = _blank_code_spans(line)
        definition = _REFERENCE_DEFINITION.match(line)
        if definition:
            yield number, definition.group(1).strip("<>")
            continue
        for match in _INLINE_LINK.finditer(line):
            yield number, match.group(1).strip("<>")


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Checker:
    """Checks links of Markdown files under one root; reads each target's anchors once."""

    def __init__(self, root):
        self.root = os.path.realpath(root)
        self._anchors = {}

    def anchors_of(self, path):
        if path not in self._anchors:
            self._anchors[path] = anchors(_read(path))
        return self._anchors[path]

    def problem(self, source, destination):
        """Why `destination`, linked from the file `source`, does not resolve; None if it does."""
        if _SCHEME.match(destination) or destination.startswith("//"):
            return None
        target, _, fragment = destination.partition("#")
        target = urllib.parse.unquote(target)
        if not target:
            path = source
        elif target.startswith("/"):
            path = os.path.join(self.root, target.lstrip("/"))
        else:
            path = os.path.join(os.path.dirname(source), target)
        path = os.path.realpath(path)
        if os.path.commonpath([path, self.root]) != self.root:
            return "points outside the project"
        if not os.path.exists(path):
            return "no such file or folder"
        if fragment and path.endswith(".md") and os.path.isfile(path):
            if urllib.parse.unquote(fragment) not in self.anchors_of(path):
                return "no anchor #{} in {}".format(fragment, os.path.relpath(path, self.root))
        return None

    def check_file(self, path):
        """One line per broken link of the Markdown file `path`."""
        path = os.path.realpath(path)
        shown = os.path.relpath(path, self.root)
        out = []
        for number, destination in links(_read(path)):
            why = self.problem(path, destination)
            if why:
                out.append("{}:{}: link '{}': {}".format(shown, number, destination, why))
        return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the source tree")
    parser.add_argument("files", nargs="*", help="Markdown files (default: all of the project)")
    options = parser.parse_args(argv)
    checker = Checker(options.root)
    files = options.files or [os.path.join(options.root, f)
                              for f in project_files(options.root, ".md")]
    if not files:
        print("error: no Markdown files under {}".format(options.root))
        return 1
    problems = []
    for path in files:
        problems += checker.check_file(path)
    for line in problems:
        print(line)
    print("{} Markdown files, {} broken links".format(len(files), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
