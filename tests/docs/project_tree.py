"""The project's files, as the documentation checkers read them."""

import os
import subprocess


def project_files(root, suffix=""):
    """The project's files under `root` whose names end with `suffix`, relative to it, sorted:
    what `git ls-files` lists (tracked, and untracked but not ignored) when `root` is a git
    checkout, else every file of a walk that skips hidden folders and, at the top, `build*/`
    and `out/`."""
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"],
                                check=True, capture_output=True).stdout
        files = [f for f in listed.decode().split("\0") if f.endswith(suffix)]
        return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")
                         and not (folder == root and (d.startswith("build") or d == "out"))]
        files += [os.path.relpath(os.path.join(folder, n), root) for n in names
                  if n.endswith(suffix)]
    return sorted(files)
