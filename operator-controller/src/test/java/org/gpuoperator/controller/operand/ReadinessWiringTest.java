package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.controller.operand.Operand.CONTAINER_TOOLKIT;
import static org.gpuoperator.controller.operand.Operand.DCGM_EXPORTER;
import static org.gpuoperator.controller.operand.Operand.DEVICE_PLUGIN;
import static org.gpuoperator.controller.operand.Operand.DRIVER;
import static org.gpuoperator.controller.operand.Operand.GPU_FEATURE_DISCOVERY;
import static org.gpuoperator.controller.operand.Operand.VALIDATOR;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.policy.PolicySettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Who writes which readiness file, and who waits for what, for every mix of enabled operands. */
class ReadinessWiringTest {

    private static final List<Operand> OPTIONAL =
            List.of(DRIVER, CONTAINER_TOOLKIT, DEVICE_PLUGIN, GPU_FEATURE_DISCOVERY, DCGM_EXPORTER);

    /** Every subset of the optional operands, with the validator (always enabled). */
    private static List<Set<Operand>> everyPolicy() {
        List<Set<Operand>> out = new ArrayList<>();
        for (int bits = 0; bits < 1 << OPTIONAL.size(); bits++) {
            Set<Operand> enabled = EnumSet.of(VALIDATOR);
            for (int i = 0; i < OPTIONAL.size(); i++) {
                if ((bits & 1 << i) != 0) {
                    enabled.add(OPTIONAL.get(i));
                }
            }
            out.add(enabled);
        }
        return out;
    }

    @Test
    void noEnabledAgentWaitsForAFileThatNoEnabledOperandWrites() {
        for (Set<Operand> enabled : everyPolicy()) {
            for (Operand o : enabled) {
                Optional<String> file = ReadinessWiring.waitsFor(o, enabled);
                file.ifPresent(
                        f ->
                                assertThat(ReadinessWiring.writer(f, enabled))
                                        .as("%s waits for %s under %s", o, f, enabled)
                                        .isPresent());
            }
        }
    }

    @ParameterizedTest(name = "{0} enabled: {1} writes {2}")
    @CsvSource({
        // enabled operands (validator always), file, writer ('-' for nobody)
        "'DRIVER,CONTAINER_TOOLKIT,DEVICE_PLUGIN', driver-ready, DRIVER",
        "'CONTAINER_TOOLKIT,DEVICE_PLUGIN', driver-ready, VALIDATOR",
        "'DRIVER,CONTAINER_TOOLKIT', toolkit-ready, CONTAINER_TOOLKIT",
        "'DRIVER,DEVICE_PLUGIN', toolkit-ready, VALIDATOR",
        "'DRIVER,DEVICE_PLUGIN', plugin-ready, DEVICE_PLUGIN",
        "'DRIVER,CONTAINER_TOOLKIT', plugin-ready, -",
        "'DRIVER', cuda-ready, VALIDATOR",
    })
    void theOwnerWritesItsLayersFileElseTheValidatorExceptPluginReady(
            String operands, String file, String writer) {
        Set<Operand> enabled = enabled(operands);
        assertThat(ReadinessWiring.writer(file, enabled).map(Operand::name).orElse("-"))
                .isEqualTo(writer);
    }

    @ParameterizedTest(name = "{0} enabled: {1} waits for {2}")
    @CsvSource({
        "'DRIVER,CONTAINER_TOOLKIT,DEVICE_PLUGIN,GPU_FEATURE_DISCOVERY', CONTAINER_TOOLKIT, driver-ready",
        "'CONTAINER_TOOLKIT', CONTAINER_TOOLKIT, driver-ready",
        "'DEVICE_PLUGIN', DEVICE_PLUGIN, toolkit-ready",
        "'DRIVER,CONTAINER_TOOLKIT,DEVICE_PLUGIN,GPU_FEATURE_DISCOVERY', GPU_FEATURE_DISCOVERY, plugin-ready",
        "'DRIVER,CONTAINER_TOOLKIT,GPU_FEATURE_DISCOVERY', GPU_FEATURE_DISCOVERY, toolkit-ready",
        "'GPU_FEATURE_DISCOVERY', GPU_FEATURE_DISCOVERY, toolkit-ready",
        "'DRIVER,CONTAINER_TOOLKIT,DEVICE_PLUGIN,DCGM_EXPORTER', DCGM_EXPORTER, -",
        "'DRIVER', DRIVER, -",
        "'DRIVER', VALIDATOR, -",
    })
    void whoWaitsForWhat(String operands, Operand agent, String file) {
        assertThat(ReadinessWiring.waitsFor(agent, enabled(operands)).orElse("-")).isEqualTo(file);
    }

    @Test
    void withoutTheValidatorTheToolkitOfADisabledDriverHasNothingToWaitFor() {
        assertThat(ReadinessWiring.waitsFor(CONTAINER_TOOLKIT, EnumSet.of(CONTAINER_TOOLKIT)))
                .isEmpty();
    }

    @Test
    void featureDiscoveryPodWaitsForToolkitReadyWhenTheDevicePluginIsDisabled() {
        PolicySettings all = TestPolicies.allEnabled();
        assertThat(gfdWaitFor(all)).isEqualTo("plugin-ready");
        PolicySettings noPlugin =
                all.withOperand(DEVICE_PLUGIN, all.operand(DEVICE_PLUGIN).withEnabled(false));
        assertThat(gfdWaitFor(noPlugin)).isEqualTo("toolkit-ready");
    }

    private static String gfdWaitFor(PolicySettings p) {
        DaemonSet ds =
                new OperandModels(java.util.Map.of())
                        .render(p, GPU_FEATURE_DISCOVERY, "ns").stream()
                                .filter(DaemonSet.class::isInstance)
                                .map(DaemonSet.class::cast)
                                .findFirst()
                                .orElseThrow();
        return ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
                .filter(e -> e.getName().equals("GFD_WAIT_FOR"))
                .map(EnvVar::getValue)
                .reduce((a, b) -> b)
                .orElseThrow();
    }

    private static Set<Operand> enabled(String operands) {
        Set<Operand> enabled = EnumSet.of(VALIDATOR);
        for (String name : operands.split(",")) {
            enabled.add(Operand.valueOf(name.trim()));
        }
        return enabled;
    }
}
