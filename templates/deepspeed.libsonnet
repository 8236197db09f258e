// DeepSpeed jobs: the `deepspeed` launcher runs once per node without ssh (--no_ssh),
// started by pai-launch with the node-level env (PAI-DLC style).
local job = import 'job.libsonnet';

{
  // A DeepSpeed job on `nodes` nodes with `gpusPerNode` GPUs each, running `script` with
  // `args` (shell words) and the DeepSpeed config file `config`. `env` is the role's
  // extra env.
  job(name, hosts, nodes, gpusPerNode, script, args=[], config='ds_config.json',
      fabric=null, env={})::
    job.new(name, 'deepspeed', hosts, {
      worker: job.prune({
        instances: nodes,
        nprocPerNode: 1,
        resources: { gpu: gpusPerNode },
        command: job.words([
          'deepspeed',
          '--no_ssh',
          '--num_nodes=$WORLD_SIZE',
          '--node_rank=$RANK',
          '--num_gpus=$NPROC_PER_NODE',
          '--master_addr=$MASTER_ADDR',
          '--master_port=$MASTER_PORT',
          script,
        ] + args + ['--deepspeed', '--deepspeed_config', config]),
        env: env,
      }),
    }, fabric),
}
