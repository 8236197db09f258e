#include "launcher/coordinator/coordinator_server.h"

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/handshake_slots.h"
#include "launcher/coordinator/loop_pacer.h"
#include "launcher/coordinator/metrics_http.h"
#include "launcher/coordinator/metrics_text.h"
#include "launcher/coordinator/refusal_summary.h"
#include "launcher/coordinator/session.h"
#include "launcher/logs/output_writers.h"
#include "launcher/net/heartbeat_rhythm.h"
#include "launcher/net/listening_acceptor.h"
#include "launcher/net/protocol.h"
#include "libpai/port_range_hint.h"

namespace pai::launcher::coordinator {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

// One read buffer for all connections (the loop is single-threaded); a frame larger than it
// is assembled by the decoder over several reads.
constexpr std::size_t kReadBufferSize = 64 * 1024;
// Connections taken from the listen queue at once, the first included (others wait meanwhile).
constexpr int kAcceptBatch = 64;

/// "64 MiB", "64 KiB", "1000 bytes".
std::string size_text(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

/// The machines of `plan` that may run a launcher: its hosts and spares.
std::size_t machines(const Plan& plan) {
  return std::max(plan.placements.size(), plan.hosts.size()) + plan.spares.size();
}

}  // namespace

struct CoordinatorServer::Impl final : SessionListener {
  // What the server knows of a connection beyond the session itself.
  struct Connection {
    std::shared_ptr<Session> session;
    bool machine_knows = false;  // connected() was called and disconnected() is still owed
  };

  Impl(Plan plan, ServerOptions server_options);

  // Declared first, destroyed last: sessions and timers below belong to it.
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  tcp::acceptor acceptor{io};
  asio::steady_timer machine_timer{io};
  // Handshake deadlines, heartbeat silence, closing sessions and refusal summaries.
  asio::steady_timer watch_timer{io};
  asio::steady_timer finish_timer{io};
  asio::steady_timer accept_retry{io};
  asio::steady_timer linger_timer{io};

  ServerOptions options;
  std::string job;
  Monitoring monitoring;      // the plan's: where to serve metrics, if anywhere
  std::size_t plan_machines;  // hosts and spares: launchers that may connect at once
  std::string port_hint;      // port_range_hint(plan): the way out when the port is taken
  std::string own_node;       // the node this coordinator runs on (the plan's coordinator host)
  CoordinatorMachine machine;
  std::unordered_map<int, Connection> connections;
  std::vector<char> read_buffer = std::vector<char>(kReadBufferSize);
  int next_id = 1;
  // Connections still handshaking hold a slot; authenticated and closing ones do not.
  HandshakeSlots handshake_slots;
  RefusalSummary refusals;
  // Connections closed before sending anything: port probes (every node's network check,
  // load balancers, scanners), not attempts that failed. Journaled apart, never shown.
  RefusalSummary probes{RefusalSummary::Kind::PortProbes};
  std::optional<Clock::time_point> machine_wake;
  std::optional<Clock::time_point> watch_wake;
  bool finishing = false;
  bool stopped = false;
  int exit_code = 0;
  int bound_port = 0;

  std::mutex mutex;
  std::condition_variable finished_cv;
  std::optional<int> result;        // guarded by mutex
  std::vector<std::string> absent;  // guarded by mutex: the Finish's

  std::unique_ptr<MetricsHttpServer> metrics_http;  // on `io`; gone before it
  // Scrapes of /metrics, and of its final state once the job ended (monitoring.metricsLinger).
  std::uint64_t scrapes = 0;
  int final_scrapes = 0;
  bool lingering = false;
  // The final state is in the time series once scraped this many times after the job ended.
  static constexpr int kFinalScrapes = 2;

  std::thread thread;

  void listen();
  // Serves GET /metrics on the loop when the plan asks for it.
  void serve_metrics();
  void run();
  // Runs the loop until it stops, pausing between polls when the pacer says so.
  void serve();
  void accept();
  void on_accept(const error_code& ec, tcp::socket socket);
  // Starts the handshake of a connection just accepted.
  void admit(tcp::socket socket, Clock::time_point now);
  // Journals a connection refused before it authenticated (as counts, see RefusalSummary).
  void refuse(const std::string& address, const std::string& reason, Clock::time_point now,
              bool shown = true);
  void evict(const HandshakeSlots::Eviction& eviction, Clock::time_point now);

