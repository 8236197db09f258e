// The TCP engine of the fabric check (design §12, issue 15): bandwidth in both directions over
// several streams at once, and round-trip latency, between two nodes' data-plane addresses.
// One node listens (FabricTcpListener), its partner connects (measure_fabric_tcp); both end
// with the same figures, each from its own side.
//
// On the wire (plain TCP, no dependency): every connection opens with a 48-byte greeting,
// "PAIFAB01", a kind byte ('C' control, 'D' data), the stream index, 2 zero bytes, 4 bytes
// reserved (zero) and the 32-byte pair key the coordinator gave both sides; the listener
// closes connections whose greeting is wrong and keeps waiting for its partner. On the control
// connection the connector sends pings ('P' + 8 bytes, echoed as they are), then 'G'; from
// then both sides send on every data stream for the duration (or up to the byte cap), shut
// their sending side, and read until the peer's end of file; then each sends on the control
// connection 'R' + the bytes it received, the microseconds it took and its latency figure
// (three big-endian 64-bit integers). Every wait is bounded by the settings' timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace pai::checks {

/// A measurement that could not be made: refused, unreachable, timed out, a peer that sent
/// something other than the protocol. what() is one line naming the address and the reason.
class FabricTcpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How one pair measures; both sides must use the same streams and key.
struct FabricTcpSettings {
  int streams = 4;  ///< data connections, 1..64
  /// How long each side sends on every stream.
  std::chrono::milliseconds duration{1000};
  /// Per stream and direction, stop sending after this many bytes; 0 = no cap.
  std::int64_t max_bytes = 0;
  int pings = 10;  ///< round trips for the latency figure, 1..1000
  /// Bound on the whole exchange, from the listener's start or the connector's first connect.
  std::chrono::milliseconds timeout{15000};
  /// The pair's key (up to 32 bytes, compared zero-padded): a connection without it is not
  /// the partner.
  std::string key;
};

/// What one side measured, and what its partner reported.
struct FabricTcpFigures {
  double out_gbps = 0;    ///< this side to the partner (as the partner received it)
  double in_gbps = 0;     ///< the partner to this side
  double latency_us = 0;  ///< median ping round trip (the connector's; the listener's copy)
  std::int64_t bytes_out = 0;
  std::int64_t bytes_in = 0;
  /// The slower direction: the pair's figure.
  double gbps() const { return out_gbps < in_gbps ? out_gbps : in_gbps; }
};

/// A listening socket for one measurement.
class FabricTcpListener {
 public:
  /// Listens on `address` (numeric IPv4 or IPv6; "" = every address) at the first free port
  /// of [port_min, port_max], trying from port_max down (the plan's reservations are taken
  /// from the bottom); port_min == port_max == 0 lets the kernel choose. Throws
  /// FabricTcpError when no port is free.
  FabricTcpListener(const std::string& address, int port_min, int port_max);
  ~FabricTcpListener();
  FabricTcpListener(const FabricTcpListener&) = delete;
  FabricTcpListener& operator=(const FabricTcpListener&) = delete;

  int port() const { return port_; }

  /// Waits for the partner's control and data connections and measures. Throws
  /// FabricTcpError on timeout or a partner breaking the protocol.
  FabricTcpFigures serve(const FabricTcpSettings& settings);

 private:
  int fd_ = -1;
  int port_ = 0;
};

/// Connects to the partner listening at `address`:`port` and measures; `source` (numeric,
/// may be empty) is the local address to send from (the fabric's interface). Throws
/// FabricTcpError.
FabricTcpFigures measure_fabric_tcp(const std::string& address, int port,
                                    const FabricTcpSettings& settings,
                                    const std::string& source = {});

}  // namespace pai::checks
