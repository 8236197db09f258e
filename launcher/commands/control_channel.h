// One control client's conversation with a job's coordinator (docs/protocol.md, "Control
// client -> coordinator"): requests out, answers in, heartbeats skipped, an `error` answer
// thrown as Refused. Shared by the job-control commands and `pai-launch drill`.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "launcher/commands/coordinator_address.h"
#include "launcher/net/client.h"
#include "launcher/net/message.h"
#include "launcher/net/protocol.h"

namespace pai::launcher {

/// The job said no (an `error` answer).
struct Refused {
  std::string text;
};

class ControlChannel {
 public:
  /// Talks over `client` to the coordinator at `endpoint` ("ADDRESS:PORT", for messages).
  ControlChannel(net::Client& client, std::string endpoint)
      : client_(client), endpoint_(std::move(endpoint)) {}

  void send(const net::ControlRequest& message) { client_.send(net::to_json(message)); }

  /// The next answer that is not a heartbeat; it must be one of `Expected`, which is told by
  /// its type before its fields are read. An `error` answer throws Refused; silence past
  /// `timeout` throws ConnectionError (unless `unbounded`: then it waits on; or
  /// `timeout_is_empty`: then it returns nothing). Another type throws net::ProtocolError.
  template <class... Expected>
  std::optional<net::ControlReply> next(std::chrono::milliseconds timeout, bool unbounded = false,
                                        bool timeout_is_empty = false) {
    for (;;) {
      std::optional<nlohmann::json> message = client_.receive(timeout);
      if (!message) {
        if (unbounded) continue;
        if (timeout_is_empty) return std::nullopt;
        throw net::ConnectionError(endpoint_ + ": no answer from the coordinator within " +
                                   std::to_string(timeout.count()) + " ms");
      }
      const std::string type = net::MessageReader(*message).type();
      if (type == net::Heartbeat::kType) continue;
      if (type != net::ErrorReply::kType && ((type != Expected::kType) && ...)) {
        throw net::ProtocolError("unexpected message \"" + type + "\"");
      }
      net::ControlReply reply = net::parse_control_reply(*message);
      if (const auto* error = std::get_if<net::ErrorReply>(&reply)) throw Refused{error->text};
      return reply;
    }
  }

  /// The next answer, which must be a `Reply`.
  template <class Reply>
  Reply expect(std::chrono::milliseconds timeout) {
    return std::get<Reply>(*next<Reply>(timeout));
  }

  /// A request answered by one `Reply` within `timeout`.
  template <class Reply>
  Reply ask(const net::ControlRequest& message, std::chrono::milliseconds timeout) {
    send(message);
    return expect<Reply>(timeout);
  }

 private:
  net::Client& client_;
  std::string endpoint_;
};

/// Runs `talk` (a conversation with the coordinator of `target`) and returns what it returns;
/// a refusal, a lost connection or a message out of protocol is told to `complain(text, 1)`
/// instead, whose result is returned.
template <class Talk, class Complain>
int talking_to(const JobTarget& target, Talk talk, Complain complain) {
  try {
    return talk();
  } catch (const Refused& e) {
    return complain(e.text, 1);
  } catch (const net::ConnectionError& e) {
    return complain(e.what(), 1);
  } catch (const net::ProtocolError& e) {
    return complain("the coordinator of job " + target.job + " at " + target.endpoint() +
                        " answered something unexpected: " + e.what(),
                    1);
  }
}

}  // namespace pai::launcher
