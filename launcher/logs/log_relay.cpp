#include "launcher/logs/log_relay.h"

#include <unistd.h>

#include <algorithm>

#include "launcher/logs/output_writers.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

// Red is kept for the launcher's own errors.
const char* const kColors[] = {"\x1b[32m", "\x1b[33m", "\x1b[34m", "\x1b[35m", "\x1b[36m",
                               "\x1b[92m", "\x1b[93m", "\x1b[94m", "\x1b[95m", "\x1b[96m"};

// The terminal bytes of one feed: one buffer for all relays, reused.
std::string& terminal_buffer() {
  thread_local std::string buffer;
  return buffer;
}

}  // namespace

void OutputTail::append(std::string_view bytes) {
  if (bytes.size() >= capacity_) {
    // Only the last `capacity` bytes can ever be read: copy no more.
    data_.assign(bytes.substr(bytes.size() - capacity_));
    return;
  }
  data_.append(bytes);
  // Trimming only past twice the capacity keeps appends amortized O(1).
  if (data_.size() > 2 * capacity_) data_.erase(0, data_.size() - capacity_);
}

std::string_view OutputTail::text() const {
  std::string_view all = data_;
  return all.size() > capacity_ ? all.substr(all.size() - capacity_) : all;
}

std::string OutputTail::last_lines(std::size_t count) const {
  std::string_view all = text();
  if (!all.empty() && all.back() == '\n') all.remove_suffix(1);
  std::size_t start = all.size();
  for (std::size_t seen = 0; seen < count && start > 0; ++seen) {
    std::size_t nl = all.rfind('\n', start - 1);
    start = nl == std::string_view::npos ? 0 : nl;
    if (nl == std::string_view::npos) break;
  }
  if (start < all.size() && all[start] == '\n') ++start;
  return std::string(all.substr(start));
}

LogRelay::LogRelay(std::string prefix, bool color, int color_index, int terminal_fd,
                   OutputTail* tail, Writes writes)
    : terminal_fd_(terminal_fd), tail_(tail), writes_(writes) {
  if (color) {
    prefix_ = std::string(kColors[color_index % std::size(kColors)]) + prefix + "\x1b[0m ";
  } else {
    prefix_ = prefix + " ";
  }
}

void LogRelay::feed(std::string_view bytes) {
  if (bytes.empty()) return;
  if (tail_ != nullptr) tail_->append(bytes);
  relay_lines(bytes);
}

void LogRelay::add_line(std::string& out, std::string_view head, std::string_view tail) const {
  out += prefix_;
  out += head;
  out += tail;
  const std::string_view last = tail.empty() ? head : tail;
  if (last.empty() || last.back() != '\n') out += '\n';
}

void LogRelay::relay_lines(std::string_view bytes) {
  if (terminal_fd_ < 0) return;  // shown nowhere (torchrun's --redirects)
  // `out` keeps its capacity from feed to feed: after the first reads, relaying allocates
  // nothing and costs one copy and one write per read. (A writev of [prefix, line] slices
  // avoids that copy but is slower: the kernel's per-slice cost outweighs a 100-byte memcpy.)
  // One buffer serves every relay (feeds run one at a time), not one per rank.
  std::string& out = terminal_buffer();
  out.clear();
  // A pending partial line is completed first.
  while (!partial_.empty() && !bytes.empty()) {
    const std::size_t room = kMaxRelayedLine - partial_.size();
    const std::size_t nl = bytes.substr(0, room).find('\n');
    if (nl != std::string_view::npos) {
      add_line(out, partial_, bytes.substr(0, nl + 1));
      partial_.clear();
      bytes.remove_prefix(nl + 1);
      break;
    }
    const std::size_t take = std::min(bytes.size(), room);
    partial_.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
    if (partial_.size() == kMaxRelayedLine) {
      add_line(out, partial_);
      partial_.clear();
    }
  }
  // Then whole lines straight from `bytes`; what is left waits in partial_.
  while (!bytes.empty()) {
    const std::size_t nl = bytes.substr(0, kMaxRelayedLine).find('\n');
    if (nl != std::string_view::npos) {
      add_line(out, bytes.substr(0, nl + 1));
      bytes.remove_prefix(nl + 1);
    } else if (bytes.size() >= kMaxRelayedLine) {
      add_line(out, bytes.substr(0, kMaxRelayedLine));
      bytes.remove_prefix(kMaxRelayedLine);
    } else {
      partial_.assign(bytes);
      break;
    }
  }
  if (!out.empty()) show(out);
}

void LogRelay::finish() {
  if (partial_.empty()) return;
  std::string& out = terminal_buffer();
  out.clear();
  add_line(out, partial_);
  partial_.clear();
  show(out);
}

void LogRelay::show(std::string_view out) const {
  if (writes_ == Writes::Direct) {
    write_all(terminal_fd_, out);
  } else {
    terminal_write(terminal_fd_, out);
  }
}

}  // namespace pai::launcher
