#!/usr/bin/python3
"""The README stays a door: short, with its two set-up commands and a spec that compiles.

Usage: readme_door.py --root DIR --compiler PAI_COMPILE

Checks DIR/README.md: at most 200 lines (the manual lives in docs/); a `sh` code block that is
exactly `bash scripts/demo.sh` and one that is exactly `bash scripts/test.sh` (the two commands
for a fresh Debian 12 machine; .ci/run and the scripts name them "the README's"); and at least
one `yaml` code block of a job spec (`apiVersion: pai/v1`), each of which `pai-compile --check`
accepts. Prints one line per problem and exits 1 when there is any, else 0.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

MAX_LINES = 200
SETUP_COMMANDS = ("bash scripts/demo.sh", "bash scripts/test.sh")

_BLOCK = re.compile(r"^```([A-Za-z0-9_-]*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def code_blocks(text):
    """(language, content) of every fenced code block."""
    return [(m.group(1), m.group(2)) for m in _BLOCK.finditer(text)]


def specs(text):
    """The job specs among the README's yaml blocks."""
    return [body for language, body in code_blocks(text)
            if language in ("yaml", "yml") and re.search(r"^apiVersion: pai/v1$", body, re.M)]


def compile_check(compiler):
    """A function that runs `compiler --check` on a spec's text: None when it is accepted,
    else what pai-compile said."""
    def check(spec):
        with tempfile.TemporaryDirectory(prefix="pai-readme-") as folder:
            path = os.path.join(folder, "job.yaml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(spec)
            run = subprocess.run([compiler, "--check", path], capture_output=True, text=True)
            if run.returncode == 0:
                return None
            return "exit {}: {}".format(run.returncode, (run.stderr or run.stdout).strip())
    return check


def problems(text, check_spec):
    """What keeps `text` (a README) from being the door: one line each."""
    out = []
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if lines > MAX_LINES:
        out.append("README.md has {} lines, more than {}: move the manual to docs/".format(
            lines, MAX_LINES))
    shell = [body.strip() for language, body in code_blocks(text) if language in ("sh", "bash")]
    for command in SETUP_COMMANDS:
        if command not in shell:
            out.append("README.md lacks the set-up command `{}` as a sh block of its "
                       "own".format(command))
    found = specs(text)
    if not found:
        out.append("README.md has no job spec (a yaml block with apiVersion: pai/v1)")
    for n, spec in enumerate(found, 1):
        why = check_spec(spec)
        if why:
            out.append("README.md: spec {} is refused by pai-compile --check: {}".format(n, why))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the source tree")
    parser.add_argument("--compiler", required=True, help="path to pai-compile")
    options = parser.parse_args(argv)
    with open(os.path.join(options.root, "README.md"), encoding="utf-8") as f:
        text = f.read()
    found = problems(text, compile_check(options.compiler))
    for line in found:
        print(line)
    print("README.md: {} lines, {} spec(s), {} problem(s)".format(
        text.count("\n"), len(specs(text)), len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
