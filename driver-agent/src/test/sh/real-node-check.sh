#!/bin/sh
# Real-node check for driver-agent: the parts no test here can prove (a real kernel, real modules, NVML).
# Run as root on a disposable GPU machine (not a production node: it loads and unloads kernel modules).
#
#   host driver node:       real-node-check.sh host
#   node without a driver:  real-node-check.sh container /path/to/NVIDIA-Linux-x86_64-<version>   (from `sh NVIDIA-Linux-x86_64-<version>.run -x`)
#
# Needs: JDK 25 as $JAVA (default java), the jar from `./mvnw -pl driver-agent package` as $JAR, and for
# "container" the kernel headers of the running kernel (linux-headers-$(uname -r)) and no NVIDIA driver loaded.
set -eu
MODE=${1:?usage: $0 host | container PACKAGE_DIR}
JAVA=${JAVA:-java}
JAR=${JAR:-$(dirname "$0")/../../../target/driver-agent.jar}
WORK=$(mktemp -d /tmp/driver-agent-check.XXXXXX)
PORT=${PORT:-18081}
AGENT="$JAVA -jar $JAR --gpu-source nvml --host-root / --validations-dir $WORK/validations --health-address 127.0.0.1:$PORT"
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

wait_ready() {
  i=0
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ]; do
    i=$((i + 1)); [ $i -lt "${1:-900}" ] || { cat "$WORK/validations/.driver-agent-status" >&2; fail "not ready in time"; }
    sleep 1
  done
}

case "$MODE" in
host)
  $AGENT detect || fail "no host driver detected"
  $AGENT --driver-version unused > "$WORK/agent.log" 2>&1 & PID=$!
  wait_ready 120
  grep -q '^IS_HOST_DRIVER=true$' "$WORK/validations/driver-ready" || fail "driver-ready is not a host driver"
  ok "host driver reported: $(tr '\n' ' ' < "$WORK/validations/driver-ready")"
  kill -TERM $PID; wait $PID || true
  [ ! -e "$WORK/validations/driver-ready" ] || fail "driver-ready left behind after SIGTERM"
  ok "driver-ready removed on stop"
  ;;
container)
  PKG=${2:?package dir (sh NVIDIA-Linux-x86_64-<version>.run -x)}
  VERSION=$(basename "$PKG" | sed 's/^NVIDIA-Linux-[^-]*-//')
  ! grep -q '^nvidia ' /proc/modules || fail "an NVIDIA module is already loaded; use a node without a driver"
  # The package's own nvidia-smi, nvidia-persistenced and libnvidia-ml stand in for the driver image's.
  export PATH="$PKG:$PATH" LD_LIBRARY_PATH="$PKG"
  $AGENT --driver-version "$VERSION" --driver-package "$PKG" --driver-install-root / \
    --driver-root-dir "$WORK/driver-root" > "$WORK/agent.log" 2>&1 & PID=$!
  wait_ready 1800
  cat "$WORK/validations/driver-ready"
  grep -q '^IS_HOST_DRIVER=false$' "$WORK/validations/driver-ready" || fail "driver-ready is not a container driver"
  for m in nvidia nvidia_uvm nvidia_modeset; do grep -q "^$m " /proc/modules || fail "$m not loaded"; done
  ls -l /dev/nvidia* ; ok "modules loaded, device nodes present, driver-ready written"
  grep -E 'modules-selected|modules-built|module-loaded' "$WORK/agent.log"
  kill -TERM $PID; wait $PID || true
  # In use: a process holding a GPU must block the unload and be named.
  nvidia-smi -l 1 > /dev/null & HOLDER=$!
  sleep 3
  if $AGENT --driver-version "$VERSION" --driver-package "$PKG" unload > "$WORK/unload.log" 2>&1; then fail "unloaded while in use"; fi
  grep -q "pid $HOLDER" "$WORK/unload.log" || { cat "$WORK/unload.log"; fail "holder $HOLDER not named"; }
  ok "unload refused while pid $HOLDER holds the GPU"
  kill $HOLDER; wait $HOLDER 2>/dev/null || true
  $AGENT --driver-version "$VERSION" --driver-package "$PKG" unload || fail "unload failed once idle"
  ! grep -q '^nvidia ' /proc/modules || fail "nvidia still loaded"
  umount -R "$WORK/driver-root" 2>/dev/null || true
  ok "unloaded once idle"
  ;;
*) fail "unknown mode $MODE" ;;
esac
echo "all checks passed; logs in $WORK"
