local f(x) = f(x + 1) + 1;
{ apiVersion: 'pai/v1', kind: 'Job', name: 'demo', hosts: ['a'], roles: { w: { command: 'x', instances: f(0) } } }
