#!/usr/bin/env bash
# Benchmark: one full sample of 8 GPUs through the NVML FFM binding, against the mock libnvidia-ml (JMH).
# Usage (from the repository root): node-agent-lib/src/test/sh/bench-nvml-sample.sh [extra JMH options]
# Needs gcc (to build the mock) and a JDK 25 (bin/java25). Not part of `mvnw verify`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
module="$root/node-agent-lib"
cd "$root"
./mvnw -q -o -pl node-agent-lib test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
cp="$module/target/test-classes:$module/target/classes:$(cat "$module/target/test-classpath.txt")"
exec "$root/bin/java25" --enable-native-access=ALL-UNNAMED -cp "$cp" org.openjdk.jmh.Main NvmlSampleBenchmark "$@"
