"""The documentation checkers themselves: each must reject a planted broken case (a link to a
missing file or anchor, a reference to a missing design section, a README past its limit or
without its commands) and accept the sound ones, or the checks of the real tree prove
nothing.

pai-compile is used for the README's spec when PAI_COMPILE names it (ctest sets it)."""

import io
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_refs  # noqa: E402
import markdown_links  # noqa: E402
import readme_door  # noqa: E402

S = design_refs.SECTION  # written as an escape here, so this file cites no section itself


def write(root, name, text):
    path = os.path.join(root, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


class TempTreeTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="pai-doc-checks-")
        self.addCleanup(shutil.rmtree, self.root)


class SlugTest(unittest.TestCase):
    def test_github_rules(self):
        cases = {
            "Multi-node jobs: the coordinator": "multi-node-jobs-the-coordinator",
            "`pai-launch run`": "pai-launch-run",
            S + "5 The env contract": "5-the-env-contract",
            "`bench/diagnosis.sh` — how fast": "benchdiagnosissh--how-fast",
            "`bench/telemetry_overhead.py` — cost": "benchtelemetry_overheadpy--cost",
            "Fabric pair measurement (launcher ↔ launcher, plain TCP)":
                "fabric-pair-measurement-launcher--launcher-plain-tcp",
            "Ünïcode Wörds 1,024": "ünïcode-wörds-1024",
            "A [linked](x.md) *word*": "a-linked-word",
        }
        for heading, expected in cases.items():
            with self.subTest(heading=heading):
                self.assertEqual(markdown_links.slug(heading), expected)

    def test_repeated_headings_are_numbered_and_code_is_no_heading(self):
        text = ("# Notes\n\n## Notes\n\n```\n# not a heading\n```\n\n"
                "### Notes\n<a name=\"here\"></a>\n")
        self.assertEqual(markdown_links.anchors(text), {"notes", "notes-1", "notes-2", "here"})


class LinksTest(TempTreeTest):
    def test_links_outside_code_only(self):
        text = ("[a](a.md) and `[b](b.md)` and ``[c](`c.md`)``\n"
                "```sh\n[d](d.md)\n```\n"
                "[e]: e.md\n![f](img/f.png \"title\")\n")
        self.assertEqual([d for _, d in markdown_links.links(text)],
                         ["a.md", "e.md", "img/f.png"])

    def test_planted_broken_links_are_rejected_and_sound_ones_accepted(self):
        write(self.root, "docs/b.md", "# B page\n\n## Some `section`\n")
        write(self.root, "src/x.h", "// a source file\n")
        page = write(self.root, "docs/a.md", "\n".join([
            "# A",                                          # 1
            "[ok](b.md) [ok](b.md#some-section) [ok](#a)",  # 2
            "[ok](../src/x.h) [ok](../src/) [ok](/docs/b.md#b-page)",  # 3
            "[ok](https://example.com/nowhere.md#x) [ok](mailto:a@b.c)",  # 4
            "`[in code](gone.md)`",                         # 5
            "[missing file](gone.md)",                      # 6
            "[missing anchor](b.md#no-such-section)",       # 7
            "[missing own anchor](#nope)",                  # 8
            "[outside](../../etc/passwd)",                  # 9
            "[ref]: ../src/missing.h",                      # 10
            "",
        ]))
        found = markdown_links.Checker(self.root).check_file(page)
        self.assertEqual(found, [
            "docs/a.md:6: link 'gone.md': no such file or folder",
            "docs/a.md:7: link 'b.md#no-such-section': no anchor #no-such-section in docs/b.md",
            "docs/a.md:8: link '#nope': no anchor #nope in docs/a.md",
            "docs/a.md:9: link '../../etc/passwd': points outside the project",
            "docs/a.md:10: link '../src/missing.h': no such file or folder",
        ])

    def test_main_fails_on_a_broken_tree_and_passes_a_sound_one(self):
        write(self.root, "README.md", "# R\n[docs](docs/a.md#a)\n")
        write(self.root, "docs/a.md", "# A\n[back](../README.md#r)\n")
        with redirect_stdout(io.StringIO()):
            self.assertEqual(markdown_links.main(["--root", self.root]), 0)
        write(self.root, "docs/a.md", "# A renamed\n[back](../README.md#r)\n")
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(markdown_links.main(["--root", self.root]), 1)
        self.assertIn("README.md:2: link 'docs/a.md#a': no anchor #a in docs/a.md",
                      out.getvalue())


