#!/usr/bin/python3
"""Validates every Kubernetes manifest pai-compile renders (k8s/job.yaml) against the Kubeflow
CRD schemas vendored under tests/fixtures/k8s-crds/ (PyTorchJob, MPIJob; see SOURCE.md there),
and the pod templates against the core/v1 model of the Kubernetes Python client
(python3-kubernetes). Manifests: every golden tests/golden/*/expected/k8s/job.yaml, and every
example compiled afresh with --target k8s. Prints a table; exits 1 on any failure.

With --self-test, checks instead that validation happens: a set of deliberately broken
manifests (unknown fields, wrong types, a missing container name, a bad quantity, a bad enum)
must each be rejected, and an unbroken one accepted.

Usage: k8s_crd_check.py --compiler build/compiler/pai-compile --root . [--self-test]
"""

import copy
import glob
import inspect
import os
import re
import sys
import tempfile

import jsonschema
import kubernetes.client.models as k8s_models
import yaml

import spec_cases

CRD_DIR = os.path.join('tests', 'fixtures', 'k8s-crds')
ELIDED = 'x-pai-elided'
POD_SPEC = 'io.k8s.api.core.v1.PodSpec'
# Kubernetes' resource.Quantity (the CRDs' own pattern for int-or-string quantities).
QUANTITY = re.compile(r'^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|'
                      r'([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$')
# Fields of core/v1 that are quantities (int or string), by model and attribute.
QUANTITY_FIELDS = {('V1ResourceRequirements', 'limits'), ('V1ResourceRequirements', 'requests'),
                   ('V1EmptyDirVolumeSource', 'size_limit'), ('V1PodSpec', 'overhead')}
# Enums of the core/v1 fields pai renders (Kubernetes API reference, core/v1).
ENUMS = {
    ('V1PodSpec', 'dns_policy'): {'ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'},
    ('V1PodSpec', 'restart_policy'): {'Always', 'OnFailure', 'Never'},
    ('V1Toleration', 'operator'): {'Exists', 'Equal'},
    ('V1Toleration', 'effect'): {'NoSchedule', 'PreferNoSchedule', 'NoExecute'},
    ('V1EmptyDirVolumeSource', 'medium'): {'', 'Memory', 'HugePages'},
    ('V1HostPathVolumeSource', 'type'): {'', 'DirectoryOrCreate', 'Directory', 'FileOrCreate',
                                         'File', 'Socket', 'CharDevice', 'BlockDevice'},
    ('V1ContainerPort', 'protocol'): {'TCP', 'UDP', 'SCTP'},
}
INT32 = (-2**31, 2**31 - 1)
INT64 = (-2**63, 2**63 - 1)


# ------------------------------------------------------------------ core/v1 (python3-kubernetes)

def _required(model):
    """Attributes whose setter refuses None (the client's required fields)."""
    required = set()
    for attr in model.openapi_types:
        setter = getattr(model, attr).fset
        if setter and 'must not be `None`' in inspect.getsource(setter):
            required.add(attr)
    return required


