package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** containerd's "failed to reserve container name" names the container a retried create meets. */
class ReservedContainerNameTest {

    static final String ID = "4f1c2e0d9b8a7c6e5f4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a21";

    @Test
    void theHolderIsReadFromContainerd16sMessage() {
        String name = "operator_gpu-operator-6d8f9c7b5-x2k4p_gpu-operator_0000-0042_0";
        String message =
                "failed to reserve container name \""
                        + name
                        + "\": name \""
                        + name
                        + "\" is reserved for \""
                        + ID
                        + "\"";
        assertThat(CriPodRunner.reservedFor(message)).contains(ID);
    }

    @Test
    void otherErrorsNameNone() {
        assertThat(CriPodRunner.reservedFor("context deadline exceeded")).isEmpty();
        assertThat(CriPodRunner.reservedFor(null)).isEmpty();
        assertThat(CriPodRunner.reservedFor("is reserved for \"not-an-id\"")).isEmpty();
    }
}
