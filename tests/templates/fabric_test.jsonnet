// templates/fabric.libsonnet: the three presets and the NCCL variables each sets; the spec
// below must compile.
local fabric = import 'pai/fabric.libsonnet';

assert fabric.roce('bond0', ['mlx5_0'], gidIndex=5, trafficClass=138) == { type: 'roce', interface: 'bond0', hcas: ['mlx5_0'], gidIndex: 5, trafficClass: 138 };
assert fabric.ib('ib0', ['mlx5_0', 'mlx5_1']) == { type: 'ib', interface: 'ib0', hcas: ['mlx5_0', 'mlx5_1'] };
assert fabric.ethernet('eth0') == { type: 'ethernet', interface: 'eth0' };
assert fabric.ncclVariables(null) == [];
assert fabric.ncclVariables(fabric.ethernet('eth0')) == ['NCCL_SOCKET_IFNAME', 'NCCL_IB_DISABLE'];

{
  apiVersion: 'pai/v1',
  kind: 'Job',
  name: 'fabric-ib',
  hosts: ['node-1'],
  fabric: fabric.ib('ib0', ['mlx5_0']),
  roles: { worker: { command: ['python3', 'train.py'] } },
}
