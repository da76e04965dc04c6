#!/usr/bin/env bash
# The AOT cache of one component (JDK 25, JEP 483/514/515: classes loaded and linked ahead of time, and method
# profiles), made by one training run of the component itself:
#   images/aot-training.sh COMPONENT APP_DIR CACHE [JAVA]
# APP_DIR holds what the image puts in /app: COMPONENT.jar, lib/ and jvm.flags. The run is the agent's real start
# path with no cluster: simulated GPUs (simulated:h100-80gb-x8), a throw-away host root, validations directory and
# predecessor files, health on 127.0.0.1:0; no extra mode in the agents. The agents that talk to the API server on
# their start path (workload_api below) get a stand-in one on 127.0.0.1 for their own Node, over TLS (node-agent-lib's
# TrainingApiServer, from APP_DIR/lib, with a key made by the runtime's keytool), reached as a pod reaches its API
# server (service variables and service-account files, no kubeconfig): without it the Kubernetes client,
# TLS and JSON classes are left out of the cache, and feature-discovery's first publish in a cluster took 1.7 s of CPU
# instead of 0.85. toolkit-agent, which checks through containerd's CRI socket that containerd loaded the runtime it
# registered, and the validator, which runs a container there, get a stand-in socket (workload_cri; kubelet-api's
# TrainingCriServer) that answers them and ignores the SIGHUP of toolkit-agent's default restart mode: without it the
# gRPC, netty and protobuf classes were left out of both caches, and toolkit-agent's start in a pod took ~2.2 s of
# CPU. The device plugin, which is ready once the kubelet took its Register, gets a stand-in kubelet socket in its
# plugin directory (workload_kubelet; kubelet-api's TrainingKubelet) that dials it back as a kubelet does: without it
# the run stopped at serving, before the Register call. When the agent logs the line that says it is ready (READY
# below; for the controller, which needs a full API server, the point where its controller starts and the first API
# call fails), it gets SIGTERM and the JVM writes CACHE on exit (-XX:AOTCacheOutput, one step).
# The run uses java @APP_DIR/jvm.flags and -jar APP_DIR/COMPONENT.jar, so the cache matches the image's flags and
# class path; a cache must also come from the same JVM build as the run, so this runs inside the image
# (images/<component>/Dockerfile, RUN --mount of this file) or, for the local images, with the jlinked runtime they
# hold (e2e-tests LocalImages, which runs the Dockerfile's RUN line with APP_DIR and JAVA replaced).
# Sourced with AOT_TRAINING_LIB=1 it only defines workload_args/workload_ready (images/bench-start.sh).
set -euo pipefail

SIM=simulated:h100-80gb-x8

# The arguments of COMPONENT's run in WORK (created here), one per line.
workload_args() {
  local c=$1 work=$2
  mkdir -p "$work/host" "$work/validations"
  local common=(--gpu-source="$SIM" --host-root="$work/host" --node-name=aot-training)
  case "$c" in
    driver-agent)
      printf '%s\n' "${common[@]}" --validations-dir="$work/validations" --health-address=127.0.0.1:0 ;;
    toolkit-agent)
      # the driver is ready (its predecessor file); containerd's config and CRI socket (training_cri_start), no
      # containerd binary to ask; the restart mode is the default one (signal) and CDI is on, as in a pod of the
      # default policy
      : > "$work/validations/driver-ready"
      mkdir -p "$work/host/etc/containerd"
      printf 'version = 2\n' > "$work/host/etc/containerd/config.toml"
      printf '%s\n' "${common[@]}" --validations-dir="$work/validations" --health-address=127.0.0.1:0 \
        --restart-mode=signal --cdi-enabled=true --skip-containerd-validation ;;
    device-plugin)
      # the kubelet's socket in the plugin directory (training_kubelet_start)
      : > "$work/validations/toolkit-ready"
      mkdir -p "$work/plugins"
      printf '%s\n' "${common[@]}" --validations-dir="$work/validations" --health-address=127.0.0.1:0 \
        --device-plugin-path="$work/plugins" ;;
    feature-discovery)
      # labels published through the API, as in a cluster (workload_api)
      : > "$work/validations/plugin-ready"
      printf '%s\n' "${common[@]}" --validations-dir="$work/validations" --health-address=127.0.0.1:0 ;;
    dcgm-exporter)
      printf '%s\n' "${common[@]}" --address=127.0.0.1:0 --collect-interval=1000 \
        --pod-resources-socket="$work/pod-resources.sock" ;;
    mig-manager)
      # the stand-in's Node asks for all-disabled (nvidia.com/mig.config), a layout the GPUs already have: its first
      # reconcile lists the node's pods and patches the Node's state label, as on a node just labelled
      printf 'version: v1\nmig-configs:\n  all-disabled:\n    - devices: all\n      mig-enabled: false\n' \
        > "$work/mig-config.yaml"
      printf '%s\n' "${common[@]}" --validations-dir="$work/validations" --health-address=127.0.0.1:0 \
        --config-file="$work/mig-config.yaml" ;;
    validator)
      # a whole round on a healthy node, every layer managed by the operator as the default policy renders it: the
      # operands' ready files, the driver container's root, the GPUs' device nodes (plain files, as on the
      # simulated nodes), a CRI socket for the toolkit check's container (training_cri_start), and the stand-in API
      # server for the CUDA check's workload pod and the node's allocatable GPUs
      : > "$work/validations/driver-ready"
      : > "$work/validations/toolkit-ready"
      : > "$work/validations/plugin-ready"
      mkdir -p "$work/host/dev" "$work/host/run/nvidia/driver"
      for d in nvidiactl nvidia0 nvidia1 nvidia2 nvidia3 nvidia4 nvidia5 nvidia6 nvidia7; do
        : > "$work/host/dev/$d"
      done
      printf '%s\n' "${common[@]}" --validations-dir="$work/validations" --health-address=127.0.0.1:0 \
        --metrics-address=127.0.0.1:0 --workload-image=aot-training --namespace=aot-training \
        --runtime-socket="$work/host/run/containerd/containerd.sock" --driver-root=/run/nvidia/driver \
        --driver-managed=true --toolkit-managed=true --plugin-managed=true ;;
    operator-controller)
      printf '%s\n' --health-probe-bind-address=127.0.0.1:0 --metrics-bind-address=127.0.0.1:0 --no-leader-elect ;;
    *) echo "aot-training.sh: unknown component '$c'" >&2; return 2 ;;
  esac
}

