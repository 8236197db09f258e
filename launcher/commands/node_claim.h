// A node of a running job's plan, claimed from its coordinator (`claim`, docs/protocol.md) by
// a launcher that cannot tell which node it is: `pai-launch torchrun` without --node-rank, as
// torchrun's c10d rendezvous gives node ranks in the order agents arrive.
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "launcher/net/client.h"

namespace pai::launcher {

/// No node could be claimed: the coordinator refused (every node taken), did not answer
/// before the deadline, or a stop signal came. what() says which.
class ClaimError : public std::runtime_error {
 public:
  explicit ClaimError(const std::string& what, int signal = 0)
      : std::runtime_error(what), signal_(signal) {}
  /// The stop signal that ended the attempt, or 0.
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// Where to ask and who asks.
struct ClaimTarget {
  std::string address;  ///< the coordinator's address (the rendezvous endpoint's host)
  int port = 0;
  std::string token;  ///< the job token's text
  std::string job;    ///< the plan's job name
  /// This launcher, unique per process: asking again with it gets the same node.
  std::string identity;
  /// How long to keep trying while nothing listens yet (the coordinator's node may start
  /// later than this one).
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
};

/// A claimed node, held while `connection` stays open: keep it until the launcher ends, so
/// that no other launcher is handed the node meanwhile, and one is as soon as this one is gone.
struct ClaimedNode {
  std::string node;  ///< the node's name in the plan
  std::unique_ptr<net::Client> connection;
};

/// The node of the plan this launcher is. Retries the connection every 200 ms until
/// `target.timeout`; a pending stop signal (signals.h) ends it at once. Throws ClaimError.
ClaimedNode claim_node(const ClaimTarget& target);

/// "HOST:PID:NONCE": an identity for claim_node(), different for every call.
std::string claim_identity();

}  // namespace pai::launcher
