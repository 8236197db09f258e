// A TCP server's listening socket on a Boost.Asio loop: opened, bound and listening in one
// call, and accepted on again after an error without spinning. The coordinator's port, its
// /metrics endpoint and the ranks' store listen through it.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <functional>

namespace pai::net {

/// How long accept_again() waits after an accept error such as EMFILE.
inline constexpr std::chrono::milliseconds kAcceptRetry{50};

/// Opens `acceptor` for `endpoint`'s protocol with SO_REUSEADDR (a port of an earlier run whose
/// connections linger in TIME_WAIT can be bound again), binds it to `endpoint` and listens with
/// the system's largest backlog. Returns the port bound: `endpoint`'s, or the system's choice
/// for port 0. Throws boost::system::system_error; the caller says what it was listening for.
int listen_on(boost::asio::ip::tcp::acceptor& acceptor,
              const boost::asio::ip::tcp::endpoint& endpoint);

/// What a server does after an accept that failed with `error`, other than operation_aborted
/// (its acceptor closed: nothing is to be done): calls `accept` at once for ECONNABORTED (a
/// client gave up in the listen queue; the next may be waiting), else once `retry` has waited
/// kAcceptRetry. EMFILE, ENFILE or ENOBUFS would fail again at once, and a server that tried
/// again at once would burn a core for as long as they last; the clients' connects wait in the
/// listen queue meanwhile. A cancelled wait (cancel `retry` to shut down) calls nothing.
void accept_again(const boost::system::error_code& error, boost::asio::steady_timer& retry,
                  std::function<void()> accept);

}  // namespace pai::net