# The log text that says COMPONENT is ready (its start path is done, or it waits only for the cluster).
workload_ready() {
  case "$1" in
    driver-agent) echo 'event=driver-ready' ;;
    toolkit-agent) echo 'event=ready ' ;;
    device-plugin) echo 'event=registered ' ;;
    feature-discovery) echo 'event=labels-published ' ;;
    dcgm-exporter) echo 'event=started ' ;;
    mig-manager) echo 'event=mig-config-applied ' ;;
    validator) echo 'event=validation ' ;;
    operator-controller) echo "Starting 'clusterpolicy' controller" ;;
    *) echo "aot-training.sh: unknown component '$1'" >&2; return 2 ;;
  esac
}

# Whether COMPONENT's start path talks to the API server (its own Node's labels or annotations; mig-manager's
# informer on its Node and its first reconcile).
workload_api() {
  case "$1" in
    feature-discovery|validator|mig-manager) return 0 ;;
    *) return 1 ;;
  esac
}

# Whether COMPONENT's start path talks to containerd's CRI socket (toolkit-agent's check of the runtime it registered,
# the validator's toolkit check).
workload_cri() {
  [ "$1" = toolkit-agent ] || [ "$1" = validator ]
}

# Starts the stand-in CRI socket for a run in WORK at its host root's /run/containerd/containerd.sock (toolkit-agent's
# default --socket; the validator is given it) with APP's class path and JAVA's runtime, naming the runtime handler
# toolkit-agent registers by default; waits until it serves (it has answered a call of its own); sets cri_pid.
training_cri_start() {
  local work=$1 app=$2 java=$3 socket=$1/host/run/containerd/containerd.sock
  "$java" -cp "$app/lib/*" org.gpuoperator.kubelet.aot.TrainingCriServer "$socket" nvidia \
    /usr/local/nvidia/toolkit/nvidia-container-runtime > "$work/cri.log" 2>&1 &
  cri_pid=$!
  stand_in_await "$cri_pid" "$work/cri.log" "the training CRI socket" grep -q '^serving ' "$work/cri.log"
}

# Whether COMPONENT's start path ends with a Register at the kubelet's device-plugin socket (the device plugin).
workload_kubelet() {
  [ "$1" = device-plugin ]
}

# Starts the stand-in kubelet socket for a run in WORK at WORK/plugins/kubelet.sock (the device plugin's
# --device-plugin-path there) with APP's class path and JAVA's runtime; waits until it serves (a plugin of its own has
# registered through it); sets kubelet_pid.
training_kubelet_start() {
  local work=$1 app=$2 java=$3
  "$java" -cp "$app/lib/*" org.gpuoperator.kubelet.aot.TrainingKubelet "$work/plugins/kubelet.sock" \
    > "$work/kubelet.log" 2>&1 &
  kubelet_pid=$!
  stand_in_await "$kubelet_pid" "$work/kubelet.log" "the training kubelet socket" grep -q '^serving ' \
    "$work/kubelet.log"
}

# Starts the stand-in API server for a run in WORK with APP's class path and JAVA's runtime, and waits for its
# kubeconfig (WORK/kubeconfig, written after WORK/pod.env and WORK/serviceaccount/); sets api_pid.
training_api_start() {
  local work=$1 app=$2 java=$3 keytool
  keytool=$(dirname "$(readlink -f "$(command -v "$java")")")/keytool
  "$keytool" -genkeypair -keystore "$work/api.p12" -storetype PKCS12 -storepass training -keypass training \
    -alias api -keyalg EC -groupname secp256r1 -dname CN=aot-training -ext san=ip:127.0.0.1 -validity 2 \
    > "$work/api.log" 2>&1
  "$java" -cp "$app/lib/*" org.gpuoperator.node.aot.TrainingApiServer "$work/api.p12" training aot-training \
    "$work/kubeconfig" >> "$work/api.log" 2>&1 &
  api_pid=$!
  stand_in_await "$api_pid" "$work/api.log" "the training API server" test -f "$work/kubeconfig"
}

