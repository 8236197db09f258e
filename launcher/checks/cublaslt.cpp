#include "launcher/checks/cublaslt.h"

#include <dlfcn.h>

namespace pai::checks {
namespace {

// cuBLASLt's ABI (cublasLt.h, library_types.h, cublas_api.h), values as the headers define them.
using Status = int;                      // cublasStatus_t
using Handle = struct cublasLtContext*;  // cublasLtHandle_t
using Descriptor = void*;                // cublasLtMatmulDesc_t, ...Layout_t, ...Preference_t
constexpr Status kStatusSuccess = 0;
constexpr int kComputeFp32 = 68;      // CUBLAS_COMPUTE_32F
constexpr int kTypeFp32 = 0;          // CUDA_R_32F
constexpr int kTypeBf16 = 14;         // CUDA_R_16BF
constexpr int kTypeFp8E4m3 = 28;      // CUDA_R_8F_E4M3
constexpr int kOpTranspose = 1;       // CUBLAS_OP_T
constexpr int kOpNone = 0;            // CUBLAS_OP_N
constexpr int kDescTransA = 3;        // CUBLASLT_MATMUL_DESC_TRANSA
constexpr int kDescTransB = 4;        // CUBLASLT_MATMUL_DESC_TRANSB
constexpr int kPrefMaxWorkspace = 1;  // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES

struct Algo {  // cublasLtMatmulAlgo_t
  std::uint64_t data[8];
};
struct HeuristicResult {  // cublasLtMatmulHeuristicResult_t
  Algo algo;
  std::size_t workspace_size;
  Status state;
  float waves_count;
  int reserved[4];
};

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn*& slot) {
  slot = reinterpret_cast<Fn*>(dlsym(handle, symbol));
  return slot != nullptr;
}

const char* status_name(int status) {
  switch (status) {
    case 0:
      return "CUBLAS_STATUS_SUCCESS";
    case 1:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case 8:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16:
      return "CUBLAS_STATUS_LICENSE_ERROR";
    default:
      return nullptr;
  }
}

}  // namespace

struct CublasLtApi {
  std::size_t (*get_version)() = nullptr;
  Status (*create)(Handle*) = nullptr;
  Status (*destroy)(Handle) = nullptr;
  Status (*desc_create)(Descriptor*, int, int) = nullptr;
  Status (*desc_destroy)(Descriptor) = nullptr;
  Status (*desc_set)(Descriptor, int, const void*, std::size_t) = nullptr;
  Status (*layout_create)(Descriptor*, int, std::uint64_t, std::uint64_t, std::int64_t) = nullptr;
  Status (*layout_destroy)(Descriptor) = nullptr;
  Status (*preference_create)(Descriptor*) = nullptr;
  Status (*preference_destroy)(Descriptor) = nullptr;
  Status (*preference_set)(Descriptor, int, const void*, std::size_t) = nullptr;
  Status (*heuristic)(Handle, Descriptor, Descriptor, Descriptor, Descriptor, Descriptor,
                      Descriptor, int, HeuristicResult*, int*) = nullptr;
  Status (*matmul)(Handle, Descriptor, const void*, const void*, Descriptor, const void*,
                   Descriptor, const void*, const void*, Descriptor, void*, Descriptor, const Algo*,
                   void*, std::size_t, cuda::Stream) = nullptr;
};

const char* to_string(LtPrecision precision) {
  return precision == LtPrecision::Fp8 ? "fp8" : "bf16";
}

std::size_t input_bytes(LtPrecision precision) { return precision == LtPrecision::Fp8 ? 1 : 2; }

std::string describe_cublas_status(int status) {
  std::string text = "cuBLAS status " + std::to_string(status);
  if (const char* name = status_name(status)) text += std::string(" (") + name + ")";
  return text;
}

CublasLt::CublasLt() : api_(std::make_unique<CublasLtApi>()) {}

CublasLt::~CublasLt() {
  if (handle_) dlclose(handle_);
}

std::unique_ptr<CublasLt> CublasLt::open(const std::vector<std::string>& libraries,
                                         std::string* reason) {
  std::string tried;
  for (const auto& library : libraries) {
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      tried += (tried.empty() ? "" : "; ") + std::string(dlerror());
      continue;
    }
    std::unique_ptr<CublasLt> lt(new CublasLt);
    lt->handle_ = handle;
    lt->library_ = library;
    CublasLtApi& api = *lt->api_;
    std::string missing;
    auto need = [&](const char* symbol, auto*& slot) {
      if (!resolve(handle, symbol, slot) && missing.empty()) missing = symbol;
    };
    need("cublasLtGetVersion", api.get_version);
    need("cublasLtCreate", api.create);
    need("cublasLtDestroy", api.destroy);
    need("cublasLtMatmulDescCreate", api.desc_create);
    need("cublasLtMatmulDescDestroy", api.desc_destroy);
    need("cublasLtMatmulDescSetAttribute", api.desc_set);
    need("cublasLtMatrixLayoutCreate", api.layout_create);
    need("cublasLtMatrixLayoutDestroy", api.layout_destroy);
    need("cublasLtMatmulPreferenceCreate", api.preference_create);
    need("cublasLtMatmulPreferenceDestroy", api.preference_destroy);
    need("cublasLtMatmulPreferenceSetAttribute", api.preference_set);
    need("cublasLtMatmulAlgoGetHeuristic", api.heuristic);
    need("cublasLtMatmul", api.matmul);
    if (!missing.empty()) {
      tried += (tried.empty() ? "" : "; ") + library + " lacks " + missing;
      continue;  // the destructor closes it
    }
    lt->version_ = api.get_version();
    return lt;
  }
  *reason = "no cuBLASLt (" + (tried.empty() ? std::string("no library to try") : tried) + ")";
  return nullptr;
}

