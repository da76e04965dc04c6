#!/usr/bin/env bash
# Start to ready and idle RSS of every node agent, side by side for three JVM set-ups:
#   before   the flags of images/<c>/jvm.flags at BASE_REV (default 05f01f5, before the AOT caches; some had
#            -Xshare:off), no cache;
#   flags    images/<c>/jvm.flags now, no cache (the JDK's default CDS archive);
#   aot      images/<c>/jvm.flags now plus -XX:AOTCache=<c>.aot, the cache made by images/aot-training.sh as the
#            image build makes it.
# Each run is the training workload of images/aot-training.sh (simulated GPUs, temp host root, no cluster; the
# agents that talk to the API server on their start path get its stand-in one, toolkit-agent and the validator
# its stand-in CRI socket, and the device plugin its stand-in kubelet, as in the training).
# Start to ready: from just before the java process is started to the ts= of the agent's ready line (the
# line images/aot-training.sh waits for; a predecessor's file is already there), and the CPU time (user + system,
# 10 ms ticks) the process had used when the bench saw that line (polled every 10 ms): on a loaded machine the
# wall time grows with the load, the CPU time much less. Idle RSS: VmRSS after IDLE s (RssAnon + RssFile: the
# cache's pages are file-backed and shared between processes that map the same file).
# Usage, from the repository root, after `./mvnw -o -q install -DskipTests` (jars in <c>/target):
#   images/bench-start.sh [RUNS] [IDLE_SECONDS] [COMPONENT...]     (default 3 runs, 5 s, every node agent)
# Prints one line per run and a summary line per agent and set-up. JAVA: the java to use (default bin/java25);
# JVM_FLAGS=FILE: other flags in place of images/<c>/jvm.flags (for one component at a time); SETUPS: which
# set-ups, e.g. SETUPS=flags for one flags file without a cache; SHOW_LOG=1: each run's log after its line, with
# the clock's start (t0) to read the ts= of its events against.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
JAVA=${JAVA:-$root/bin/java25}
BASE_REV=${BASE_REV:-05f01f5}
RUNS=${1:-3}
IDLE=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
components=("$@")
[ ${#components[@]} -gt 0 ] || components=(driver-agent toolkit-agent device-plugin feature-discovery dcgm-exporter
  mig-manager validator)
AOT_TRAINING_LIB=1 source images/aot-training.sh
source images/bench-lib.sh
bench=$(mktemp -d /tmp/bench-start.XXXXXX)
pid=
api_pid=
cri_pid=
kubelet_pid=
trap 'kill_all_quietly "$pid" "$api_pid" "$cri_pid" "$kubelet_pid"; rm -rf "$bench"' EXIT
real_java=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.home = //p')/bin/java

echo "JVM: $("$real_java" -version 2>&1 | sed -n 2p); cpus: $(nproc); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

for c in "${components[@]}"; do
  app=$bench/$c/app
  mkdir -p "$app"
  cp -r "$c/target/$c.jar" "$c/target/lib" "$app/"
  cp "${JVM_FLAGS:-images/$c/jvm.flags}" "$app/jvm.flags"
  git show "$BASE_REV:images/$c/jvm.flags" > "$bench/$c/before.flags"
  if [[ " ${SETUPS:-aot} " == *" aot "* ]]; then
    images/aot-training.sh "$c" "$app" "$app/$c.aot" "$real_java" | sed 's/^/  /'
  fi
  ready=$(workload_ready "$c")
  # an agent that talks to the API server on its start path does so in every set-up, with the stand-in one
  envs=()
  if workload_api "$c"; then
    mkdir -p "$bench/$c/api"
    training_api_start "$bench/$c/api" "$app" "$real_java"
    mapfile -t envs < <(workload_env "$c" "$bench/$c/api")
  fi
  for setup in ${SETUPS:-before flags aot}; do
    case $setup in
      before) jvm=(@"$bench/$c/before.flags") ;;
      flags) jvm=(@"$app/jvm.flags") ;;
      aot) jvm=(-XX:AOTCache="$app/$c.aot" @"$app/jvm.flags") ;;
    esac
    starts=() cpus=() rsss=()
    for run in $(seq 1 "$RUNS"); do
      work=$bench/$c/run-$setup-$run
      mkdir -p "$work"
      mapfile -t args < <(workload_args "$c" "$work")
      # the CRI socket (workload_cri), in the run's host root (started before the clock)
      if workload_cri "$c"; then training_cri_start "$work" "$app" "$real_java"; fi
      # the kubelet's device-plugin socket (workload_kubelet), in the run's plugin directory (started before the clock)
      if workload_kubelet "$c"; then training_kubelet_start "$work" "$app" "$real_java"; fi
      : > "$work/log"
      t0=$(date +%s%N)
      env "${envs[@]}" "$real_java" "${jvm[@]}" -jar "$app/$c.jar" "${args[@]}" > "$work/log" 2>&1 &
      pid=$!
      await_ready "$work/log" "$ready" "$pid" "$t0" || { echo "$c ($setup): not ready; log:"; cat "$work/log"; exit 1; }
      sleep "$IDLE"
      idle_rss "$pid"
      kill -TERM "$pid"; wait "$pid" || true; pid=
      stand_in_stop "$cri_pid"; cri_pid=
      stand_in_stop "$kubelet_pid"; kubelet_pid=
      if [ "$setup" = aot ] && grep -q 'error\]\[aot' "$work/log"; then
        echo "$c: the AOT cache was not used:"; grep 'aot' "$work/log"; exit 1
      fi
      echo "  $c $setup run $run: start to ready ${ms} ms (CPU ${cpu} ms), idle RSS ${rss} MiB (${split% })"
      if [ -n "${SHOW_LOG:-}" ]; then echo "    t0=$(date -u -d "@${t0:0:10}.${t0:10:3}" +%H:%M:%S.%3N)"; sed 's/^/    /' "$work/log"; fi
      starts+=("$ms") cpus+=("$cpu") rsss+=("$rss")
    done
    printf '%-18s %-7s start to ready median %5s ms, min %5s ms, CPU median %5s ms   idle RSS median %5s MiB   (cache %s)\n' \
      "$c" "$setup" "$(printf '%s\n' "${starts[@]}" | median)" "$(printf '%s\n' "${starts[@]}" | sort -n | head -1)" \
      "$(printf '%s\n' "${cpus[@]}" | median)" "$(printf '%s\n' "${rsss[@]}" | median)" \
      "$([ "$setup" = aot ] && echo "$(( $(stat -c %s "$app/$c.aot") / 1048576 )) MiB" || echo none)"
  done
  stand_in_stop "$api_pid"; api_pid=
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
