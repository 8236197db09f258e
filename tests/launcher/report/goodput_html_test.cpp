#include "launcher/report/goodput_html.h"

#include <catch2/catch.hpp>

namespace goodput_html_test {

using namespace pai::launcher;
using goodput::Cause;

TEST_CASE("the waterfall: each cause's bar starts where the previous one ended") {
  goodput::Account a;
  a.first_ms = 0;
  a.last_ms = 100000;
  a.rank_slots = 2;
  a.causes[Cause::StartUp] = 20;
  a.causes[Cause::Productive] = 150;
  a.causes[Cause::Unknown] = 30;
  a.notes = {"a <note> & more"};
  const std::string html = report::goodput_html(a);
  CHECK(html.rfind("<section id=\"goodput\"><h2>Goodput</h2>", 0) == 0);
  CHECK(html.find("ETTR <b>75.0%</b> of 2 rank slots &times; 100.0 s") != std::string::npos);
  CHECK(html.find("<td>start-up</td><td class=\"t\">20.0</td><td class=\"t\">10.0%</td>"
                  "<td class=\"wf\"><div class=\"wf-bar g-start-up\" "
                  "style=\"margin-left:0.000%;width:10.000%\">") != std::string::npos);
  CHECK(html.find("g-productive\" style=\"margin-left:10.000%;width:75.000%\"") !=
        std::string::npos);
  CHECK(html.find("g-unknown\" style=\"margin-left:85.000%;width:15.000%\"") != std::string::npos);
  CHECK(html.find("<li>a &lt;note&gt; &amp; more</li>") != std::string::npos);
  CHECK(html.find("<note>") == std::string::npos);
}

TEST_CASE("an account without rank-seconds says so") {
  CHECK(report::goodput_html(goodput::Account{}) ==
        "<section id=\"goodput\"><h2>Goodput</h2><p class=\"quiet\">No rank-second to account "
        "for.</p></section>");
}

}  // namespace goodput_html_test