struct LtGemm::State {
  const CublasLtApi& api;
  Handle handle = nullptr;
  Descriptor desc = nullptr, a = nullptr, b = nullptr, d = nullptr, preference = nullptr;
  Algo algo{};
  cuda::DevicePtr workspace = 0;
  std::size_t workspace_bytes = 0;
  explicit State(const CublasLtApi& lt) : api(lt) {}
};

LtGemm::LtGemm(const CublasLt& library) : state_(std::make_unique<State>(library.api())) {}

LtGemm::~LtGemm() {
  const CublasLtApi& api = state_->api;
  if (state_->preference) api.preference_destroy(state_->preference);
  for (Descriptor layout : {state_->a, state_->b, state_->d})
    if (layout) api.layout_destroy(layout);
  if (state_->desc) api.desc_destroy(state_->desc);
  if (state_->handle) api.destroy(state_->handle);
}

std::unique_ptr<LtGemm> LtGemm::plan(const CublasLt& library, LtPrecision precision, int n,
                                     cuda::DevicePtr workspace, std::size_t workspace_bytes,
                                     std::string* error) {
  std::unique_ptr<LtGemm> gemm(new LtGemm(library));
  State& s = *gemm->state_;
  const CublasLtApi& api = s.api;
  s.workspace = workspace;
  s.workspace_bytes = workspace_bytes;
  auto failed = [&](const char* what, Status status) {
    *error = std::string(what) + " failed: " + describe_cublas_status(status);
    return nullptr;
  };
  Status r;
  if ((r = api.create(&s.handle))) {
    s.handle = nullptr;
    return failed("cublasLtCreate", r);
  }
  if ((r = api.desc_create(&s.desc, kComputeFp32, kTypeFp32))) {
    s.desc = nullptr;
    return failed("cublasLtMatmulDescCreate", r);
  }
  int transpose = kOpTranspose, none = kOpNone;
  if ((r = api.desc_set(s.desc, kDescTransA, &transpose, sizeof transpose)) ||
      (r = api.desc_set(s.desc, kDescTransB, &none, sizeof none)))
    return failed("cublasLtMatmulDescSetAttribute", r);
  int input = precision == LtPrecision::Fp8 ? kTypeFp8E4m3 : kTypeBf16;
  auto side = static_cast<std::uint64_t>(n);
  // Column-major: A is stored K x M and transposed, B is K x N, D is M x N.
  if ((r = api.layout_create(&s.a, input, side, side, n))) {
    s.a = nullptr;
    return failed("cublasLtMatrixLayoutCreate", r);
  }
  if ((r = api.layout_create(&s.b, input, side, side, n))) {
    s.b = nullptr;
    return failed("cublasLtMatrixLayoutCreate", r);
  }
  if ((r = api.layout_create(&s.d, kTypeBf16, side, side, n))) {
    s.d = nullptr;
    return failed("cublasLtMatrixLayoutCreate", r);
  }
  if ((r = api.preference_create(&s.preference))) {
    s.preference = nullptr;
    return failed("cublasLtMatmulPreferenceCreate", r);
  }
  std::uint64_t bytes = workspace_bytes;
  if ((r = api.preference_set(s.preference, kPrefMaxWorkspace, &bytes, sizeof bytes)))
    return failed("cublasLtMatmulPreferenceSetAttribute", r);
  HeuristicResult best{};
  int found = 0;
  if ((r = api.heuristic(s.handle, s.desc, s.a, s.b, s.d, s.d, s.preference, 1, &best, &found)))
    return failed("cublasLtMatmulAlgoGetHeuristic", r);
  if (found < 1 || best.state != kStatusSuccess) {
    *error = std::string("cublasLtMatmulAlgoGetHeuristic found no algorithm for ") +
             to_string(precision) + " " + std::to_string(n) + "x" + std::to_string(n);
    return nullptr;
  }
  s.algo = best.algo;
  return gemm;
}

int LtGemm::run(cuda::DevicePtr a, cuda::DevicePtr b, cuda::DevicePtr d,
                cuda::Stream stream) const {
  const State& s = *state_;
  const float alpha = 1.0f, beta = 0.0f;
  auto ptr = [](cuda::DevicePtr p) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));
  };
  return s.api.matmul(s.handle, s.desc, &alpha, ptr(a), s.a, ptr(b), s.b, &beta, ptr(d), s.d,
                      ptr(d), s.d, &s.algo, ptr(s.workspace), s.workspace_bytes, stream);
}

}  // namespace pai::checks
