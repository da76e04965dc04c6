#!/usr/bin/env bash
# One Maven build for every release image: the jar and lib/ of each component (<component>/target/<component>.jar,
# <component>/target/lib/), which images/<component>/Dockerfile then copies; no Dockerfile runs Maven. The
# components are the directories of images/ that hold a Dockerfile. Tests are not run here (the e2e workflow runs
# them); extra arguments go to Maven. Needs a JDK 25 (the toolchain the build selects).
set -euo pipefail
cd "$(dirname "$0")/.."
components=$(for d in images/*/Dockerfile; do basename "$(dirname "$d")"; done | paste -sd, -)
exec ./mvnw -B -ntp -pl "$components" -am package -DskipTests "$@"
