# Sourced by bench/launch_*.sh: finds the binaries and compiles small localhost jobs.
#   PAI_BUILD   build directory holding compiler/pai-compile and launcher/pai-launch
#               (default: build-launcher, else build)
#   PYTHON      interpreter with torch for the torchrun side (default: /usr/bin/python3)
set -eu

BENCH_DIR=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P)
ROOT=$(dirname "$BENCH_DIR")
if [ -z "${PAI_BUILD:-}" ]; then
  for d in "$ROOT/build-launcher" "$ROOT/build"; do
    if [ -x "$d/launcher/pai-launch" ]; then PAI_BUILD=$d; break; fi
  done
fi
PAI_LAUNCH=${PAI_BUILD:?set PAI_BUILD to a build directory}/launcher/pai-launch
PAI_COMPILE=$PAI_BUILD/compiler/pai-compile
PYTHON=${PYTHON:-/usr/bin/python3}
WORK=$(mktemp -d /tmp/pai-launch-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

have_torchrun() { "$PYTHON" -c 'import torch.distributed.run' 2>/dev/null; }
# torch 1.13 on Python 3.11 crashes in its redirect option parsing unless both are given.
TORCHRUN="$PYTHON -m torch.distributed.run --redirects 1 --tee 1"

# compile_job NAME NPROC COMMAND [EXTRA_YAML]: compiles a one-instance localhost job into
# $WORK/NAME and prints the plan's path. COMMAND runs with /bin/sh -c.
compile_job() {
  name=$1 nproc=$2 command=$3 extra=${4:-}
  cat > "$WORK/$name.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: $name
hosts: [{name: localhost, address: 127.0.0.1}]
roles:
  worker:
    nprocPerNode: $nproc
    command: |
$(printf '%s\n' "$command" | sed 's/^/      /')
sanityCheck: {enabled: false}
$extra
SPEC
  "$PAI_COMPILE" "$WORK/$name.yaml" -o "$WORK/$name" > /dev/null
  echo "$WORK/$name/plan.json"
}

# alternate KIND RUNS NAME CMD... [::: NAME CMD...]: the tools measured round by round, in
# turn, so that each ratio compares runs under the same load (bench/alternate.py).
alternate() { "$PYTHON" "$BENCH_DIR/alternate.py" "$@"; }

# ratio A B: A/B with 2 decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.3g", a / b }'; }
