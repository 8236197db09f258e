// One launcher per job and node on a machine. A second launcher of the same job and node
// (the job started twice, two jobs of one name) would take the first one's control sockets
// and, finding its cgroup tree, kill it as a dead launcher's leftovers. So each launcher
// holds an exclusive flock(2) on `<control folder>/launcher.lock` for its whole life; the
// kernel drops it when the launcher dies, however it dies, so a later launcher finds only
// true leftovers.
#pragma once

#include <stdexcept>
#include <string>

namespace pai::launcher {

/// Another launcher holds the lock, or it cannot be taken; what() says which and what to do.
class NodeLockError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class NodeLock {
 public:
  /// Takes the lock at `path` (created 0600, never through a symlink) and writes this
  /// process's pid into it. Throws NodeLockError naming the holder's pid when another
  /// process holds it; `what` ("node node-1 of job 'llama'") goes into that message.
  NodeLock(std::string path, const std::string& what);
  /// Removes the file and releases the lock.
  ~NodeLock();
  NodeLock(const NodeLock&) = delete;
  NodeLock& operator=(const NodeLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace pai::launcher
