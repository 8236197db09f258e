#include "launcher/checks/nccl_library.h"

#include <dlfcn.h>

namespace pai::checks {
namespace {

// ncclConfig_t as NCCL 2.14 laid it out. Newer NCCL reads the fields a config of this size and
// version declares, so the oldest layout works with every later release.
struct Config {
  std::size_t size;
  unsigned magic;
  unsigned version;
  int blocking;
};
constexpr unsigned kConfigMagic = 0xcafebeef;

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn*& slot) {
  slot = reinterpret_cast<Fn*>(dlsym(handle, symbol));
  return slot != nullptr;
}

}  // namespace

struct NcclLibrary::Api {
  nccl::Result (*get_version)(int*) = nullptr;
  nccl::Result (*get_unique_id)(nccl::UniqueId*) = nullptr;
  nccl::Result (*init_rank_config)(nccl::Comm*, int, nccl::UniqueId, int, Config*) = nullptr;
  nccl::Result (*async_error)(nccl::Comm, nccl::Result*) = nullptr;
  nccl::Result (*all_reduce)(const void*, void*, std::size_t, int, int, nccl::Comm,
                             void*) = nullptr;
  nccl::Result (*group_start)() = nullptr;
  nccl::Result (*group_end)() = nullptr;
  nccl::Result (*abort)(nccl::Comm) = nullptr;
  nccl::Result (*destroy)(nccl::Comm) = nullptr;
  const char* (*error_string)(nccl::Result) = nullptr;
};

NcclLibrary::NcclLibrary() : api_(std::make_unique<Api>()) {}

std::unique_ptr<NcclLibrary> NcclLibrary::open(const std::string& library, std::string* reason) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    *reason = std::string("no NCCL (") + dlerror() + ")";
    return nullptr;
  }
  std::unique_ptr<NcclLibrary> lib(new NcclLibrary);
  lib->handle_ = handle;
  Api& api = *lib->api_;
  if (!resolve(handle, "ncclGetVersion", api.get_version) ||
      api.get_version(&lib->version_) != nccl::kSuccess) {
    *reason = library + " does not report its version";
    return nullptr;
  }
  if (lib->version_ < kMinNcclVersion) {
    *reason = "NCCL " + lib->version_text() + " is too old (need 2.14 or newer)";
    return nullptr;
  }
  bool ok = resolve(handle, "ncclGetUniqueId", api.get_unique_id) &&
            resolve(handle, "ncclCommInitRankConfig", api.init_rank_config) &&
            resolve(handle, "ncclCommGetAsyncError", api.async_error) &&
            resolve(handle, "ncclAllReduce", api.all_reduce) &&
            resolve(handle, "ncclGroupStart", api.group_start) &&
            resolve(handle, "ncclGroupEnd", api.group_end) &&
            resolve(handle, "ncclCommAbort", api.abort) &&
            resolve(handle, "ncclCommDestroy", api.destroy) &&
            resolve(handle, "ncclGetErrorString", api.error_string);
  if (!ok) {
    *reason = library + " lacks an entry point the check needs";
    return nullptr;
  }
  return lib;
}

NcclLibrary::~NcclLibrary() {
  if (handle_) dlclose(handle_);
}

std::string NcclLibrary::version_text() const {
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
  return std::to_string(version_ / 10000) + "." + std::to_string(version_ / 100 % 100) + "." +
         std::to_string(version_ % 100);
}

nccl::Result NcclLibrary::get_unique_id(nccl::UniqueId* id) const {
  return api_->get_unique_id(id);
}

nccl::Result NcclLibrary::init_rank_nonblocking(nccl::Comm* comm, int ranks,
                                                const nccl::UniqueId& id, int rank) const {
  Config config{sizeof(Config), kConfigMagic, static_cast<unsigned>(kMinNcclVersion), 0};
  return api_->init_rank_config(comm, ranks, id, rank, &config);
}

nccl::Result NcclLibrary::async_error(nccl::Comm comm, nccl::Result* state) const {
  return api_->async_error(comm, state);
}

nccl::Result NcclLibrary::all_reduce_sum_float(const void* send, void* receive, std::size_t count,
                                               nccl::Comm comm, void* stream) const {
  return api_->all_reduce(send, receive, count, nccl::kFloat32, nccl::kSum, comm, stream);
}

nccl::Result NcclLibrary::group_start() const { return api_->group_start(); }
nccl::Result NcclLibrary::group_end() const { return api_->group_end(); }
nccl::Result NcclLibrary::abort(nccl::Comm comm) const { return api_->abort(comm); }
nccl::Result NcclLibrary::destroy(nccl::Comm comm) const { return api_->destroy(comm); }

std::string NcclLibrary::describe(nccl::Result result) const {
  const char* text = api_->error_string ? api_->error_string(result) : nullptr;
  return "error " + std::to_string(result) + (text ? std::string(" (") + text + ")" : "");
}

}  // namespace pai::checks
