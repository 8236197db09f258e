#!/usr/bin/env bash
# `pai-launch drill` on nodes that are network namespaces (issue 34, item 3; docs/drill.md):
# 4 nodes of one gloo DDP rank each (diagnosis_job.py, scenario drill: a checkpoint every 25
# steps) and a spare, each a namespace on a bridge (netns_lib.sh) with a real pai-launch, their
# logs in one folder as on a shared file system. The drill runs in node-1's namespace (the
# coordinator's node) and puts seven faults into worker-3 on node-4: its rank SIGKILLed, stopped
# for 15 s, held inside a gradient all-reduce it completed for 15 s (pai.telemetry's hold),
# slowed to a quarter of a CPU for 15 s; node-4's link slowed to 5 Mbit/s, then
# dropping everything but the coordinator's traffic, for 15 s each (tc rules node-4's launcher
# puts on its eth0 and takes off); and node-4's launcher SIGKILLed, so that the spare takes
# worker-3. Every fault must be injected by the node and detected, the five that restart the job
# recovered from, the kill, the collective hang and the node loss named right; the scorecard is printed
# (bench/README.md quotes it). A second drill fills the disk of the job's output folder (a tmpfs
# of its own, where rank 0 saves its checkpoints) for 15 s from worker-0's node: its failed saves
# must name it, and the disk must be free again after.
#
#   drill_netns_test.sh BUILD_DIR   (BUILD_DIR holds compiler/pai-compile and launcher/pai-launch)
#
# Exit status: 0 passed, 1 failed (with every launcher's output), 2 usage, 77 skipped (not root,
# no `ip netns`, no python3-torch).
set -euo pipefail

