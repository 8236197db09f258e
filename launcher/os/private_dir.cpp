#include "launcher/os/private_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pai::launcher {

namespace {

[[noreturn]] void refuse(const std::string& dir, const std::string& why, const std::string& fix) {
  throw PrivateDirError("the control socket folder " + dir + " " + why + "; " + fix);
}

// lstat of `dir`, which must be a real folder (not a symlink to one).
struct stat folder_status(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    refuse(dir, std::string("cannot be read: ") + std::strerror(errno), "check its path");
  }
  if (S_ISLNK(st.st_mode)) refuse(dir, "is a symbolic link", "remove it");
  if (!S_ISDIR(st.st_mode)) refuse(dir, "is not a folder", "remove it");
  return st;
}

std::string owner_text(uid_t uid) { return "owned by uid " + std::to_string(uid); }

}  // namespace

std::string make_private_dir(const std::string& root, const std::string& name) {
  const uid_t me = ::geteuid();
  if (::mkdir(root.c_str(), 01777) == 0) {
    ::chmod(root.c_str(), 01777);  // the umask took bits away
  } else if (errno != EEXIST) {
    refuse(root, std::string("cannot be created: ") + std::strerror(errno), "check its parent");
  }
  const struct stat root_st = folder_status(root);
  // The owner of a folder may rename anything in it, sticky bit or not: a root of another
  // user's could move the job's folder away after it was verified and put theirs in its place.
  if (root_st.st_uid != me && root_st.st_uid != 0) {
    refuse(root,
           "is " + owner_text(root_st.st_uid) +
               ", who could move the job's folder away and take its control sockets",
           "remove it as root (rm -rf " + root + "); the first launcher creates it again, 1777");
  }
  const bool others_write = (root_st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (others_write && (root_st.st_mode & S_ISVTX) == 0) {
    refuse(root, "is writable by others without the sticky bit",
           "chmod 1777 it as root, or remove it");
  }

  const std::string dir = root + "/" + name;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    refuse(dir, std::string("cannot be created: ") + std::strerror(errno), "check " + root);
  }
  const struct stat st = folder_status(dir);
  if (st.st_uid != me) {
    refuse(
        dir, "is " + owner_text(st.st_uid) + ", not by this user (uid " + std::to_string(me) + ")",
        "another user runs a job of this name, or planted the folder: remove it or rename the job");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    refuse(dir, std::string("is writable by group or others (mode ") + mode + ")",
           "remove it or chmod 700 it");
  }
  return dir;
}

}  // namespace pai::launcher
