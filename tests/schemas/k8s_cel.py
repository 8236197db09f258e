"""The CEL rules (x-kubernetes-validations) of the vendored CRDs
(tests/fixtures/k8s-crds), each as the Python predicate it states, for k8s_crd_check.py.
jsonschema knows no CEL, and the API server refuses an object that breaks one of these, so
each is evaluated on the value its schema node holds (`self`). A rule not in RULES is
reported, so that a new upstream rule cannot pass unchecked. Transition rules (they name
`oldSelf`) apply to updates only: pai's manifests are created, so they hold."""

import re


def _has(obj, key):
    return isinstance(obj, dict) and key in obj


def _matches(text, pattern):
    # CEL's matches() is RE2's search.
    return isinstance(text, str) and re.search(pattern, text) is not None


RULES = {
    # TrainJob: the name is a DNS-1035 label.
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')":
        lambda s: _matches(s['metadata']['name'], r'^[a-z]([-a-z0-9]*[a-z0-9])?$'),
    'size(self.metadata.name) <= 63': lambda s: len(s['metadata']['name']) <= 63,
    "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']":
        lambda s: s in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue'],
    'self >= 1': lambda s: s >= 1,
    "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')":
        lambda s: s == '' or _matches(s, r'^[A-Za-z][A-Za-z0-9+.-]*://.+$'),
    # A runtime's mlPolicy names at most one framework.
    '[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)]'
    '.filter(x, x).size() <= 1':
        lambda s: sum(_has(s, k) for k in ('torch', 'mpi', 'jax', 'xgboost', 'flux')) <= 1,
    "!self.exists(c, c == 'node')": lambda s: 'node' not in s,
    # JobSet: startupPolicy InOrder and dependsOn exclude each other.
    "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
    'self.replicatedJobs.exists(x, has(x.dependsOn)))':
        lambda s: not (_has(s, 'startupPolicy') and
                       s['startupPolicy'].get('startupPolicyOrder') == 'InOrder' and
                       any(_has(x, 'dependsOn') for x in s.get('replicatedJobs', []))),
    'self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)':
        lambda s: all(not _has(t.get('metadata'), 'namespace') or not t['metadata']['namespace']
                      for t in s.get('templates', [])),
    'has(self.lastUpdatedTime)': lambda s: _has(s, 'lastUpdatedTime'),
}


def violation(rule, value):
    """None when `value` satisfies `rule`, else why not."""
    if 'oldSelf' in rule:
        return None
    check = RULES.get(rule)
    if check is None:
        return 'CEL rule not known to tests/schemas/k8s_cel.py: %s' % rule
    try:
        ok = check(value)
    except (KeyError, TypeError, AttributeError) as e:
        return 'CEL rule %s cannot be evaluated on this value (%s)' % (rule, e)
    return None if ok else 'breaks the CEL rule %s' % rule
