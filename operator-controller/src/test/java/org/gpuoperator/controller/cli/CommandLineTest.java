package org.gpuoperator.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.controller.ControllerMain;
import org.gpuoperator.controller.policy.FieldsRead;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CommandLineTest {

    @TempDir Path dir;

    private record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = ControllerMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void renderPrintsEveryObjectAndTheFirstNodeLabels() throws Exception {
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(
                policy,
                """
                apiVersion: nvidia.com/v1
                kind: ClusterPolicy
                metadata:
                  name: cluster-policy
                spec:
                  operator: {}
                  daemonsets: {}
                  driver: {}
                  toolkit: {}
                  devicePlugin: {}
                  dcgm: {}
                  nodeStatusExporter: {}
                  gfd: {}
                  dcgmExporter:
                    enabled: false
                  simulation:
                    enabled: true
                    profile: l4-x2
                """);
        Result r = run("render", "--policy", policy.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "kind: RuntimeClass\n",
                        "name: nvidia-driver-daemonset\n",
                        "name: nvidia-container-toolkit-daemonset\n",
                        "name: nvidia-device-plugin-daemonset\n",
                        "name: gpu-feature-discovery\n",
                        "simulated:l4-x2",
                        "nvidia.com/gpu.deploy.driver=true",
                        "# Driver upgrade policy: autoUpgrade false, maxParallelUpgrades 1,"
                                + " maxUnavailable 25%, podDeletion {force false, timeoutSeconds 300,"
                                + " deleteEmptyDir false}")
                .doesNotContain("name: nvidia-dcgm-exporter\n");
    }

    @Test
    void anUpgradePolicySelectorThatCannotBeReadIsAnErrorNamingTheField() throws Exception {
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(
                policy,
                """
                apiVersion: nvidia.com/v1
                kind: ClusterPolicy
                metadata:
                  name: cluster-policy
                spec:
                  operator: {}
                  daemonsets: {}
                  driver:
                    upgradePolicy:
                      drain:
                        podSelector: "app=a=b"
                  toolkit: {}
                  devicePlugin: {}
                  dcgm: {}
                  dcgmExporter: {}
                  nodeStatusExporter: {}
                  gfd: {}
                """);
        Result r = run("render", "--policy", policy.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err())
                .contains(
                        "spec.driver.upgradePolicy.drain.podSelector: cannot read the label selector"
                                + " requirement 'app=a=b': one operator per requirement");
    }

    @Test
    void renderOfThePreinstalledDriverSampleShowsTheValidatorAndNoDriverDaemonSet() {
        Result r =
                run(
                        "render",
                        "--policy",
                        Path.of("..", "deploy", "samples", "clusterpolicy-preinstalled-driver.yaml")
                                .toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "name: nvidia-operator-validator\n",
                        "name: nvidia-container-toolkit-daemonset\n",
                        "name: DRIVER_MANAGED\n",
                        "nvidia.com/gpu.deploy.operator-validator=true",
                        // the toolkit's gate opens at once: its pod waits for the validator's file
                        "nvidia.com/gpu.deploy.container-toolkit=true")
                .doesNotContain("name: nvidia-driver-daemonset\n")
                .doesNotContain("nvidia.com/gpu.deploy.driver=true");
        int managed = r.out().indexOf("name: DRIVER_MANAGED\n");
        assertThat(r.out().substring(managed, managed + 80)).contains("value: \"false\"");
    }

    @Test
    void renderTakesNodesFromAFile() throws Exception {
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(
                policy,
                """
                apiVersion: nvidia.com/v1
                kind: ClusterPolicy
                metadata:
                  name: p
                spec:
                  operator: {}
                  daemonsets: {}
                  driver: {}
                  toolkit: {}
                  devicePlugin: {}
                  dcgm: {}
                  nodeStatusExporter: {}
                  gfd: {}
                  dcgmExporter: {}
                """);
        Path nodes = dir.resolve("nodes.yaml");
        Files.writeString(
                nodes,
                """
                - apiVersion: v1
                  kind: Node
                  metadata:
                    name: cpu-1
                - apiVersion: v1
                  kind: Node
                  metadata:
                    name: gpu-1
                    labels:
                      feature.node.kubernetes.io/pci-0302_10de.present: "true"
                      nvidia.com/gpu.deploy.driver: pre-installed
                """);
        Result r = run("render", "--policy", policy.toString(), "--nodes", nodes.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "cpu-1: not a GPU node",
                        "gpu-1: {nvidia.com/gpu.deploy.container-toolkit=true,"
                                + " nvidia.com/gpu.deploy.operator-validator=true,"
                                + " nvidia.com/gpu.present=true}");
    }

    @Test
    void badPolicyFileIsOneClearErrorAndNonZeroExit() throws Exception {
        Path policy = dir.resolve("bad.yaml");
        Files.writeString(policy, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
        Result r = run("render", "--policy", policy.toString());
        assertThat(r.code()).isNotZero();
        assertThat(r.err()).contains(policy.toString(), "ClusterPolicy").doesNotContain("\tat ");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void invalidPolicyPrintsEveryErrorAndNothingElse() throws Exception {
        Path policy = dir.resolve("invalid.yaml");
        Files.writeString(
                policy,
                """
                apiVersion: nvidia.com/v1
                kind: ClusterPolicy
                metadata:
                  name: p
                spec:
                  daemonsets:
                    rollingUpdate:
                      maxUnavailable: "0"
                  simulation:
                    enabled: true
                    nodeLabel: "not a label!"
                """);
        Result r = run("render", "--policy", policy.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err())
                .contains(
                        "spec.daemonsets.rollingUpdate.maxUnavailable", "spec.simulation.nodeLabel")
                .doesNotContain("\tat ");
    }

    /** The committed PRIVILEGES.md is exactly what `operator-controller audit` prints. */
    @Test
    void privilegesDocumentIsInSyncWithRendering() throws Exception {
        Result r = run("audit");
        assertThat(r.code()).as(r.err()).isZero();
        String committed = Files.readString(Path.of("PRIVILEGES.md"));
        assertThat(committed)
                .as("regenerate: java -jar target/operator-controller.jar audit > PRIVILEGES.md")
                .isEqualTo(r.out());
        assertThat(r.out())
                .contains("## driver", "privileged: **yes**", "`/var/lib/kubelet/device-plugins`");
    }

    /** The section of one DaemonSet in the audit: its heading up to the next one. */
    private static String auditSection(String audit, String heading) {
        int start = audit.indexOf("\n## " + heading);
        assertThat(start).as(heading).isNotNegative();
        int end = audit.indexOf("\n## ", start + 1);
        return audit.substring(start, end < 0 ? audit.length() : end);
    }

    @Test
    void theAuditListsTheMpsControlDaemonWithItsPrivilegesAndHostPaths() {
        Result r = run("audit");
        assertThat(r.code()).as(r.err()).isZero();
        String daemon =
                auditSection(
                        r.out(),
                        "device-plugin: mps-control-daemon"
                                + " (`nvidia-device-plugin-mps-control-daemon`, agent `device-plugin"
                                + " mps-control-daemon`)");
        assertThat(daemon)
                .contains(
                        "`nvidia.com/mps.capable=true`",
                        "service account `nvidia-device-plugin`",
                        "| `/run/nvidia/mps` | `/run/nvidia/mps` | read-write | MPS pipe, log and"
                                + " shm directories",
                        "| `/run/nvidia/validations` | `/run/nvidia/validations` | read-write |",
                        "- privileged: **yes**",
                        "- hostPID: **yes**",
                        "- runtimeClassName: nvidia",
                        // the device plugin's account: no role without devicePlugin.config
                        "- API permissions: none (service account token not mounted)");
        String plugin = auditSection(r.out(), "device-plugin (`nvidia-device-plugin-daemonset`");
        assertThat(plugin)
                .contains("| `/run/nvidia/mps` | `/run/nvidia/mps` | read-only |")
                .contains("- privileged: no", "- hostPID: no");
    }

    @Test
    void renderPrintsTheMpsControlDaemonWithTheDevicePlugin() throws Exception {
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(
                policy,
                """
                apiVersion: nvidia.com/v1
                kind: ClusterPolicy
                metadata:
                  name: cluster-policy
                spec:
                  operator: {}
                  daemonsets: {}
                  driver: {}
                  toolkit: {}
                  devicePlugin:
                    mps:
                      root: /var/run/mps
                  dcgm: {}
                  nodeStatusExporter: {}
                  gfd: {}
                  dcgmExporter: {}
                """);
        Result r = run("render", "--policy", policy.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "name: nvidia-device-plugin-mps-control-daemon\n",
                        "nvidia.com/mps.capable: \"true\"",
                        "MPS_ROOT",
                        "/var/run/mps");
        assertThat(r.err()).doesNotContain("spec.devicePlugin.mps");
    }

    /** spec.operator.metrics.serviceMonitor.enabled: the ServiceMonitor and the alert rules. */
    @Test
    void renderPrintsTheOperatorsServiceMonitorAndPrometheusRuleWhenEnabled() throws Exception {
        String spec =
                """
                apiVersion: nvidia.com/v1
                kind: ClusterPolicy
                metadata:
                  name: cluster-policy
                spec:
                  operator:
                    metrics:
                      serviceMonitor:
                        enabled: %s
                        additionalLabels:
                          release: kube-prometheus-stack
                  daemonsets: {}
                  driver: {}
                  toolkit: {}
                  devicePlugin: {}
                  dcgm: {}
                  nodeStatusExporter: {}
                  gfd: {}
                  dcgmExporter: {}
                """;
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(policy, spec.formatted("true"));
        Result r = run("render", "--policy", policy.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "kind: ServiceMonitor\n",
                        "kind: PrometheusRule\n",
                        "name: gpu-operator-rules\n",
                        "release: kube-prometheus-stack\n");
        for (String alert :
                Files.readAllLines(Path.of("../deploy/prometheus/gpu-operator-rules.yaml"))) {
            if (alert.trim().startsWith("- alert: ")) {
                assertThat(r.out()).contains(alert.trim().substring(2) + "\n");
            }
        }
        Files.writeString(policy, spec.formatted("false"));
        Result off = run("render", "--policy", policy.toString());
        assertThat(off.code()).as(off.err()).isZero();
        assertThat(off.out()).doesNotContain("kind: PrometheusRule", "kind: ServiceMonitor");
    }

    @Test
    void renderPrintsEveryFieldNotActedOnAsAWarningLineWithItsPath() {
        Result r =
                run(
                        "render",
                        "--policy",
                        "src/test/resources/policies/clusterpolicy-every-field.yaml");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.err().lines().toList();
        assertThat(lines).hasSizeGreaterThan(50).allMatch(l -> l.startsWith("warning: "));
        assertThat(lines)
                .contains(
                        "warning: spec.hostPaths.rootFS: " + FieldsRead.NOT_ACTED_ON,
                        "warning: spec.gds.enabled: "
                                + FieldsRead.NOT_ACTED_ON
                                + " (not implemented by this operator; ignored)")
                .noneMatch(l -> l.startsWith("warning: spec.driver.env"));
    }
}