(($# == 1)) || { echo "usage: drill_netns_test.sh BUILD_DIR" >&2; exit 2; }
build=$(realpath "$1")
compiler=$build/compiler/pai-compile
launcher=$build/launcher/pai-launch
readonly TIMEOUT=${PAI_NETNS_TIMEOUT:-240}
readonly SUBNET=10.253.0
source_dir=$(CDPATH= cd -- "$(dirname -- "$0")/../../.." && pwd -P)

TEST=drill_netns_test
source "$(dirname "$0")/netns_lib.sh"

[[ -x $compiler && -x $launcher ]] || fail "no pai-compile or pai-launch under $build"
/usr/bin/python3 -c "import torch.distributed" 2>/dev/null || skip "python3-torch is not installed"
netns_init
netns_network 5
netns_tmpfs "$work/drill/output" 16m
mkdir -p "$work/drill/output/checkpoints" "$work/drill/logs"
cat >"$work/drill.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: pai-drill-$$
$(hosts_yaml 4)
spares: [{name: node-5, address: $SUBNET.5}]
output: $work/drill/output
roles:
  worker:
    instances: 4
    env: {PYTHONPATH: $source_dir/sdk/python, GLOO_SOCKET_IFNAME: eth0, OMP_NUM_THREADS: "1",
          SCENARIO: drill, WIDTH: "128", CHECKPOINTS: $work/drill/output/checkpoints, FINISH: $work/drill/finish}
    command: exec /usr/bin/python3 $source_dir/tests/launcher/multi_node/diagnosis_job.py
faultTolerance:
  gracePeriod: 1s
  restart: {maxRestarts: 10, backoff: 0s}
  hang: {interval: 8s}
  diagnosis: {hangAfter: 3s, slowFactor: 1.1}
sanityCheck:
  checks: [disk]
SPEC
compile_spec drill
export SHARED_LOG_DIR=$work/drill/logs
for n in 1 2 3 4 5; do start_launcher "drill/node-$n" "$n" --node "node-$n"; done
wait_output drill/node-4 "rank 3 step 1$"

ip netns exec "$(node_ns 1)" "$launcher" drill --plan "$work/drill/plan/plan.json" \
  --log-dir "$SHARED_LOG_DIR" --hold 15s --settle 60s --timeout 60s --format json \
  --faults rank-kill,rank-hang,collective-hang,slow-rank,slow-link,dropped-link,node-loss \
  >"$work/drill.json" 2>"$work/drill.err" && code=0 || code=$?
outputs+=("$work/drill.err" "$work/drill.json")
ip netns exec "$(node_ns 1)" "$launcher" drill --plan "$work/drill/plan/plan.json" \
  --log-dir "$SHARED_LOG_DIR" --hold 15s --settle 60s --timeout 60s --format json \
  --faults disk-full --instance worker-0 >"$work/disk.json" 2>"$work/disk.err" &&
  disk_code=0 || disk_code=$?
outputs+=("$work/disk.err" "$work/disk.json")
: >"$work/drill/finish"
expect_success drill/node-{1,2,3,5}
expect_exit 137 drill/node-4 # its launcher was the node-loss
expect_no_leftovers drill

# The scorecard: every fault injected and detected; the restarts recovered from, with at most
# the steps since the last checkpoint and those of the verdict's wait lost.
/usr/bin/python3 - "$work/drill.json" "$code" <<'PY' || fail "the scorecard: see above"
import json, sys
card = json.load(open(sys.argv[1]))
code = int(sys.argv[2])
faults = card["faults"]
problems = []
assert [f["fault"] for f in faults] == ["rank-kill", "rank-hang", "collective-hang", "slow-rank",
                                       "slow-link", "dropped-link", "node-loss"], faults
for f in faults:
    print("  %-12s %-9s detect %-6s named %-5s recover %-6s lost %-4s %s" % (
        f["fault"], f.get("instance", "-"), f.get("detectSeconds"), f.get("namedRight"),
        f.get("recoverSeconds"), f.get("lostSteps"), f.get("verdict", f.get("skipped"))))
    if "skipped" in f:
        problems.append("%s not injected: %s" % (f["fault"], f["skipped"]))
        continue
    if f["instance"] != "worker-3" or f["node"] != "node-4":
        problems.append("%s went into %s on %s" % (f["fault"], f["instance"], f["node"]))
    if not f["carriedOut"]:
        problems.append("%s: node-4 journaled no fault-injected" % f["fault"])
    if f["detectSeconds"] is None:
        problems.append("%s not detected" % f["fault"])
    if f["fault"] not in ("slow-rank", "slow-link"):
        if not f["restarted"] or f["recoverSeconds"] is None:
            problems.append("%s: no recovery" % f["fault"])
        elif f["lostSteps"] is None or not 0 <= f["lostSteps"] <= 25 + 150:
            problems.append("%s: lost steps %s" % (f["fault"], f["lostSteps"]))
    if f["fault"] in ("rank-kill", "collective-hang", "node-loss") and not f["namedRight"]:
        problems.append("%s named wrong: %s" % (f["fault"], f["verdict"]))
if code != (0 if all(f.get("passed") for f in faults) else 1):
    problems.append("pai-launch drill exited %d" % code)
if problems:
    sys.exit("; ".join(problems))
PY
# The full disk: node-1 filled the output folder's tmpfs, rank 0's saves failed and named it,
# and the file is gone.
/usr/bin/python3 - "$work/disk.json" "$disk_code" <<'PY' || fail "the disk-full scorecard: see above"
import json, sys
(f,) = json.load(open(sys.argv[1]))["faults"]
print("  %-12s %-9s detect %-6s named %-5s restarted %-5s %s" % (
    f["fault"], f.get("instance", "-"), f.get("detectSeconds"), f.get("namedRight"),
    f.get("restarted"), f.get("verdict", f.get("skipped"))))
assert f["fault"] == "disk-full" and f.get("instance") == "worker-0", f
assert f["carriedOut"] and f["detectSeconds"] is not None and f["namedRight"], f
assert f["verdict"].startswith("checkpoint-failed: worker-0 step"), f["verdict"]
assert f["passed"] and sys.argv[2] == "0", "pai-launch drill exited %s" % sys.argv[2]
PY
[[ ! -e $work/drill/output/.pai-drill-disk-full ]] || fail "the disk-full file was left behind"
grep -q '"event":"fault-reverted","fault":"disk-full".*its seconds passed' \
  "$SHARED_LOG_DIR/worker-0/events.jsonl" || fail "node-1's journal has no end of disk-full"

# node-4's launcher put the link faults on its eth0 and took them off after their seconds.
for fault in slow-link dropped-link; do
  grep -q "\"event\":\"fault-injected\",\"fault\":\"$fault\".*\"place\":\"eth0\"" \
    "$SHARED_LOG_DIR/worker-3/events.jsonl" ||
    fail "node-4's journal has no $fault on eth0: $(grep "fault-" "$SHARED_LOG_DIR/worker-3/events.jsonl")"
  grep -q "\"event\":\"fault-reverted\",\"fault\":\"$fault\".*its seconds passed" \
    "$SHARED_LOG_DIR/worker-3/events.jsonl" ||
    fail "node-4's journal has no end of $fault: $(grep "fault-" "$SHARED_LOG_DIR/worker-3/events.jsonl")"
done
say "passed: 7 faults into worker-3 on node-4 and a full disk under worker-0, the scorecards above"
