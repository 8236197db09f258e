"""core/v1 checks of pod specs against the model classes of the Kubernetes Python client
(Debian's python3-kubernetes, generated from the Kubernetes OpenAPI): every field name known,
every type right, required fields present, quantities well-formed, and the enums of the
fields pai renders valid. Used by k8s_crd_check.py on every pod template it finds."""

import inspect
import re

import kubernetes.client.models as k8s_models

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


def pod_specs(manifest):
    """(path, pod spec) of every pod template in a manifest pai renders or a runtime."""
    spec = manifest.get('spec') if isinstance(manifest, dict) else None
    if not isinstance(spec, dict):
        return
    for replicas in ('pytorchReplicaSpecs', 'mpiReplicaSpecs'):
        for name, replica in (spec.get(replicas) or {}).items():
            pod = ((replica or {}).get('template') or {}).get('spec')
            if pod is not None:
                yield 'spec.%s.%s.template.spec' % (replicas, name), pod
    jobset = ((spec.get('template') or {}).get('spec') or {}) if 'template' in spec else {}
    for i, rjob in enumerate(jobset.get('replicatedJobs') or []):
        pod = ((((rjob or {}).get('template') or {}).get('spec') or {}).get('template') or {}).get(
            'spec')
        if pod is not None:
            yield 'spec.template.spec.replicatedJobs[%d].template.spec.template.spec' % i, pod
