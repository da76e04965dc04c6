package org.gpuoperator.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CRDs committed under deploy/crds must be exactly what the build generates. To refresh them
 * after changing the API types: {@code ./mvnw -pl api-crds verify -Dcrd.update=true}, then commit
 * deploy/crds.
 */
class CrdDriftTest {
    static final String REFRESH = "./mvnw -pl api-crds verify -Dcrd.update=true";

    @Test
    void committedCrdsMatchTheGeneratedOnes() throws IOException {
        if (Boolean.getBoolean("crd.update")) {
            refresh(ModuleFiles.GENERATED_CRDS, ModuleFiles.COMMITTED_CRDS);
        }

        List<String> drift = differences(ModuleFiles.GENERATED_CRDS, ModuleFiles.COMMITTED_CRDS);

        assertThat(drift)
                .as(
                        "deploy/crds differs from the CRDs generated from the API types; run `%s` and commit deploy/crds",
                        REFRESH)
                .isEmpty();
    }

    @Test
    void bothCrdsAreGenerated() {
        assertThat(ModuleFiles.yamlFiles(ModuleFiles.GENERATED_CRDS))
                .extracting(p -> p.getFileName().toString())
                .containsExactlyInAnyOrder(
                        "clusterpolicies.nvidia.com-v1.yml", "nvidiadrivers.nvidia.com-v1.yml");
    }

    @Test
    void driftIsDetected(@TempDir Path temp) throws IOException {
        Path generated = Files.createDirectories(temp.resolve("generated"));
        Path committed = Files.createDirectories(temp.resolve("committed"));
        Files.writeString(generated.resolve("a.yml"), "spec: {}\n");
        Files.writeString(generated.resolve("b.yml"), "new\n");
        Files.writeString(committed.resolve("a.yml"), "spec: {old: true}\n");
        Files.writeString(committed.resolve("stale.yml"), "gone\n");

        assertThat(differences(generated, committed))
                .containsExactly(
                        "a.yml: content differs",
                        "b.yml: generated but not committed",
                        "stale.yml: committed but no longer generated");

        refresh(generated, committed);
        assertThat(differences(generated, committed)).isEmpty();
    }

    /** File-by-file differences between the generated and the committed directory. */
    static List<String> differences(Path generated, Path committed) throws IOException {
        Set<String> names = new TreeSet<>();
        ModuleFiles.yamlFiles(generated).forEach(p -> names.add(p.getFileName().toString()));
        if (Files.isDirectory(committed)) {
            ModuleFiles.yamlFiles(committed).forEach(p -> names.add(p.getFileName().toString()));
        }
        List<String> drift = new ArrayList<>();
        for (String name : names) {
            Path fresh = generated.resolve(name);
            Path kept = committed.resolve(name);
            if (!Files.exists(kept)) {
                drift.add(name + ": generated but not committed");
            } else if (!Files.exists(fresh)) {
                drift.add(name + ": committed but no longer generated");
            } else if (!Files.readString(fresh).equals(Files.readString(kept))) {
                drift.add(name + ": content differs");
            }
        }
        return drift;
    }

    /** Makes the committed directory equal to the generated one. */
    static void refresh(Path generated, Path committed) throws IOException {
        Files.createDirectories(committed);
        for (Path stale : ModuleFiles.yamlFiles(committed)) {
            if (!Files.exists(generated.resolve(stale.getFileName()))) {
                Files.delete(stale);
            }
        }
        for (Path fresh : ModuleFiles.yamlFiles(generated)) {
            Files.copy(
                    fresh,
                    committed.resolve(fresh.getFileName()),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
