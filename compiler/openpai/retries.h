// OpenPAI's retries -> pai's fault tolerance.
//
// OpenPAI retries the whole job (jobRetryCount; -1 retries transient failures and -2 every
// failure without limit) and, separately, each failed task in place (taskRetryCount). pai
// has one restart budget per job: sync mode restarts every instance, async mode only the
// failed one.
#pragma once

#include <string>
#include <vector>

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"

namespace pai {

/// A task role's taskRetryCount.
struct TaskRetry {
  const Node* node = nullptr;
  std::string path;
  int count = 0;
};

/// Adds `faultTolerance` to the translated root `out` from `job_retry` (jobRetryCount, null
/// when absent) and the task roles' `task_retries`; a located warning for each count pai
/// applies differently. Without any, the job is not restarted (OpenPAI's default), the
/// setting located at `default_loc`.
void translate_openpai_retries(const Node* job_retry, const std::vector<TaskRetry>& task_retries,
                               const Location& default_loc, FieldReader& reader, Diagnostics& diags,
                               Node& out);

}  // namespace pai
