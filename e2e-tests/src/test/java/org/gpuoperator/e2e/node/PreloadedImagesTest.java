package org.gpuoperator.e2e.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PreloadedImagesTest {

    @TempDir Path dir;

    @Test
    void aNodeRootLinksTheTemplatesBlobsAndLayersButOwnsItsDatabases() throws Exception {
        Path template = dir.resolve("template");
        Path blob = template.resolve("io.containerd.content.v1.content/blobs/sha256/ab12");
        Path layerFile =
                template.resolve("io.containerd.snapshotter.v1.overlayfs/snapshots/1/fs/bin/sh");
        Path meta = template.resolve("io.containerd.metadata.v1.bolt/meta.db");
        Path snapshots = template.resolve("io.containerd.snapshotter.v1.overlayfs/metadata.db");
        for (Path p : List.of(blob, layerFile, meta, snapshots)) {
            Files.createDirectories(p.getParent());
            Files.writeString(p, p.getFileName().toString());
        }
        Path root = dir.resolve("node/var/lib/containerd");

        PreloadedImages.copy(template, root);

        assertEquals(2, links(root.resolve(template.relativize(blob))));
        assertEquals(2, links(root.resolve(template.relativize(layerFile))));
        for (Path db : List.of(meta, snapshots)) {
            Path mine = root.resolve(template.relativize(db));
            assertEquals(1, links(mine), mine + " must be the node's own: containerd writes it");
            assertEquals(1, links(db));
            assertEquals(db.getFileName().toString(), Files.readString(mine));
        }
        assertEquals(
                List.of(
                        root.resolve(template.relativize(meta)),
                        root.resolve(template.relativize(snapshots))),
                PreloadedImages.databases(root).stream().sorted().toList());
    }

    @Test
    void theTemplatesNameChangesWithAnArchiveOrContainerd() throws Exception {
        Path a = Files.writeString(dir.resolve("driver-agent.oci.tar"), "one");
        Path b = Files.writeString(dir.resolve("validator.oci.tar"), "two");
        String key = PreloadedImages.key(List.of(a, b), "containerd 1.6.20");

        assertEquals(key, PreloadedImages.key(List.of(a, b), "containerd 1.6.20"));
        assertNotEquals(key, PreloadedImages.key(List.of(a, b), "containerd 1.7.0"));
        assertNotEquals(key, PreloadedImages.key(List.of(a), "containerd 1.6.20"));
        Files.setLastModifiedTime(
                b, FileTime.fromMillis(Files.getLastModifiedTime(b).toMillis() + 1000));
        assertNotEquals(key, PreloadedImages.key(List.of(a, b), "containerd 1.6.20"));
    }

    private static int links(Path p) throws Exception {
        return (Integer) Files.getAttribute(p, "unix:nlink");
    }
}
