// templates/deepspeed.libsonnet: one deepspeed launcher per node without ssh; the spec
// below must compile.
local deepspeed = import 'pai/deepspeed.libsonnet';
local fabric = import 'pai/fabric.libsonnet';

local job = deepspeed.job('ds-sft', ['a100-01', 'a100-02'], 2, 8, 'sft.py', ['--lr', '${parameters.lr}'],
                          config='zero3.json', fabric=fabric.ethernet('eth0'));

assert job.roles.worker.command == 'deepspeed --no_ssh --num_nodes=$WORLD_SIZE --node_rank=$RANK --num_gpus=$NPROC_PER_NODE --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT sft.py --lr ${parameters.lr} --deepspeed --deepspeed_config zero3.json' : job.roles.worker.command;
assert job.roles.worker.nprocPerNode == 1 && job.framework == 'deepspeed';
assert job.fabric == { type: 'ethernet', interface: 'eth0' };

job + { parameters: { lr: '2e-5' } }
