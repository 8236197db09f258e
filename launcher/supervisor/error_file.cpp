#include "launcher/supervisor/error_file.h"

#include <nlohmann/json.hpp>

#include "libpai/bounded_file.h"

namespace pai::launcher {

std::optional<RankError> read_error_file(const std::string& path) {
  std::string text;
  try {
    // A traceback is kilobytes; anything far bigger is not an error file.
    text = read_bounded_regular_file(path, 1 << 20, "error file");
  } catch (const BoundedFileError&) {
    return std::nullopt;
  }
  const nlohmann::json data = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!data.is_object() || !data.contains("message")) return std::nullopt;
  const nlohmann::json& message = data["message"];
  RankError error;
  if (message.is_string()) {
    error.message = message.get<std::string>();
  } else if (message.is_object() && message.contains("message") && message["message"].is_string()) {
    error.message = message["message"].get<std::string>();
    const auto info = message.find("extraInfo");
    if (info != message.end() && info->is_object()) {
      const auto stack = info->find("py_callstack");
      if (stack != info->end() && stack->is_string()) error.traceback = stack->get<std::string>();
    }
  } else {
    return std::nullopt;
  }
  if (error.message.empty() && error.traceback.empty()) return std::nullopt;
  return error;
}

}  // namespace pai::launcher
