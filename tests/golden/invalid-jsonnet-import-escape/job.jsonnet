// The file exists, but it is outside this spec's folder: the import must be refused.
local other = importstr '../invalid-unknown-key/job.yaml';
{ apiVersion: 'pai/v1', kind: 'Job', name: 'demo', description: other, hosts: ['a'], roles: { w: { command: 'x' } } }
