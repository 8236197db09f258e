// libFuzzer harness over the metrics endpoint's request handling
// (launcher/coordinator/metrics_http.h): any bytes a scraper, a port scanner or a hostile
// client sends as a request head get an answer, never an exception or a crash, and the answer
// on the wire is well formed: its status is one the endpoint gives, its Content-Length is the
// body's size, and only a 200 to GET carries the rendered page.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "launcher/coordinator/metrics_http.h"

namespace {

constexpr std::string_view kPage = "pai_up 1\n";
constexpr std::string_view kType = "text/plain; version=0.0.4";

bool known_status(int status) {
  return status == 200 || status == 400 || status == 404 || status == 405 || status == 500;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view head(reinterpret_cast<const char*>(data), size);
  // An input ending in 0xff makes render throw, to reach the 500 path.
  const bool render_throws = size > 0 && data[size - 1] == 0xff;
  const auto render = [&]() -> std::string {
    if (render_throws) throw std::runtime_error("render failed");
    return std::string(kPage);
  };
  const pai::launcher::coordinator::HttpAnswer answer =
      pai::launcher::coordinator::answer_request(head, render, kType);
  if (!known_status(answer.status)) __builtin_trap();
  if (answer.status == 200 && answer.body != kPage) __builtin_trap();
  const std::string wire = pai::launcher::coordinator::http_response(answer);
  const std::string status_line = "HTTP/1.1 " + std::to_string(answer.status) + " ";
  if (wire.compare(0, status_line.size(), status_line) != 0) __builtin_trap();
  const std::string length = "Content-Length: " + std::to_string(answer.body.size()) + "\r\n";
  if (wire.find(length) == std::string::npos) __builtin_trap();
  const std::size_t end = wire.find("\r\n\r\n");
  if (end == std::string::npos) __builtin_trap();
  const std::string_view payload = std::string_view(wire).substr(end + 4);
  if (payload != (answer.head ? std::string_view() : std::string_view(answer.body)))
    __builtin_trap();
  return 0;
}
