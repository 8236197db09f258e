#!/usr/bin/python3
"""Validates every Kubernetes manifest pai-compile renders (k8s/job.yaml) against the full
upstream CRDs vendored under tests/fixtures/k8s-crds/ (TrainJob, TrainingRuntime,
ClusterTrainingRuntime, JobSet, PyTorchJob, MPIJob v2beta1; see SOURCE.md there) as the API
server applies them, their CEL rules included (k8s_cel.py); a Trainer runtime's JobSet
template also as the JobSet Trainer makes of it; and every pod template against core/v1
(k8s_core_v1.py). Manifests: every document of every golden
tests/golden/*/expected/k8s/job.yaml, and of every example compiled afresh with --target k8s.
Prints a table; exits 1 on any failure, or when a kind was never rendered.

With --self-test, checks instead that validation happens: the stock torch-distributed runtime
upstream ships must be accepted, every rendered kind unbroken must be accepted, and a set of
deliberately broken manifests (unknown fields, wrong types, bad enums, CEL rules broken,
required fields missing, a bad pod spec) must each be rejected.

Usage: k8s_crd_check.py --compiler build/compiler/pai-compile --root . [--self-test]
"""

import copy
import glob
import os
import sys
import tempfile

import jsonschema
import yaml

import k8s_cel
import k8s_core_v1
import spec_cases

CRD_DIR = os.path.join('tests', 'fixtures', 'k8s-crds')
STOCK_RUNTIME = 'runtime_torch_distributed.yaml'
KINDS = {'TrainJob', 'TrainingRuntime', 'ClusterTrainingRuntime', 'JobSet', 'PyTorchJob',
         'MPIJob'}
# What pai renders directly (a JobSet only inside a runtime).
RENDERED = KINDS - {'JobSet'}
RUNTIMES = {'TrainingRuntime', 'ClusterTrainingRuntime'}
JOBSET_API = 'jobset.x-k8s.io/v1alpha2'
INT32 = (-2**31, 2**31 - 1)
INT64 = (-2**63, 2**63 - 1)
CEL = 'x-kubernetes-validations'


# ------------------------------------------------------------------ CRD schemas (jsonschema)

