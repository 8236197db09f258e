// NIC verdicts (design §13): from the counters every node samples on the RDMA ports its ranks
// use (launcher/checks/nic_counters.h, once a heartbeat), name a port that is down or flaps,
// one whose error counters rise, one in a congestion storm (CNPs, ECN marks, pause frames far
// above the job's median of the same counter) and one that moves far fewer bytes than the
// job's median while the node's ranks sit in collectives. On their own, even when training
// looks healthy. Pure: samples carry their time; thresholds come from the spec
// (faultTolerance.diagnosis.nic) and their defaults name nothing on a healthy fabric.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libpai/enum_names.h"

namespace pai::launcher {

/// The thresholds (spec faultTolerance.diagnosis.nic).
struct NicVerdictSettings {
  bool enabled = true;
  /// An error counter rising faster than this (per second) is a finding.
  double error_rate = 10;
  /// A congestion counter this many times the job's median of the same counter is a storm...
  double congestion_factor = 10;
  /// ... when it also exceeds this rate (per second): a median of nearly nothing is no norm.
  double congestion_min_rate = 1000;
  /// A port moving less than this share of the job's median bytes while its node's ranks sit in
  /// collectives is slow.
  double slow_fraction = 0.2;
  /// Heartbeats in a row a rising error count, storm or slow port must be seen. A port that
  /// goes down or flaps is named at once.
  int windows = 2;
};

/// One port's window as a node reported it.
struct NicPortSample {
  std::string port;    ///< "mlx5_0/1"
  std::string netdev;  ///< "eth2"; "" none
  std::string state;   ///< "ACTIVE"... ; "" unreadable
  double seconds = 0;  ///< the window's length; 0: no rates (the first sample)
  /// Rates per second by counter key ("hw_counters/np_cnp_sent"), scaled to bytes for the
  /// byte counters; only counters libpai/nic_counter_kinds.h knows are looked at.
  std::map<std::string, double> rates;
};

/// What is wrong with a port.
enum class NicProblem { Down, Flapping, Errors, Congestion, Slow };

/// One finding, once per episode: a port named again only after it was seen clear.
struct NicVerdict {
  int node = 0;
  std::string port;
  std::string netdev;
  NicProblem problem = NicProblem::Errors;
  std::string
      counter;      ///< the counter that shows it ("hw_counters/local_ack_timeout_err"); "state"
  double rate = 0;  ///< its rate per second (bytes for Slow); 0 for Down
  bool critical = false;  ///< down, flapping or errors; congestion and slowness warn
  /// "mlx5_2/1 (eth4): hw_counters/local_ack_timeout_err +340/s for 2 heartbeats"
  std::string evidence;
  bool operator==(const NicVerdict&) const = default;
};

/// Watches every node's ports. Single-threaded.
class NicWatch {
 public:
  explicit NicWatch(NicVerdictSettings settings) : settings_(settings) {}

  /// Node `node`'s heartbeat: its ports' windows, and whether its ranks spent most of the
  /// window in collectives (the slow-port rule needs it). Returns the node's new verdicts for
  /// down, flapping and errors (judged on the node's own figures).
  std::vector<NicVerdict> observe(int node, const std::vector<NicPortSample>& ports,
                                  bool in_collectives);
  /// The verdicts that need the whole job (congestion against the job's median, slow ports):
  /// judged over the latest window of every node; new ones only. A port's window counts once
  /// toward a run however often this is called.
  std::vector<NicVerdict> judge_job();
  /// The node's ranks stopped or it left the job: its windows and episodes start afresh.
  void forget(int node);
  /// Whether a verdict it gave still holds: its port has not been seen clear of the problem
  /// since (one clear window ends the episode), nor forgotten.
  bool holds(const NicVerdict& verdict) const;

  const NicVerdictSettings& settings() const { return settings_; }

 private:
  struct PortState {
    std::string state;               // the last readable state
    std::map<NicProblem, int> runs;  // heartbeats in a row the problem was seen
    std::map<NicProblem, bool> named;
    NicPortSample latest;
    int samples = 0;  // windows observed
    int judged = 0;   // windows judge_job() looked at: each counts once toward a run
  };
  struct NodeState {
    std::map<std::string, PortState> ports;
    bool in_collectives = false;
  };

  /// Counts a sighting of `problem` on `p` (or its absence) and returns a verdict when it
  /// has been seen for `needed` heartbeats and not yet named in this episode.
  std::optional<NicVerdict> sighting(int node, PortState& p, NicProblem problem, bool seen,
                                     int needed, const std::string& counter, double rate,
                                     const std::string& what);

  NicVerdictSettings settings_;
  std::map<int, NodeState> nodes_;
};

}  // namespace pai::launcher

namespace pai {
/// "down", "flapping", "errors", "congestion", "slow" (to_string, enum_from_string).
template <>
struct EnumNames<launcher::NicProblem> {
  static constexpr std::array<EnumName<launcher::NicProblem>, 5> table{
      {{launcher::NicProblem::Down, "down"},
       {launcher::NicProblem::Flapping, "flapping"},
       {launcher::NicProblem::Errors, "errors"},
       {launcher::NicProblem::Congestion, "congestion"},
       {launcher::NicProblem::Slow, "slow"}}};
};
}  // namespace pai
