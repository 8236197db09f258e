#!/usr/bin/python3
"""The shipped Grafana dashboard and Prometheus alert rules work with what pai serves.

Usage: observability_check.py --root DIR

* promtool accepts observability/prometheus/pai-alerts.yml, and its unit tests
  (pai-alerts.test.yml: each alert fires on the series that should fire it, only those) pass;
* observability/grafana/pai-job.json loads as a Grafana dashboard: a title and uid, the
  datasource/job/instance variables, panels each with a type, a place and targets with unique
  refIds; every target's PromQL parses (promtool, with Grafana's variables substituted);
* every pai_* series the dashboard and the rules use is one the coordinator renders
  (launcher/coordinator/metrics_text.cpp's families, with a histogram's _bucket/_count/_sum),
  and none filters on the labels Prometheus owns, `job`'s and `instance`'s, other than as the
  scrape target's.
Prints one line per problem; exits 1 when there is any, else 0.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

SERIES = re.compile(r"\bpai_[a-z_]+\b")
GRAFANA_VARIABLES = {"$__rate_interval": "5m", "$__interval": "1m", "$job": "pai",
                     "$instance": ".*", "${datasource}": "prometheus"}


def families(root):
    text = open(os.path.join(root, "launcher/coordinator/metrics_text.cpp")).read()
    names = set(re.findall(r'family\("(pai_[a-z_]+)"', text))
    for name in list(names):
        names.update(name + suffix for suffix in ("_bucket", "_count", "_sum"))
    return names


def promql_problems(expressions):
    """promtool's complaints about `expressions` (name -> PromQL), as recording rules."""
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        f.write("groups:\n  - name: dashboard\n    rules:\n")
        for i, expr in enumerate(expressions):
            f.write("      - record: dashboard:expr_%d\n        expr: %s\n" % (i, json.dumps(expr)))
        path = f.name
    try:
        proc = subprocess.run(["promtool", "check", "rules", path], capture_output=True, text=True)
        return [] if proc.returncode == 0 else [proc.stdout + proc.stderr]
    finally:
        os.unlink(path)


def check_dashboard(path, known):
    problems = []
    board = json.load(open(path))
    for key in ("title", "uid", "panels", "templating", "schemaVersion"):
        if key not in board:
            problems.append("%s: no %s" % (path, key))
    variables = {v.get("name") for v in board.get("templating", {}).get("list", [])}
    for name in ("datasource", "job", "instance"):
        if name not in variables:
            problems.append("%s: no $%s variable" % (path, name))
    expressions = []
    for panel in board.get("panels", []):
        title = panel.get("title", "?")
        if not panel.get("type") or "gridPos" not in panel:
            problems.append("%s: panel %r has no type or place" % (path, title))
        targets = panel.get("targets", [])
        if not targets:
            problems.append("%s: panel %r queries nothing" % (path, title))
        ids = [t.get("refId") for t in targets]
        if len(set(ids)) != len(ids):
            problems.append("%s: panel %r repeats a refId" % (path, title))
        for target in targets:
            expr = target.get("expr", "")
            for name in SERIES.findall(expr):
                if name not in known:
                    problems.append("%s: panel %r uses %s, which pai does not serve" %
                                    (path, title, name))
            for variable, value in GRAFANA_VARIABLES.items():
                expr = expr.replace(variable, value)
            expressions.append(expr)
    if not board.get("panels"):
        problems.append("%s: no panels" % path)
    problems += promql_problems(expressions)
    return problems


def check_rules(folder, known):
    problems = []
    rules = os.path.join(folder, "pai-alerts.yml")
    for argv in (["promtool", "check", "rules", rules],
                 ["promtool", "test", "rules", os.path.join(folder, "pai-alerts.test.yml")]):
        proc = subprocess.run(argv, capture_output=True, text=True, cwd=folder)
        if proc.returncode != 0:
            problems.append("%s failed:\n%s%s" % (" ".join(argv), proc.stdout, proc.stderr))
    for line in open(rules):
        if line.strip().startswith("expr:"):
            for name in SERIES.findall(line):
                if name not in known:
                    problems.append("%s: %s is not a series pai serves" % (rules, name))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    args.root = os.path.abspath(args.root)
    known = families(args.root)
    if len(known) < 20:
        print("found only %d series in metrics_text.cpp: is the pattern stale?" % len(known))
        return 1
    problems = check_rules(os.path.join(args.root, "observability/prometheus"), known)
    problems += check_dashboard(os.path.join(args.root, "observability/grafana/pai-job.json"),
                                known)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
