# Sourced by bench/gpu_*.sh and bench/nccl_busbw.sh: exits 0 saying so on a machine without an
# NVIDIA GPU, else sets GPUS, finds the binaries and nvcc, makes WORK and prints the GPUs.
#   PAI_BUILD   build directory with launcher/pai-launch and compiler/pai-compile
#               (default: build-gpu, else build)
#   NVCC        nvcc (default: /usr/local/cuda/bin/nvcc, else nvcc on PATH)
set -eu

if ! command -v nvidia-smi > /dev/null 2>&1 || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "no GPU (nvidia-smi finds none): nothing to measure"
  exit 0
fi
GPUS=$(nvidia-smi -L | grep -c '^GPU ')
if [ "$GPUS" -eq 0 ]; then
  echo "no GPU (nvidia-smi lists none): nothing to measure"
  exit 0
fi

BENCH_DIR=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P)
ROOT=$(dirname "$BENCH_DIR")
if [ -z "${PAI_BUILD:-}" ]; then
  for d in "$ROOT/build-gpu" "$ROOT/build"; do
    if [ -x "$d/launcher/pai-launch" ]; then PAI_BUILD=$d; break; fi
  done
fi
PAI_LAUNCH=${PAI_BUILD:?set PAI_BUILD to a build directory with pai-launch}/launcher/pai-launch
PAI_COMPILE=$PAI_BUILD/compiler/pai-compile
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$NVCC" ] || NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] || { echo "nvcc not found: set NVCC" >&2; exit 1; }
WORK=$(mktemp -d /tmp/pai-gpu-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

echo "GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | paste -sd ';')"
echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"

# Writes a one-node job spec using every GPU and running only the checks named in $1 (with the
# YAML of sanityCheck's other fields in $2) to $WORK/$3.yaml, and compiles it to $WORK/$3/.
gpu_check_plan() {
  cat > "$WORK/$3.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: $3
hosts: [{name: localhost, address: 127.0.0.1, slots: $GPUS}]
roles:
  worker:
    nprocPerNode: 1
    resources: {gpu: $GPUS}
    command: "true"
sanityCheck:
  checks: [$1]
$2
SPEC
  "$PAI_COMPILE" "$WORK/$3.yaml" -o "$WORK/$3" > /dev/null
}
