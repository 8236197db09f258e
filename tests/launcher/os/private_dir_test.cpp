#include "launcher/os/private_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "support/temp_dir.h"

namespace private_dir_test {

using namespace pai::launcher;
using pai::testing::TempDir;

namespace {

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// Another user's uid, for the cases only root can set up.
constexpr uid_t kNobody = 65534;

}  // namespace

TEST_CASE("the control folder is created 0700 in a root shared like /tmp") {
  TempDir dir;
  const std::string root = dir / "pai";
  CHECK(make_private_dir(root, "job") == root + "/job");
  CHECK(mode_of(root) == 01777);
  CHECK(mode_of(root + "/job") == 0700);
  // Again: the folder is ours and private, so it is used as it is.
  CHECK(make_private_dir(root, "job") == root + "/job");
}

TEST_CASE("a control folder others can write to is refused") {
  TempDir dir;
  ::mkdir((dir / "job").c_str(), 0700);
  ::chmod((dir / "job").c_str(), 0777);
  CHECK_THROWS_WITH(make_private_dir(dir.path(), "job"),
                    "the control socket folder " + dir / "job" +
                        " is writable by group or others (mode 0777); remove it or chmod 700 it");
  ::chmod((dir / "job").c_str(), 0770);
  CHECK_THROWS_AS(make_private_dir(dir.path(), "job"), PrivateDirError);
}

TEST_CASE("a symlink or a file in the control folder's place is refused") {
  TempDir dir;
  ::mkdir((dir / "elsewhere").c_str(), 0700);
  REQUIRE(::symlink((dir / "elsewhere").c_str(), (dir / "job").c_str()) == 0);
  CHECK_THROWS_WITH(make_private_dir(dir.path(), "job"),
                    "the control socket folder " + dir / "job" + " is a symbolic link; remove it");
  pai::testing::spit(dir / "file", "");
  CHECK_THROWS_WITH(make_private_dir(dir.path(), "file"),
                    "the control socket folder " + dir / "file" + " is not a folder; remove it");
  REQUIRE(::symlink((dir / "elsewhere").c_str(), (dir / "root-link").c_str()) == 0);
  CHECK_THROWS_WITH(make_private_dir(dir / "root-link", "job"),
                    Catch::Contains("root-link is a symbolic link"));
}

TEST_CASE("a control folder or an open root owned by another user is refused") {
  if (::geteuid() != 0) {
    WARN("not root: cannot give a folder to another user; ownership checks not exercised");
    return;
  }
  TempDir dir;
  ::mkdir((dir / "job").c_str(), 0700);
  REQUIRE(::chown((dir / "job").c_str(), kNobody, kNobody) == 0);
  CHECK_THROWS_WITH(make_private_dir(dir.path(), "job"),
                    Catch::Contains("is owned by uid 65534, not by this user (uid 0)"));

  const std::string root = dir / "open-root";
  ::mkdir(root.c_str(), 0777);
  ::chmod(root.c_str(), 0777);
  REQUIRE(::chown(root.c_str(), kNobody, kNobody) == 0);
  CHECK_THROWS_WITH(make_private_dir(root, "job"),
                    Catch::Contains("is owned by uid 65534, who could move the job's folder away"));
  // The sticky bit does not stop the folder's owner (the audit's /tmp/pai of another user,
  // mode 1777 or 0755): still refused, before anything is created in it.
  for (const mode_t mode : {01777, 0755}) {
    ::chmod(root.c_str(), mode);
    CHECK_THROWS_WITH(make_private_dir(root, "job"),
                      Catch::Contains("is owned by uid 65534, who could move the job's folder "
                                      "away and take its control sockets; remove it as root"));
    CHECK(::access((root + "/job").c_str(), F_OK) != 0);
  }
  // Root's own shared root, like /tmp, is used; so is one writable by others only with the
  // sticky bit.
  REQUIRE(::chown(root.c_str(), 0, 0) == 0);
  ::chmod(root.c_str(), 01777);
  CHECK(make_private_dir(root, "job") == root + "/job");
  ::chmod(root.c_str(), 0777);
  CHECK_THROWS_WITH(make_private_dir(root, "job2"),
                    Catch::Contains("writable by others without the sticky bit"));
}

}  // namespace private_dir_test