  void apply(std::vector<Action> actions);
  void send(int id, const Json& message);
  void arm_machine();
  void arm_watch(Clock::time_point when);
  void watch();
  std::chrono::milliseconds silence_limit() const {
    return options.settings.heartbeat_interval * net::kHeartbeatMisses;
  }
  // Tells the machine a connection it knows is gone (once).
  void lose(Connection& connection, const std::string& why);
  // When `silent` (session ids past their silence limit, `why`) are every launcher but this
  // node's own, which is heard, ends the job as cut off and returns true.
  bool cut_off(const std::vector<int>& silent, const std::string& why);
  bool cut_off_told = false;  // options.on_cut_off was called

  void begin_finish(int code, std::vector<std::string> absent_nodes);
  void check_flushed();
  // The job ended: the coordinator's connections and listener close; /metrics, when it was
  // scraped during the job, goes on serving the final state for monitoring.metricsLinger or
  // until scraped kFinalScrapes times; then stop().
  void stop();
  // Journals the refusals and probes still waiting for their round.
  void flush_refusals();
  bool linger();
  // Closes the listener and every connection, and cancels the coordinator's timers.
  void close_coordination();
  // The metrics page, counted.
  std::string render_metrics();

  void emit(const Record& record);
  // An authenticated peer broke the protocol: one record naming its node.
  void reject_record(const Session& session, const std::string& reason);

  // SessionListener
  void welcomed(Session& session) override;
  void received(Session& session, const Json& message) override;
  void failed(Session& session, const std::string& reason, bool protocol_error) override;
  void drained(Session& session) override;
  void closed(Session& session) override;
};

CoordinatorServer::Impl::Impl(Plan plan, ServerOptions server_options)
    : options(std::move(server_options)),
      job(plan.name),
      monitoring(plan.monitoring),
      plan_machines(machines(plan)),
      port_hint(port_range_hint(plan)),
      own_node(plan.coordinator.host),
      machine(std::move(plan), options.settings, Clock::now()),
      handshake_slots(options.max_unauthenticated_per_address,
                      std::max(options.max_unauthenticated, 2 * plan_machines)) {}

void CoordinatorServer::Impl::listen() {
  std::string where = options.listen_address + ":" + std::to_string(options.port);
  try {
    tcp::endpoint endpoint(asio::ip::make_address(options.listen_address),
                           static_cast<unsigned short>(options.port));
    bound_port = net::listen_on(acceptor, endpoint);
    acceptor.non_blocking(true);  // on_accept drains the queue without waiting
  } catch (const boost::system::system_error& e) {
    const bool taken = e.code() == asio::error::address_in_use;
    throw std::runtime_error("cannot listen on " + where + ": " + e.code().message() +
                             (taken ? " (" + port_hint + ")" : ""));
  }
}

void CoordinatorServer::Impl::serve_metrics() {
  if (monitoring.metrics_port == 0) return;
  MetricsHttpOptions http;
  http.address =
      monitoring.metrics_address.empty() ? options.listen_address : monitoring.metrics_address;
  http.port = monitoring.metrics_port;
  metrics_http = std::make_unique<MetricsHttpServer>(
      io, http, [this] { return render_metrics(); }, kMetricsContentType);
  const std::string url =
      "http://" +
      (http.address.find(':') != std::string::npos ? "[" + http.address + "]" : http.address) +
      ":" + std::to_string(metrics_http->port()) + "/metrics";
  emit(Record{journal::MetricsEndpoint{.url = url}, "serving metrics at " + url});
}

void CoordinatorServer::Impl::run() {
  // A handler that throws (a record sink that cannot write, a message that cannot be
  // serialized) costs that one action, not the job's coordinator.
  for (;;) {
    try {
      serve();
      return;
    } catch (const std::exception& e) {
      emit(Record{journal::CoordinatorError{.what = e.what()},
                  std::string("internal error: ") + e.what()});
    }
  }
}

void CoordinatorServer::Impl::serve() {
  LoopPacer pacer;
  while (!io.stopped()) {
    std::size_t handlers = io.run_one();
    handlers += io.poll();
    const auto pause = pacer.after_wake(handlers, Clock::now());
    if (pause > Clock::duration::zero() && !io.stopped()) std::this_thread::sleep_for(pause);
  }
}

// ---- Accepting ----

void CoordinatorServer::Impl::accept() {
  acceptor.async_accept(
      [this](const error_code& ec, tcp::socket socket) { on_accept(ec, std::move(socket)); });
}

void CoordinatorServer::Impl::on_accept(const error_code& ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || stopped || finishing) return;
  auto now = Clock::now();
  if (ec) {
    refuse("", "accept failed: " + ec.message(), now);
    net::accept_again(ec, accept_retry, [this] {
      if (!stopped && !finishing) accept();
    });
    return;
  }
  admit(std::move(socket), now);
  // More are often queued (thousands of launchers start at once): taken now, up to a batch,
  // before the kernel's listen queue overflows and their connects wait for a retransmission.
  for (int k = 1; k < kAcceptBatch; ++k) {
    error_code more_ec;
    tcp::socket more(io);
    acceptor.accept(more, more_ec);
    if (more_ec) break;  // would_block when none is left; an error shows at the next accept
    admit(std::move(more), now);
  }
  accept();
}