def structural(schema):
    """The CRD schema as the API server applies it, as Draft 7: unknown fields are errors
    (Kubernetes would prune them silently), int32/int64 bounded, CEL rules kept."""
    if isinstance(schema, list):
        return [structural(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: structural(v) for k, v in schema.items()
           if k != 'description' and (k == CEL or not k.startswith('x-kubernetes-'))}
    if ('properties' in out and 'additionalProperties' not in out and
            not schema.get('x-kubernetes-preserve-unknown-fields')):
        out['additionalProperties'] = False
    bounds = {'int32': INT32, 'int64': INT64}.get(schema.get('format'))
    if bounds and schema.get('type') == 'integer':
        # The format's range, narrowed by the schema's own bounds.
        out['minimum'] = max(schema.get('minimum', bounds[0]), bounds[0])
        out['maximum'] = min(schema.get('maximum', bounds[1]), bounds[1])
    return out


def _cel(validator, rules, instance, schema):
    for rule in rules:
        problem = k8s_cel.violation(rule['rule'], instance)
        if problem:
            yield jsonschema.ValidationError(rule.get('message') and
                                             '%s (%s)' % (problem, rule['message']) or problem)


Validator = jsonschema.validators.extend(jsonschema.Draft7Validator, {CEL: _cel})


def load_crds(root):
    """{(apiVersion, kind): validator} of every CRD under CRD_DIR."""
    validators = {}
    for path in sorted(glob.glob(os.path.join(root, CRD_DIR, '*.yaml'))):
        with open(path) as f:
            for crd in yaml.safe_load_all(f):
                if not crd or crd.get('kind') != 'CustomResourceDefinition':
                    continue
                group, kind = crd['spec']['group'], crd['spec']['names']['kind']
                for version in crd['spec']['versions']:
                    schema = structural(version['schema']['openAPIV3Schema'])
                    Validator.check_schema(schema)
                    validators[('%s/%s' % (group, version['name']), kind)] = Validator(schema)
    return validators


def jobset_of(runtime):
    """The JobSet Trainer makes of a runtime's template (it names it after the TrainJob)."""
    template = (runtime.get('spec') or {}).get('template') or {}
    return {'apiVersion': JOBSET_API, 'kind': 'JobSet',
            'metadata': dict(template.get('metadata') or {}, name='trainjob'),
            'spec': template.get('spec')}


def problems(validators, manifest):
    """Every problem of one manifest, as "path: message"."""
    if not isinstance(manifest, dict):
        return ['(top): not a mapping']
    key = (manifest.get('apiVersion'), manifest.get('kind'))
    if key not in validators:
        return ['(top): no vendored CRD for apiVersion %s kind %s' % key]
    out = []
    for e in sorted(validators[key].iter_errors(manifest), key=lambda e: list(e.absolute_path)):
        where = '.'.join(str(p) for p in e.absolute_path) or '(top)'
        out.append('%s: %s' % (where, e.message))
    if manifest.get('kind') in RUNTIMES:
        out += ['(as a JobSet) %s' % p for p in problems(validators, jobset_of(manifest))]
    for path, pod in k8s_core_v1.pod_specs(manifest):
        out += list(k8s_core_v1.check_core(pod, 'V1PodSpec', path))
    return out


# ------------------------------------------------------------------ manifests

def documents(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def rendered_manifests(options):
    """(name, manifest) of every document of every golden k8s/job.yaml and of every example
    compiled for k8s; a compile failure is a (name, message) pair."""
    root = options.root
    manifests = []
    for path in sorted(glob.glob(os.path.join(root, 'tests/golden/*/expected/k8s/job.yaml'))):
        for doc in documents(path):
            manifests.append((os.path.relpath(path, root), doc))
    for spec in spec_cases.example_specs(root):
        with tempfile.TemporaryDirectory(prefix='pai-k8s-') as out:
            code, messages = spec_cases.run_compiler(options.compiler, root, spec, out_dir=out,
                                                     extra=['--target', 'k8s'])
            if code != 0:
                manifests.append((spec + ' (k8s)', 'pai-compile exited %d: %s' %
                                  (code, '; '.join(messages))))
                continue
            for doc in documents(os.path.join(out, 'k8s', 'job.yaml')):
                manifests.append((spec + ' (k8s)', doc))
    return manifests


def validate_all(options, validators):
    rows, failures = [], []
    for name, manifest in rendered_manifests(options):
        found = [manifest] if isinstance(manifest, str) else problems(validators, manifest)
        kind = manifest.get('kind', '?') if isinstance(manifest, dict) else '?'
        rows.append((name, kind, 'valid' if not found else 'INVALID'))
        if found:
            failures.append((name, kind, found))
    spec_cases.print_table(('manifest', 'kind', 'CRD schema'), rows)
    for name, kind, found in failures:
        print('\n%s (%s):' % (name, kind))
        for p in found[:20]:
            print('  %s' % p)
    kinds = {row[1] for row in rows}
    print('\n%d manifests, %d failures' % (len(rows), len(failures)))
    # Every kind must have been exercised, or the check proves less than it claims.
    if not RENDERED <= kinds:
        print('error: not every kind was rendered (missing %s)' % sorted(RENDERED - kinds))
        return 1
    return 1 if failures or not rows else 0


# ------------------------------------------------------------------ self-test

def _pod(m):
    return next(k8s_core_v1.pod_specs(m))[1]


def _replica(m):
    return next(iter((m['spec'].get('pytorchReplicaSpecs') or m['spec']['mpiReplicaSpecs']).values()))


def _jobset(m):
    return m['spec']['template']['spec']


# Each breaks one manifest of a kind in one way Kubernetes (or the controller) would refuse or
# lose. Pod breaks apply to every kind with pods.
POD_BREAKS = [
    ('no containers', lambda m: _pod(m).pop('containers')),
    ('unknown pod spec field', lambda m: _pod(m).update(hostNetworking=True)),
    ('container without a name', lambda m: _pod(m)['containers'][0].pop('name')),
    ('unknown container field', lambda m: _pod(m)['containers'][0].update(comand=['x'])),
    ('bad quantity',
     lambda m: _pod(m)['containers'][0].update(resources={'limits': {'cpu': 'lots'}})),
    ('env value not a string',
     lambda m: _pod(m)['containers'][0].update(env=[{'name': 'A', 'value': 1}])),
    ('bad dnsPolicy', lambda m: _pod(m).update(dnsPolicy='ClusterFirstWithHostNetwork')),
    ('nodeSelector value not a string', lambda m: _pod(m).update(nodeSelector={'gpus': 8})),
    ('bad toleration operator',
     lambda m: _pod(m).update(tolerations=[{'key': 'a', 'operator': 'Equals'}])),
    ('claim without claimName',
     lambda m: _pod(m)['volumes'].append({'name': 'v', 'persistentVolumeClaim': {}})),
]
V1_BREAKS = [
    ('unknown runPolicy field', lambda m: m['spec']['runPolicy'].update(backofLimit=0)),
    ('replicas as a string', lambda m: _replica(m).update(replicas='2')),
    ('ttl over int32', lambda m: m['spec']['runPolicy'].update(ttlSecondsAfterFinished=2**31)),
    ('unknown schedulingPolicy field',
     lambda m: m['spec']['runPolicy'].update(schedulingPolicy={'minMember': 2})),
    ('unknown template metadata field',
     lambda m: _replica(m)['template'].update(metadata={'labelz': {}})),
]
RUNTIME_BREAKS = [
    ('two frameworks in mlPolicy (CEL)',
     lambda m: m['spec']['mlPolicy'].update(torch={}, mpi={})),
    ('unknown replicated job field', lambda m: _jobset(m)['replicatedJobs'][0].update(replica=1)),
    ('replicas as a string',
     lambda m: _jobset(m)['replicatedJobs'][0].update(replicas='1')),
    ('failure policy action not an action',
     lambda m: _jobset(m)['failurePolicy']['rules'][0].update(action='FailJob')),
    ('failure policy rule without a name',
     lambda m: _jobset(m)['failurePolicy']['rules'][0].pop('name')),
    ('negative TTL', lambda m: _jobset(m).update(ttlSecondsAfterFinished=-1)),
    ('InOrder startup with dependsOn (CEL)', lambda m: (
        _jobset(m).update(startupPolicy={'startupPolicyOrder': 'InOrder'}),
        _jobset(m)['replicatedJobs'][0].update(dependsOn=[{'name': 'x', 'status': 'Ready'}]))),
    ('unknown Job spec field',
     lambda m: _jobset(m)['replicatedJobs'][0]['template']['spec'].update(backoffLimits=0)),
    ('parallelism over int32', lambda m: _jobset(m)['replicatedJobs'][0]['template']['spec']
     .update(parallelism=2**31)),
    # A runtime has no status (a TrainJob's or a PyTorchJob's is dropped on creation).
    ('status written', lambda m: m.update(status={'conditions': []})),
]
TRAINJOB_BREAKS = [
    ('unknown spec field', lambda m: m['spec'].update(runtimeref={})),
    ('runtimeRef without a name', lambda m: m['spec']['runtimeRef'].pop('name')),
    ('numNodes as a string', lambda m: m['spec']['trainer'].update(numNodes='4')),
    ('name not a DNS-1035 label (CEL)', lambda m: m['metadata'].update(name='Job_1')),
    ('name over 63 characters (CEL)', lambda m: m['metadata'].update(name='a' * 64)),
    ('managedBy not a known manager (CEL)', lambda m: m['spec'].update(managedBy='me/x')),
    ('activeDeadlineSeconds below 1', lambda m: m['spec'].update(activeDeadlineSeconds=0)),
]
BREAKS = {
    'PyTorchJob': V1_BREAKS + POD_BREAKS,
    'MPIJob': V1_BREAKS + POD_BREAKS,
    'TrainingRuntime': RUNTIME_BREAKS + POD_BREAKS,
    'ClusterTrainingRuntime': RUNTIME_BREAKS + POD_BREAKS,
    'TrainJob': TRAINJOB_BREAKS,
}


def self_test(options, validators):
    failures, passed = 0, 0
    stock = documents(os.path.join(options.root, CRD_DIR, STOCK_RUNTIME))[0]
    found = problems(validators, stock)
    print('%s upstream %s %s: %s' % ('ok  ' if not found else 'FAIL', stock['kind'],
                                       stock['metadata']['name'], found[:3] or 'accepted'))
    failures, passed = failures + bool(found), passed + (not found)
    manifests = [m for _, m in rendered_manifests(options) if isinstance(m, dict)]
    for kind, breaks in sorted(BREAKS.items()):
        # The first one rendered of the kind.
        base = next((m for m in manifests if m.get('kind') == kind), None)
        if base is None:
            print('FAIL %s: no rendered manifest of this kind' % kind)
            failures += 1
            continue
        found = problems(validators, base)
        print('%s %s unbroken: %s' % ('ok  ' if not found else 'FAIL', kind,
                                       found[:3] or 'accepted'))
        failures, passed = failures + bool(found), passed + (not found)
        for what, breaks_it in breaks:
            broken = copy.deepcopy(base)
            breaks_it(broken)
            found = problems(validators, broken)
            print('%s %s, %s: %s' % ('ok  ' if found else 'FAIL', kind, what,
                                     found[0] if found else 'accepted'))
            failures, passed = failures + (not found), passed + bool(found)
    print('\n%d passed, %d failed' % (passed, failures))
    return 1 if failures else 0


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--compiler', required=True, help='path to pai-compile')
    parser.add_argument('--root', required=True, help='the source tree')
    parser.add_argument('--self-test', action='store_true',
                        help='check that broken manifests are rejected')
    options = parser.parse_args()
    options.root = os.path.abspath(options.root)
    validators = load_crds(options.root)
    if {key[1] for key in validators} != KINDS:
        print('error: expected the CRDs of %s under %s' % (sorted(KINDS), CRD_DIR))
        return 1
    return self_test(options, validators) if options.self_test else validate_all(options, validators)


if __name__ == '__main__':
    sys.exit(main())
