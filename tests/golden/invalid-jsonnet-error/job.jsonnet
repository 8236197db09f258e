local cluster = { nodes: 4, gpusPerNode: 8 };
{
  apiVersion: 'pai/v1',
  kind: 'Job',
  name: 'demo',
  hosts: ['gpu-%03d' % i for i in std.range(1, cluster.nodes)],
  roles: { worker: { command: 'python train.py', instances: cluster.node } },
}
