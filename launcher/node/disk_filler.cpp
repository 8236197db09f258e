#include "launcher/node/disk_filler.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace pai::launcher {

namespace {

std::string error_text(int error) { return std::strerror(error); }

}  // namespace

const char* shared_file_system(long type) {
  // linux/magic.h and the file systems' own sources.
  switch (static_cast<unsigned long>(type)) {
    case 0x6969UL:
      return "nfs";
    case 0x0BD00BD0UL:
      return "lustre";
    case 0x47504653UL:
      return "gpfs";
    case 0x00C36400UL:
      return "ceph";
    case 0x19830326UL:
      return "beegfs";
    case 0x517BUL:
      return "smb";
    case 0xFF534D42UL:
      return "cifs";
    case 0xFE534D42UL:
      return "smb2";
    case 0x01021997UL:
      return "9p";
    case 0x65735546UL:
      return "fuse";
    case 0x013111A8UL:
      return "ibrix";
    case 0x5346414FUL:
      return "afs";
    default:
      return nullptr;
  }
}

DiskFiller::DiskFiller(std::string output_dir) : output_dir_(std::move(output_dir)) {}

DiskFiller::~DiskFiller() { empty(); }

std::string DiskFiller::fill(int seconds) {
  empty();
  if (output_dir_.empty()) {
    return "the job has no output folder (the spec's `output`): there is no disk of its to fill";
  }
  struct stat folder {};
  struct stat root {};
  struct statfs fs {};
  if (::stat(output_dir_.c_str(), &folder) != 0 || ::statfs(output_dir_.c_str(), &fs) != 0) {
    return "cannot read the output folder " + output_dir_ + ": " + error_text(errno);
  }
  if (::stat("/", &root) == 0 && root.st_dev == folder.st_dev) {
    return "the output folder " + output_dir_ +
           " is on the root file system: filling it would fail the node, not only the job; "
           "drill a full disk where the output folder has a file system of its own";
  }
  if (const char* shared = shared_file_system(static_cast<long>(fs.f_type))) {
    return "the output folder " + output_dir_ + " is on a shared file system (" + shared +
           "): filling it would fill it for every job and user of it";
  }
  const std::string path = output_dir_ + "/" + kDiskFillerName;
  ::unlink(path.c_str());  // a killed launcher's, if its undo did not run
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return "cannot create " + path + ": " + error_text(errno);
  // What went wrong, with the file gone again.
  auto failed = [&](const std::string& why) {
    ::close(fd);
    ::unlink(path.c_str());
    return why;
  };
  // As much as the file system has, halving what is asked for whenever it has less, down to one
  // block: nothing but the file system's own reserve is left (and that one too for root).
  struct statvfs vfs {};
  if (::fstatvfs(fd, &vfs) != 0) {
    return failed("cannot read the free space of " + output_dir_ + ": " + error_text(errno));
  }
  const off_t block = static_cast<off_t>(vfs.f_frsize > 0 ? vfs.f_frsize : 4096);
  off_t chunk = static_cast<off_t>(vfs.f_bfree) * block;
  off_t filled = 0;
  while (chunk >= block) {
    if (::fallocate(fd, 0, filled, chunk) == 0) {
      filled += chunk;
    } else if (errno == ENOSPC || errno == EFBIG) {
      chunk /= 2;
    } else {
      return failed(errno == EOPNOTSUPP
                        ? "the output folder's file system cannot preallocate (fallocate) a file"
                        : "cannot fill " + path + ": " + error_text(errno));
    }
  }
  ::close(fd);
  file_ = path;
  try {
    undo_.start({"/bin/rm", "-f", "--", path}, seconds);
  } catch (const std::exception& e) {
    empty();
    return std::string("cannot start the file's delayed removal: ") + e.what();
  }
  return "";
}

std::string DiskFiller::empty() {
  if (file_.empty()) return "";
  undo_.cancel();
  const std::string path = std::exchange(file_, "");
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return "cannot remove " + path + ": " + error_text(errno);
  }
  return "";
}

}  // namespace pai::launcher
