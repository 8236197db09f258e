// templates/tensorflow.libsonnet: ps and worker roles with a grpc port each, async fault
// tolerance; the spec below must compile.
local hosts = import 'pai/hosts.libsonnet';
local tensorflow = import 'pai/tensorflow.libsonnet';

local job = tensorflow.psWorker('tf-ps', hosts.names('node-', 3), 1, 2, 1, 'train.py', ['--steps', '${parameters.steps}']);

assert job.faultTolerance == { mode: 'async' };
assert job.masterRole == 'ps';
assert job.roles.ps.ports == { grpc: 1 } && job.roles.ps.resources == { gpu: 0 };
assert job.roles.worker.instances == 2 && job.roles.worker.resources == { gpu: 1 };
assert job.roles.worker.command == 'export TF_CONFIG="$(' + tensorflow.tfConfigCommand + ')" && exec python3 train.py --steps ${parameters.steps}';

job + { parameters: { steps: 1000 } }
