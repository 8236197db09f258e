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
#include "launcher/checks/nccl_check.h"
#include "launcher/net/interface_address.h"

namespace pai::launcher {

struct BackgroundFabric::Measurement {
  std::thread thread;
  Send send;
  std::vector<net::NodeToCoordinator> posted;  // by the thread, not yet sent
  bool finished = false;                       // set by the thread when it is done
  bool children = false;                       // holds the supervisor's reaping
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

// A fabric-result with `error` (empty: figures to fill in) and no figures.
net::FabricResult error_result(int round, int pair, std::string error) {
  return net::FabricResult{.round = round,
                           .pair = pair,
                           .error = std::move(error),
                           .out_kbps = 0,
                           .in_kbps = 0,
                           .latency_ns = 0,
                           .bus_mbps = std::nullopt};
}

std::int64_t kbps(double gbps) {
  return std::isfinite(gbps) && gbps > 0 ? std::llround(gbps * 1e6) : 0;
}

}  // namespace

BackgroundFabric::BackgroundFabric(const Plan& plan, EventLoop& loop, checks::CheckOptions gpu,
                                   ReapKnownOnly reap_known_only)
    : plan_(plan),
      loop_(loop),
      gpu_(std::move(gpu)),
      reap_known_only_(std::move(reap_known_only)) {}

BackgroundFabric::~BackgroundFabric() {
  std::vector<std::unique_ptr<Measurement>> running;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running.swap(running_);
  }
  for (auto& m : running) {
    if (m->thread.joinable()) m->thread.join();
    if (m->children && reap_known_only_) reap_known_only_(false);
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
    send(error_result(request.round, request.pair, e.what()));
    return;
  }
  const net::FabricListening listening{.round = request.round,
                                       .pair = request.pair,
                                       .address = address,
                                       .port = listener->port(),
                                       .nccl_id = ""};
  // Tells the coordinator where to connect and serves the partner's TCP measurement. The
  // connecting end reports the pair's figures; this end speaks only when it fails, so a
  // partner that never came is still named (by the connector's error or the round's
  // deadline) and not reported twice.
  const checks::FabricTcpSettings settings = settings_of(plan_.sanity_check.fabric, request.key);
  auto serve = [this, listener, settings, request, send](net::NodeToCoordinator answer) {
    send(std::move(answer));
    run(
        [listener, settings, request](const Post& post) {
          try {
            listener->serve(settings);
          } catch (const std::exception& e) {
            post(error_result(request.round, request.pair, e.what()));
          }
        },
        send);
  };
  if (!request.nccl) {
    serve(listening);
    return;
  }
  // With NCCL the partner may come only once the id it joins with is known: the listening
  // answer (and the TCP serving) waits for the engine's child to make it, and never comes
  // when the engine cannot run here.
  checks::CheckOptions options = gpu_;
  run(
      [this, options, request, listening](const Post& post) mutable {
        options.nccl = checks::NcclRendezvous{
            "", request.nccl->ranks, request.nccl->first_rank, [&](const std::string& id) {
              net::FabricListening with_id = listening;
              with_id.nccl_id = id;
              post(with_id);
            }};
        try {
          checks::run_nccl_pair(plan_, options, plan_.sanity_check.fabric.timeout_seconds);
        } catch (const std::exception& e) {
          post(error_result(request.round, request.pair, e.what()));
        }
      },
      [serve, send](net::NodeToCoordinator message) {
        if (std::holds_alternative<net::FabricListening>(message)) {
          serve(std::move(message));
        } else {
          send(std::move(message));
        }
      },
      true);
}

void BackgroundFabric::connect(const net::FabricConnect& request, Send send) {
  const checks::FabricTcpSettings settings = settings_of(plan_.sanity_check.fabric, request.key);
  const std::string source = local_address();
  checks::CheckOptions options = gpu_;
  if (request.nccl) {
    options.nccl = checks::NcclRendezvous{request.nccl->unique_id, request.nccl->ranks,
                                          request.nccl->first_rank, {}};
  }
  run(
      [this, settings, request, source, options](const Post& post) {
        net::FabricResult result = error_result(request.round, request.pair, "");
        try {
          const checks::FabricTcpFigures f =
              checks::measure_fabric_tcp(request.address, request.port, settings, source);
          result.out_kbps = kbps(f.out_gbps);
          result.in_kbps = kbps(f.in_gbps);
          result.latency_ns = std::isfinite(f.latency_us) && f.latency_us > 0
                                  ? std::llround(f.latency_us * 1e3)
                                  : 0;
          // The all-reduce after the TCP figures: the two never share the link.
          if (options.nccl) {
            const double busbw = checks::run_nccl_pair(
                plan_, options, plan_.sanity_check.fabric.timeout_seconds);
            result.bus_mbps = std::isfinite(busbw) && busbw > 0 ? std::llround(busbw * 1e3) : 0;
          }
        } catch (const std::exception& e) {
          result = error_result(request.round, request.pair, e.what());
        }
        post(std::move(result));
      },
      std::move(send), request.nccl.has_value());
}

void BackgroundFabric::run(std::function<void(const Post&)> work, Send send, bool children) {
  if (pipe_[0] < 0) {
    if (::pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
      throw std::runtime_error("cannot create a pipe for the fabric check");
    }
    loop_.watch(pipe_[0], [this] { deliver(); });
  }
  auto m = std::make_unique<Measurement>();
  Measurement* raw = m.get();
  raw->send = std::move(send);
  raw->children = children;
  if (children && reap_known_only_) reap_known_only_(true);
  std::lock_guard<std::mutex> lock(mutex_);
  running_.push_back(std::move(m));
  raw->thread = std::thread([this, raw, work = std::move(work)] {
    const auto wake = [this] {
      const char byte = 1;
      [[maybe_unused]] ssize_t n = ::write(pipe_[1], &byte, 1);
    };
    work([this, raw, &wake](net::NodeToCoordinator message) {
      {
        std::lock_guard<std::mutex> posted(mutex_);
        raw->posted.push_back(std::move(message));
      }
      wake();
    });
    {
      std::lock_guard<std::mutex> done(mutex_);
      raw->finished = true;
    }
    wake();
  });
}

void BackgroundFabric::deliver() {
  char buffer[64];
  while (::read(pipe_[0], buffer, sizeof buffer) > 0) {
  }
  std::vector<std::pair<Send, std::vector<net::NodeToCoordinator>>> outbox;
  std::vector<std::unique_ptr<Measurement>> done;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // A thread posts before it finishes: what a finished one posted is all there is.
    for (auto& m : running_) {
      if (!m->posted.empty()) outbox.emplace_back(m->send, std::exchange(m->posted, {}));
    }
    auto finished = std::stable_partition(running_.begin(), running_.end(),
                                          [](const auto& m) { return !m->finished; });
    std::move(finished, running_.end(), std::back_inserter(done));
    running_.erase(finished, running_.end());
  }
  for (auto& m : done) {
    m->thread.join();
    if (m->children && reap_known_only_) reap_known_only_(false);
  }
  for (auto& [send, messages] : outbox) {
    for (auto& message : messages) send(std::move(message));
  }
}

}  // namespace pai::launcher
