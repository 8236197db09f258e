// PyTorch DDP jobs: one role `worker`, one instance per node.
local job = import 'job.libsonnet';

{
  // A DDP job on `nodes` nodes with `gpusPerNode` GPUs each, running `script` with `args`
  // (shell words). mode:
  //   'torchrun' (PAI-DLC style): the launcher starts one process per node
  //     (nprocPerNode 1, perNode env) which runs torchrun with the node-level variables:
  //     --nnodes=$WORLD_SIZE --node_rank=$RANK --master_addr=$MASTER_ADDR
  //     --master_port=$MASTER_PORT --nproc_per_node=$NPROC_PER_NODE.
  //   'direct' (OpenPAI style): the launcher starts one process per GPU (nprocPerNode gpu)
  //     with torch's RANK/LOCAL_RANK/WORLD_SIZE; the script calls
  //     init_process_group("nccl") itself.
  // `python` is the interpreter used in direct mode; `env` is the role's extra env.
  ddp(name, hosts, nodes, gpusPerNode, script, args=[], fabric=null, mode='torchrun',
      python='python', env={})::
    assert mode == 'torchrun' || mode == 'direct' : 'pytorch.ddp: mode must be torchrun or direct, got "%s"' % mode;
    local launch =
      if mode == 'torchrun' then [
        'torchrun',
        '--nnodes=$WORLD_SIZE',
        '--node_rank=$RANK',
        '--master_addr=$MASTER_ADDR',
        '--master_port=$MASTER_PORT',
        '--nproc_per_node=$NPROC_PER_NODE',
      ] else [python];
    job.new(name, 'pytorch', hosts, {
      worker: job.prune({
        instances: nodes,
        nprocPerNode: if mode == 'torchrun' then 1 else 'gpu',
        resources: { gpu: gpusPerNode },
        command: job.words(launch + [script] + args),
        env: env,
      }),
    }, fabric),
}
