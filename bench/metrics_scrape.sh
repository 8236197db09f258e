#!/bin/sh
# Scrape latency of a large job's metrics endpoint (issue 18: a scrape of a 1,024-node job's
# coordinator under 50 ms).
#
# A job of NODES nodes of RANKS ranks each serves metrics (`monitoring: {metricsPort}`) from
# its coordinator, the real `pai-launch run` of node-1, whose ranks sleep. Nodes 2..N are
# bench/rendezvous_clients, whose instances run for HOLD seconds, heartbeating once a second
# with a telemetry summary per rank (a 200 ms step), so that every rank has its step, step-time
# histogram and usage series. Once the coordinator printed "rendezvous complete" and WARMUP
# seconds passed, SCRAPES GETs of /metrics by curl, 200 ms apart, are timed (connect to last
# byte, as a Prometheus server waits for them); then the job ends with exit 0 everywhere.
#
#   NODES=1024 RANKS=8 SCRAPES=20 WARMUP=5 CLIENT_PROCESSES=1 PAI_BUILD=build \
#     bench/metrics_scrape.sh
#
# Figures: scrape latency median, min and max in ms; the page's size and its series. The
# clients, node-1's ranks and the coordinator share this machine's cores, and the scrape is
# rendered on the coordinator's loop between their heartbeats: the latency includes waiting
# for those. The job's nodes are 127.50.140.1 onwards, its ports 47000-47099 and its metrics
# port 47100 (on its own addresses: no other benchmark's ports collide).
. "$(dirname -- "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"
NODES=${NODES:-1024}
RANKS=${RANKS:-8}
SCRAPES=${SCRAPES:-20}
WARMUP=${WARMUP:-5}
CLIENT_PROCESSES=${CLIENT_PROCESSES:-1}
# The instances run past the scrapes, so that none ends meanwhile.
HOLD=$((WARMUP + SCRAPES / 5 + 20))
CLIENTS=$PAI_BUILD/bench/rendezvous_clients
if [ ! -x "$CLIENTS" ]; then
  echo "error: $CLIENTS not built (ninja -C $PAI_BUILD rendezvous_clients)" >&2
  exit 2
fi
command -v curl > /dev/null || { echo "error: curl is not installed" >&2; exit 2; }
PORT=47000
METRICS_PORT=47100
URL=http://127.50.140.1:$METRICS_PORT/metrics

plan=$(compile_cluster "metrics-$NODES-$RANKS" "$NODES" 140 "$PORT" "sleep $HOLD" \
  "monitoring: {metricsPort: $METRICS_PORT, metricsAddress: 127.50.140.1}
faultTolerance: {restart: {enabled: false}}" "nprocPerNode: $RANKS")
logs=$WORK/logs
if ! start_simulated_job "$plan" "$NODES" "$logs" "$RANKS"; then
  echo "error: no rendezvous within 60 s; node-1 said:" >&2
  tail -5 "$logs/node-1.err" >&2
  exit 1
fi
coordinator=$COORDINATOR clients=$CLIENT_PIDS
sleep "$WARMUP"

: > "$WORK/latencies"
i=0 status=0
while [ "$i" -lt "$SCRAPES" ]; do
  if ! curl -sS --max-time 10 -o "$WORK/page" -w '%{http_code} %{time_total}\n' "$URL" \
    > "$WORK/scrape" 2>&1 || [ "$(cut -d' ' -f1 "$WORK/scrape")" != 200 ]; then
    echo "error: scrape $((i + 1)) failed: $(cat "$WORK/scrape")" >&2
    status=1
    break
  fi
  awk '{ printf "%.1f\n", $2 * 1000 }' "$WORK/scrape" >> "$WORK/latencies"
  i=$((i + 1))
  sleep 0.2
done
bytes=$(wc -c < "$WORK/page")
series=$(grep -vc '^#' "$WORK/page" || true)
rank_steps=$(grep -c '^pai_rank_step{' "$WORK/page" || true)
# Every simulated rank must have its series, or the latency is that of a smaller page.
if [ "$rank_steps" -ne $(((NODES - 1) * RANKS)) ]; then
  echo "error: the page has step series of $rank_steps ranks, not $(((NODES - 1) * RANKS))" >&2
  status=1
fi
promtool_says=skipped
if command -v promtool > /dev/null; then
  if promtool check metrics < "$WORK/page" > "$WORK/promtool" 2>&1; then
    promtool_says=ok
  else
    promtool_says="failed: $(head -n 3 "$WORK/promtool" | tr '\n' ' ')"
    status=1
  fi
fi

wait_pids $((HOLD + 60)) $clients
clients_failed=$FAILED
wait_pids 30 $coordinator
if [ "$clients_failed" != 0 ] || [ "$FAILED" != 0 ]; then
  echo "error: the job did not finish cleanly; node-1 said:" >&2
  tail -5 "$logs/node-1.err" >&2
  exit 1
fi
[ "$status" = 0 ] || exit 1

set -- $(stats < "$WORK/latencies")
echo "metrics scrape: $NODES nodes x $RANKS ranks, load average $(load_average) on $(nproc) cores"
echo "(shared by the coordinator, node-1's ranks and the clients)"
printf '%-36s %s\n' "scrapes" "$SCRAPES (curl, 200 ms apart)"
printf '%-36s %s ms (min %s, max %s)\n' "latency median" "$1" "$2" "$3"
printf '%-36s %s KiB, %s series, %s ranks with steps\n' "page" "$((bytes / 1024))" "$series" \
  "$rank_steps"
printf '%-36s %s\n' "promtool check metrics" "$promtool_says"