def check_core(value, type_name, path, owner=None):
    """Yields "path: problem" for `value` against the client's type `type_name`."""
    if type_name.startswith('list['):
        if not isinstance(value, list):
            yield '%s: expected a list' % path
            return
        for i, item in enumerate(value):
            yield from check_core(item, type_name[5:-1], '%s[%d]' % (path, i), owner)
        return
    if type_name.startswith('dict('):
        if not isinstance(value, dict):
            yield '%s: expected a mapping' % path
            return
        inner = type_name[type_name.index(',') + 1:-1].strip()
        for key, item in value.items():
            if not isinstance(key, str):
                yield '%s: key %r is not a string' % (path, key)
            yield from check_core(item, inner, '%s.%s' % (path, key), owner)
        return
    if owner in QUANTITY_FIELDS:
        if isinstance(value, bool) or not (isinstance(value, int) or
                                           (isinstance(value, str) and QUANTITY.match(value))):
            yield '%s: expected a quantity, got %r' % (path, value)
        return
    if type_name == 'str':
        if not isinstance(value, str):
            yield '%s: expected a string, got %r' % (path, value)
        elif owner in ENUMS and value not in ENUMS[owner]:
            yield '%s: %r is not one of %s' % (path, value, sorted(ENUMS[owner]))
        return
    if type_name == 'int':
        if isinstance(value, bool) or not isinstance(value, int):
            yield '%s: expected an integer, got %r' % (path, value)
        return
    if type_name == 'bool':
        if not isinstance(value, bool):
            yield '%s: expected true or false, got %r' % (path, value)
        return
    if type_name in ('object', 'datetime', 'float'):
        return  # IntOrString, RawExtension, timestamps: any scalar shape the API accepts
    model = getattr(k8s_models, type_name)
    if not isinstance(value, dict):
        yield '%s: expected a %s mapping' % (path, type_name)
        return
    by_json = {json_name: attr for attr, json_name in model.attribute_map.items()}
    for key, item in value.items():
        if key not in by_json:
            yield '%s: unknown field %r of %s' % (path, key, type_name)
            continue
        attr = by_json[key]
        yield from check_core(item, model.openapi_types[attr], '%s.%s' % (path, key),
                              (type_name, attr))
    for attr in sorted(_required(model)):
        if model.attribute_map[attr] not in value:
            yield '%s: missing required field %r of %s' % (path, model.attribute_map[attr],
                                                            type_name)


# ------------------------------------------------------------------ CRD schemas (jsonschema)