# SIGKILLs every PID given that is not empty, going on past one already gone (an EXIT trap's clean-up under set -e
# otherwise stops at the first kill that fails, and the stand-ins after it outlive the run).
kill_all_quietly() {
  local p
  for p in "$@"; do
    [ -z "$p" ] || kill -KILL "$p" 2>/dev/null || true
  done
}

# Stops the stand-in PID (none when empty) and waits for it, quietly.
stand_in_stop() {
  [ -n "$1" ] || return 0
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# Waits up to 60 s, while PID runs, until the command after LOG and WHAT succeeds; else prints WHAT's LOG and fails.
stand_in_await() {
  local pid=$1 log=$2 what=$3
  shift 3
  for _ in $(seq 1 600); do
    "$@" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "aot-training.sh: $what did not start; its output:" >&2
  cat "$log" >&2
  return 1
}

# The run's environment: for workload_api, what a pod's container gets to reach the stand-in API server (its
# pod.env: the service host and port, the service-account token and CA, no kubeconfig), so the agent takes a pod's
# path to it; for the controller, a kubeconfig whose API server refuses connections.
workload_env() {
  local c=$1 work=$2
  if workload_api "$c"; then
    cat "$work/pod.env"
  elif [ "$c" = operator-controller ]; then
    cat > "$work/kubeconfig" <<'EOF'
apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
EOF
    echo "KUBECONFIG=$work/kubeconfig"
  fi
}

[ "${AOT_TRAINING_LIB:-}" = 1 ] && return 0

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: images/aot-training.sh COMPONENT APP_DIR CACHE [JAVA]" >&2
  exit 2
fi
component=$1 app=$2 cache=$3 java=${4:-java}
for f in "$app/$component.jar" "$app/jvm.flags"; do
  [ -f "$f" ] || { echo "aot-training.sh: $f is missing" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/aot-training.XXXXXX")
pid=
api_pid=
cri_pid=
kubelet_pid=
cleanup() {
  kill_all_quietly "$pid" "$api_pid" "$cri_pid" "$kubelet_pid"
  rm -rf "$work"
}
trap cleanup EXIT
if workload_api "$component"; then
  training_api_start "$work" "$app" "$java"
fi
mapfile -t args < <(workload_args "$component" "$work")
if workload_cri "$component"; then
  training_cri_start "$work" "$app" "$java"
fi
if workload_kubelet "$component"; then
  training_kubelet_start "$work" "$app" "$java"
fi
ready=$(workload_ready "$component")
mapfile -t env < <(workload_env "$component" "$work")
rm -f "$cache" "$cache.config"
start=$(date +%s%N)
env "${env[@]}" "$java" @"$app/jvm.flags" -XX:AOTCacheOutput="$cache" -jar "$app/$component.jar" "${args[@]}" \
  > "$work/log" 2>&1 &
pid=$!
# up to 300 s: under a heavy load (a load average of 30 on 2 cores) the controller took 82 s here
for _ in $(seq 1 3000); do
  grep -qF -- "$ready" "$work/log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if ! grep -qF -- "$ready" "$work/log"; then
  echo "aot-training.sh: $component did not log '$ready' within 300 s; its output:" >&2
  cat "$work/log" >&2
  exit 1
fi
# an agent on the stand-in API server: until it has patched its Node (the validator logs its ready line before that
# patch; with the linger alone its TLS and JSON classes could miss the cache, as they did while it built its client
# lazily)
if workload_api "$component"; then
  for _ in $(seq 1 600); do
    [ -f "$work/node-patched" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -f "$work/node-patched" ] || echo "aot-training.sh: $component did not patch its Node within 60 s" >&2
fi
# let the first periodic work after start run once (informer retry, first sample)
sleep "${AOT_TRAINING_LINGER:-1}"
kill -TERM "$pid"
wait "$pid" || true
pid=
# the stand-ins, quietly (the EXIT trap's KILL is for a run that stops half way)
stand_in_stop "$cri_pid"; cri_pid=
stand_in_stop "$kubelet_pid"; kubelet_pid=
stand_in_stop "$api_pid"; api_pid=
if [ ! -s "$cache" ] || ! grep -q 'AOTCache creation is complete' "$work/log"; then
  echo "aot-training.sh: no AOT cache written to $cache; the run's output:" >&2
  cat "$work/log" >&2
  exit 1
fi
chmod 644 "$cache"
echo "aot-training.sh: $component: $(grep -o 'AOTCache creation is complete.*' "$work/log")" \
  "(training and assembly $(( ($(date +%s%N) - start) / 1000000 )) ms)"
