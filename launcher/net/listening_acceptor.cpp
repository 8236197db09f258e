#include "launcher/net/listening_acceptor.h"

#include <utility>

namespace pai::net {

namespace asio = boost::asio;
using asio::ip::tcp;

int listen_on(tcp::acceptor& acceptor, const tcp::endpoint& endpoint) {
  acceptor.open(endpoint.protocol());
  acceptor.set_option(tcp::acceptor::reuse_address(true));
  acceptor.bind(endpoint);
  acceptor.listen(asio::socket_base::max_listen_connections);
  return acceptor.local_endpoint().port();
}

void accept_again(const boost::system::error_code& error, asio::steady_timer& retry,
                  std::function<void()> accept) {
  if (error == asio::error::connection_aborted) {
    accept();
    return;
  }
  retry.expires_after(kAcceptRetry);
  retry.async_wait([accept = std::move(accept)](const boost::system::error_code& wait_error) {
    if (!wait_error) accept();
  });
}

}  // namespace pai::net
