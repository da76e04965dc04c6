package org.gpuoperator.controller.matrix;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Warnings for a policy and nodes outside the version matrix. Pure; nothing is refused: the
 * warnings go to {@code plan} (and the status, once wired) before anything is deployed.
 */
public final class VersionMatrixCheck {

    /**
     * The versions a policy asks for.
     *
     * @param driver spec.driver.version when it names a driver, else null
     * @param toolkit spec.toolkit.version, or null
     * @param operator this controller's version, or null (a development build)
     */
    public record PolicyVersions(String driver, String toolkit, String operator) {}

    private final VersionMatrix matrix;
    private final List<MatrixWarning> warnings = new ArrayList<>();

    private VersionMatrixCheck(VersionMatrix matrix) {
        this.matrix = matrix;
    }

    public static List<MatrixWarning> check(
            VersionMatrix matrix, PolicyVersions policy, List<NodeVersions> nodes) {
        VersionMatrixCheck c = new VersionMatrixCheck(matrix);
        Optional<Version> target = c.policy(policy);
        for (NodeVersions node : nodes) {
            c.node(node, target);
        }
        return List.copyOf(c.warnings);
    }

    private Optional<Version> policy(PolicyVersions p) {
        Optional<Version> driver = Optional.empty();
        if (p.driver() != null) {
            driver = Version.parse(p.driver());
            if (driver.isEmpty()) {
                warn(
                        "spec.driver.version",
                        "'" + p.driver() + "' is not a version the matrix can check");
            } else {
                inRange(
                        "spec.driver.version",
                        "driver " + p.driver(),
                        driver.get(),
                        matrix.driver(),
                        "driver");
                if (matrix.branch(driver.get().major()).isEmpty()) {
                    warn(
                            "spec.driver.version",
                            "driver branch "
                                    + driver.get().major()
                                    + " is not in the version matrix ("
                                    + VersionMatrix.FILE
                                    + ")");
                }
            }
        }
        if (p.toolkit() != null) {
            Version.parse(p.toolkit())
                    .ifPresent(
                            v ->
                                    inRange(
                                            "spec.toolkit.version",
                                            "toolkit " + p.toolkit(),
                                            v,
                                            matrix.toolkit(),
                                            "toolkit"));
        }
        if (p.operator() != null) {
            Version.parse(p.operator())
                    .ifPresent(
                            v ->
                                    inRange(
                                            "operator",
                                            "operator " + p.operator(),
                                            v,
                                            matrix.operator(),
                                            "operator"));
        }
        return driver;
    }

    private void node(NodeVersions n, Optional<Version> target) {
        String subject = "node " + n.name();
        Optional<Version> kubelet = Version.parse(n.kubelet());
        Optional<Version> kernel = Version.parse(n.kernel());
        kubelet.ifPresent(
                v ->
                        inRange(
                                subject,
                                "Kubernetes " + n.kubelet(),
                                v,
                                matrix.kubernetes(),
                                "kubernetes"));
        Version.parse(n.cuda())
                .ifPresent(v -> inRange(subject, "CUDA " + n.cuda(), v, matrix.cuda(), "cuda"));
        Optional<Version> running = Version.parse(n.driver());
        if (target.isEmpty()) {
            running.ifPresent(
                    v -> inRange(subject, "driver " + n.driver(), v, matrix.driver(), "driver"));
        }
        // the branch the node will run: the policy's, else the one it runs now
        Optional<Version> driver = target.isPresent() ? target : running;
        Optional<VersionMatrix.DriverBranch> branch = driver.flatMap(v -> matrix.branch(v.major()));
        if (branch.isEmpty()) {
            return;
        }
        VersionMatrix.DriverBranch b = branch.get();
        kubelet.filter(v -> !b.kubernetes().contains(v))
                .ifPresent(
                        v ->
                                warn(
                                        subject,
                                        "Kubernetes "
                                                + n.kubelet()
                                                + " is not supported by driver branch "
                                                + b.branch()
                                                + " ("
                                                + b.kubernetes()
                                                + ", "
                                                + VersionMatrix.FILE
                                                + ")"));
        kernel.filter(v -> !b.kernel().contains(v))
                .ifPresent(
                        v ->
                                warn(
                                        subject,
                                        "kernel "
                                                + n.kernel()
                                                + " is not supported by driver branch "
                                                + b.branch()
                                                + " ("
                                                + b.kernel()
                                                + ", "
                                                + VersionMatrix.FILE
                                                + ")"));
    }

    private void inRange(String subject, String what, Version v, VersionRange range, String key) {
        if (!range.contains(v)) {
            warn(
                    subject,
                    what
                            + " is outside the version matrix ("
                            + key
                            + " "
                            + range
                            + ", "
                            + VersionMatrix.FILE
                            + ")");
        }
    }

    private void warn(String subject, String message) {
        warnings.add(new MatrixWarning(subject, message));
    }
}
