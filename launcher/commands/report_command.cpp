#include "launcher/commands/report_command.h"

#include <system_error>

#include "launcher/report/log_folder.h"
#include "launcher/report/report_file.h"
#include "launcher/report/report_html.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

void say(const std::string& text) { write_all(2, "pai-launch: " + text + "\n"); }

}  // namespace

int log_folder_command(const std::function<void()>& body) {
  try {
    body();
  } catch (const report::LogFolderError& e) {
    say(std::string("error: ") + e.what());
    return 2;
  } catch (const std::system_error& e) {
    say(std::string("error: ") + e.what());
    return 1;
  }
  return 0;
}

int report_command(const ReportOptions& options) {
  const std::string out =
      options.output.empty() ? options.log_dir + "/" + report::kReportFile : options.output;
  return log_folder_command([&] {
    if (out == "-") {
      if (!write_all(1, report::render_report_html(report::read_log_folder(options.log_dir)))) {
        throw std::system_error(errno, std::system_category(), "cannot write the standard output");
      }
      return;
    }
    report::write_report(options.log_dir, out);
    say("report: " + out);
  });
}

}  // namespace pai::launcher
