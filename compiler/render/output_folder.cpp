// Why a whole-folder swap: file-by-file replacement left, after an ENOSPC halfway, the new
// plan.json next to the old env scripts, and stale scripts of a bigger earlier plan behind.
// Why a mark: `-o` into a user's folder deleted its env/ and roles/ and overwrote hostfile.
#include "compiler/render/output_folder.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "compiler/render/atomic_file.h"
#include "libpai/bounded_file.h"

namespace pai {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxMarkBytes = 4096;

const char* const kMarkText =
    "pai-compile " PAI_VERSION
    "\nThis folder holds artifacts written by pai-compile; pai-compile -o replaces them as a "
    "whole.\n";

/// Where the output folder is: its path, its parent folder and its name there.
struct Place {
  std::string dir;
  std::string parent;
  std::string name;
};

void strip_trailing_slashes(std::string* path) {
  while (path->size() > 1 && path->back() == '/') path->pop_back();
}

bool ends_in_dots(const std::string& path) {
  return path == "." || path == ".." ||
         (path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0);
}

// "out/" is "out" (lstat("out/") would follow a link named out); "." and "x/.." have no name
// of their own in their parent, so they become absolute.
Place place_of(const std::string& given) {
  std::string path = fs::path(given.empty() ? "." : given).lexically_normal().string();
  strip_trailing_slashes(&path);
  if (ends_in_dots(path)) {
    path = fs::absolute(path).lexically_normal().string();
    strip_trailing_slashes(&path);
  }
  const fs::path p(path);
  if (path == "/" || p.filename().empty()) {
    throw OutputFolderRefused("cannot use '" + given +
                              "' as the output folder: pai-compile replaces its output folder "
                              "whole; name a folder inside it");
  }
  Place place;
  place.dir = path;
  place.parent = p.parent_path().empty() ? "." : p.parent_path().string();
  place.name = p.filename().string();
  return place;
}

std::vector<std::string> entries(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) throw std::runtime_error("cannot read directory '" + dir + "': " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

bool is_marked(const std::string& dir) {
  const std::string mark = dir + "/" + kOutputMark;
  struct stat st {};
  if (::lstat(mark.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  try {
    return read_bounded_regular_file(mark, kMaxMarkBytes, "output folder mark")
               .rfind("pai-compile ", 0) == 0;
  } catch (const BoundedFileError&) {
    return false;
  }
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

// The permission bits of the folder to replace, or nullopt when there is none. Refuses what
// must not be replaced; changes nothing.
std::optional<mode_t> check_target(const Place& place, const OutputFolderOptions& options) {
  struct stat st {};
  if (::lstat(place.dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw std::runtime_error("cannot use output folder '" + place.dir +
                             "': " + std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(place.dir, ec);
    throw OutputFolderRefused("refusing to write into '" + place.dir + "': it is a symbolic link" +
                              (ec ? std::string() : " (to '" + target.string() + "')") +
                              " and pai-compile does not write through links; name the folder "
                              "itself with -o, or remove the link");
  }
  if (!S_ISDIR(st.st_mode)) {
    throw std::runtime_error("cannot create directory '" + place.dir + "': Not a directory");
  }
  if (!options.force && !is_marked(place.dir) && !entries(place.dir).empty()) {
    const std::string artifacts = joined(options.artifact_names);
    throw OutputFolderRefused("refusing to write into '" + place.dir + "': it is not empty and " +
                              "has no " + kOutputMark + " mark, so pai-compile did not write " +
                              "it; use a new or empty folder, or pass --force to replace its " +
                              artifacts + " (other files are kept)");
  }
  return st.st_mode & 07777;
}

void remove_quietly(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

std::string mount_hint(int err, const std::string& path) {
  if (err != EXDEV && err != EBUSY) return "";
  return " (is '" + path + "' a mount point? pai-compile moves folders by renaming them)";
}

/// Entries of the old folder moved into the staging folder, so that they can be moved back.
class Carried {
 public:
  Carried(std::string from, std::string to) : from_(std::move(from)), to_(std::move(to)) {}

  // Moves `name` from the old folder into the new one. A folder the new set created empty
  // (logs/ for Slurm) gives way to the old one. 0 or the errno of the failure.
  int move(const std::string& name) {
    const std::string to = to_ + "/" + name;
    struct stat st {};
    if (::lstat(to.c_str(), &st) == 0 && (!S_ISDIR(st.st_mode) || ::rmdir(to.c_str()) != 0)) {
      return EEXIST;
    }
    if (::rename((from_ + "/" + name).c_str(), to.c_str()) != 0) return errno;
    names_.push_back(name);
    return 0;
  }

  // Moves everything back; false when something could not be, and stays in the new folder.
  bool undo() {
    bool ok = true;
    for (const std::string& name : names_) {
      ok = ::rename((to_ + "/" + name).c_str(), (from_ + "/" + name).c_str()) == 0 && ok;
    }
    names_.clear();
    return ok;
  }

 private:
  std::string from_;
  std::string to_;
  std::vector<std::string> names_;
};

// For file systems that cannot exchange (NFS): two renames, with a moment without `dir`.
// 0 or the errno of the failure, after which `dir` is as it was.
int swap_by_renames(const std::string& staging, const std::string& dir, const std::string& aside) {
  if (::rename(dir.c_str(), aside.c_str()) != 0) return errno;
  if (::rename(staging.c_str(), dir.c_str()) != 0) {
    const int err = errno;
    ::rename(aside.c_str(), dir.c_str());
    return err;
  }
  return 0;
}

}  // namespace

std::string replace_output_folder(const std::string& dir, const OutputFolderOptions& options,
                                  const std::function<void(const std::string& staging)>& fill) {
  const Place place = place_of(dir);
  const std::optional<mode_t> old_mode = check_target(place, options);
  make_directories(place.parent);
  const std::string prefix = place.parent + "/." + place.name + ".pai-";
  const std::string pid = std::to_string(::getpid());
  const std::string staging = prefix + "new-" + pid;
  const std::string aside = prefix + "old-" + pid;
  // Left behind by a crashed run of a process that had our pid.
  remove_tree(staging);
  remove_tree(aside);
  if (::mkdir(staging.c_str(), 0777) != 0) {
    throw std::runtime_error("cannot create the staging folder '" + staging + "' for '" +
                             place.dir + "': " + std::strerror(errno) +
                             "; pai-compile writes the new output next to the old one, so it "
                             "needs write access to the parent folder");
  }
  try {
    fill(staging);
    write_new_file(staging + "/" + kOutputMark, kMarkText, FileAccess::Public);
  } catch (...) {
    remove_quietly(staging);
    throw;
  }
  if (!old_mode) {
    if (::rename(staging.c_str(), place.dir.c_str()) != 0) {
      const int err = errno;
      remove_quietly(staging);
      throw std::runtime_error("cannot create directory '" + place.dir +
                               "': " + std::strerror(err));
    }
    return place.dir;
  }

  Carried carried(place.dir, staging);
  // Moves the carried entries back and removes the staging folder, unless that would lose
  // one of them; then says where it is.
  const auto give_up = [&](const std::string& message) {
    if (carried.undo()) {
      remove_quietly(staging);
      throw std::runtime_error(message);
    }
    throw std::runtime_error(message + "; some files of '" + place.dir +
                             "' could not be moved back and are in '" + staging + "'");
  };
  for (const std::string& name : entries(place.dir)) {
    const bool artifact = std::find(options.artifact_names.begin(), options.artifact_names.end(),
                                    name) != options.artifact_names.end();
    if (artifact || name == kOutputMark) continue;
    if (const int err = carried.move(name)) {
      const std::string path = place.dir + "/" + name;
      give_up("cannot keep '" + path + "' in the new output: " + std::strerror(err) +
              mount_hint(err, path));
    }
  }

  // Last, so that a folder without write permission for its owner still takes the entries.
  if (::chmod(staging.c_str(), *old_mode) != 0) {
    give_up("cannot set the mode of '" + staging + "': " + std::strerror(errno));
  }

  std::string old = staging;
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, place.dir.c_str(), RENAME_EXCHANGE) != 0) {
    int err = errno;
    if (err == EINVAL || err == ENOSYS || err == ENOTSUP) {
      err = swap_by_renames(staging, place.dir, aside);
      old = aside;
    }
    if (err != 0) {
      give_up("cannot replace directory '" + place.dir + "': " + std::strerror(err) +
              mount_hint(err, place.dir));
    }
  }
  std::error_code ec;
  fs::remove_all(old, ec);
  if (ec) {
    throw std::runtime_error("wrote '" + place.dir + "', but cannot remove the previous output " +
                             "in '" + old + "': " + ec.message() + "; remove it by hand");
  }
  return place.dir;
}

}  // namespace pai
