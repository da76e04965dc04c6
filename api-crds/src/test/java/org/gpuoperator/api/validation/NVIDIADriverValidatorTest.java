package org.gpuoperator.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import org.gpuoperator.api.crd.ModuleFiles;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.junit.jupiter.api.Test;

class NVIDIADriverValidatorTest {
    private static NVIDIADriver upstream() {
        return new KubernetesSerialization()
                .unmarshal(
                        ModuleFiles.read(
                                ModuleFiles.TEST_POLICIES.resolve("nvidiadriver-upstream.yaml")),
                        NVIDIADriver.class);
    }

    @Test
    void upstreamDriverIsValid() {
        assertThat(NVIDIADriverValidator.validate(upstream())).isEmpty();
    }

    @Test
    void defaultDriverWithNodeSelectorAndNegativeProbeAreBothReported() {
        NVIDIADriver driver = upstream();
        driver.getSpec().setDefaultDriver(true);
        driver.getSpec().getStartupProbe().setPeriodSeconds(0);
        driver.getSpec().setAdditionalProperty("futureKnob", Map.of());

        assertThat(NVIDIADriverValidator.validate(driver))
                .extracting(ValidationProblem::toString)
                .containsExactlyInAnyOrder(
                        "ERROR spec.startupProbe.periodSeconds: must be at least 1, was 0",
                        "WARNING spec.futureKnob: unknown field; kept as written but ignored by this operator",
                        "ERROR spec.nodeSelector: a default NVIDIADriver must not have a nodeSelector");
    }

    @Test
    void theShippedDefaultDriverIsValidAndDefault() {
        NVIDIADriver d =
                new KubernetesSerialization()
                        .unmarshal(
                                ModuleFiles.read(
                                        ModuleFiles.SAMPLES.resolve("nvidiadrivers/default.yaml")),
                                NVIDIADriver.class);
        assertThat(NVIDIADriverValidator.validate(d)).isEmpty();
        assertThat(d.getMetadata().getName()).isEqualTo("default");
        assertThat(d.getSpec().getDefaultDriver()).isTrue();
        assertThat(d.getSpec().getNodeSelector()).isNull();
    }
}