void CoordinatorServer::Impl::admit(tcp::socket socket, Clock::time_point now) {
  int id = next_id++;
  auto session =
      std::make_shared<Session>(std::move(socket), id, options.token, job, read_buffer, *this);
  connections.emplace(id, Connection{session});
  // The newcomer always gets in: a flood's idle sockets are older than any client that is
  // about to authenticate, so they go first.
  if (auto eviction = handshake_slots.admit(id, session->address())) evict(*eviction, now);
  session->start();
  arm_watch(session->accepted_at() + options.handshake_timeout);
}

void CoordinatorServer::Impl::refuse(const std::string& address, const std::string& reason,
                                     Clock::time_point now, bool shown) {
  RefusalSummary& summary = shown ? refusals : probes;
  for (const Record& record : summary.refused(address, reason, now, shown)) emit(record);
  if (auto due = summary.next_due()) arm_watch(*due);
}

void CoordinatorServer::Impl::evict(const HandshakeSlots::Eviction& eviction,
                                    Clock::time_point now) {
  auto it = connections.find(eviction.id);
  if (it == connections.end()) return;
  Session& session = *it->second.session;
  refuse(session.address(), eviction.reason, now);
  // Closed without a reject frame: a launcher takes a reject as final, but one evicted under a
  // flood (it took longer than the flood needed to open 64 newer connections) should retry.
  session.close();
}

// ---- The machine ----

void CoordinatorServer::Impl::apply(std::vector<Action> actions) {
  for (auto& action : actions) {
    std::visit(net::Overloaded{
                   [&](Send& a) { send(a.session, a.message); },
                   [&](Close& a) {
                     auto it = connections.find(a.session);
                     if (it == connections.end()) return;
                     // The machine closed it: it expects no disconnected() for it.
                     it->second.machine_knows = false;
                     it->second.session->close_after_flush();
                     arm_watch(Clock::now() + options.flush_timeout);
                   },
                   [&](Record& a) { emit(a); },
                   [&](Finish& a) { begin_finish(a.exit_code, std::move(a.absent)); },
               },
               action);
  }
  arm_machine();
}

void CoordinatorServer::Impl::send(int id, const Json& message) {
  auto it = connections.find(id);
  // Gone already: the machine has heard or will hear disconnected() for it.
  if (it == connections.end()) return;
  Session& session = *it->second.session;
  if (session.state() != Session::State::Authenticated) return;
  if (session.send(message) <= options.max_queued_output) return;
  std::string reason = "more than " + size_text(options.max_queued_output) +
                       " of output queued: the peer does not read";
  emit(Record{journal::ConnectionDropped{
                  .address = session.address(), .node = session.claim().node, .reason = reason},
              "dropped " + session.claim().peer + " " + session.claim().node + " (" +
                  session.address() + "): " + reason});
  session.close();
  // Not now: the machine is being obeyed (this may be one of many sends it asked for).
  if (it->second.machine_knows) {
    it->second.machine_knows = false;
    asio::post(io, [this, id, reason] {
      if (!finishing && !stopped) apply(machine.disconnected(id, reason, Clock::now()));
    });
  }
}

