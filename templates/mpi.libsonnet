// MPI jobs (SenseCore ACP style): a `launcher` role runs mpirun once; `worker` instances
// hold the GPU nodes that mpirun's daemons start on. pai-compile's hostfile lists the
// workers (slots = nprocPerNode) and pai-launch points mpirun at it and at its own
// remote-exec agent (OMPI_MCA_orte_default_hostfile, OMPI_MCA_plm_rsh_agent): no ssh needed.
local fabrics = import 'fabric.libsonnet';
local job = import 'job.libsonnet';

// Over this many nodes Open MPI's default routing tree is too deep; ACP sets routed_radix.
local radixThreshold = 64;

local mpirunFlags(nodes) =
  ['--allow-run-as-root', '-bind-to', 'none', '-map-by', 'slot', '-mca', 'pml', 'ob1', '-mca', 'btl', '^openib']
  + (if nodes > radixThreshold then ['-mca', 'routed_radix', std.toString(nodes)] else []);

{
  // Flags ACP requires on every mpirun, plus routed_radix for jobs over 64 nodes.
  mpirunFlags(nodes):: mpirunFlags(nodes),

  // An MPI job: `launcherHost` runs mpirun; `hosts` are the `nodes` worker hosts with
  // `gpusPerNode` GPUs each; `program` and `args` (shell words) run as nodes*gpusPerNode
  // ranks. The fabric's NCCL variables are forwarded to the ranks with -x, and its
  // interface is used for Open MPI's own TCP traffic. `workerCommand` is what worker
  // processes run while they hold their node.
  job(name, launcherHost, hosts, nodes, gpusPerNode, program, args=[], fabric=null,
      env={}, workerCommand='sleep infinity')::
    local forward = ['PATH', 'LD_LIBRARY_PATH'] + fabrics.ncclVariables(fabric);
    local tcp =
      if fabric != null && std.objectHas(fabric, 'interface') then
        ['-mca', 'btl_tcp_if_include', fabric.interface, '-mca', 'oob_tcp_if_include', fabric.interface]
      else [];
    job.new(name, 'mpi', [launcherHost] + hosts, {
      launcher: job.prune({
        instances: 1,
        nprocPerNode: 1,
        command: job.words(
          ['mpirun'] + mpirunFlags(nodes) + tcp
          + ['-np', std.toString(nodes * gpusPerNode)]
          + std.flattenArrays([['-x', v] for v in forward])
          + [program] + args
        ),
        env: env,
      }),
      worker: {
        instances: nodes,
        nprocPerNode: gpusPerNode,
        resources: { gpu: gpusPerNode },
        command: workerCommand,
      },
    }, fabric) + { masterRole: 'launcher' },
}
