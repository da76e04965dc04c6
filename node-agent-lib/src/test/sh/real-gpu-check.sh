#!/usr/bin/env bash
# Real-GPU check: prints this machine's GPU inventory and one metrics sample per GPU, read from NVML
# (libnvidia-ml.so.1) through the FFM binding, the same code path every node agent uses.
# Usage (from the repository root): node-agent-lib/src/test/sh/real-gpu-check.sh [inventory-check options]
#   e.g. --host-root /host, --nvml-library /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1, --gpu-source simulated:t4-x1
# Needs a JDK 25 (bin/java25). Builds node-agent-lib.jar (+ target/lib) when it is missing; on a GPU machine without
# Maven, copy node-agent-lib/target/node-agent-lib.jar and node-agent-lib/target/lib/ there and run
#   java --enable-native-access=ALL-UNNAMED -jar node-agent-lib.jar
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
jar="$root/node-agent-lib/target/node-agent-lib.jar"
if [ ! -f "$jar" ] || [ ! -d "$root/node-agent-lib/target/lib" ]; then
  (cd "$root" && ./mvnw -q -o -pl node-agent-lib package -DskipTests)
fi
exec "$root/bin/java25" --enable-native-access=ALL-UNNAMED -jar "$jar" "$@"
