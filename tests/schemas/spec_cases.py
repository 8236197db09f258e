"""Shared by the schema checks: finding spec cases, loading them as pai-compile would,
running pai-compile, and printing result tables.

YAML is loaded with the YAML 1.2 core schema as pai-compile reads it (`yes`, `0x10` and
`.inf` are strings, `3e-4` is a number, no timestamps), and duplicate keys and alias bombs
are refused, so "the schema accepts it" is about the same document pai-compile sees.
"""

import json
import math
import os
import re
import subprocess
import tempfile

import yaml

# pai-compile's YAML limits (compiler/document/yaml_loader.h); this loader refuses the same.
MAX_EXPANDED_NODES = 1000000
MAX_DEPTH = 64
TIMEOUT_SECONDS = 60


class LoadFailure(Exception):
    """The file cannot be loaded at all (syntax, encoding, duplicate key, alias bomb)."""


class _CoreSchemaLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema resolution and duplicate-key detection."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
            if key in seen:
                raise LoadFailure('duplicate key "%s" at line %d' % (key, key_node.start_mark.line + 1))
            seen.add(key)
        mapping = super().construct_mapping(node, deep=deep)
        return {_key_text(k): v for k, v in mapping.items()}


def _key_text(key):
    # pai-compile reads every mapping key as its text.
    if isinstance(key, bool):
        return 'true' if key else 'false'
    return key if isinstance(key, str) else str(key)


_CoreSchemaLoader.yaml_implicit_resolvers = {}
_CORE_RESOLVERS = [
    ('tag:yaml.org,2002:null', r'^(?:~|null|Null|NULL|)$', list('~nN') + ['']),
    ('tag:yaml.org,2002:bool', r'^(?:true|True|TRUE|false|False|FALSE)$', list('tTfF')),
    # Numbers exactly as pai-compile reads them: decimal only (0x10, .inf are text).
    ('tag:yaml.org,2002:int', r'^[-+]?[0-9]+$', list('-+0123456789')),
    ('tag:yaml.org,2002:float', r'^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$',
     list('-+.0123456789')),
]
for _tag, _pattern, _first in _CORE_RESOLVERS:
    _CoreSchemaLoader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _construct_int(loader, node):
    return int(loader.construct_scalar(node), 10)


def _construct_float(loader, node):
    # pai-compile refuses non-finite numbers (1e400) wherever a number is expected and
    # keeps their text where a string is; JSON has no such numbers, so keep the text.
    text = loader.construct_scalar(node)
    value = float(text)
    return value if math.isfinite(value) else text


def _construct_bool(loader, node):
    return loader.construct_scalar(node).lower() == 'true'


_CoreSchemaLoader.add_constructor('tag:yaml.org,2002:int', _construct_int)
_CoreSchemaLoader.add_constructor('tag:yaml.org,2002:float', _construct_float)
_CoreSchemaLoader.add_constructor('tag:yaml.org,2002:bool', _construct_bool)


def _expanded_shape(node, memo):
    """(nodes after alias expansion, nesting depth) of a composed YAML node."""
    key = id(node)
    if key not in memo:
        memo[key] = (0, 0)  # a cycle counts once; the constructor rejects it anyway
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [child for pair in node.value for child in pair]
        else:
            children = []
        shapes = [_expanded_shape(child, memo) for child in children]
        memo[key] = (1 + sum(size for size, _ in shapes),
                     (1 if children or not isinstance(node, yaml.ScalarNode) else 0)
                     + max((depth for _, depth in shapes), default=0))
    return memo[key]


def load_yaml(path):
    """The document at `path` as Python data, or LoadFailure."""
    try:
        with open(path, 'rb') as f:
            text = f.read().decode('utf-8-sig')
        loader = _CoreSchemaLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                raise LoadFailure('empty document')
            size, depth = _expanded_shape(node, {})
            if size > MAX_EXPANDED_NODES:
                raise LoadFailure('alias expansion exceeds %d nodes' % MAX_EXPANDED_NODES)
            if depth > MAX_DEPTH:
                raise LoadFailure('nesting deeper than %d levels' % MAX_DEPTH)
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except LoadFailure:
        raise
    except (UnicodeDecodeError, yaml.YAMLError, RecursionError, ValueError) as e:
        raise LoadFailure(str(e).splitlines()[0] if str(e) else type(e).__name__)


