// torch.distributed.elastic's error file (TORCHELASTIC_ERROR_FILE): where `@record` (from
// torch.distributed.elastic.multiprocessing.errors) writes the exception that ended a rank.
// The launcher reads it after the rank failed and shows it as the root cause, as torchrun does.
#pragma once

#include <optional>
#include <string>

namespace pai::launcher {

/// What a rank recorded about its failure.
struct RankError {
  std::string message;    ///< "ValueError: bad batch"
  std::string traceback;  ///< Python's traceback.format_exc(); may be empty
};

/// The error recorded in `path`: torchelastic's {"message": {"message": M, "extraInfo":
/// {"py_callstack": T, "timestamp": S}}} or {"message": M}. nullopt when the file is absent,
/// empty, larger than 1 MiB or not of that form: a rank that recorded nothing.
std::optional<RankError> read_error_file(const std::string& path);

}  // namespace pai::launcher
