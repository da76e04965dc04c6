package org.gpuoperator.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import org.gpuoperator.api.v1.ClusterPolicy;
import org.junit.jupiter.api.Test;

class SetFieldsTest {

    @Test
    void everySetLeafWithItsPathAndUnknownFieldsAsOneLeaf() {
        ClusterPolicy policy =
                ClusterPolicyReader.read(
                                """
                                apiVersion: nvidia.com/v1
                                kind: ClusterPolicy
                                metadata: {name: p}
                                spec:
                                  operator: {}
                                  daemonsets:
                                    labels: {team: a}
                                    tolerations: []
                                  driver:
                                    enabled: false
                                    env: [{name: A, value: b}]
                                    args: [--x]
                                    futureField: {nested: 1}
                                  toolkit: {}
                                  devicePlugin: {}
                                  dcgm: {}
                                  dcgmExporter: {}
                                  nodeStatusExporter: {}
                                  gfd: {}
                                  mig: {strategy: mixed}
                                """,
                                "test")
                        .policy()
                        .orElseThrow();

        assertThat(SetFields.of(policy.getSpec(), "spec"))
                .extracting(f -> f.path() + (f.known() ? "" : " (unknown)"))
                .containsExactlyInAnyOrder(
                        "spec.daemonsets.labels[team]",
                        "spec.daemonsets.tolerations",
                        "spec.driver.enabled",
                        "spec.driver.env[0].name",
                        "spec.driver.env[0].value",
                        "spec.driver.args[0]",
                        "spec.driver.futureField (unknown)",
                        "spec.mig.strategy");
    }
}
