#include "launcher/report/drill_html.h"

#include <catch2/catch.hpp>

namespace drill_html_test {

using pai::DrillFault;
using pai::launcher::report::drill_html;
using pai::launcher::report::FaultScore;

TEST_CASE("the drill section lists each fault - none without a drill, text escaped") {
  CHECK(drill_html({}).empty());
  FaultScore kill;
  kill.injection = {DrillFault::RankKill, "worker-1", "node-<2>", 3, 0, 1767323045000};
  kill.detect_ms = 16;
  kill.detected_by = "exited: worker-1 local rank 1 (signal 9)";
  kill.named_right = true;
  kill.restarted = true;
  kill.recover_ms = 3205;
  kill.lost_steps = 19;
  FaultScore loss;
  loss.injection = {DrillFault::NodeLoss, "worker-1", "node-2", -1, 0, 1767323099000};
  loss.job_ended = "failed";
  loss.carried_out = true;
  FaultScore refused;
  refused.injection = {DrillFault::CollectiveHang, "worker-1", "node-2", 3, 15, 1767323199000};
  const std::string html = drill_html({kill, loss, refused});
  CHECK(html.find("<section id=\"drill\">") == 0);
  CHECK(html.find("<td>2026-01-02T03:04:05.000Z</td><td>rank-kill</td>") != std::string::npos);
  CHECK(html.find("worker-1 rank 3 on node-&lt;2&gt;") != std::string::npos);
  CHECK(html.find("<td>0.02 s</td>") != std::string::npos);
  CHECK(html.find("<td>3.21 s</td><td>19</td>") != std::string::npos);
  CHECK(html.find("worker-1 on node-2") != std::string::npos);
  CHECK(html.find("not detected; the job failed before it recovered") != std::string::npos);
  CHECK(html.find("node-<2>") == std::string::npos);
  // A fault its node has no record of putting in says so, as the terminal's scorecard does.
  CHECK(html.find("<td>collective-hang</td>") != std::string::npos);
  CHECK(html.find("not detected; no record of the node putting it in (its launcher&#39;s output "
                  "says why)") != std::string::npos);
}

}  // namespace drill_html_test
