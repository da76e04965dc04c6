package org.gpuoperator.migmanager.reconcile;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A node in memory: labels and annotations patched as the API server would, and pods that a test
 * adds and removes (a client's pod leaves once its deploy label is no longer {@code true}, as its
 * DaemonSet would make it).
 */
final class FakeNode implements MigNodeAccess {

    final Map<String, String> labels = new HashMap<>();
    final Map<String, String> annotations = new HashMap<>();
    final List<String> gpuPods = new ArrayList<>();
    final List<MigStep.NodeChanges> patches = new ArrayList<>();

    /** Looks at the clients' pods left before the DaemonSets remove them. */
    int clientPodsLinger;

    FakeNode withClientsDeployed() {
        MigLabels.CLIENTS.keySet().forEach(k -> labels.put(k, "true"));
        return this;
    }

    @Override
    public Meta meta() {
        return new Meta(labels, annotations);
    }

    @Override
    public void patch(MigStep.NodeChanges changes) {
        patches.add(changes);
        apply(labels, changes.labels());
        apply(annotations, changes.annotations());
    }

    private static void apply(Map<String, String> target, Map<String, String> changes) {
        changes.forEach(
                (k, v) -> {
                    if (v == null) {
                        target.remove(k);
                    } else {
                        target.put(k, v);
                    }
                });
    }

    @Override
    public Pods pods(boolean gpuHolders, boolean clients) {
        return new Pods(gpuHolders ? gpuPods : List.of(), clients ? clientPods() : List.of());
    }

    private List<String> clientPods() {
        List<String> pods = new ArrayList<>();
        MigLabels.CLIENTS.forEach(
                (label, app) -> {
                    if ("true".equals(labels.get(label)) || clientPodsLinger > 0) {
                        pods.add("gpu-operator/" + app + "-x");
                    }
                });
        if (clientPodsLinger > 0) {
            clientPodsLinger--;
        }
        return pods.stream().sorted().toList();
    }
}
