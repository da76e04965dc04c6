package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.gpuoperator.controller.operand.ImagePaths;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.reconcile.ControllerRuntime;
import org.junit.jupiter.api.Test;

class ImageReferencesTest {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    @Test
    void referencesAreTheOnesTheControllerRendersByDefault() throws Exception {
        Map<String, String> refs = ImageReferences.read(REPO);
        Map<String, String> controller = ControllerRuntime.withDefaultImages(Map.of());
        for (Operand operand : Operand.values()) {
            assertThat(refs.get(operand.module()))
                    .as(operand.module())
                    .isEqualTo(controller.get(ImagePaths.envName(operand)));
        }
        assertThat(refs.keySet()).containsExactlyElementsOf(ImageLayout.COMPONENTS);
        assertThat(refs.get("toolkit-agent"))
                .isEqualTo("ghcr.io/gpu-operator-java/toolkit-agent:0.1.0");
    }

    @Test
    void aMissingVersionNamesTheFileAndTheKey() {
        Properties p = new Properties();
        p.setProperty("registry", "r.example");
        assertThatThrownBy(() -> ImageReferences.of(p, "versions.properties"))
                .hasMessage("versions.properties: no value for 'operator-controller'");
    }
}
