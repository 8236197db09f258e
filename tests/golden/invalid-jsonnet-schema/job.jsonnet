local workers = 4;
{
  apiVersion: 'pai/v1',
  kind: 'Job',
  name: 'demo',
  hosts: ['gpu-%03d' % i for i in std.range(1, 2)],
  roles: { worker: { command: 'python train.py', instances: workers, nprocPerNod: 8 } },
}
