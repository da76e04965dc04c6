package org.gpuoperator.controller.upgrade;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.gpuoperator.controller.operand.Operand;

/**
 * A small in-memory cluster for the upgrade machine: applies each pass's actions as the wiring
 * would, plays the DaemonSet controllers (a deleted driver pod comes back at the target version; an
 * operand that uses the driver runs on the node while its deploy label is {@code true}), the
 * Eviction API (a pod behind a PDB is refused) and the validator. The clock is moved by hand.
 */
final class UpgradeWorld {

    static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");

    final class Node {
        final String name;
        boolean ready = true;
        boolean unschedulable;
        final Map<String, String> labels = new HashMap<>();
        final Map<String, String> annotations = new HashMap<>();
        UpgradeNode.DriverPod driver;
        UpgradeNode.ValidatorPod validator;
        final List<NodePod> pods = new ArrayList<>();

        /**
         * The operand pods that use the driver (device plugin and the like; the validator is {@link
         * #validator}): those named after their DaemonSet are the DaemonSets', a test may add
         * others.
         */
        final List<UpgradeNode.OperandPod> users = new ArrayList<>();

        /** The new driver comes up Ready (else it crash-loops, counting restarts). */
        boolean driverStartsReady = true;

        /** The validator turns Ready after a driver restart. */
        boolean validatorPasses = true;

        final List<String> states = new ArrayList<>();

        Node(String name) {
            this.name = name;
        }

        UpgradeNode view() {
            return new UpgradeNode(
                    name,
                    ready,
                    unschedulable,
                    labels,
                    annotations,
                    Optional.ofNullable(driver),
                    Optional.ofNullable(validator),
                    driverUsers(),
                    pods);
        }

        /** As the wiring lists them: the validator is a driver user too. */
        private List<UpgradeNode.OperandPod> driverUsers() {
            List<UpgradeNode.OperandPod> all = new ArrayList<>(users);
            if (validator != null) {
                all.add(
                        new UpgradeNode.OperandPod(
                                validator.namespace(),
                                validator.name(),
                                validator.readySince(),
                                validator.terminating()));
            }
            return all;
        }

        String state() {
            return labels.getOrDefault(UpgradeKeys.STATE_LABEL, "");
        }

        Node gpuPod(String name, boolean pdbBlocked) {
            pods.add(
                    new NodePod(
                            "work",
                            name,
                            Map.of("app", name),
                            true,
                            false,
                            true,
                            false,
                            false,
                            false,
                            false));
            if (pdbBlocked) {
                blockedByPdb.add("work/" + name);
            }
            return this;
        }

        Node pod(NodePod pod) {
            pods.add(pod);
            return this;
        }
    }

    final Map<String, Node> nodes = new LinkedHashMap<>();
    final List<String> blockedByPdb = new ArrayList<>();
    final List<String> evicted = new ArrayList<>();

    /** Nodes whose validator pod the machine restarted, in order. */
    final List<String> validatorRestarts = new ArrayList<>();

    final List<List<String>> activePerPass = new ArrayList<>();
    Instant now = T0;
    UpgradePolicy policy = UpgradePolicy.defaultsWithAutoUpgrade();
    String targetVersion = "580.65.06";
    UpgradePlan last;

    /** A node at upgrade-done on version {@code running}, validator Ready. */
    Node node(String name, String running) {
        Node n = new Node(name);
        n.labels.put(UpgradeKeys.STATE_LABEL, UpgradeState.UPGRADE_DONE.label());
        n.driver =
                new UpgradeNode.DriverPod(
                        "gpu-operator",
                        "nvidia-driver-" + name,
                        running.equals(targetVersion),
                        true,
                        0,
                        running,
                        T0.minus(Duration.ofDays(1)));
        n.validator = UpgradeNode.ValidatorPod.of(true, T0.minus(Duration.ofDays(1)));
        for (Operand o : UpgradeNodes.DRIVER_USERS) {
            n.labels.put(o.deployLabel(), "true");
        }
        syncDriverUsers(n);
        n.states.add(n.state());
        nodes.put(name, n);
        return n;
    }

    /** A new target version: every driver pod not on it is out of sync. */
    void target(String version) {
        targetVersion = version;
        for (Node n : nodes.values()) {
            if (n.driver != null) {
                n.driver = withSync(n.driver, version.equals(n.driver.version()));
            }
        }
    }

    private static UpgradeNode.DriverPod withSync(UpgradeNode.DriverPod p, boolean inSync) {
        return new UpgradeNode.DriverPod(
                p.namespace(),
                p.name(),
                inSync,
                p.ready(),
                p.restartCount(),
                p.version(),
                p.startedAt());
    }

    List<UpgradeNode> views() {
        return nodes.values().stream().map(Node::view).toList();
    }

