#include "launcher/report/report_html.h"

#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "launcher/report/history_builder.h"
#include "launcher/report/journal_fixture.h"
#include "launcher/report/timeline_svg.h"

namespace report_html_test {

using namespace pai::launcher::report;
using namespace pai::testing;

namespace {

JobHistory history_of(const std::string& journal, const std::string& folder = "worker-0") {
  JobHistoryBuilder b;
  b.begin_journal(folder == "coordinator", folder);
  std::istringstream in(journal);
  for (std::string l; std::getline(in, l);) {
    const auto r = entry_of(l);
    REQUIRE(r);
    b.add(*r);
  }
  b.end_journal(JournalInfo{"/logs/" + folder + "/events.jsonl", {}});
  return b.finish("/logs");
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("the report shows the outcome, the timeline with both attempts and the restart") {
  const std::string html = render_report_html(history_of(restarted_job_journal()));
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">", 0) == 0);
  CHECK(html.find("<title>pai job report: train (succeeded)</title>") != std::string::npos);
  CHECK(html.find("<span class=\"badge o-succeeded\">succeeded, exit code 0</span>") !=
        std::string::npos);
  CHECK(html.find("<p class=\"headline\" id=\"headline\">the job succeeded after 1 restart</p>") !=
        std::string::npos);
  CHECK(count(html, "<svg id=\"timeline-svg\"") == 1);
  CHECK(count(html, "<g class=\"attempt a-failed\">") == 1);
  CHECK(count(html, "<g class=\"attempt a-succeeded\">") == 1);
  CHECK(count(html,
              "<g class=\"mark k-restart\"><title>03:04:06.001 localhost: restart: restart 1 "
              "in 0s: exit code 1: retryable (&quot;NCCL error&quot; in the log)</title>") == 1);
  CHECK(count(html, "<g class=\"mark k-failure\">") == 1);
  CHECK(html.find(">localhost</text>") != std::string::npos);
  CHECK(html.find("No record in the journals carries a step") != std::string::npos);
  CHECK(html.ends_with("</main></body></html>\n"));
}

TEST_CASE("the report fetches nothing and runs no script") {
  const std::string html = render_report_html(history_of(restarted_job_journal()));
  for (const char* needle :
       {"<script", "<link", "src=", "href=", "url(", "@import", "http:", "https:"}) {
    INFO(needle);
    // The SVG namespace is an identifier, not something fetched.
    std::string rest =
        std::regex_replace(html, std::regex("xmlns=\"http://www.w3.org/2000/svg\""), "");
    CHECK(rest.find(needle) == std::string::npos);
  }
}

TEST_CASE("hostile node names and messages are escaped everywhere they appear") {
  const std::string evil_node = "<script>alert('node')</script>\"&";
  const std::string evil_message = "</title><script>alert(1)</script><img src=x onerror=alert(2)>";
  JobHistory h = history_of(restarted_job_journal(evil_node, evil_message) +
                            line(4000, "job-failed",
                                 {{"job", s("t<b>x</b>")},
                                  {"reason", s("<u>under</u>\n<i>summary</i>\x01")},
                                  {"exitCode", i(1)}}));
  const std::string html = render_report_html(h);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("<u>") == std::string::npos);
  CHECK(html.find("<i>") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&#39;node&#39;)&lt;/script&gt;&quot;&amp;") !=
        std::string::npos);
  CHECK(html.find("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x "
                  "onerror=alert(2)&gt;") != std::string::npos);
  CHECK(html.find("&lt;i&gt;summary&lt;/i&gt;\\x01") != std::string::npos);
  // Every tag in the page is one the renderer writes.
  const std::regex tag("<([a-zA-Z!/][a-zA-Z0-9]*)");
  std::set<std::string> tags;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), tag); it != std::sregex_iterator();
       ++it) {
    tags.insert((*it)[1].str());
  }
  for (const std::string& t : tags) {
    INFO(t);
    CHECK(std::set<std::string>{
              "!DOCTYPE", "html",     "/html", "head",  "/head", "meta",   "title",   "/title",
              "style",    "/style",   "body",  "/body", "main",  "/main",  "header",  "/header",
              "h1",       "/h1",      "h2",    "/h2",   "span",  "/span",  "p",       "/p",
              "section",  "/section", "div",   "/div",  "svg",   "/svg",   "rect",    "g",
              "/g",       "line",     "text",  "/text", "path",  "circle", "ul",      "/ul",
              "li",       "/li",      "pre",   "/pre",  "table", "/table", "tr",      "/tr",
              "th",       "/th",      "td",    "/td",   "b",     "/b",     "polyline"}
              .count(t) == 1);
  }
}

TEST_CASE("many marks on the same pixels are drawn once with their count") {
  std::string journal =
      line(0, "launcher-started", {{"node", s("n1")}, {"instance", s("worker-0")}}) +
      line(1, "start", {{"instance", s("worker-0")}, {"attempt", i(0)}});
  for (int k = 0; k < 300; ++k) {
    journal += line(1000 + k, "notify", {{"instance", s("worker-0")}, {"message", s("m")}});
  }
  journal += line(100000, "job-succeeded");
  const std::string html = render_report_html(history_of(journal));
  CHECK(count(html, "<g class=\"mark k-notify\">") <= 3);
  CHECK(html.find("more near it)") != std::string::npos);
}

TEST_CASE("the step rate is drawn when records carry steps") {
  std::string journal =
      line(0, "launcher-started", {{"node", s("n1")}, {"instance", s("worker-0")}}) +
      line(1, "start", {{"instance", s("worker-0")}, {"attempt", i(0)}});
  for (int k = 0; k < 50; ++k) {
    journal += line(1000 * k, "checkpoint",
                    {{"instance", s("worker-0")}, {"step", i(k * 10)}, {"path", s("/c")}});
  }
  const JobHistory h = history_of(journal);
  const std::string html = render_report_html(h);
  CHECK(count(html, "<svg id=\"step-rate-svg\"") == 1);
  CHECK(count(html, "<polyline class=\"rate\" points=\"") == 1);
  CHECK(html.find("50 step records in 50 buckets of 1.0 s.") != std::string::npos);
  CHECK(html.find(">10/s</text>") != std::string::npos);
}

TEST_CASE("times read like a person wrote them") {
  CHECK(utc_text(kT0 + 678) == "2026-01-02 03:04:05Z");
  CHECK(utc_text(kT0 + 678, true) == "03:04:05.678");
}

}  // namespace report_html_test
