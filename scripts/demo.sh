#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds the two programs (not the
# tests: scripts/test.sh builds everything), compiles every example, shows the artifacts of
# the local demo job and runs it under pai-launch on this machine. pai-compile is built and
# used before pai-launch is built, so the first output comes after half the build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/deps.sh" --demo
# The programs only: no test suite, no bench programs (scripts/test.sh turns both back on).
demo_build=(-DPAI_TESTS=OFF -DPAI_BENCH=OFF)
TARGETS=pai-compile bash "$root/scripts/build.sh" "${demo_build[@]}"
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
echo "== artifacts of examples/cluster-demo.yaml ($out/cluster-demo)"
(cd "$out/cluster-demo" && find . -type f | sort | sed 's|^\./|  |')
echo
echo "-- env/worker-1.sh (head)"
head -n 16 "$out/cluster-demo/env/worker-1.sh"

echo
echo "== building pai-launch"
TARGETS=pai-launch bash "$root/scripts/build.sh" "${demo_build[@]}"

echo
echo "== pai-launch: a 3-node job and a spare on this machine (node-N on 127.0.0.N)"
echo "   launch.sh local starts one launcher per node; node-1's also runs the coordinator"
rm -rf "$out/cluster-demo/logs"
status=0
PAI_LAUNCH=$launch sh "$out/cluster-demo/launch.sh" local || status=$?

logs=$out/cluster-demo/logs
echo
echo "== summary"
printf '  job cluster-demo: launchers exited %s\n' "$([ $status = 0 ] && echo 'all 0' || echo "with failures ($status)")"
journal=$logs/coordinator/events.jsonl
printf '  coordinator: %s launchers joined, %s restart(s), %s\n' \
  "$(grep -c '"event":"join"' "$journal")" "$(grep -c '"event":"restart"' "$journal")" \
  "$(grep -o '"event":"job-[a-z]*"' "$journal" | cut -d'"' -f4)"
for log in "$logs"/worker-*/rank-*.attempt-*.log; do
  printf '  %-28s %s\n' "${log#"$logs"/}" "$(head -n 1 "$log")"
done
printf '  spare node-4: %s\n' "$(grep -c '"event":"standby"' "$logs/spare-node-4/events.jsonl") standby event(s), ran nothing"
echo "  logs and events.jsonl journals: $logs"
exit $status
