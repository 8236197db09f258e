#!/usr/bin/python3
"""Checks that schemas/job.schema.json and pai-compile agree on every example, every
template test spec (tests/templates/*_test.jsonnet) and every golden spec
(tests/golden/*/job.yaml).

For each spec: validate it with the schema (Draft 7, format checking on) and run
`pai-compile --check`. The schema checks fields one at a time; the compiler also checks
rules across fields. So:
  * schema rejects, compiler accepts  -> failure (the schema is too strict, or the
    compiler too lax);
  * schema accepts, compiler rejects  -> fine only when every compiler error is a rule
    in CROSS_FIELD_RULES (across fields, or a value rule no pattern can decide);
    otherwise a failure (the schema is too lax);
  * an example or template test spec rejected by either -> failure (they must compile).
Prints a table and exits 1 on any failure.

Usage: job_schema_check.py --compiler build/compiler/pai-compile --root .
"""

import os
import re
import sys


import spec_cases

# Compiler errors the schema cannot express, matched against "<field path>: <message>"
# (regular expressions, as narrow as the compiler's wording allows).
CROSS_FIELD_RULES = [
    # --- Rules across fields (or across the spec and the command line) ---
    # hosts may come from --hosts instead of the spec.
    r'^hosts: no hosts: list the inventory under hosts or pass --hosts FILE$',
    # Enough hosts for all instances of all roles.
    r'^hosts: not enough hosts: ',
    # nprocPerNode against resources.gpu and both against host slots.
    r'^roles\.\w+\.nprocPerNode: nprocPerNode gpu needs resources\.gpu of at least 1, got ',
    r'^roles\.\w+\.nprocPerNode: nprocPerNode \d+ is more than resources\.gpu \d+ ',
    r'^roles\.\w+\.(nprocPerNode|resources\.gpu): (nprocPerNode|resources\.gpu) \d+ is more than the \d+ slots of host ',
    # Host names and addresses unique across hosts and spares.
    r'^(hosts|spares)\[\d+\]\.name: duplicate host name ',
    r'^(hosts|spares)\[\d+\]\.address: duplicate address ',
    # Mount names and targets, custom check names unique; port labels differ in more than case.
    r'^mounts\[\d+\]\.name: duplicate mount name ',
    r'^mounts\[\d+\]\.target: duplicate mount target ',
    r'^sanityCheck\.custom\[\d+\]\.name: duplicate check name ',
    r'^roles\.\w+\.ports\.\w+: port label "\w+" collides with ',
    # portRange min <= max; completion counts <= instances.
    r'^portRange\.min: min \d+ is greater than max \d+',
    r'^roles\.\w+\.completion\.(minSucceeded|minFailed): (minSucceeded|minFailed) \d+ is more than the role\'s ',
    # masterRole and coordinator.host name an existing role and a used host.
    r'^masterRole: unknown role ',
    r'^coordinator\.host: (unknown host |host "[^"]*" runs no role instance)',
    # framework mpi needs a launcher role; docker and apptainer need an image.
    r'^framework: framework mpi needs a role named "launcher"',
    r'^runtime: runtime (docker|apptainer) needs an image',
    # framework ray: a head role of one instance, the master; one process per node. megatron:
    # the parallel sizes divide the world size. The frameworks' own variables are reserved.
    r'^roles: framework ray needs a role named "head"',
    r'^roles\.head\.instances: the Ray head has one instance, got ',
    r'^masterRole: the master role of a ray job is its head',
    r'^roles\.\w+\.nprocPerNode: a Ray node runs one `ray start`',
    r'^roles\.\w+\.command: a Ray worker runs `ray start ',
    r'^megatron\.\w+: tensorParallel \d+ x pipelineParallel \d+ x contextParallel \d+ = \d+ does not divide the world size ',
    r'^roles\.\w+\.env\.(JAX_|DMLC_|RAY_|PAI_|TORCHELASTIC_|GROUP_WORLD_SIZE)\w*: \w+ is set by pai for every process and cannot be overridden$',
    # The job's name with its longest pod suffix (-worker-<N>) is a DNS label.
    r'^name: name "[^"]*" is too long for the job\'s pods: ',
    # kubernetes: gang size against the pods; network against networks; rdma against the
    # fabric; claims apart from the mounts and output; Kubernetes' toleration rules.
    r'^kubernetes\.schedulingPolicy\.minAvailable: minAvailable \d+ is more than the job\'s ',
    r'^kubernetes\.network: network multus needs kubernetes\.networks',
    r'^kubernetes\.networks: networks is only used with network: multus ',
    r'^kubernetes\.rdma: rdma is only used with fabric type roce or ib ',
    r'^kubernetes\.volumes\[\d+\]\.(name|mountPath): (volume name|mount path) "[^"]*" is already used by ',
    r'^kubernetes\.tolerations\[\d+\]: a toleration without a key needs operator: Exists$',
    r'^kubernetes\.tolerations\[\d+\]\.value: operator Exists matches any value',
    r'^kubernetes\.tolerations\[\d+\]\.tolerationSeconds: tolerationSeconds is only used with effect NoExecute$',
    # kubernetes: the api against the framework; Trainer v2's settings and its PodGroup;
    # Kueue's topology needs its queue.
    r'^kubernetes\.api: api (mpijob runs framework mpi only|pytorchjob cannot run framework mpi) ',
    r'^kubernetes\.runtimeKind: runtimeKind is only used with api trainer-v2 ',
    r'^kubernetes\.schedulingPolicy\.minAvailable: minAvailable is not used with api trainer-v2',
    r'^kubernetes\.schedulingPolicy\.queue: with api trainer-v2 the gang scheduler\'s queue is Volcano\'s',
    r'^kubernetes\.topology: topology is Kueue\'s topology-aware scheduling: it needs kubernetes\.queue',
    # slurm: the container's image may be the spec's; its mounts apart from the spec's.
    r'^slurm\.container: the container needs an image',
    r'^slurm\.container\.mounts\[\d+\]: mount target "[^"]*" is already mounted by ',
    # ${parameters.x} must be defined.
    r'^[\w.\[\]]+: undefined parameter "\w+" in \$\{parameters\.',
    # --- Value rules a JSON Schema pattern cannot decide ---
    # Whole bytes for fractional quantities (1.3Ki), int64 overflow, nccl.size >= 1Ki as text.
    r'^[\w.\[\]]+: quantity "[^"]*" is not a whole number of bytes',
    r'^[\w.\[\]]+: quantity overflows$',
    # The 365-day bound of durations written as strings ("366d"); integers have a maximum.
    r'^[\w.\[\]]+: duration must be at most 365d, got ',
    r'^sanityCheck\.nccl\.size: expected a quantity of at least 1Ki',
]


