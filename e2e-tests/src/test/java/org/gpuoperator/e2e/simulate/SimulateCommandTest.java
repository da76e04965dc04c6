package org.gpuoperator.e2e.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SimulateCommandTest {

    @Test
    void kubeconfigLineIsReadyToPasteIntoAShell() {
        assertThat(SimulateCommand.kubeconfigExport(Path.of("/tmp/gpuop-123/kubeconfig")))
                .isEqualTo("export KUBECONFIG=/tmp/gpuop-123/kubeconfig");
        assertThat(SimulateCommand.kubeconfigExport(Path.of("/tmp/it's here/kubeconfig")))
                .isEqualTo("export KUBECONFIG='/tmp/it'\\''s here/kubeconfig'");
    }
}