    UpgradePlan pass() {
        last = UpgradeMachine.plan(views(), policy, now);
        for (UpgradePlan.NodeStep step : last.steps()) {
            Node n = nodes.get(step.node());
            for (UpgradeAction a : step.actions()) {
                apply(n, a);
            }
        }
        nodes.values().forEach(this::syncDriverUsers);
        List<String> active = new ArrayList<>();
        for (Node n : nodes.values()) {
            if (n.states.isEmpty() || !n.states.getLast().equals(n.state())) {
                n.states.add(n.state());
            }
            if (UpgradeState.fromLabel(n.state()).active()) {
                active.add(n.name);
            }
        }
        activePerPass.add(active);
        return last;
    }

    /** Passes until nothing changes any more (at most {@code max}), a second apart. */
    void settle(int max) {
        for (int i = 0; i < max; i++) {
            Map<String, String> before = snapshot();
            pass();
            now = now.plusSeconds(1);
            if (before.equals(snapshot()) && last.steps().isEmpty()) {
                return;
            }
        }
    }

    private Map<String, String> snapshot() {
        Map<String, String> s = new TreeMap<>();
        nodes.values().forEach(n -> s.put(n.name, n.state() + n.annotations + n.unschedulable));
        return s;
    }

    /**
     * As the DaemonSet controllers of the operands that use the driver: a pod while the deploy
     * label is {@code true}, none otherwise; a new validator is Ready when the driver is and the
     * validator passes.
     */
    private void syncDriverUsers(Node n) {
        for (Operand o : UpgradeNodes.DRIVER_USERS) {
            boolean wanted = "true".equals(n.labels.get(o.deployLabel()));
            if (o == Operand.VALIDATOR) {
                if (!wanted) {
                    n.validator = null;
                } else if (n.validator == null) {
                    boolean ready = n.validatorPasses && n.driver != null && n.driver.ready();
                    n.validator = UpgradeNode.ValidatorPod.of(ready, ready ? now : null);
                }
                continue;
            }
            String name = o.daemonSetName() + "-" + n.name;
            boolean there = n.users.stream().anyMatch(p -> p.name().equals(name));
            if (!wanted) {
                n.users.removeIf(p -> p.name().equals(name));
            } else if (!there) {
                n.users.add(new UpgradeNode.OperandPod("gpu-operator", name, now, false));
            }
        }
    }

    private void apply(Node n, UpgradeAction a) {
        switch (a) {
            case UpgradeAction.SetLabel l -> {
                if (l.value() == null) {
                    n.labels.remove(l.key());
                } else {
                    n.labels.put(l.key(), l.value());
                }
            }
            case UpgradeAction.SetState s -> {
                if (s.state() == UpgradeState.UNKNOWN) {
                    n.labels.remove(UpgradeKeys.STATE_LABEL);
                } else {
                    n.labels.put(UpgradeKeys.STATE_LABEL, s.state().label());
                }
            }
            case UpgradeAction.Annotate an -> {
                if (an.value() == null) {
                    n.annotations.remove(an.key());
                } else {
                    n.annotations.put(an.key(), an.value());
                }
            }
            case UpgradeAction.Cordon c -> n.unschedulable = true;
            case UpgradeAction.Uncordon u -> n.unschedulable = false;
            case UpgradeAction.EvictPod e -> {
                String ref = e.namespace() + "/" + e.name();
                for (int i = 0; i < n.pods.size(); i++) {
                    NodePod p = n.pods.get(i);
                    if (p.ref().equals(ref)) {
                        if (blockedByPdb.contains(ref)) {
                            n.pods.set(
                                    i,
                                    new NodePod(
                                            p.namespace(),
                                            p.name(),
                                            p.labels(),
                                            p.requestsGpu(),
                                            p.nodeBound(),
                                            p.controlled(),
                                            p.usesEmptyDir(),
                                            p.finished(),
                                            p.terminating(),
                                            true));
                        } else {
                            n.pods.remove(i);
                            evicted.add(ref);
                        }
                        break;
                    }
                }
            }
            case UpgradeAction.RestartOperandPod r -> {
                if (n.validator != null && r.name().equals(n.validator.name())) {
                    validatorRestarts.add(n.name);
                    n.validator = UpgradeNode.ValidatorPod.of(n.validatorPasses, now);
                } else {
                    throw new AssertionError("only the validator is restarted: " + r);
                }
            }
            case UpgradeAction.DeleteDriverPod d -> {
                n.driver =
                        new UpgradeNode.DriverPod(
                                d.namespace(),
                                d.name() + "-new",
                                true,
                                n.driverStartsReady,
                                n.driverStartsReady ? 0 : 11,
                                targetVersion,
                                now);
                if (n.validator != null) { // not paused: it revalidates (or fails) by itself
                    n.validator =
                            UpgradeNode.ValidatorPod.of(
                                    n.validatorPasses && n.driverStartsReady,
                                    n.validatorPasses && n.driverStartsReady ? now : null);
                }
            }
        }
    }
}
