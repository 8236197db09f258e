#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds, compiles every example,
# shows the artifacts of the local demo job and runs it under pai-launch on this machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/deps.sh"
bash "$root/scripts/build.sh"
build=${BUILD_DIR:-$root/build}
out=${OUT_DIR:-$root/out}
compile=$build/compiler/pai-compile
launch=$build/launcher/pai-launch

echo
echo "== pai-compile: every example"
for spec in "$root"/examples/*.yaml "$root"/examples/*.jsonnet; do
  name=$(basename "${spec%.*}")
  printf '%-24s ' "$name"
  "$compile" "$spec" -o "$out/$name" | head -n 1
done

echo
echo "== artifacts of examples/local-demo.yaml ($out/local-demo)"
(cd "$out/local-demo" && find . -type f | sort | sed 's|^\./|  |')
echo
echo "-- env/worker-0.sh (head)"
head -n 20 "$out/local-demo/env/worker-0.sh"
echo
echo "-- hostfile"
cat "$out/local-demo/hostfile"

echo
echo "== pai-launch: running the local demo (2 processes)"
"$launch" run --plan "$out/local-demo/plan.json" --node localhost \
  --token-file "$out/local-demo/job.token" --log-dir "$out/local-demo/logs"
echo
echo "logs kept under $out/local-demo/logs:"
(cd "$out/local-demo/logs" && find . -type f | sort | sed 's|^\./|  |')
