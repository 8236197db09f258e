#include "launcher/logs/rank_log_files.h"

#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <system_error>

namespace pai::launcher {

namespace {

// The number at the start of `text`, up to `end`; nullopt without digits or past int.
std::optional<int> number_before(std::string_view text, std::string_view end,
                                 std::string_view* rest) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr == text.data() || value < 0) return std::nullopt;
  const std::string_view after(ptr, static_cast<std::size_t>(text.data() + text.size() - ptr));
  if (after.substr(0, end.size()) != end) return std::nullopt;
  *rest = after.substr(end.size());
  return value;
}

// rank and attempt of "rank-<r>.attempt-<k>.log"; nullopt for any other name.
std::optional<std::pair<int, int>> parse_name(std::string_view name) {
  constexpr std::string_view kRank = "rank-";
  if (name.substr(0, kRank.size()) != kRank) return std::nullopt;
  std::string_view rest = name.substr(kRank.size());
  const auto rank = number_before(rest, ".attempt-", &rest);
  if (!rank) return std::nullopt;
  const auto attempt = number_before(rest, ".log", &rest);
  if (!attempt || !rest.empty()) return std::nullopt;
  return std::make_pair(*rank, *attempt);
}

}  // namespace

std::string rank_log_name(int rank, int attempt, const std::string& suffix) {
  return "rank-" + std::to_string(rank) + ".attempt-" + std::to_string(attempt) + suffix;
}

std::vector<RankLogFile> latest_rank_logs(const std::string& log_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::directory_iterator folders(log_dir, ec);
  if (ec) throw RankLogFilesError("cannot read the log folder " + log_dir + ": " + ec.message());
  std::map<int, RankLogFile> newest;
  for (const fs::directory_entry& folder : folders) {
    if (!folder.is_directory(ec)) continue;
    fs::directory_iterator files(folder.path(), ec);
    if (ec) continue;  // a folder of someone else's, or gone: not a rank's
    for (const fs::directory_entry& file : files) {
      const auto parsed = parse_name(file.path().filename().string());
      if (!parsed || !file.is_regular_file(ec)) continue;
      const auto [rank, attempt] = *parsed;
      auto it = newest.find(rank);
      if (it != newest.end() && it->second.attempt >= attempt) continue;
      newest[rank] =
          RankLogFile{folder.path().filename().string(), rank, attempt, file.path().string()};
    }
  }
  std::vector<RankLogFile> out;
  out.reserve(newest.size());
  for (auto& [rank, file] : newest) out.push_back(std::move(file));
  return out;
}

}  // namespace pai::launcher
