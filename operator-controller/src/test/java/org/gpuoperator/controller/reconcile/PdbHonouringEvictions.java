package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Eviction API as the API server runs it, for the CRUD mock (which has no eviction
 * subresource): a pod covered by a PodDisruptionBudget that allows no disruption now is refused
 * (429), any other is deleted. PDBs with {@code matchLabels} and an integer {@code minAvailable} or
 * {@code maxUnavailable}, counted over the Ready pods they select, as the disruption controller
 * does.
 */
final class PdbHonouringEvictions implements PodEvictions {

    private final KubernetesClient client;

    /** {@code namespace/name} of every eviction asked for, with its outcome. */
    final List<String> requests = new CopyOnWriteArrayList<>();

    /** {@code namespace/name} of every pod deleted through {@link #delete}. */
    final List<String> deletions = new CopyOnWriteArrayList<>();

    PdbHonouringEvictions(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public Outcome evict(String namespace, String name) {
        Pod pod = client.pods().inNamespace(namespace).withName(name).get();
        Outcome outcome;
        if (pod == null) {
            outcome = Outcome.GONE;
        } else if (blocked(pod)) {
            outcome = Outcome.BLOCKED;
        } else {
            client.pods().inNamespace(namespace).withName(name).delete();
            outcome = Outcome.EVICTED;
        }
        requests.add(namespace + "/" + name + " " + outcome);
        return outcome;
    }

    @Override
    public void delete(String namespace, String name) {
        client.pods().inNamespace(namespace).withName(name).delete();
        deletions.add(namespace + "/" + name);
    }

    private boolean blocked(Pod pod) {
        String ns = pod.getMetadata().getNamespace();
        for (PodDisruptionBudget pdb :
                client.policy().v1().podDisruptionBudget().inNamespace(ns).list().getItems()) {
            Map<String, String> selector = pdb.getSpec().getSelector().getMatchLabels();
            if (!selects(selector, pod)) {
                continue;
            }
            List<Pod> selected =
                    client.pods().inNamespace(ns).list().getItems().stream()
                            .filter(p -> selects(selector, p))
                            .toList();
            long healthy = selected.stream().filter(PdbHonouringEvictions::ready).count();
            var min = pdb.getSpec().getMinAvailable();
            var maxUnavailable = pdb.getSpec().getMaxUnavailable();
            if (min != null && healthy - 1 < min.getIntVal()) {
                return true;
            }
            if (maxUnavailable != null
                    && selected.size() - healthy + 1 > maxUnavailable.getIntVal()) {
                return true;
            }
        }
        return false;
    }

    private static boolean selects(Map<String, String> selector, Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        return selector != null
                && labels != null
                && selector.entrySet().stream()
                        .allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }

    private static boolean ready(Pod p) {
        return p.getStatus() != null
                && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
