#include "launcher/coordinator/node_reports.h"

#include <limits>

namespace pai::launcher::coordinator {

namespace {

constexpr int kIntMax = std::numeric_limits<int>::max();

// A nested object read as strictly as a message, its errors naming both:
// "exited.status: code: missing".
Json nested(const net::MessageReader& message, const std::string& name, const Json& object) {
  Json copy = object;
  copy["type"] = message.type() + "." + name;
  return copy;
}

}  // namespace

int read_instance(const net::MessageReader& message, int instances) {
  return message.integer("instance", 0, instances - 1);
}

ExitReport read_exited(const net::MessageReader& message, int instances) {
  ExitReport report;
  ProcessExited& e = report.event;
  e.instance = read_instance(message, instances);
  e.local_rank = message.integer("localRank", 0, kIntMax);
  const Json status_json = nested(message, "status", message.object("status"));
  const net::MessageReader status(status_json);
  e.status.code = status.integer("code", 0, 255);
  e.status.signal = status.integer("signal", 0, 128);
  const Json class_json = nested(message, "classification", message.object("classification"));
  const net::MessageReader classification(class_json);
  e.classification.retryable = classification.boolean("retryable");
  e.classification.reason = classification.string("reason");
  e.classification.matched_line = classification.string("matchedLine");
  e.classification.signature = classification.string("signature");
  report.stopping = message.boolean("stopping");
  return report;
}

HangReport read_hang(const net::MessageReader& message, int instances) {
  HangReport report;
  report.instance = read_instance(message, instances);
  report.exiting = message.boolean("exiting");
  report.seconds = message.int64("seconds");
  if (report.seconds < 0) message.fail("seconds", "expected a non-negative integer");
  return report;
}

std::vector<HeartbeatEntry> read_heartbeat(const net::MessageReader& message, int instances,
                                           Clock::time_point now) {
  const Json& list = message.array("instances");
  std::vector<HeartbeatEntry> entries;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (!list[k].is_object()) message.fail("instances", "expected an array of objects");
    const Json item = nested(message, "instances[" + std::to_string(k) + "]", list[k]);
    const net::MessageReader entry(item);
    HeartbeatEntry e;
    e.instance = read_instance(entry, instances);
    e.heartbeat.idle_ms = entry.int64("idleMs");
    if (e.heartbeat.idle_ms < 0) entry.fail("idleMs", "expected a non-negative integer");
    e.heartbeat.hang_interval_s = entry.int64("hangInterval");
    entry.int64("step");
    e.heartbeat.received = now;
    entries.push_back(e);
  }
  return entries;
}

FailureReport read_failure(const net::MessageReader& message, int instances) {
  FailureReport report;
  report.instance = read_instance(message, instances);
  report.rank = message.integer("rank", 0, kIntMax);
  report.summary = message.string("summary");
  return report;
}

}  // namespace pai::launcher::coordinator
