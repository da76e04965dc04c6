package org.gpuoperator.controller.matrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.controller.matrix.VersionMatrixCheck.PolicyVersions;
import org.junit.jupiter.api.Test;

class VersionMatrixTest {

    private static final String SMALL =
            """
            operator: {min: "0.1.0", max: "0.1"}
            toolkit: {min: "0.1.0", max: "0.1"}
            kubernetes: {min: "1.29", max: "1.35"}
            cuda: {min: "12.2", max: "13.0"}
            driver: {min: "550.54.14", max: "580"}
            driverBranches:
              - branch: "580"
                cuda: "13.0"
                kubernetes: {min: "1.30", max: "1.35"}
                kernel: {min: "5.4", max: "6.14"}
              - branch: "550"
                cuda: "12.4"
                kubernetes: {min: "1.29", max: "1.33"}
                kernel: {min: "4.18", max: "6.8"}
            """;

    private final VersionMatrix matrix = VersionMatrix.parse(SMALL, "m.yaml");

    @Test
    void theBundledMatrixReadsAndIsTheRepositoryFile() throws Exception {
        VersionMatrix bundled = VersionMatrix.load();
        assertThat(bundled.branches())
                .extracting(VersionMatrix.DriverBranch::branch)
                .contains(580, 570, 535);
        Path file =
                Path.of("src/main/resources/org/gpuoperator/controller/matrix/version-matrix.yaml");
        assertThat(VersionMatrix.parse(Files.readString(file), VersionMatrix.FILE))
                .isEqualTo(bundled);
        assertThat(bundled.kubernetes().toString()).isEqualTo("1.29 to 1.35");
    }

    @Test
    void rangesAreInclusiveAndAShortMaxCoversWhatItPrefixes() {
        VersionRange r = matrix.kubernetes();
        assertThat(r.contains(Version.parse("v1.35.7+k3s1").orElseThrow())).isTrue();
        assertThat(r.contains(Version.parse("1.29").orElseThrow())).isTrue();
        assertThat(r.contains(Version.parse("v1.28.15-eks-1").orElseThrow())).isFalse();
        assertThat(r.contains(Version.parse("1.36.0").orElseThrow())).isFalse();
        assertThat(matrix.driver().contains(Version.parse("580.95.05").orElseThrow())).isTrue();
        assertThat(matrix.driver().contains(Version.parse("550.54.13").orElseThrow())).isFalse();
        assertThat(Version.parse("6.8.0-1015-aws").orElseThrow().parts()).containsExactly(6, 8, 0);
        assertThat(Version.parse("sha256:abc")).isEmpty();
    }

    @Test
    void aPolicyAndNodesInsideTheMatrixGetNoWarning() {
        assertThat(
                        VersionMatrixCheck.check(
                                matrix,
                                new PolicyVersions("580.65.06", "0.1.0", "0.1.0"),
                                List.of(
                                        new NodeVersions(
                                                "a",
                                                "v1.33.1",
                                                "6.8.0-1015-aws",
                                                "13.0",
                                                "550.54.15"))))
                .isEmpty();
    }

    @Test
    void aDriverOutsideTheMatrixOrOfAnUnknownBranchIsWarned() {
        assertThat(
                        VersionMatrixCheck.check(
                                        matrix,
                                        new PolicyVersions("590.1.2", null, null),
                                        List.of())
                                .stream()
                                .map(MatrixWarning::line))
                .containsExactly(
                        "spec.driver.version: driver 590.1.2 is outside the version matrix (driver"
                                + " 550.54.14 to 580, version-matrix.yaml)",
                        "spec.driver.version: driver branch 590 is not in the version matrix"
                                + " (version-matrix.yaml)");
        assertThat(
                        VersionMatrixCheck.check(
                                        matrix,
                                        new PolicyVersions("latest", "0.2.0", "1.0.0"),
                                        List.of())
                                .stream()
                                .map(MatrixWarning::line))
                .containsExactly(
                        "spec.driver.version: 'latest' is not a version the matrix can check",
                        "spec.toolkit.version: toolkit 0.2.0 is outside the version matrix"
                                + " (toolkit 0.1.0 to 0.1, version-matrix.yaml)",
                        "operator: operator 1.0.0 is outside the version matrix (operator 0.1.0 to"
                                + " 0.1, version-matrix.yaml)");
    }

