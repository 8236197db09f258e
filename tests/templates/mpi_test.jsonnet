// templates/mpi.libsonnet: ACP's mpirun flags, routed_radix only over 64 nodes, the
// launcher on the first host; the 65-node spec below must compile.
local fabric = import 'pai/fabric.libsonnet';
local hosts = import 'pai/hosts.libsonnet';
local mpi = import 'pai/mpi.libsonnet';

local small = mpi.job('allreduce-small', 'login', hosts.names('gpu-', 64), 64, 8, 'all_reduce_perf', ['-b', '8']);
local large = mpi.job('allreduce-large', 'login', hosts.range('gpu-', 65, '10.0.0.1', 8), 65, 8,
                      'all_reduce_perf', ['-b', '8', '-e', '${parameters.maxBytes}'], fabric.ib('ib0', ['mlx5_0']));

assert small.roles.launcher.command == 'mpirun --allow-run-as-root -bind-to none -map-by slot -mca pml ob1 -mca btl ^openib -np 512 -x PATH -x LD_LIBRARY_PATH all_reduce_perf -b 8' : small.roles.launcher.command;
assert large.roles.launcher.command == 'mpirun --allow-run-as-root -bind-to none -map-by slot -mca pml ob1 -mca btl ^openib -mca routed_radix 65 -mca btl_tcp_if_include ib0 -mca oob_tcp_if_include ib0 -np 520 -x PATH -x LD_LIBRARY_PATH -x NCCL_SOCKET_IFNAME -x NCCL_IB_HCA all_reduce_perf -b 8 -e ${parameters.maxBytes}' : large.roles.launcher.command;
assert large.hosts[0] == 'login' && std.length(large.hosts) == 66;
assert large.masterRole == 'launcher' && large.framework == 'mpi';
assert large.roles.worker == { instances: 65, nprocPerNode: 8, resources: { gpu: 8 }, command: 'sleep infinity' };

large + { parameters: { maxBytes: '8G' } }
