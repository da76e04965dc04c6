#!/usr/bin/env bash
# Real-GPU check: prints this machine's GPU inventory and one metrics sample per GPU, read from NVML
# (libnvidia-ml.so.1) through the FFM binding, the same code path every node agent uses.
# Usage (from the repository root): node-agent-lib/src/test/sh/real-gpu-check.sh [inventory-check options]
#   e.g. --host-root /host, --nvml-library /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1, --gpu-source simulated:t4-x1
# Needs a JDK 25 (bin/java25); builds node-agent-lib if it is not built yet (offline Maven).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
module="$root/node-agent-lib"
cd "$root"
if [ ! -f "$module/target/runtime-classpath.txt" ] || [ ! -d "$module/target/classes" ]; then
  ./mvnw -q -o -pl node-agent-lib compile dependency:build-classpath \
    -Dmdep.outputFile=target/runtime-classpath.txt -Dmdep.includeScope=runtime
fi
exec "$root/bin/java25" --enable-native-access=ALL-UNNAMED \
  -cp "$module/target/classes:$(cat "$module/target/runtime-classpath.txt")" \
  org.gpuoperator.node.inventory.InventoryCheck "$@"
