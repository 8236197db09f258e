#!/usr/bin/python3
"""Compiles every example (and every template test spec, tests/templates/*_test.jsonnet)
with pai-compile and validates the plan.json it writes against schemas/plan.schema.json
(Draft 7, format checking on). Prints a table and exits 1 when a spec does not compile or
its plan does not validate.

Usage: plan_schema_check.py --compiler build/compiler/pai-compile --root .
"""

import json
import os
import sys
import tempfile


import spec_cases


def main():
    options = spec_cases.parse_options(__doc__.splitlines()[0])
    root = options.root
    validator = spec_cases.schema_validator(root, 'plan.schema.json')

    rows, failures = [], []
    examples = spec_cases.example_specs(root) + spec_cases.template_specs(root)
    for spec in examples:
        with tempfile.TemporaryDirectory(prefix='pai-plan-') as out:
            code, messages = spec_cases.run_compiler(options.compiler, root, spec, out_dir=out)
            if code != 0:
                problems = ['pai-compile exited %d: %s' % (code, m) for m in messages] or \
                           ['pai-compile exited %d' % code]
            else:
                with open(os.path.join(out, 'plan.json')) as f:
                    plan = json.load(f)
                errors = sorted(validator.iter_errors(plan), key=lambda e: list(e.absolute_path))
                problems = ['%s: %s' % ('.'.join(str(p) for p in e.absolute_path) or '(top)', e.message)
                            for e in errors]
        rows.append((spec, 'compiled' if code == 0 else 'not compiled', 'valid' if not problems else 'INVALID'))
        if problems:
            failures.append((spec, problems))

    spec_cases.print_table(('spec', 'pai-compile', 'plan.json'), rows)
    for spec, problems in failures:
        print('\n%s:' % spec)
        for p in problems[:20]:
            print('  %s' % p)
        if len(problems) > 20:
            print('  ... %d more' % (len(problems) - 20))
    print('\n%d specs, %d failures' % (len(rows), len(failures)))
    return 1 if failures or not examples else 0


if __name__ == '__main__':
    sys.exit(main())