void CoordinatorServer::Impl::arm_machine() {
  if (finishing || stopped) return;
  auto next = machine.next_deadline();
  if (next == machine_wake) return;
  machine_wake = next;
  if (!next) {
    machine_timer.cancel();
    return;
  }
  machine_timer.expires_at(*next);
  machine_timer.async_wait([this](const error_code& ec) {
    if (ec || finishing || stopped) return;
    machine_wake.reset();
    apply(machine.tick(Clock::now()));
  });
}

void CoordinatorServer::Impl::lose(Connection& connection, const std::string& why) {
  if (!connection.machine_knows || finishing) return;
  connection.machine_knows = false;
  apply(machine.disconnected(connection.session->id(), why, Clock::now()));
}

// ---- Deadlines of connections ----

void CoordinatorServer::Impl::arm_watch(Clock::time_point when) {
  if (stopped || (watch_wake && *watch_wake <= when)) return;
  watch_wake = when;
  watch_timer.expires_at(when);
  watch_timer.async_wait([this](const error_code& ec) {
    if (ec || stopped) return;
    watch_wake.reset();
    watch();
  });
}

void CoordinatorServer::Impl::watch() {
  auto now = Clock::now();
  for (const Record& record : refusals.due(now)) emit(record);
  for (const Record& record : probes.due(now)) emit(record);
  std::vector<std::shared_ptr<Session>> late_handshakes;
  std::vector<int> silent;
  std::optional<Clock::time_point> next;
  auto consider = [&](Clock::time_point when) {
    if (!next || when < *next) next = when;
  };
  for (auto& [id, connection] : connections) {
    Session& session = *connection.session;
    switch (session.state()) {
      case Session::State::Handshaking: {
        auto deadline = session.accepted_at() + options.handshake_timeout;
        if (now >= deadline) {
          late_handshakes.push_back(connection.session);
        } else {
          consider(deadline);
        }
        break;
      }
      case Session::State::Authenticated: {
        // Control clients (status, logs -f, rsh) may rightly stay silent for long.
        if (session.claim().peer != "launcher") break;
        auto deadline = session.last_received() + silence_limit();
        if (now >= deadline) {
          silent.push_back(id);
        } else {
          consider(deadline);
        }
        break;
      }
      case Session::State::Closing: {
        auto deadline = session.closing_since() + options.flush_timeout;
        if (now >= deadline) {
          session.close();
        } else {
          consider(deadline);
        }
        break;
      }
      case Session::State::Closed:
        break;
    }
  }
  for (const auto& session : late_handshakes) {
    std::string reason = "no handshake within " + seconds_text(options.handshake_timeout);
    handshake_slots.release(session->id());
    refuse(session->address(), reason, now);
    session->reject(reason);
    consider(now + options.flush_timeout);
  }
  std::string why = "no heartbeat for " + seconds_text(silence_limit());
  if (cut_off(silent, why)) return;
  for (int id : silent) {
    auto it = connections.find(id);
    if (it == connections.end()) continue;
    it->second.session->close();
    lose(it->second, why);
  }
  if (auto due = refusals.next_due()) consider(*due);
  if (auto due = probes.next_due()) consider(*due);
  if (next) arm_watch(*next);
}