def structural(schema):
    """The CRD schema as the API server applies it, as Draft 7: unknown fields are errors
    (Kubernetes would prune them silently), int32/int64 bounded."""
    if isinstance(schema, list):
        return [structural(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: structural(v) for k, v in schema.items()
           if k != 'description' and not (k.startswith('x-kubernetes-'))}
    if ('properties' in out and 'additionalProperties' not in out and
            not schema.get('x-kubernetes-preserve-unknown-fields')):
        out['additionalProperties'] = False
    bounds = {'int32': INT32, 'int64': INT64}.get(schema.get('format'))
    if bounds and schema.get('type') == 'integer':
        out['minimum'], out['maximum'] = bounds
    return out


def _elided(validator, what, instance, schema):
    if what == POD_SPEC:
        for problem in check_core(instance, 'V1PodSpec', '(pod spec)'):
            yield jsonschema.ValidationError(problem)
    else:
        yield jsonschema.ValidationError(
            'pai never renders this (%s); its schema is left out of the fixture' % what)


Validator = jsonschema.validators.extend(jsonschema.Draft7Validator, {ELIDED: _elided})


def load_crds(root):
    """{(apiVersion, kind): validator} of every CRD file under CRD_DIR."""
    validators = {}
    for path in sorted(glob.glob(os.path.join(root, CRD_DIR, '*.yaml'))):
        with open(path) as f:
            crd = yaml.safe_load(f)
        group, kind = crd['spec']['group'], crd['spec']['names']['kind']
        for version in crd['spec']['versions']:
            schema = structural(version['schema']['openAPIV3Schema'])
            Validator.check_schema(schema)
            validators[('%s/%s' % (group, version['name']), kind)] = Validator(schema)
    return validators


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
    return out


# ------------------------------------------------------------------ manifests

def rendered_manifests(options):
    """(name, manifest) of every golden k8s/job.yaml and every example compiled for k8s."""
    root = options.root
    manifests = []
    for path in sorted(glob.glob(os.path.join(root, 'tests/golden/*/expected/k8s/job.yaml'))):
        with open(path) as f:
            manifests.append((os.path.relpath(path, root), yaml.safe_load(f)))
    for spec in spec_cases.example_specs(root):
        with tempfile.TemporaryDirectory(prefix='pai-k8s-') as out:
            code, messages = spec_cases.run_compiler(options.compiler, root, spec, out_dir=out,
                                                     extra=['--target', 'k8s'])
            if code != 0:
                manifests.append((spec + ' (k8s)', 'pai-compile exited %d: %s' %
                                  (code, '; '.join(messages))))
                continue
            with open(os.path.join(out, 'k8s', 'job.yaml')) as f:
                manifests.append((spec + ' (k8s)', yaml.safe_load(f)))
    return manifests


def validate_all(options, validators):
    rows, failures = [], []
    manifests = rendered_manifests(options)
    for name, manifest in manifests:
        found = [manifest] if isinstance(manifest, str) else problems(validators, manifest)
        kind = manifest.get('kind', '?') if isinstance(manifest, dict) else '?'
        rows.append((name, kind, 'valid' if not found else 'INVALID'))
        if found:
            failures.append((name, found))
    spec_cases.print_table(('manifest', 'kind', 'CRD schema'), rows)
    for name, found in failures:
        print('\n%s:' % name)
        for p in found[:20]:
            print('  %s' % p)
    kinds = {row[1] for row in rows}
    print('\n%d manifests, %d failures' % (len(rows), len(failures)))
    # Both CRDs must have been exercised, or the check proves less than it claims.
    if not {'PyTorchJob', 'MPIJob'} <= kinds:
        print('error: not every kind was rendered (got %s)' % sorted(kinds))
        return 1
    return 1 if failures or not rows else 0


# Each breaks one manifest in one way Kubernetes (or the operator) would refuse or lose.
def _pod(m):
    specs = m['spec'].get('pytorchReplicaSpecs') or m['spec'].get('mpiReplicaSpecs')
    return next(iter(specs.values()))['template']['spec']


BREAKS = [
    ('unknown runPolicy field', lambda m: m['spec']['runPolicy'].update(backofLimit=0)),
    ('replicas as a string',
     lambda m: next(iter((m['spec'].get('pytorchReplicaSpecs') or
                          m['spec']['mpiReplicaSpecs']).values())).update(replicas='2')),
    ('ttl over int32', lambda m: m['spec']['runPolicy'].update(ttlSecondsAfterFinished=2**31)),
    ('unknown schedulingPolicy field',
     lambda m: m['spec']['runPolicy'].update(schedulingPolicy={'minMember': 2})),
    ('status written', lambda m: m.update(status={'conditions': []})),
    ('unknown template metadata field',
     lambda m: next(iter((m['spec'].get('pytorchReplicaSpecs') or
                          m['spec']['mpiReplicaSpecs']).values()))['template'].update(
                              metadata={'labelz': {}})),
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


def self_test(options, validators):
    manifests = [(n, m) for n, m in rendered_manifests(options) if isinstance(m, dict)]
    failures = 0
    for kind in ('PyTorchJob', 'MPIJob'):
        base = next((m for _, m in manifests if m.get('kind') == kind), None)
        if base is None:
            print('FAIL %s: no rendered manifest of this kind' % kind)
            failures += 1
            continue
        if problems(validators, base):
            print('FAIL %s: the unbroken manifest is rejected: %s' %
                  (kind, problems(validators, base)[:3]))
            failures += 1
        for what, breaks in BREAKS:
            broken = copy.deepcopy(base)
            breaks(broken)
            found = problems(validators, broken)
            print('%s %s, %s: %s' % ('ok  ' if found else 'FAIL', kind, what,
                                     found[0] if found else 'accepted'))
            failures += 0 if found else 1
    print('\n%d passed, %d failed' % (2 * (len(BREAKS) + 1) - failures, failures))
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
    if {key[1] for key in validators} != {'PyTorchJob', 'MPIJob'}:
        print('error: expected the PyTorchJob and MPIJob CRDs under %s' % CRD_DIR)
        return 1
    return self_test(options, validators) if options.self_test else validate_all(options, validators)


if __name__ == '__main__':
    sys.exit(main())