class DesignRefsTest(TempTreeTest):
    def test_references_in_their_written_forms(self):
        cases = [
            ("// The plan (design " + S + "4).", [4]),
            ("# Design " + S + "10: compile fast", [10]),
            ("see design.md " + S + "12 and " + S + "13", [12, 13]),
            ("// the agent (design\n// " + S + "5, " + S + "8), so", [5, 8]),
            ("/* design\n * " + S + "2 */", [2]),
            ("(design " + S + "12, issue 15: " + S + "3 of the issue)", [12]),
            ("designs " + S + "3, a bare " + S + "4, " + S + "5", []),
        ]
        for text, expected in cases:
            with self.subTest(text=text):
                self.assertEqual([n for _, n in design_refs.references(text)], expected)

    def test_line_numbers_are_those_of_the_sections(self):
        text = "one\n// design\n// " + S + "5, " + S + "8\n"
        self.assertEqual(list(design_refs.references(text)), [(3, 5), (3, 8)])

    def test_a_planted_reference_to_a_missing_section_is_rejected(self):
        write(self.root, "docs/design.md",
              "# D\n\n## " + S + "1 What\n\ntext\n\n## " + S + "2 How\n")
        write(self.root, "src/a.h", "// fine (design " + S + "2)\n")
        write(self.root, "src/b.cpp", "int x;\n// gone (design " + S + "1, " + S + "3)\n")
        write(self.root, "src/blob.bin", "")
        with open(os.path.join(self.root, "src/blob.bin"), "wb") as f:
            f.write(b"\xff\xfe design \xa7 9")  # not text: skipped
        files = ["src/a.h", "src/b.cpp", "src/blob.bin"]
        found, seen = design_refs.check(self.root, files)
        self.assertEqual(seen, 3)
        self.assertEqual(found, ["src/b.cpp:2: design " + S + "3: docs/design.md has no such "
                                 "section (it has " + S + "1, " + S + "2)"])
        with redirect_stdout(io.StringIO()):
            self.assertEqual(design_refs.main(["--root", self.root] +
                                              [os.path.join(self.root, f) for f in files]), 1)
            self.assertEqual(design_refs.main(["--root", self.root,
                                               os.path.join(self.root, "src/a.h")]), 0)

    def test_the_sections_are_the_numbered_headings(self):
        text = "## " + S + "1 A\n## " + S + "14 B\n### " + S + "3 not a section\n" + S + "4 text\n"
        self.assertEqual(design_refs.sections(text), {1, 14})


SPEC = """```yaml
apiVersion: pai/v1
kind: Job
name: hello
hosts: [node-1]
roles:
  worker: {instances: 1, command: "true"}
```
"""
DOOR = ("# pai\n\n```sh\nbash scripts/demo.sh\n```\n\n```sh\nbash scripts/test.sh\n```\n\n"
        + SPEC)


class ReadmeDoorTest(unittest.TestCase):
    @staticmethod
    def accept(spec):
        return None

    def test_a_sound_door_passes(self):
        self.assertEqual(readme_door.problems(DOOR, self.accept), [])

    def test_a_long_readme_is_refused(self):
        text = DOOR + "more\n" * (readme_door.MAX_LINES - DOOR.count("\n") + 1)
        self.assertEqual(readme_door.problems(text, self.accept), [
            "README.md has 201 lines, more than 200: move the manual to docs/"])

    def test_a_missing_or_changed_setup_command_is_refused(self):
        text = DOOR.replace("bash scripts/test.sh", "bash scripts/test.sh --fast")
        self.assertEqual(readme_door.problems(text, self.accept), [
            "README.md lacks the set-up command `bash scripts/test.sh` as a sh block of its own"])

    def test_no_spec_or_a_refused_spec_is_refused(self):
        self.assertEqual(readme_door.problems(DOOR.replace(SPEC, ""), self.accept), [
            "README.md has no job spec (a yaml block with apiVersion: pai/v1)"])
        self.assertEqual(readme_door.problems(DOOR, lambda spec: "exit 1: bad"), [
            "README.md: spec 1 is refused by pai-compile --check: exit 1: bad"])

    @unittest.skipUnless(os.environ.get("PAI_COMPILE"), "PAI_COMPILE names no pai-compile")
    def test_pai_compile_accepts_a_spec_and_refuses_a_broken_one(self):
        check = readme_door.compile_check(os.environ["PAI_COMPILE"])
        spec = readme_door.specs(DOOR)[0]
        self.assertIsNone(check(spec))
        why = check(spec.replace("instances: 1", "instancez: 1"))
        self.assertIsNotNone(why)
        self.assertIn('unknown key "instancez"', why)


if __name__ == "__main__":
    unittest.main()
