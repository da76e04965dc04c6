package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.policy.DaemonSetSettings;
import org.gpuoperator.controller.policy.PolicySettings;
import org.junit.jupiter.api.Test;

/** The driver's DRIVER_CONFIG_DIGEST: what changes the installed driver, and only that. */
class DriverConfigDigestTest {

    private final OperandModels renderer = new OperandModels(Map.of());
    private final PolicySettings policy = TestPolicies.allEnabled();

    private DaemonSet driver(PolicySettings p) {
        return renderer.render(p, Operand.DRIVER, "gpu-operator").stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .findFirst()
                .orElseThrow();
    }

    private static String digest(DaemonSet ds) {
        return ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
                .filter(e -> PodContract.DRIVER_CONFIG_DIGEST_ENV.equals(e.getName()))
                .map(EnvVar::getValue)
                .findFirst()
                .orElseThrow();
    }

    private static String templateHash(DaemonSet ds) {
        return ds.getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(PodContract.TEMPLATE_HASH_ANNOTATION);
    }

    @Test
    void theDriversTemplateHashStartsWithItsConfigurationDigest() {
        DaemonSet ds = driver(policy);
        assertThat(digest(ds)).matches("[0-9a-f]{16}");
        assertThat(templateHash(ds)).startsWith(digest(ds) + "-");
        assertThat(PodContract.configDigestOf(templateHash(ds))).isEqualTo(digest(ds));
        assertThat(PodContract.configDigestOf("0123456789abcdef")).as("another operand's").isNull();
    }

    @Test
    void labelsAnnotationsTolerationsAndThePriorityClassLeaveTheDigestAlone() {
        DaemonSet before = driver(policy);
        DaemonSet after =
                driver(
                        policy.withDaemonSets(
                                new DaemonSetSettings(
                                        Map.of("team", "gpu"),
                                        Map.of("note", "x"),
                                        List.of(
                                                new TolerationBuilder()
                                                        .withKey("dedicated")
                                                        .withOperator("Exists")
                                                        .build()),
                                        "system-node-critical",
                                        null,
                                        null)));
        assertThat(templateHash(after)).isNotEqualTo(templateHash(before));
        assertThat(digest(after)).isEqualTo(digest(before));
    }

    @Test
    void theVersionOrTheKernelModuleTypeChangesTheDigest() {
        String base =
                digest(
                        driver(
                                policy.withNodeReadiness(
                                        new PolicySettings.NodeReadiness(
                                                "570.172.08", Map.of(), false))));
        String version =
                digest(
                        driver(
                                policy.withNodeReadiness(
                                        new PolicySettings.NodeReadiness(
                                                "580.65.06", Map.of(), false))));
        String open =
                digest(
                        driver(
                                policy.withNodeReadiness(
                                        new PolicySettings.NodeReadiness(
                                                "570.172.08", Map.of(), false, "open"))));
        assertThat(version).isNotEqualTo(base);
        assertThat(open).isNotEqualTo(base);
    }
}
