// The job-wide fabric check as the coordinator runs it (design §12, issue 15): after the
// rendezvous and before the first start, pairs of nodes measure the link between them in up
// to three rounds, then optionally all at once (launcher/policy/fabric_rounds.h decides the
// pairs, the verdict and the congestion); this
// sends each pair's `fabric-listen` and `fabric-connect`, takes their reports, bounds every
// round by a deadline, journals the figures and names what to exclude. Internal to
// launcher/coordinator/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/policy/fabric_rounds.h"

namespace pai::launcher::coordinator {

/// A node the verdict takes out of the job, and why.
struct FabricExclusion {
  int node = 0;  ///< index into CoordinatorState::nodes
  std::string why;
};

/// One fabric check over the nodes connected and ready when it starts: the instances' nodes
/// and the ready spares (so a bad spare is not brought in).
class FabricCheck {
 public:
  explicit FabricCheck(CoordinatorState& state);

  /// Sends round 1's requests. False when there are fewer than 2 nodes to pair (nothing to
  /// measure; the check is over).
  bool start(Clock::time_point now);

  /// A node's reports. Throws net::ProtocolError for a pair or round not asked of it; a report
  /// of a round already over, or of a pair already reported, is ignored.
  void listening(int node, const net::FabricListening& m, Clock::time_point now);
  void result(int node, const net::FabricResult& m, Clock::time_point now);
  /// The node's launcher was lost: its outstanding pairs fail now.
  void node_lost(int node, Clock::time_point now);
  /// The round's deadline: its outstanding pairs fail as timed out.
  void tick(Clock::time_point now);
  std::optional<Clock::time_point> next_deadline() const;

  bool done() const { return rounds_.done(); }
  /// Once done: the nodes to take out of the job. Bad nodes and suspects; of a bad link, the
  /// end that is a spare, else the later one in the plan (a job whose collectives may use any
  /// link cannot run over one that drops or crawls).
  std::vector<FabricExclusion> exclusions() const;
  /// Once done: the findings and the per-pair table, for a failure message.
  std::vector<std::string> report() const;

 private:
  /// Sends `requests`' fabric-listen and records the round; journals the verdict when over.
  void begin(const std::vector<FabricRequest>& requests, Clock::time_point now);
  /// Feeds a pair's figures to the rounds, journals them, and goes on.
  void take(const FabricRequest& request, FabricPairResult figures, Clock::time_point now);
  /// The outstanding request of the running round numbered (round, pair), or nullptr.
  const FabricRequest* outstanding(int round, int pair) const;
  int member_of(int node) const;
  std::string name(int member) const;
  std::vector<std::string> names() const;
  void finish();
  /// Journals and shows the all-nodes round's finding.
  void record_congestion(const FabricCongestion& c, const std::vector<std::string>& all);
  /// The GPUs the NCCL engine uses on member `member`: its instance's role's, a spare's the
  /// master role's; 0 when the plan turns the engine off.
  int nccl_gpus(int member) const;

  CoordinatorState& state_;
  std::vector<int> members_;  // fabric index -> node index
  FabricRounds rounds_;
  std::vector<FabricRequest> requests_;  // the running round's
  std::vector<std::string> keys_;        // by request
  std::vector<bool> connecting_;         // by request: fabric-connect was sent
  std::vector<std::optional<net::FabricNccl>> nccl_;  // by request: the connector's part
  Clock::time_point deadline_{};
  std::chrono::milliseconds round_limit_;
  std::uint64_t key_state_;
};

}  // namespace pai::launcher::coordinator
