package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VolumeFilesTest {

    @Test
    void configMapItemsAndModes() {
        var cm = new ConfigMapBuilder().addToData("a", "1").addToData("b", "2").build();
        Map<String, VolumeFiles.File> all = VolumeFiles.configMap(cm, null, null);
        assertThat(all).containsOnlyKeys("a", "b");
        assertThat(all.get("a").mode()).isEqualTo(0644);
        Map<String, VolumeFiles.File> some =
                VolumeFiles.configMap(cm, List.of(new KeyToPath("b", 0400, "sub/bee")), 0600);
        assertThat(some).containsOnlyKeys("sub/bee");
        assertThat(some.get("sub/bee").mode()).isEqualTo(0400);
        assertThatThrownBy(
                        () ->
                                VolumeFiles.configMap(
                                        cm, List.of(new KeyToPath("zz", null, "z")), null))
                .hasMessageContaining("zz");
    }

    @Test
    void secretDataIsDecoded() {
        var s =
                new SecretBuilder()
                        .addToData("t", Base64.getEncoder().encodeToString("tok".getBytes()))
                        .build();
        assertThat(
                        new String(
                                VolumeFiles.secret(s, null, null).get("t").content(),
                                StandardCharsets.UTF_8))
                .isEqualTo("tok");
    }

    @Test
    void writeSwapsDataAtomicallyAndDropsRemovedKeys(@TempDir Path dir) throws Exception {
        VolumeFiles.write(
                dir,
                Map.of(
                        "a",
                        new VolumeFiles.File("1".getBytes(), 0644),
                        "sub/x",
                        new VolumeFiles.File("x".getBytes(), 0600)));
        assertThat(Files.readString(dir.resolve("a"))).isEqualTo("1");
        assertThat(Files.readString(dir.resolve("sub/x"))).isEqualTo("x");
        assertThat(Files.isSymbolicLink(dir.resolve("..data"))).isTrue();
        assertThat(Files.readSymbolicLink(dir.resolve("a")).toString()).isEqualTo("..data/a");
        Path first = Files.readSymbolicLink(dir.resolve("..data"));
        VolumeFiles.write(dir, Map.of("a", new VolumeFiles.File("2".getBytes(), 0644)));
        assertThat(Files.readString(dir.resolve("a"))).isEqualTo("2");
        assertThat(dir.resolve("sub")).doesNotExist();
        assertThat(dir.resolve(first)).doesNotExist();
        assertThat(Files.getPosixFilePermissions(dir.resolve("a"))).hasSize(4);
    }
}