bool CoordinatorServer::Impl::cut_off(const std::vector<int>& silent, const std::string& why) {
  // Every launcher of the other nodes went silent at once while this node's own is heard:
  // this node, not theirs, is cut off (or every other failed together). Losing them one by
  // one would blame another node and journal restarts that cannot happen. "At once": when
  // the first passes its limit, the others have been quiet for all but the phase of their
  // heartbeats; a launcher that beats is never quiet for two intervals.
  if (silent.empty()) return false;
  const auto now = Clock::now();
  const auto quiet_limit = silence_limit() - 2 * options.settings.heartbeat_interval;
  std::vector<std::string> others_silent;
  std::size_t others = 0;
  bool own_heard = false;
  for (const auto& [id, connection] : connections) {
    const Session& session = *connection.session;
    if (!connection.machine_knows || session.state() != Session::State::Authenticated ||
        session.claim().peer != "launcher") {
      continue;
    }
    const bool quiet = std::find(silent.begin(), silent.end(), id) != silent.end() ||
                       now - session.last_received() >= quiet_limit;
    if (session.claim().node == own_node) {
      own_heard = own_heard || !quiet;
      continue;
    }
    ++others;
    if (quiet) others_silent.push_back(session.claim().node);
  }
  if (!own_heard || others < 2 || others_silent.size() != others) return false;
  std::sort(others_silent.begin(), others_silent.end());
  const std::string reason = "every other node went silent at once (" + why + " from " +
                             name_list(others_silent) +
                             ") while this node's launcher is heard: the coordinator's node " +
                             own_node + " is cut off from them (or they all failed together)";
  if (options.on_cut_off) {
    // Told once; it stops this server soon. Meanwhile nobody is lost one by one.
    if (!cut_off_told) options.on_cut_off(reason);
    cut_off_told = true;
    return true;
  }
  apply(machine.cut_off(reason + "; nothing can be restarted from here", Clock::now()));
  return true;
}

// ---- Finishing ----

void CoordinatorServer::Impl::begin_finish(int code, std::vector<std::string> absent_nodes) {
  if (finishing) return;
  finishing = true;
  exit_code = code;
  {
    std::lock_guard<std::mutex> lock(mutex);
    absent = std::move(absent_nodes);
  }
  machine_timer.cancel();
  accept_retry.cancel();
  error_code ignored;
  acceptor.close(ignored);
  finish_timer.expires_after(options.flush_timeout);
  finish_timer.async_wait([this](const error_code& ec) {
    if (!ec) stop();
  });
  // After the actions that came with Finish were carried out (their sends queued).
  asio::post(io, [this] { check_flushed(); });
}

void CoordinatorServer::Impl::check_flushed() {
  if (!finishing || stopped || lingering) return;
  for (const auto& [id, connection] : connections) {
    if (connection.session->pending_output() > 0) return;
  }
  stop();
}

std::string CoordinatorServer::Impl::render_metrics() {
  ++scrapes;
  if (lingering && ++final_scrapes == kFinalScrapes) {
    // Once this answer has gone out (it is written after this returns).
    linger_timer.expires_after(std::chrono::milliseconds(200));
    linger_timer.async_wait([this](const error_code& ec) {
      if (!ec) stop();
    });
  }
  return machine.metrics(Clock::now());
}

void CoordinatorServer::Impl::close_coordination() {
  error_code ignored;
  acceptor.close(ignored);
  machine_timer.cancel();
  watch_timer.cancel();
  finish_timer.cancel();
  accept_retry.cancel();
  for (auto& [id, connection] : connections) connection.session->close();
  connections.clear();
}

bool CoordinatorServer::Impl::linger() {
  if (lingering || !metrics_http || scrapes == 0 || monitoring.metrics_linger_seconds <= 0) {
    return false;
  }
  lingering = true;
  close_coordination();
  const std::int64_t seconds = monitoring.metrics_linger_seconds;
  emit(Record{journal::MetricsLinger{.seconds = seconds},
              "the job ended; serving its final metrics for up to " + std::to_string(seconds) +
                  "s, until scraped " + std::to_string(kFinalScrapes) +
                  " times (monitoring.metricsLinger)"});
  linger_timer.expires_after(std::chrono::seconds(seconds));
  linger_timer.async_wait([this](const error_code& ec) {
    if (!ec) stop();
  });
  return true;
}

void CoordinatorServer::Impl::flush_refusals() {
  for (const Record& record : refusals.due(Clock::time_point::max())) emit(record);
  for (const Record& record : probes.due(Clock::time_point::max())) emit(record);
}

