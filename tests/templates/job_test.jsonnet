// templates/job.libsonnet: the spec skeleton, shell words, pruning of empty fields; the
// spec below must compile.
local job = import 'pai/job.libsonnet';

local spec = job.new('skeleton', 'custom', ['node-1'], { worker: { command: 'true' } });

assert spec == {
  apiVersion: 'pai/v1',
  kind: 'Job',
  name: 'skeleton',
  framework: 'custom',
  hosts: ['node-1'],
  roles: { worker: { command: 'true' } },
} : std.manifestJson(spec);
assert job.new('f', 'custom', [], {}, fabric={ type: 'ib' }).fabric == { type: 'ib' };
assert job.words(['echo', '$RANK', '${parameters.x}']) == 'echo $RANK ${parameters.x}';
assert job.prune({ a: 1, b: null, c: {}, d: [], e: '', f: 0 }) == { a: 1, e: '', f: 0 };

spec
