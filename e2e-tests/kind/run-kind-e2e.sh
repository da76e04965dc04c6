#!/usr/bin/env bash
# Runs the e2e scenarios on a kind cluster with simulated GPUs:
#   1. create the cluster (kind-config.yaml: workers marked gpuoperator.org/simulated-gpu=true)
#   2. build every component image and load it into kind
#   3. install the operator with `kubectl apply -k deploy`, pointing it at the loaded images
#   4. run the same scenario suite as the simulated cluster, against this cluster (KUBECONFIG)
# Needs docker, kind, kubectl and a JDK 25. Cannot run on machines without a Docker engine.
set -euo pipefail
cd "$(dirname "$0")/../.."
CLUSTER=${CLUSTER:-gpu-operator-e2e}
TAG=${TAG:-0.0.0-e2e}
REGISTRY=$(sed -n 's/^registry=//p' images/versions.properties)
COMPONENTS="operator-controller driver-agent toolkit-agent device-plugin feature-discovery dcgm-exporter"

for tool in docker kind kubectl; do
  command -v "$tool" >/dev/null || { echo "run-kind-e2e: $tool is required" >&2; exit 1; }
done

kind get clusters | grep -qx "$CLUSTER" || kind create cluster --name "$CLUSTER" --config e2e-tests/kind/kind-config.yaml --wait 2m

for c in $COMPONENTS; do
  docker build -q -f "images/$c/Dockerfile" --build-arg VERSION="$TAG" -t "$REGISTRY/$c:$TAG" .
  kind load docker-image --name "$CLUSTER" "$REGISTRY/$c:$TAG"
done

# Install the operator from the same manifests an admin uses, with the freshly built controller image.
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
cat > "$workdir/kustomization.yaml" <<KUST
resources:
  - $(pwd)/deploy
images:
  - name: $REGISTRY/operator-controller
    newTag: $TAG
KUST
kubectl apply -k "$workdir"
kubectl -n gpu-operator rollout status deploy/gpu-operator --timeout=3m

# The scenario suite, against this cluster. Operand images use the e2e tag.
./mvnw -B -ntp -pl e2e-tests -am verify -DskipTests=false \
  -De2e.cluster=kubeconfig -De2e.imageTag="$TAG" -Dtest='*ScenariosIT' -Dsurefire.failIfNoSpecifiedTests=false
