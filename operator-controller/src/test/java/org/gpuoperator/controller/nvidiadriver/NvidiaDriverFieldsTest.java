package org.gpuoperator.controller.nvidiadriver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import org.junit.jupiter.api.Test;

class NvidiaDriverFieldsTest {

    private static NVIDIADriverSpec spec(String yaml) {
        return Serialization.unmarshal(yaml, NVIDIADriverSpec.class);
    }

    @Test
    void eachFieldSetButNotActedOnIsWarnedWithWhyAndTheOnesActedOnAreNot() {
        var warnings =
                NvidiaDriverFields.warnings(
                        spec(
                                """
                                version: 550.54.15
                                repository: nvcr.io/nvidia
                                nodeSelector: {pool: a}
                                tolerations: [{key: nvidia.com/gpu, operator: Exists}]
                                usePrecompiled: true
                                rdma: {enabled: true, useHostMofed: true}
                                hostNetwork: true
                                secretEnv: driver-secrets
                                startupProbe: {initialDelaySeconds: 60}
                                """));
        assertThat(warnings)
                .extracting(PolicyWarning::getPath)
                .containsExactlyInAnyOrder(
                        "spec.usePrecompiled",
                        "spec.rdma",
                        "spec.hostNetwork",
                        "spec.secretEnv",
                        "spec.startupProbe");
        assertThat(warnings)
                .filteredOn(w -> w.getPath().equals("spec.rdma"))
                .singleElement()
                .extracting(PolicyWarning::getMessage)
                .isEqualTo(
                        "not acted on: GPUDirect RDMA (nvidia-peermem): the driver agent does not"
                                + " implement it yet");
    }

    @Test
    void offValuesChangeNothingAndAreNotWarned() {
        assertThat(
                        NvidiaDriverFields.warnings(
                                spec(
                                        """
                                        version: 550.54.15
                                        usePrecompiled: false
                                        hostNetwork: false
                                        rdma: {enabled: false}
                                        gds: {enabled: false}
                                        """)))
                .isEmpty();
        assertThat(NvidiaDriverFields.warnings(null)).isEmpty();
    }
}
