// templates/hosts.libsonnet: names, zero padding, addresses carrying across octets; the
// spec below (a 300-host inventory) must compile.
local hosts = import 'pai/hosts.libsonnet';

local many = hosts.range('gpu-', 300, '10.0.0.250', slots=8);

assert hosts.range('gpu-', 2, '10.0.0.1') == [{ name: 'gpu-001', address: '10.0.0.1' }, { name: 'gpu-002', address: '10.0.0.2' }];
assert hosts.names('n', 2, start=9, width=2) == ['n09', 'n10'];
assert many[5] == { name: 'gpu-006', address: '10.0.0.255', slots: 8 } : std.manifestJson(many[5]);
assert many[6].address == '10.0.1.0' && many[299].address == '10.0.2.37';

{
  apiVersion: 'pai/v1',
  kind: 'Job',
  name: 'hosts-range',
  hosts: many,
  roles: { worker: { instances: 300, command: 'hostname' } },
}
