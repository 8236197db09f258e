// Host inventories for large jobs: numbered names with consecutive IPv4 addresses.
local ipToInt(address) =
  local octets = std.map(std.parseInt, std.split(address, '.'));
  assert std.length(octets) == 4 : 'expected an IPv4 address like 10.0.0.1, got "%s"' % address;
  assert std.length([o for o in octets if o < 0 || o > 255]) == 0 : 'IPv4 octet out of range in "%s"' % address;
  ((octets[0] * 256 + octets[1]) * 256 + octets[2]) * 256 + octets[3];

local intToIp(n) =
  assert n >= 0 && n < 4294967296 : 'IPv4 address range overflows 255.255.255.255';
  std.join('.', [std.toString((n >> (8 * (3 - i))) & 255) for i in [0, 1, 2, 3]]);

// n in decimal, zero-padded to `width` digits (std.format is slow for thousands of hosts).
local pad(n, width) =
  local digits = std.toString(n);
  std.join('', ['0' for _ in std.range(1, width - std.length(digits))]) + digits;

{
  // `count` hosts named prefix + zero-padded number (width digits), numbered from `start`,
  // with addresses counting up from `firstAddress` (carrying across octets) and `slots`
  // GPUs each (null: not stated). range('gpu-', 3, '10.0.0.1', 8) gives gpu-001 10.0.0.1,
  // gpu-002 10.0.0.2, gpu-003 10.0.0.3.
  range(prefix, count, firstAddress, slots=null, start=1, width=3)::
    local first = ipToInt(firstAddress);
    [
      { name: prefix + pad(start + i, width), address: intToIp(first + i) }
      + (if slots != null then { slots: slots } else {})
      for i in std.range(0, count - 1)
    ],

  // Just the names: prefix + zero-padded number, for hosts whose name resolves.
  names(prefix, count, start=1, width=3)::
    [prefix + pad(start + i, width) for i in std.range(0, count - 1)],
}
