#!/usr/bin/env bash
# Runs the e2e scenarios on a kind cluster with simulated GPUs (e2e-tests/kind/README.md):
#   1. create the cluster (kind-config.yaml: two workers labelled gpuoperator.org/simulated-gpu=true)
#   2. build every component's jar with one Maven build (images/build-jars.sh), then every component image from
#      those jars, and load the images into the kind nodes
#   3. install the operator with `kubectl apply -k deploy`, running the freshly built controller image
#   4. run KindScenariosIT against this cluster (KUBECONFIG); the ClusterPolicy it applies points every operand at
#      the loaded images ($REGISTRY/<component>:$TAG)
# Needs docker (with a running engine), kind, kubectl and a JDK 25. Cannot run on machines without a Docker engine.
# Env: CLUSTER (kind cluster name), TAG (image tag for this run), KEEP_CLUSTER=1 (keep the cluster afterwards;
# by default a cluster this script created is deleted when the scenarios pass).
set -euo pipefail
cd "$(dirname "$0")/../.."
CLUSTER=${CLUSTER:-gpu-operator-e2e}
TAG=${TAG:-0.0.0-e2e}
REGISTRY=$(sed -n 's/^registry=//p' images/versions.properties)
COMPONENTS="operator-controller driver-agent toolkit-agent device-plugin feature-discovery dcgm-exporter mig-manager validator"
# The GPU pod of the allocation scenario; preloaded so that a registry rate limit cannot fail the run.
TEST_IMAGE=busybox:1.37

for tool in docker kind kubectl; do
  command -v "$tool" >/dev/null || { echo "run-kind-e2e: $tool is required" >&2; exit 1; }
done
docker info >/dev/null 2>&1 || { echo "run-kind-e2e: no Docker engine (docker info failed)" >&2; exit 1; }

created=0
if ! kind get clusters | grep -qx "$CLUSTER"; then
  kind create cluster --name "$CLUSTER" --config e2e-tests/kind/kind-config.yaml --wait 2m
  created=1
fi
kubectl config use-context "kind-$CLUSTER"

# One Maven build for every image's jar and lib/; the Dockerfiles only copy them.
images/build-jars.sh -q
for c in $COMPONENTS; do
  echo "run-kind-e2e: building $REGISTRY/$c:$TAG"
  docker build -q -f "images/$c/Dockerfile" --build-arg VERSION="$TAG" -t "$REGISTRY/$c:$TAG" .
  kind load docker-image --name "$CLUSTER" "$REGISTRY/$c:$TAG"
done
# The toolkit rollout scenario changes spec.toolkit.version to "$TAG-rollout": the same image under a second tag.
docker tag "$REGISTRY/toolkit-agent:$TAG" "$REGISTRY/toolkit-agent:$TAG-rollout"
kind load docker-image --name "$CLUSTER" "$REGISTRY/toolkit-agent:$TAG-rollout"
docker pull -q "$TEST_IMAGE"
kind load docker-image --name "$CLUSTER" "$TEST_IMAGE"

# Mark the workers as simulated GPU nodes (kind-config.yaml already does; this also covers a reused cluster).
kubectl label nodes -l '!node-role.kubernetes.io/control-plane' gpuoperator.org/simulated-gpu=true --overwrite

# Install the operator from the same manifests an admin uses, then switch it to the freshly built controller image.
kubectl apply -k deploy
kubectl wait --for=condition=Established --timeout=60s crd/clusterpolicies.nvidia.com crd/nvidiadrivers.nvidia.com
kubectl -n gpu-operator set image deploy/gpu-operator operator-controller="$REGISTRY/operator-controller:$TAG"
kubectl -n gpu-operator rollout status deploy/gpu-operator --timeout=3m

# The scenario suite, against this cluster. -am builds the modules e2e-tests depends on; -Dtest=NONE skips unit
# tests (the simulated cluster's job runs them) and -Dit.test runs only the kind scenarios.
./mvnw -B -ntp -pl e2e-tests -am verify \
  -Dit.test=KindScenariosIT -De2e.cluster=kubeconfig -De2e.imageTag="$TAG" \
  -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false

if [ "$created" = 1 ] && [ "${KEEP_CLUSTER:-0}" != 1 ]; then
  kind delete cluster --name "$CLUSTER"
fi
