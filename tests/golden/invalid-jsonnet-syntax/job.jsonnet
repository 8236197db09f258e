{
  apiVersion: 'pai/v1',
  kind: 'Job'
  name: 'demo',
}
