// templates/pytorch.libsonnet: both modes, checked here and compiled by
// tests/schemas/job_schema_check.py (the spec this file evaluates to must compile).
local fabric = import 'pai/fabric.libsonnet';
local hosts = import 'pai/hosts.libsonnet';
local pytorch = import 'pai/pytorch.libsonnet';

local torchrun = pytorch.ddp('ddp-torchrun', hosts.names('gpu-', 2), 2, 8, 'train.py',
                             ['--lr', '${parameters.lr}'], fabric.roce('eth0', ['mlx5_0']));
local direct = pytorch.ddp('ddp-direct', ['gpu-001'], 1, 4, 'train.py', mode='direct',
                           python='python3', env={ NCCL_DEBUG: 'INFO' });

assert torchrun.roles.worker == {
  instances: 2,
  nprocPerNode: 1,
  resources: { gpu: 8 },
  command: 'torchrun --nnodes=$WORLD_SIZE --node_rank=$RANK --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT --nproc_per_node=$NPROC_PER_NODE train.py --lr ${parameters.lr}',
} : std.manifestJson(torchrun.roles.worker);
assert torchrun.fabric == { type: 'roce', interface: 'eth0', hcas: ['mlx5_0'], gidIndex: 3, trafficClass: 106 };
assert direct.roles.worker == {
  instances: 1,
  nprocPerNode: 'gpu',
  resources: { gpu: 4 },
  command: 'python3 train.py',
  env: { NCCL_DEBUG: 'INFO' },
} : std.manifestJson(direct.roles.worker);
assert !std.objectHas(direct, 'fabric');

torchrun + { parameters: { lr: 0.001 } }
