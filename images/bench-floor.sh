#!/usr/bin/env bash
# The floor under a node agent's start and idle memory: images/StartFloor.java's modes (the JVM alone; picocli; one
# HTTPS request to the API server; one CRI call over gRPC), each run as an agent is run (toolkit-agent's jvm.flags,
# the small-footprint set every agent's image uses, with netty's flags for the gRPC mode) and, in set-up aot, with an
# AOT cache of its own trained as images/aot-training.sh trains an agent's (one run of the mode, then
# -XX:AOTCacheOutput). The API server and CRI socket are the stand-ins images/bench-start.sh gives the agents.
# Measured as images/bench-start.sh measures an agent: from just before java starts to the ts= of the ready line,
# the CPU time used by then (10 ms ticks), VmRSS after IDLE s. The modes run in turn in each round, so a change in
# the machine's load falls on all of them alike.
# Usage, from the repository root, after `./mvnw -o -q install -DskipTests` (toolkit-agent's and feature-discovery's
# lib/ in their target/):
#   images/bench-floor.sh [ROUNDS] [IDLE_SECONDS] [MODE...]     (default 5 rounds, 2 s, every mode)
# SETUPS: aot (default), flags (no cache: the JDK's default CDS archive), or both ("aot flags"). JVM_FLAGS=FILE:
# other flags in place of toolkit-agent's (the caches are trained with them too). JAVA as in images/bench-start.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
JAVA=${JAVA:-$root/bin/java25}
ROUNDS=${1:-5}
IDLE=${2:-2}
shift $(( $# > 2 ? 2 : $# ))
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(jvm picocli https grpc)
for c in toolkit-agent feature-discovery; do
  [ -d "$c/target/lib" ] || { echo "bench-floor: $c/target/lib is missing: run ./mvnw -o -q install -DskipTests first"; exit 1; }
done
AOT_TRAINING_LIB=1 source images/aot-training.sh
source images/bench-lib.sh
bench=$(mktemp -d /tmp/bench-floor.XXXXXX)
pid=
api_pid=
cri_pid=
trap 'kill_all_quietly "$pid" "$api_pid" "$cri_pid"; rm -rf "$bench"' EXIT
real_java=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.home = //p')/bin/java

# the floor's jar: StartFloor compiled against toolkit-agent's lib/, which its manifest names
app=$bench/app
mkdir -p "$app/classes"
cp -r toolkit-agent/target/lib "$app/"
cp "${JVM_FLAGS:-images/toolkit-agent/jvm.flags}" "$app/jvm.flags"
"$(dirname "$real_java")/javac" -d "$app/classes" -cp "$app/lib/*" images/StartFloor.java
{
  echo "Main-Class: StartFloor"
  echo "Class-Path: $(cd "$app" && ls lib/*.jar | tr '\n' ' ')" | fold -w 70 | sed '2,$s/^/ /'
} > "$app/manifest.mf"
"$(dirname "$real_java")/jar" --create --file "$app/start-floor.jar" --manifest "$app/manifest.mf" -C "$app/classes" .

# the stand-ins, started once: the API server with feature-discovery's lib/, the CRI socket with toolkit-agent's
mkdir -p "$bench/api" "$bench/host"
training_api_start "$bench/api" feature-discovery/target "$real_java"
mapfile -t envs < "$bench/api/pod.env"
training_cri_start "$bench" "$app" "$real_java"
socket=$bench/host/run/containerd/containerd.sock

echo "JVM: $("$real_java" -version 2>&1 | sed -n 2p); cpus: $(nproc)"
for m in "${modes[@]}"; do
  if [[ " ${SETUPS:-aot} " == *" aot "* ]]; then
    env "${envs[@]}" "$real_java" -XX:AOTCacheOutput="$app/$m.aot" @"$app/jvm.flags" -jar "$app/start-floor.jar" \
      "$m" "$socket" --exit > "$bench/train-$m.log" 2>&1 || { echo "training $m failed:"; cat "$bench/train-$m.log"; exit 1; }
  fi
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A starts cpus rsss
for round in $(seq 1 "$ROUNDS"); do
  for setup in ${SETUPS:-aot}; do
    for m in "${modes[@]}"; do
      case $setup in
        aot) jvm=(-XX:AOTCache="$app/$m.aot" @"$app/jvm.flags") ;;
        flags) jvm=(@"$app/jvm.flags") ;;
        *) echo "bench-floor: unknown set-up '$setup' (aot, flags)"; exit 2 ;;
      esac
      log=$bench/$round-$setup-$m.log
      t0=$(date +%s%N)
      env "${envs[@]}" "$real_java" "${jvm[@]}" -jar "$app/start-floor.jar" "$m" "$socket" > "$log" 2>&1 &
      pid=$!
      await_ready "$log" 'event=ready' "$pid" "$t0" || { echo "$m ($setup): not ready; log:"; cat "$log"; exit 1; }
      sleep "$IDLE"
      idle_rss "$pid"
      kill -KILL "$pid"; wait "$pid" 2>/dev/null || true; pid=
      if [ "$setup" = aot ] && grep -q 'error\]\[aot' "$log"; then
        echo "$m: the AOT cache was not used:"; grep 'aot' "$log"; exit 1
      fi
      echo "  $m $setup round $round: start to ready ${ms} ms (CPU ${cpu} ms), idle RSS ${rss} MiB (${split% })"
      starts[$m.$setup]+="$ms " cpus[$m.$setup]+="$cpu " rsss[$m.$setup]+="$rss "
    done
  done
done
for setup in ${SETUPS:-aot}; do
  for m in "${modes[@]}"; do
    k=$m.$setup
    # shellcheck disable=SC2086 # the lists are space-separated numbers
    printf '%-8s %-6s start to ready median %5s ms, min %5s ms, CPU median %5s ms   idle RSS median %5s MiB   (cache %s)\n' \
      "$m" "$setup" "$(printf '%s\n' ${starts[$k]} | median)" "$(printf '%s\n' ${starts[$k]} | sort -n | head -1)" \
      "$(printf '%s\n' ${cpus[$k]} | median)" "$(printf '%s\n' ${rsss[$k]} | median)" \
      "$([ "$setup" = aot ] && echo "$(( $(stat -c %s "$app/$m.aot") / 1048576 )) MiB" || echo none)"
  done
done
stand_in_stop "$api_pid"; api_pid=
stand_in_stop "$cri_pid"; cri_pid=
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
