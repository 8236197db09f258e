// The launcher's control-socket folder: `<root>/<name>`, private to the user who runs it.
//
// A socket in a folder another user can write to can be swapped for theirs, and then that user
// receives the ranks' `ctl` messages; so the folder is created 0700 and verified, never trusted.
#pragma once

#include <stdexcept>
#include <string>

namespace pai::launcher {

/// The folder cannot be made private; what() names it, says what is wrong and how to fix it.
class PrivateDirError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Creates `root` when missing, shared like /tmp (mode 1777: anyone may add a folder, nobody may
/// move another's), then `root/name` with mode 0700, and returns `root/name`. Refuses (throws
/// PrivateDirError) when `root` is not a real folder or lets other users move folders in it
/// (owned by another user than root or us, whatever its mode; writable by others without the
/// sticky bit), and when `root/name` is a symlink, not a folder, owned by another user, or
/// writable by group or others.
std::string make_private_dir(const std::string& root, const std::string& name);

}  // namespace pai::launcher