    @Test
    void aNodeWhoseKubernetesOrKernelTheTargetBranchDoesNotSupportIsWarned() {
        List<NodeVersions> nodes =
                List.of(
                        new NodeVersions("old-k8s", "v1.29.4", "5.15.0-105-generic", null, null),
                        new NodeVersions("new-kernel", "v1.33.0", "6.17.0-1003-aws", null, null),
                        new NodeVersions("ancient", "v1.27.2", "6.1.0", "11.8", null));
        assertThat(
                        VersionMatrixCheck.check(
                                        matrix, new PolicyVersions("580.65.06", null, null), nodes)
                                .stream()
                                .map(MatrixWarning::line))
                .containsExactly(
                        "node old-k8s: Kubernetes v1.29.4 is not supported by driver branch 580"
                                + " (1.30 to 1.35, version-matrix.yaml)",
                        "node new-kernel: kernel 6.17.0-1003-aws is not supported by driver branch"
                                + " 580 (5.4 to 6.14, version-matrix.yaml)",
                        "node ancient: Kubernetes v1.27.2 is outside the version matrix"
                                + " (kubernetes 1.29 to 1.35, version-matrix.yaml)",
                        "node ancient: CUDA 11.8 is outside the version matrix (cuda 12.2 to 13.0,"
                                + " version-matrix.yaml)",
                        "node ancient: Kubernetes v1.27.2 is not supported by driver branch 580"
                                + " (1.30 to 1.35, version-matrix.yaml)");
    }

    @Test
    void withoutADriverInThePolicyTheNodesRunningBranchIsChecked() {
        assertThat(
                        VersionMatrixCheck.check(
                                        matrix,
                                        new PolicyVersions(null, null, null),
                                        List.of(
                                                new NodeVersions(
                                                        "a",
                                                        "v1.34.0",
                                                        "6.8.0",
                                                        null,
                                                        "550.54.15")))
                                .stream()
                                .map(MatrixWarning::line))
                .containsExactly(
                        "node a: Kubernetes v1.34.0 is not supported by driver branch 550 (1.29 to"
                                + " 1.33, version-matrix.yaml)");
    }

    @Test
    void nodeVersionsComeFromNodeInfoAndFeatureDiscoveryLabels() {
        NodeVersions v =
                NodeVersions.of(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName("a")
                                .addToLabels(NodeVersions.CUDA_LABEL, "13.0")
                                .addToLabels(NodeVersions.DRIVER_LABEL, "580.65.06")
                                .endMetadata()
                                .withNewStatus()
                                .withNewNodeInfo()
                                .withKubeletVersion("v1.33.1")
                                .withKernelVersion("6.8.0-1015-aws")
                                .endNodeInfo()
                                .endStatus()
                                .build());
        assertThat(v)
                .isEqualTo(new NodeVersions("a", "v1.33.1", "6.8.0-1015-aws", "13.0", "580.65.06"));
    }

    @Test
    void aMalformedMatrixGivesEveryProblemWithFileAndLine() {
        String bad =
                """
                operator: {min: "0.1.0", max: "0.1"}
                toolkit: {min: "0.1.0", max: "0.1"}
                kubernetes: {min: "1.35", max: "1.29"}
                cuda: {min: "12.x", max: "13.0"}
                driver: {min: "550"}
                extra: 1
                driverBranches:
                  - branch: "580.1"
                    cuda: "13.0"
                    kubernetes: {min: "1.30", max: "1.35"}
                    kernel: {min: "5.4", max: "6.14"}
                  - branch: "550"
                    cuda: "12.4"
                    kubernetes: {min: "1.29", max: "1.33"}
                """;
        assertThatThrownBy(() -> VersionMatrix.parse(bad, "version-matrix.yaml"))
                .hasMessage(
                        String.join(
                                "\n",
                                "version-matrix.yaml:6: extra: unknown key (known: cuda, driver,"
                                        + " driverBranches, kubernetes, operator, toolkit)",
                                "version-matrix.yaml:3: kubernetes: min 1.35 is after max 1.29",
                                "version-matrix.yaml:4: cuda.min: '12.x' is not a version (digits"
                                        + " and dots, e.g. 1.35)",
                                "version-matrix.yaml:5: driver.max: missing",
                                "version-matrix.yaml:8: driverBranches[0].branch: a branch is one"
                                        + " number, e.g. 580",
                                "version-matrix.yaml:12: driverBranches[1].kernel: missing"));
    }

    @Test
    void anUnquotedVersionKeepsItsDigitsAndBadYamlNamesTheFile() {
        VersionMatrix m =
                VersionMatrix.parse(
                        SMALL.replace("max: \"1.35\"}\ncuda", "max: 1.30}\ncuda"), "m.yaml");
        assertThat(m.kubernetes().max().toString()).isEqualTo("1.30");
        assertThatThrownBy(() -> VersionMatrix.parse("a: [b", "x.yaml"))
                .hasMessageStartingWith("x.yaml: not valid YAML: ");
    }
}
