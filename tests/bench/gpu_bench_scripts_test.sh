#!/bin/sh
# bench/gpu_burn.sh, bench/nccl_busbw.sh and bench/drill_slow_gpu.sh without the GPUs they
# measure: with a fake nvidia-smi that finds none they say so and exit 0; with one GPU the NCCL
# bench says a single-node all-reduce needs two; the CUDA programs they compile on a GPU machine
# compile here with nvcc (77 = skipped when there is no nvcc); drill_slow_gpu.sh runs end to end
# on the fake libcuda and cuBLASLt. Usage: gpu_bench_scripts_test.sh BUILD_DIR
set -eu
BUILD=$1
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd -P)
WORK=$(mktemp -d /tmp/pai-gpu-bench-test-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# nvidia-smi that fails (no driver), then one that lists $FAKE_GPUS GPUs.
mkdir -p "$WORK/none" "$WORK/one"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n' > "$WORK/none/nvidia-smi"
cat > "$WORK/one/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
  -L) echo "GPU 0: NVIDIA Test GPU (UUID: GPU-0)" ;;
  *name*) echo "NVIDIA Test GPU" ;;
  *driver_version*) echo "580.0" ;;
  *) exit 2 ;;
esac
SMI
chmod +x "$WORK/none/nvidia-smi" "$WORK/one/nvidia-smi"

for script in gpu_burn.sh nccl_busbw.sh drill_slow_gpu.sh; do
  out=$(PATH="$WORK/none:$PATH" PAI_BUILD=$BUILD sh "$ROOT/bench/$script" 2>&1) ||
    fail "$script without a GPU exited $?: $out"
  [ "$out" = "no GPU (nvidia-smi finds none): nothing to measure" ] ||
    fail "$script without a GPU said: $out"
done

NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$NVCC" ] || NVCC=$(command -v nvcc || true)
if [ -z "$NVCC" ]; then echo "no nvcc: the CUDA programs are not compiled"; exit 77; fi

out=$(PATH="$WORK/one:$PATH" PAI_BUILD=$BUILD NVCC=$NVCC sh "$ROOT/bench/nccl_busbw.sh" 2>&1) ||
  fail "nccl_busbw.sh with one GPU exited $?: $out"
echo "$out" | grep -qx "GPUs: 1 NVIDIA Test GPU" || fail "nccl_busbw.sh did not name the GPU: $out"
echo "$out" | grep -q "^one GPU: a single-node all-reduce needs two or more, nothing to measure$" ||
  fail "nccl_busbw.sh with one GPU said: $out"

# drill_slow_gpu.sh end to end on the fakes (tests/launcher/checks/fixtures), found through
# LD_LIBRARY_PATH as a node finds the real libraries: its plan, both burn checks, drill-burn's
# line and the figures parsed (the fakes share nothing, so every ratio is 1.00).
mkdir -p "$WORK/libs"
ln -s "$BUILD/launcher/checks/libpai_fake_cuda.so" "$WORK/libs/libcuda.so.1"
ln -s "$BUILD/launcher/checks/libpai_fake_cublaslt.so" "$WORK/libs/libcublasLt.so.13"
out=$(PATH="$WORK/one:$PATH" PAI_BUILD=$BUILD NVCC=$NVCC LD_LIBRARY_PATH="$WORK/libs" \
  PAI_FAKE_CUDA_GPUS="NVIDIA Test GPU" PAI_FAKE_CUDA_KERNELS=1 BURN_SECONDS=1 \
  sh "$ROOT/bench/drill_slow_gpu.sh" 2>&1) || fail "drill_slow_gpu.sh on the fakes exited $?: $out"
echo "$out" | grep -q "^drill-burn: burning GPU 0 (NVIDIA Test GPU) for 61 s, said after [0-9.]* s$" ||
  fail "drill_slow_gpu.sh did not time drill-burn: $out"
echo "$out" | grep -q "^GPU 0 (slow-gpu's GPU): BF16 alone [0-9.]* TFLOPS, beside the drill's burn [0-9.]* TFLOPS: 1.00x$" ||
  fail "drill_slow_gpu.sh did not compare GPU 0: $out"

# The programs between `cat > "$WORK/direct.cu" <<'CU'` and `CU`, compiled as the scripts do.
CUDA_HOME=$(dirname "$(dirname "$NVCC")")
for script in gpu_burn.sh nccl_busbw.sh; do
  sed -n '/^cat > "$WORK\/direct.cu" <<.CU.$/,/^CU$/p' "$ROOT/bench/$script" | sed '1d;$d' \
    > "$WORK/$script.cu"
  [ -s "$WORK/$script.cu" ] || fail "no CUDA program found in bench/$script"
done
"$NVCC" -O2 -I "$ROOT/launcher/checks" -o "$WORK/burn_direct" "$WORK/gpu_burn.sh.cu" -lcublasLt ||
  fail "bench/gpu_burn.sh's program does not compile"
"$NVCC" -O2 -I "$CUDA_HOME/include" -L "$CUDA_HOME/lib64" -o "$WORK/nccl_direct" \
  "$WORK/nccl_busbw.sh.cu" -lnccl || fail "bench/nccl_busbw.sh's program does not compile"
[ -x "$WORK/burn_direct" ] && [ -x "$WORK/nccl_direct" ] || fail "nvcc wrote no program"
echo "ok"
