#include "libpai/etcd_endpoint.h"

#include <catch2/catch.hpp>

namespace etcd_endpoint_test {

using pai::parse_etcd_endpoint;

TEST_CASE("an etcd endpoint is http://HOST:PORT") {
  std::string why;
  auto e = parse_etcd_endpoint("http://10.0.0.5:2379", &why);
  REQUIRE(e);
  CHECK(e->host == "10.0.0.5");
  CHECK(e->port == 2379);
  CHECK(why.empty());
  e = parse_etcd_endpoint("http://etcd-1.cluster.local:2379/", &why);
  REQUIRE(e);
  CHECK(e->host == "etcd-1.cluster.local");
  e = parse_etcd_endpoint("http://[fd00::5]:2379", &why);
  REQUIRE(e);
  CHECK(e->host == "fd00::5");
}

TEST_CASE("an etcd endpoint that is anything else says what is wrong") {
  std::string why;
  CHECK_FALSE(parse_etcd_endpoint("https://10.0.0.5:2379", &why));
  CHECK_THAT(why, Catch::Contains("https is not supported"));
  for (const char* bad : {"10.0.0.5:2379", "http://10.0.0.5", "http://:2379", "http://h:0",
                          "http://h:65536", "http://h:23x9", "http://h:", "http://fd00::5:2379",
                          "http://h/path:2379", "http://user@h:2379", "http://h:2379/v3"}) {
    INFO(bad);
    CHECK_FALSE(parse_etcd_endpoint(bad, &why));
    CHECK(why == "expected http://HOST:PORT");
  }
}

}  // namespace etcd_endpoint_test