void CoordinatorServer::Impl::stop() {
  if (stopped) return;
  if (linger()) return;
  flush_refusals();
  stopped = true;
  close_coordination();
  linger_timer.cancel();
  metrics_http.reset();
  io.stop();
  {
    std::lock_guard<std::mutex> lock(mutex);
    result = exit_code;
  }
  finished_cv.notify_all();
}

// ---- Records ----

void CoordinatorServer::Impl::emit(const Record& record) {
  if (!options.record) return;
  try {
    options.record(record);
  } catch (const std::exception& e) {
    // The sink is the journal itself: there is nowhere else to say it.
    terminal_say(2,
                 "pai-launch: coordinator: cannot record " + record.kind + ": " + e.what() + "\n");
  }
}

void CoordinatorServer::Impl::reject_record(const Session& session, const std::string& reason) {
  const net::PeerClaim& claim = session.claim();
  emit(Record{journal::ConnectionRejected{
                  .address = session.address(), .node = claim.node, .reason = reason},
              "rejected a connection from " + claim.peer + " " + claim.node + " (" +
                  session.address() + "): " + reason});
}

// ---- SessionListener ----

void CoordinatorServer::Impl::welcomed(Session& session) {
  auto it = connections.find(session.id());
  if (it == connections.end()) return;
  handshake_slots.release(session.id());
  if (finishing) {
    session.close();
    return;
  }
  it->second.machine_knows = true;
  Peer peer{session.claim().peer, session.claim().node, session.address()};
  apply(machine.connected(session.id(), peer, Clock::now()));
  if (peer.kind == "launcher") arm_watch(session.last_received() + silence_limit());
}

void CoordinatorServer::Impl::received(Session& session, const Json& message) {
  if (finishing) return;
  apply(machine.received(session.id(), message, Clock::now()));
}

void CoordinatorServer::Impl::failed(Session& session, const std::string& reason,
                                     bool protocol_error) {
  if (!session.authenticated()) {
    // Every connection that never authenticated is a refusal, whatever ended it: a wrong
    // token shows up here as a client hanging up on the server's proof. They are counted,
    // not journaled one by one: a flood of them is one record per address and second. One
    // closed before saying anything is a port probe (every node's network check probes the
    // coordinator's port that way): counted apart as "port-probes", not shown.
    handshake_slots.release(session.id());
    refuse(session.address(), reason, Clock::now(), !session.silent());
  } else if (protocol_error) {
    reject_record(session, reason);
  }
  auto it = connections.find(session.id());
  if (it != connections.end()) lose(it->second, reason);
  arm_watch(session.closing_since() + options.flush_timeout);
}

void CoordinatorServer::Impl::drained(Session&) {
  if (finishing) check_flushed();
}

void CoordinatorServer::Impl::closed(Session& session) {
  auto it = connections.find(session.id());
  if (it == connections.end()) return;
  Connection connection = std::move(it->second);
  connections.erase(it);
  handshake_slots.release(session.id());
  lose(connection, "connection closed");
  if (finishing) check_flushed();
}

// ---- CoordinatorServer ----

CoordinatorServer::CoordinatorServer(Plan plan, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(plan), std::move(options))) {
  impl_->listen();
  impl_->serve_metrics();
  impl_->accept();
  impl_->arm_machine();
  impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

CoordinatorServer::~CoordinatorServer() {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  // Counts still waiting for their round (the job ended within a second of them) are not lost.
  impl_->flush_refusals();
  impl_->metrics_http.reset();
  // Sessions held by pending handlers go with the io_context, after their sockets' owners.
  impl_->connections.clear();
}

int CoordinatorServer::port() const { return impl_->bound_port; }

void CoordinatorServer::goodput(const GoodputReading& reading) {
  Impl* impl = impl_.get();
  asio::post(impl->io, [impl, reading] {
    if (!impl->stopped) impl->apply(impl->machine.goodput(reading));
  });
}

int CoordinatorServer::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  if (!impl_->finished_cv.wait_for(lock, timeout, [&] { return impl_->result.has_value(); })) {
    return -1;
  }
  return *impl_->result;
}

std::vector<std::string> CoordinatorServer::absent() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->absent;
}

}  // namespace pai::launcher::coordinator
