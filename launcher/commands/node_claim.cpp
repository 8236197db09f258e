#include "launcher/commands/node_claim.h"

#include <sys/random.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <thread>

#include "launcher/commands/coordinator_address.h"
#include "launcher/net/protocol.h"
#include "launcher/os/signals.h"

namespace pai::launcher {

namespace {

using Clock = std::chrono::steady_clock;

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

}  // namespace

std::string claim_identity() {
  unsigned char bytes[8] = {};
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    // No randomness: the time still tells two launchers of one process id apart.
    const auto now = Clock::now().time_since_epoch().count();
    for (std::size_t i = 0; i < sizeof bytes; ++i) {
      bytes[i] = static_cast<unsigned char>(now >> (8 * i));
    }
  }
  char nonce[17];
  for (std::size_t i = 0; i < sizeof bytes; ++i) std::snprintf(nonce + 2 * i, 3, "%02x", bytes[i]);
  return host_name() + ":" + std::to_string(::getpid()) + ":" + nonce;
}

ClaimedNode claim_node(const ClaimTarget& target) {
  const auto deadline = Clock::now() + target.timeout;
  const JobTarget job{
      .job = target.job, .address = target.address, .port = target.port, .token = target.token};
  const std::string where = job.endpoint();
  std::string last_error;
  while (true) {
    try {
      std::unique_ptr<net::Client> client = connect_control(job);
      client->send(net::to_json(net::ControlRequest{net::ClaimRequest{target.identity}}));
      while (true) {
        const auto body = client->receive(std::chrono::seconds(30));
        if (!body) throw ClaimError(where + ": the coordinator did not answer the claim");
        const net::ControlReply reply = net::parse_control_reply(*body);
        if (const auto* ok = std::get_if<net::OkReply>(&reply)) {
          return ClaimedNode{ok->text, std::move(client)};
        }
        if (const auto* error = std::get_if<net::ErrorReply>(&reply)) {
          throw ClaimError(where + ": " + error->text);
        }
        // Heartbeats and the like: wait for the answer.
      }
    } catch (const net::ConnectionError& e) {
      last_error = e.what();
    } catch (const net::ProtocolError& e) {
      throw ClaimError(where + ": the coordinator answered something unexpected: " + e.what());
    }
    // Nothing listens yet, or the handshake broke: the coordinator's node may start later.
    if (Clock::now() >= deadline) {
      throw ClaimError(
          "no coordinator answered at " + where + " within " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(target.timeout).count()) +
          " s (last: " + last_error + "); start the node whose address the rendezvous endpoint is");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (const int signal = pending_stop_signal()) {
      throw ClaimError(where + ": interrupted by signal " + std::to_string(signal), signal);
    }
  }
}

}  // namespace pai::launcher
