#!/bin/sh
# Log relay (design §10: within 10% of writing straight to a file): one process writes
# SIZE_MB (default 1024) of 100-byte lines; straight into a file vs through pai-launch (which
# writes its rank log file and relays prefixed lines to stdout, here a file too), both on
# tmpfs unless OUT_DIR says otherwise. Best of RUNS (default 3). With torchrun installed, also torchrun --redirects 1 --tee 1 (torchrun keeps per-rank log files too).
. "$(dirname -- "$0")/launch_lib.sh"
RUNS=${RUNS:-3}
SIZE_MB=${SIZE_MB:-1024}
# tmpfs by default, so the figure is the relay's work and not the disk's.
if [ -d /dev/shm ]; then OUT=${OUT_DIR:-$(mktemp -d /dev/shm/pai-relay-XXXXXX)}; else OUT=${OUT_DIR:-$WORK}; fi
trap 'rm -rf "$WORK"; [ -n "${OUT_DIR:-}" ] || rm -rf "$OUT"' EXIT
bytes=$((SIZE_MB * 1024 * 1024))
writer="yes 'step 000123 loss 2.3456 lr 3.0e-04 tokens/s 123456 grad-norm 0.987 mem 71.2GiB ........................' | head -c $bytes"
plan=$(compile_job relay 1 "$writer")

best() {
  for i in $(seq "$RUNS"); do
    rm -rf "$OUT/logs" "$OUT/direct.out" "$OUT/relayed.out"
    s=$(date +%s%N); "$@"; e=$(date +%s%N)
    echo $(((e - s) / 1000000))
  done | sort -n | head -1
}
direct=$(best sh -c "$writer > '$OUT/direct.out'")
logged=$(best sh -c "'$PAI_LAUNCH' run --plan '$plan' --node localhost --log-dir '$OUT/logs' > /dev/null 2>&1")
relayed=$(best sh -c "'$PAI_LAUNCH' run --plan '$plan' --node localhost --log-dir '$OUT/logs' > '$OUT/relayed.out' 2>/dev/null")
echo "${SIZE_MB} MiB straight to a file: ${direct} ms"
echo "${SIZE_MB} MiB through pai-launch into its log file (stdout to /dev/null): ${logged} ms; ratio $(ratio "$logged" "$direct") (target: <= 1.10)"
echo "${SIZE_MB} MiB through pai-launch into its log file and, prefixed, a stdout file (twice the bytes written): ${relayed} ms; ratio $(ratio "$relayed" "$direct")"
# The launcher's own CPU (its children not counted), best of RUNS, when perf can count it:
# wall times on a busy 2-core machine are noisy, this figure much less.
own_cpu() {
  for i in $(seq "$RUNS"); do
    rm -rf "$OUT/logs"
    perf stat --no-inherit -x, -e task-clock -o "$WORK/cpu" "$PAI_LAUNCH" run --plan "$plan" \
      --node localhost --log-dir "$OUT/logs" > "$1" 2>/dev/null || return 1
    awk -F, -v mb="$SIZE_MB" '$3 == "task-clock" { printf "%.0f\n", $1 * 1024 / mb }' "$WORK/cpu"
  done | sort -n | head -1 | sed 's/$/ ms per GiB/'
}
if command -v perf > /dev/null && cpu=$(own_cpu /dev/null) && [ -n "$cpu" ]; then
  echo "pai-launch's own CPU, stdout to /dev/null: $cpu; to a file: $(own_cpu "$OUT/relayed.out")"
fi
if have_torchrun; then
  printf '%s\n' "$writer" > "$WORK/writer.sh"
  tr=$(best sh -c "$TORCHRUN --standalone --nproc_per_node 1 --log_dir '$OUT/tlogs' --no_python /bin/sh '$WORK/writer.sh' > '$OUT/relayed.out' 2>/dev/null")
  echo "${SIZE_MB} MiB through torchrun --redirects 1 --tee 1: ${tr} ms; ratio pai-launch/torchrun $(ratio "$relayed" "$tr")"
  rm -rf "$OUT/tlogs"
fi
rm -rf "$OUT/logs" "$OUT/direct.out" "$OUT/relayed.out"
