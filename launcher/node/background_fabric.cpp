#include "launcher/node/background_fabric.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <utility>

#include "launcher/checks/fabric_tcp.h"
#include "launcher/net/interface_address.h"

namespace pai::launcher {

struct BackgroundFabric::Measurement {
  std::thread thread;
  Send send;
  std::optional<net::NodeToCoordinator> outcome;  // set by the thread when it is done
};

namespace {

checks::FabricTcpSettings settings_of(const FabricCheck& fabric, const std::string& key) {
  checks::FabricTcpSettings s;
  s.streams = std::clamp(fabric.streams, 1, 64);
  s.duration = std::chrono::seconds(fabric.duration_seconds);
  s.timeout = std::chrono::seconds(fabric.timeout_seconds);
  s.key = key;
  return s;
}

std::int64_t kbps(double gbps) {
  return std::isfinite(gbps) && gbps > 0 ? std::llround(gbps * 1e6) : 0;
}

}  // namespace

BackgroundFabric::BackgroundFabric(const Plan& plan, EventLoop& loop) : plan_(plan), loop_(loop) {}

BackgroundFabric::~BackgroundFabric() {
  std::vector<std::unique_ptr<Measurement>> running;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running.swap(running_);
  }
  for (auto& m : running) {
    if (m->thread.joinable()) m->thread.join();
  }
  if (pipe_[0] >= 0) loop_.unwatch(pipe_[0]);
  for (int fd : pipe_) {
    if (fd >= 0) ::close(fd);
  }
}

std::string BackgroundFabric::local_address() const {
  if (plan_.fabric.interface.empty()) return "";
  const auto addresses = net::interface_addresses(plan_.fabric.interface);
  return addresses.empty() ? "" : addresses.front();
}

void BackgroundFabric::listen(const net::FabricListen& request, Send send) {
  const std::string address = local_address();
  std::shared_ptr<checks::FabricTcpListener> listener;
  try {
    listener = std::make_shared<checks::FabricTcpListener>(address, plan_.port_range_min,
                                                           plan_.port_range_max);
  } catch (const std::exception& e) {
    send(net::FabricResult{.round = request.round, .pair = request.pair, .error = e.what()});
    return;
  }
  send(net::FabricListening{
      .round = request.round, .pair = request.pair, .address = address, .port = listener->port()});
  // The connecting end reports the pair's figures; this end speaks only when it fails, so a
  // partner that never came is still named (by the connector's error or the round's
  // deadline) and not reported twice.
  const checks::FabricTcpSettings settings = settings_of(plan_.sanity_check.fabric, request.key);
  run(
      [listener, settings, request]() -> net::NodeToCoordinator {
        try {
          listener->serve(settings);
          return net::FabricResult{.round = request.round, .pair = request.pair, .error = ""};
        } catch (const std::exception& e) {
          return net::FabricResult{
              .round = request.round, .pair = request.pair, .error = std::string(e.what())};
        }
      },
      [send](net::NodeToCoordinator outcome) {
        if (!std::get<net::FabricResult>(outcome).error.empty()) send(std::move(outcome));
      });
}

void BackgroundFabric::connect(const net::FabricConnect& request, Send send) {
  const checks::FabricTcpSettings settings = settings_of(plan_.sanity_check.fabric, request.key);
  const std::string source = local_address();
  run(
      [settings, request, source]() -> net::NodeToCoordinator {
        net::FabricResult result{.round = request.round, .pair = request.pair, .error = ""};
        try {
          const checks::FabricTcpFigures f =
              checks::measure_fabric_tcp(request.address, request.port, settings, source);
          result.out_kbps = kbps(f.out_gbps);
          result.in_kbps = kbps(f.in_gbps);
          result.latency_ns = std::isfinite(f.latency_us) && f.latency_us > 0
                                  ? std::llround(f.latency_us * 1e3)
                                  : 0;
        } catch (const std::exception& e) {
          result.error = e.what();
        }
        return result;
      },
      std::move(send));
}

void BackgroundFabric::run(std::function<net::NodeToCoordinator()> work, Send send) {
  if (pipe_[0] < 0) {
    if (::pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
      throw std::runtime_error("cannot create a pipe for the fabric check");
    }
    loop_.watch(pipe_[0], [this] { deliver(); });
  }
  auto m = std::make_unique<Measurement>();
  Measurement* raw = m.get();
  raw->send = std::move(send);
  std::lock_guard<std::mutex> lock(mutex_);
  running_.push_back(std::move(m));
  raw->thread = std::thread([this, raw, work = std::move(work)] {
    net::NodeToCoordinator outcome = work();
    {
      std::lock_guard<std::mutex> done(mutex_);
      raw->outcome = std::move(outcome);
    }
    const char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(pipe_[1], &byte, 1);
  });
}

void BackgroundFabric::deliver() {
  char buffer[64];
  while (::read(pipe_[0], buffer, sizeof buffer) > 0) {
  }
  std::vector<std::unique_ptr<Measurement>> done;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto finished = std::stable_partition(running_.begin(), running_.end(),
                                          [](const auto& m) { return !m->outcome.has_value(); });
    std::move(finished, running_.end(), std::back_inserter(done));
    running_.erase(finished, running_.end());
  }
  for (auto& m : done) {
    m->thread.join();
    m->send(std::move(*m->outcome));
  }
}

}  // namespace pai::launcher
