#include "compiler/openpai/retries.h"

#include <algorithm>
#include <cstdint>

#include "compiler/openpai/nodes.h"

namespace pai {

namespace {

// jobRetryCount -1 and -2 become this many restarts.
constexpr std::int64_t kUnlimitedRestarts = INT32_MAX;

// The restart budget of jobRetryCount `count`, with a warning for OpenPAI's unlimited ones.
std::int64_t job_restarts(const Node& node, std::int64_t count, Diagnostics& diags) {
  if (count >= 0) return count;
  diags.warning(node.loc, "jobRetryCount",
                std::string("jobRetryCount ") +
                    (count == -1 ? "-1 (retry transient failures" : "-2 (retry every failure") +
                    " without limit) becomes faultTolerance.restart.maxRestarts " +
                    std::to_string(kUnlimitedRestarts) +
                    (count == -2 ? " with policy onFailure" : ""));
  return kUnlimitedRestarts;
}

void job_retries(const Node& node, std::int64_t count, const std::vector<TaskRetry>& task_retries,
                 Diagnostics& diags, Node& out) {
  const std::int64_t restarts = job_restarts(node, count, diags);
  Node& ft = child_mapping(out, "faultTolerance", node.loc);
  put(child_mapping(ft, "restart", node.loc), "maxRestarts",
      plain_node(std::to_string(restarts), node.loc), node.loc);
  if (count == -2) put(ft, "policy", string_node("onFailure", node.loc), node.loc);
  for (const TaskRetry& t : task_retries) {
    if (t.count == restarts) continue;
    diags.warning(t.node->loc, t.path,
                  "taskRetryCount " + std::to_string(t.count) +
                      " is not applied: pai has one "
                      "restart budget per job, faultTolerance.restart.maxRestarts " +
                      std::to_string(restarts) +
                      " from jobRetryCount, and restarts every instance (sync mode)");
  }
}

void task_retries_only(const std::vector<TaskRetry>& task_retries, const Location& default_loc,
                       Diagnostics& diags, Node& out) {
  int largest = 0;
  for (const TaskRetry& t : task_retries) largest = std::max(largest, t.count);
  if (largest == 0) {
    // OpenPAI's jobRetryCount defaults to 0: no restarts, unlike pai's default budget.
    Node& ft = child_mapping(out, "faultTolerance", default_loc);
    put(child_mapping(ft, "restart", default_loc), "maxRestarts", plain_node("0", default_loc),
        default_loc);
    return;
  }
  const TaskRetry& chosen = *std::find_if(task_retries.begin(), task_retries.end(),
                                          [&](const TaskRetry& t) { return t.count == largest; });
  const Location& loc = chosen.node->loc;
  Node& ft = child_mapping(out, "faultTolerance", loc);
  put(ft, "mode", string_node("async", loc), loc);
  put(child_mapping(ft, "restart", loc), "maxRestarts", *chosen.node, loc);
  for (const TaskRetry& t : task_retries) {
    if (t.count == 0) continue;
    diags.warning(t.node->loc, t.path,
                  "taskRetryCount " + std::to_string(t.count) +
                      " becomes faultTolerance mode "
                      "async with maxRestarts " +
                      std::to_string(largest) +
                      ": pai restarts only the failed instance, but from one budget for the "
                      "whole job, not one per instance");
  }
}

}  // namespace

void translate_openpai_retries(const Node* job_retry, const std::vector<TaskRetry>& task_retries,
                               const Location& default_loc, FieldReader& reader, Diagnostics& diags,
                               Node& out) {
  if (!job_retry) {
    task_retries_only(task_retries, default_loc, diags, out);
    return;
  }
  std::int64_t count = 0;
  if (reader.integer(*job_retry, "jobRetryCount", -2, INT32_MAX, &count,
                     "-2, -1 or a number of retries (0 or more)")) {
    job_retries(*job_retry, count, task_retries, diags, out);
  }
}

}  // namespace pai
