#!/bin/sh
# What a drill's slow-gpu leaves of a GPU (docs/drill.md, "A slow GPU"). On a node with an
# NVIDIA GPU:
#   1. `pai-launch check --only burn --json` alone: the burn's BF16 TFLOPS per GPU;
#   2. `pai-launch drill-burn 0 SECONDS` started, as a node's launcher starts it for slow-gpu,
#      and timed to the line that says it burns (the CUDA driver's and the burn's start-up);
#   3. the same burn check again, GPU 0 now sharing its time with the drill's burn;
#   4. prints GPU 0's TFLOPS alone and beside the drill's burn, their ratio (what a rank whose
#      steps are GEMMs keeps of its GPU), and the other GPUs' ratio (which should stay at 1).
# Without a GPU it says "no GPU" and exits 0.
#   PAI_BUILD, NVCC  see bench/gpu_lib.sh
#   BURN_SECONDS  each burn check's duration (default 20)
BURN_SECONDS=${BURN_SECONDS:-20}
. "$(dirname -- "$0")/gpu_lib.sh"

gpu_check_plan burn "  burn: {seconds: $BURN_SECONDS}" slow-gpu-bench
# Its exit status is not the measure: beside the drill's burn GPU 0 falls behind the others and
# the check fails it, as it should. The figures are in the JSON, written either way; a run that
# wrote none stops the parser below with an error.
check() {
  "$PAI_LAUNCH" check --plan "$WORK/slow-gpu-bench/plan.json" --node localhost --only burn \
    --json > "$WORK/$1.json" || true
}

check alone
start=$(date +%s.%N)
"$PAI_LAUNCH" drill-burn 0 $((BURN_SECONDS + 60)) > "$WORK/drill-burn.out" 2>&1 &
burner=$!
said=""
for _ in $(seq 1 600); do
  if grep -q '^burning GPU 0' "$WORK/drill-burn.out"; then said=$(date +%s.%N); break; fi
  kill -0 "$burner" 2> /dev/null || break
  sleep 0.05
done
if [ -z "$said" ]; then
  kill -9 "$burner" 2> /dev/null || true
  echo "drill-burn did not say it burns: $(cat "$WORK/drill-burn.out")" >&2
  exit 1
fi
check beside
kill -9 "$burner" 2> /dev/null || true
wait "$burner" 2> /dev/null || true

/usr/bin/python3 - "$WORK/alone.json" "$WORK/beside.json" "$start" "$said" \
  "$(cat "$WORK/drill-burn.out")" <<'PY'
import json, re, sys

def bf16_per_gpu(path):
    burn = json.load(open(path))["results"][0]
    rates = {}
    for line in burn["detail"].splitlines():
        m = re.match(r"GPU (\d+) .*?bf16 ([0-9.]+) TFLOPS", line)
        if m:
            rates[int(m.group(1))] = float(m.group(2))
    if not rates:
        sys.exit(f"the burn check in {path} reported no BF16 figure: {burn['summary']}")
    return rates

alone, beside = bf16_per_gpu(sys.argv[1]), bf16_per_gpu(sys.argv[2])
print(f"drill-burn: {sys.argv[5].splitlines()[0]}, said after "
      f"{float(sys.argv[4]) - float(sys.argv[3]):.2f} s")
for gpu in sorted(alone):
    if gpu not in beside:
        print(f"GPU {gpu}: no figure beside the drill's burn")
        continue
    role = "slow-gpu's GPU" if gpu == 0 else "another GPU"
    print(f"GPU {gpu} ({role}): BF16 alone {alone[gpu]:.1f} TFLOPS, beside the drill's burn "
          f"{beside[gpu]:.1f} TFLOPS: {beside[gpu] / alone[gpu]:.2f}x")
PY
