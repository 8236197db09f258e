#include "launcher/report/report_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "launcher/report/log_folder.h"
#include "launcher/report/report_html.h"
#include "libpai/write_all.h"

namespace pai::launcher::report {

void write_report(const std::string& log_dir, const std::string& out_path) {
  const std::string html = render_report_html(read_log_folder(log_dir));
  const std::string temp = out_path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) throw std::system_error(errno, std::system_category(), "cannot write " + out_path);
  const bool written = write_all(fd, html);
  const int write_error = errno;
  const bool closed = ::close(fd) == 0;
  const int close_error = errno;
  if (!written || !closed) {
    ::unlink(temp.c_str());
    throw std::system_error(!written ? write_error : close_error, std::system_category(),
                            "cannot write " + out_path);
  }
  if (::rename(temp.c_str(), out_path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw std::system_error(error, std::system_category(), "cannot write " + out_path);
  }
}

bool write_report_beside_logs(const std::string& log_dir, int warn_fd,
                              std::uintmax_t max_bytes) noexcept {
  const std::string path = log_dir + "/" + kReportFile;
  std::string why;
  try {
    std::uintmax_t bytes = 0;
    for (const std::string& journal : find_journals(log_dir)) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(journal, ec);
      if (!ec) bytes += size;
    }
    if (bytes > max_bytes) {
      write_all(warn_fd, "pai-launch: report: not written at the end: the journals hold " +
                             std::to_string(bytes >> 20) + " MiB; pai-launch report " + log_dir +
                             " writes it\n");
      return false;
    }
    write_report(log_dir, path);
    write_all(warn_fd, "pai-launch: report: " + path + "\n");
    return true;
  } catch (const std::system_error& e) {
    why = e.code().message();
  } catch (const std::exception& e) {
    why = e.what();
  } catch (...) {
    why = "unknown error";
  }
  try {
    write_all(warn_fd, "pai-launch: warning: cannot write the job report " + path + ": " + why +
                           "; the logs are intact\n");
  } catch (...) {
  }
  return false;
}

}  // namespace pai::launcher::report