def is_cross_field(message):
    return any(re.search(rule, message) for rule in CROSS_FIELD_RULES)


def schema_errors(validator, data):
    """The schema's complaints about `data`, one line each."""
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    return ['%s: %s' % ('.'.join(str(p) for p in e.absolute_path) or '(top)', e.message)
            for e in errors]


def main():
    options = spec_cases.parse_options(__doc__.splitlines()[0])
    root = options.root
    validator = spec_cases.schema_validator(root, 'job.schema.json')

    examples = spec_cases.example_specs(root) + spec_cases.template_specs(root)
    goldens, skipped = spec_cases.golden_specs(root)
    rows, failures = [], []
    for spec in examples + goldens:
        try:
            problems = schema_errors(validator, spec_cases.load_spec(os.path.join(root, spec), root))
        except spec_cases.LoadFailure as e:
            problems = ['cannot load: %s' % e]
        code, messages = spec_cases.run_compiler(options.compiler, root, spec)
        schema_ok, compiler_ok = not problems, code == 0

        if code not in (0, 1):
            verdict = 'FAIL: pai-compile exited %d' % code
        elif spec in examples and not (schema_ok and compiler_ok):
            verdict = 'FAIL: must be valid'
        elif schema_ok == compiler_ok:
            verdict = 'agree'
        elif compiler_ok:
            verdict = 'FAIL: schema rejects what the compiler accepts'
        elif all(is_cross_field(m) for m in messages) and messages:
            verdict = 'agree (cross-field rule)'
        else:
            verdict = 'FAIL: schema accepts what the compiler rejects'
        rows.append((spec, 'valid' if schema_ok else 'invalid', 'accepts' if compiler_ok else 'rejects', verdict))
        if verdict.startswith('FAIL'):
            failures.append((spec, verdict, problems, messages))
    rows += [(spec, '-', '-', 'skipped: needs CLI arguments (args file)') for spec in skipped]

    spec_cases.print_table(('spec', 'schema', 'pai-compile', 'verdict'), rows)
    for spec, verdict, problems, messages in failures:
        print('\n%s: %s' % (spec, verdict))
        for p in problems:
            print('  schema:      %s' % p)
        for m in messages:
            print('  pai-compile: %s' % m)
    print('\n%d specs, %d disagreements, %d skipped' % (len(rows) - len(skipped), len(failures), len(skipped)))
    return 1 if failures or not examples else 0


if __name__ == '__main__':
    sys.exit(main())
