#include "launcher/checks/dcb_config.h"

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <vector>

namespace pai::checks {
namespace {

// Calls `fn(type, payload, length)` for every well-formed attribute in [data, data + size).
void for_each_attribute(const unsigned char* data, std::size_t size,
                        const std::function<void(int, const unsigned char*, std::size_t)>& fn) {
  std::size_t at = 0;
  while (size - at >= NLA_HDRLEN) {
    nlattr header;
    std::memcpy(&header, data + at, sizeof header);
    if (header.nla_len < NLA_HDRLEN || header.nla_len > size - at) return;
    fn(header.nla_type & NLA_TYPE_MASK, data + at + NLA_HDRLEN, header.nla_len - NLA_HDRLEN);
    at += NLA_ALIGN(header.nla_len);
    if (at > size) return;
  }
}

}  // namespace

std::optional<DcbConfig> parse_dcb_ieee_reply(const unsigned char* attributes, std::size_t size) {
  std::optional<DcbConfig> config;
  for_each_attribute(attributes, size, [&](int type, const unsigned char* ieee, std::size_t n) {
    if (type != DCB_ATTR_IEEE) return;
    config.emplace();
    for_each_attribute(ieee, n, [&](int t, const unsigned char* p, std::size_t len) {
      if (t == DCB_ATTR_IEEE_PFC && len >= sizeof(ieee_pfc)) {
        ieee_pfc pfc;
        std::memcpy(&pfc, p, sizeof pfc);
        config->pfc_enabled = pfc.pfc_en;
      } else if (t == DCB_ATTR_IEEE_APP_TABLE) {
        for_each_attribute(p, len, [&](int a, const unsigned char* q, std::size_t m) {
          if (a != DCB_ATTR_IEEE_APP || m < sizeof(dcb_app)) return;
          dcb_app app;
          std::memcpy(&app, q, sizeof app);
          if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP && app.protocol < 64 && app.priority < 8) {
            config->dscp_priority[app.protocol] = app.priority;
          }
        });
      }
    });
  });
  return config;
}

std::optional<DcbConfig> KernelDcbReader::read(const std::string& netdev) {
  if (netdev.empty() || netdev.size() >= IFNAMSIZ) return std::nullopt;
  const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return std::nullopt;
  struct {
    nlmsghdr header;
    dcbmsg dcb;
    nlattr name_header;
    char name[IFNAMSIZ];
  } request{};
  request.header.nlmsg_len = sizeof request;
  request.header.nlmsg_type = RTM_GETDCB;
  request.header.nlmsg_flags = NLM_F_REQUEST;
  request.header.nlmsg_seq = 1;
  request.dcb.dcb_family = AF_UNSPEC;
  request.dcb.cmd = DCB_CMD_IEEE_GET;
  request.name_header.nla_len = static_cast<std::uint16_t>(NLA_HDRLEN + netdev.size() + 1);
  request.name_header.nla_type = DCB_ATTR_IFNAME;
  std::memcpy(request.name, netdev.c_str(), netdev.size() + 1);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  std::optional<DcbConfig> config;
  if (::sendto(fd, &request, sizeof request, 0, reinterpret_cast<sockaddr*>(&kernel),
               sizeof kernel) == static_cast<ssize_t>(sizeof request)) {
    // The kernel answers at once; the poll only bounds a kernel that never does.
    pollfd p{fd, POLLIN, 0};
    std::vector<unsigned char> reply(16384);
    if (::poll(&p, 1, 1000) == 1) {
      const ssize_t n = ::recv(fd, reply.data(), reply.size(), 0);
      if (n >= static_cast<ssize_t>(NLMSG_HDRLEN)) {
        nlmsghdr header;
        std::memcpy(&header, reply.data(), sizeof header);
        const std::size_t length =
            std::min<std::size_t>(header.nlmsg_len, static_cast<std::size_t>(n));
        const std::size_t body = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(dcbmsg));
        if (header.nlmsg_type == RTM_GETDCB && length >= body) {
          config = parse_dcb_ieee_reply(reply.data() + body, length - body);
        }
      }
    }
  }
  ::close(fd);
  return config;
}

}  // namespace pai::checks