def load_jsonnet(path, root):
    """The JSON value `path` evaluates to with the `jsonnet` CLI, templates/ importable as
    pai/..., or LoadFailure."""
    with tempfile.TemporaryDirectory(prefix='pai-jpath-') as jpath:
        os.symlink(os.path.join(root, 'templates'), os.path.join(jpath, 'pai'))
        result = subprocess.run(['jsonnet', '-J', jpath, path], capture_output=True, text=True,
                                timeout=TIMEOUT_SECONDS)
    if result.returncode != 0:
        raise LoadFailure(result.stderr.strip().splitlines()[0] if result.stderr.strip() else 'jsonnet failed')
    return json.loads(result.stdout)


def load_spec(path, root):
    """A spec file (.yaml/.yml/.json or .jsonnet) as Python data, or LoadFailure."""
    if path.endswith('.jsonnet'):
        return load_jsonnet(path, root)
    return load_yaml(path)


def parse_options(description):
    """The --compiler and --root options both checks take; root made absolute."""
    import argparse
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--compiler', required=True, help='path to pai-compile')
    parser.add_argument('--root', required=True, help='the source tree')
    options = parser.parse_args()
    options.root = os.path.abspath(options.root)
    return options


def schema_validator(root, name):
    """A Draft 7 validator (format checking on) for schemas/<name>, itself checked first."""
    import jsonschema
    with open(os.path.join(root, 'schemas', name)) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.draft7_format_checker)


def example_specs(root):
    """examples/*.yaml and examples/*.jsonnet, sorted, relative to `root`."""
    folder = os.path.join(root, 'examples')
    return sorted(os.path.join('examples', name) for name in os.listdir(folder)
                  if name.endswith(('.yaml', '.jsonnet')))


def template_specs(root):
    """tests/templates/*_test.jsonnet (specs built with each template, plus assertions),
    sorted, relative to `root`."""
    folder = os.path.join(root, 'tests', 'templates')
    return sorted(os.path.join('tests', 'templates', name) for name in os.listdir(folder)
                  if name.endswith('_test.jsonnet'))


def golden_specs(root):
    """tests/golden/<case>/job.yaml of cases that run without extra CLI arguments, and the
    names of the cases skipped because they have an `args` file."""
    folder = os.path.join(root, 'tests', 'golden')
    specs, skipped = [], []
    if not os.path.isdir(folder):
        return specs, skipped
    for case in sorted(os.listdir(folder)):
        spec = os.path.join('tests', 'golden', case, 'job.yaml')
        if not os.path.isfile(os.path.join(root, spec)):
            continue
        if os.path.exists(os.path.join(folder, case, 'args')):
            skipped.append(spec)
        else:
            specs.append(spec)
    return specs, skipped


def run_compiler(compiler, root, spec, out_dir=None, extra=()):
    """Runs pai-compile on `spec` (--check unless `out_dir`) with the `extra` arguments,
    templates from the source tree. Returns (exit code, [diagnostic messages])."""
    args = [os.path.abspath(compiler), spec, '--format', 'json']
    args += ['-o', out_dir] if out_dir else ['--check']
    args += list(extra)
    env = dict(os.environ, PAI_TEMPLATE_DIR=os.path.join(root, 'templates'))
    result = subprocess.run(args, capture_output=True, text=True, cwd=root, env=env,
                            timeout=TIMEOUT_SECONDS, errors='replace')
    try:
        # --format json: the diagnostics on stdout (`[]` when clean); usage errors on stderr.
        diagnostics = json.loads(result.stdout) if result.stdout.strip() else []
        messages = ['%s: %s' % (d.get('path', ''), d.get('message', '')) if d.get('path') else d.get('message', '')
                    for d in diagnostics if d.get('severity', 'error') == 'error']
    except (json.JSONDecodeError, AttributeError):
        messages = [line for line in result.stderr.splitlines() if line.strip()]
    return result.returncode, messages


def print_table(headers, rows):
    """Prints rows as an aligned text table."""
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *rows)]
    print('  '.join('%-*s' % (w, h) for w, h in zip(widths, headers)).rstrip())
    print('  '.join('-' * w for w in widths))
    for row in rows:
        print('  '.join('%-*s' % (w, c) for w, c in zip(widths, row)).rstrip())
