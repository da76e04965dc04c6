#!/usr/bin/env bash
# Benchmarks of the device plugin, run outside `./mvnw verify`:
#   1. idle resident memory (VmRSS) of the agent started with images/device-plugin/jvm.flags (the image's flags;
#      JVM_FLAGS=FILE to try others), registered with a kubelet
#      emulator (its own process) and holding an open ListAndWatch stream;
#   2. Allocate latency p50/p99 over the unix socket against an empty call (PreStartContainer) on the same socket,
#      from a third process, as the kubelet calls it;
#   3. RSS again after that load; then SIGHUP (reload) and SIGTERM (clean stop) are checked.
# Usage, from the repository root, after `./mvnw -o -pl device-plugin,kubelet-emulator -am verify`
# (the kubelet emulator is the kubelet-emulator module's runnable jar):
#   device-plugin/bench/run-bench.sh [IDLE_SECONDS] [ITERATIONS]      (ITERATIONS=0: memory only)
set -euo pipefail
cd "$(dirname "$0")/.."
JAVA=${JAVA:-../bin/java25}
IDLE=${1:-15}
ITER=${2:-50000}
FLAGS=${JVM_FLAGS:-../images/device-plugin/jvm.flags}
work=$(mktemp -d /tmp/dpbench.XXXXXX)
mkdir -p "$work/plugins" "$work/validations" "$work/host"
: > "$work/validations/toolkit-ready"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

"$JAVA" -XX:+UseSerialGC -Xmx64m -jar ../kubelet-emulator/target/kubelet-emulator.jar \
  --device-plugin-path "$work/plugins" \
  > "$work/kubelet.log" 2>&1 &
pids+=($!)
"$JAVA" @"$FLAGS" -jar target/device-plugin.jar --device-plugin-path "$work/plugins" \
  --validations-dir "$work/validations" --host-root "$work/host" --gpu-source simulated:h100-80gb-x8 \
  --node-name bench-node --health-address 127.0.0.1:0 > "$work/agent.log" 2>&1 &
agent=$!
pids+=($agent)

for _ in $(seq 1 600); do [ -f "$work/validations/plugin-ready" ] && break; sleep 0.1; done
[ -f "$work/validations/plugin-ready" ] || { echo "agent did not become ready"; cat "$work/agent.log"; exit 1; }
rss() { awk '/VmRSS/ {printf "%.1f MiB", $2/1024}' "/proc/$1/status"; }
echo "JVM: $("$JAVA" -version 2>&1 | head -1); flags: $(tr '\n' ' ' < "$FLAGS")${MALLOC_ARENA_MAX:+ MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX}"
echo "agent registered; idling ${IDLE}s"
sleep "$IDLE"
echo "idle RSS of the agent: $(rss "$agent")  (threads: $(ls /proc/$agent/task | wc -l);" \
  "$(awk '/^Rss(Anon|File|Shmem)/ {printf "%s %.1f MiB ", $1, $2/1024}' "/proc/$agent/status"))"

if [ "$ITER" -gt 0 ]; then
  "$JAVA" -cp target/test-classes:target/device-plugin.jar \
    org.gpuoperator.deviceplugin.bench.AllocateLatencyBench "$work/plugins/nvidia-gpu.sock" 20000 "$ITER"
  echo "RSS of the agent after the latency run: $(rss "$agent")"
fi

kill -HUP "$agent"
for _ in $(seq 1 100); do grep -q 'event=reloaded' "$work/agent.log" && break; sleep 0.1; done
grep -q 'event=reloaded' "$work/agent.log" && echo "SIGHUP: config reloaded, resources re-registered" \
  || { echo "SIGHUP: no reload seen"; exit 1; }
kill -TERM "$agent"; wait "$agent" || true
[ ! -e "$work/validations/plugin-ready" ] && [ ! -e "$work/plugins/nvidia-gpu.sock" ] \
  && echo "SIGTERM: plugin-ready and nvidia-gpu.sock removed" || { echo "SIGTERM: leftovers"; exit 1; }
rm -rf "$work"
