#include "launcher/commands/log_printer.h"

#include <unistd.h>

#include "libpai/write_all.h"

namespace pai::launcher {

LogPrinter::LogPrinter(const Options& options)
    : options_(options), color_(::isatty(options.out_fd) == 1) {
  if (options_.merge) {
    merge_.emplace(options_.merge_window,
                   [fd = options_.out_fd](std::string_view text) { write_all(fd, text); });
  }
}

void LogPrinter::feed(const std::string& instance, const std::string& host, int rank,
                      std::string_view data) {
  if (merge_) {
    merge_->feed(rank, host, data, LogMerge::Clock::now());
    return;
  }
  if (options_.one_rank) {
    write_all(options_.out_fd, data);
    return;
  }
  auto& relay = relays_[rank];
  if (!relay) {
    relay = std::make_unique<LogRelay>("[" + instance + "/" + std::to_string(rank) + "]", color_,
                                       rank, options_.out_fd, nullptr, LogRelay::Writes::Direct);
  }
  relay->feed(data);
}

std::optional<LogMerge::Clock::time_point> LogPrinter::next_due() const {
  return merge_ ? merge_->next_due() : std::nullopt;
}

void LogPrinter::expire() {
  if (merge_) merge_->expire(LogMerge::Clock::now());
}

void LogPrinter::finish() {
  for (auto& [rank, relay] : relays_) relay->finish();
  if (merge_) merge_->finish();
}

}  // namespace pai::launcher
