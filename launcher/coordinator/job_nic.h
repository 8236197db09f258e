// NIC verdicts during the run (design §13): the RDMA ports every node reports with its
// heartbeats go into the policy's NicWatch (launcher/policy/nic_verdict.h) with whether the
// node's ranks sat in collectives; the job-wide rules (congestion against the others' median,
// slow ports) are judged at most once a second. The hub records and shows each verdict, counts
// it in the metrics and tells its node, whose history counts a critical one as a failed check.
// The latest finding per node is the NIC evidence of the diagnosis' link verdicts. Internal to
// launcher/coordinator/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/net/protocol.h"
#include "launcher/policy/nic_verdict.h"

namespace pai::launcher::coordinator {

class JobNic {
 public:
  /// Judges with the settings of state.plan's faultTolerance.diagnosis.nic.
  explicit JobNic(const CoordinatorState& state);

  /// Node `node`'s ports from its heartbeat; `in_collectives` when its ranks' median share of
  /// the window in collectives was at least half. The node's new verdicts (down, flapping,
  /// errors: judged on its own figures).
  std::vector<NicVerdict> observe(int node, const std::vector<net::NicPort>& ports,
                                  bool in_collectives, Clock::time_point now);
  /// The job-wide verdicts, at most once a second (none before next_due()).
  std::vector<NicVerdict> decide(Clock::time_point now);
  std::optional<Clock::time_point> next_due() const;
  /// The node left the run (stopped, lost, restarted): its windows start afresh.
  void forget(int node);
  /// Whether a verdict still holds (NicWatch::holds).
  bool holds(const NicVerdict& verdict) const { return watch_.holds(verdict); }

  /// "node-3 mlx5_2/1 (eth4): hw_counters/local_ack_timeout_err +340/s": the latest finding
  /// on `node` this attempt, for the diagnosis' evidence; "" when none.
  std::string evidence(int node) const;
  /// The record of a verdict: node, port, netdev, problem, counter, rate, evidence, severity.
  journal::Nic record(const NicVerdict& verdict) const;
  /// Its terminal line: "nic (critical): node-3 mlx5_2/1 (eth4): ...".
  std::string line(const NicVerdict& verdict) const;

 private:
  const CoordinatorState& state_;
  NicWatch watch_;
  bool observed_ = false;
  std::optional<Clock::time_point> last_decided_;
  std::map<int, std::string> latest_;  // node -> its latest finding's evidence
};

/// The policy's sample of a wire port: deltas over the window as rates per second, the byte
/// counters in bytes (port_xmit_data counts 4-byte words).
NicPortSample nic_sample(const net::NicPort& port);

}  // namespace pai::launcher::coordinator
