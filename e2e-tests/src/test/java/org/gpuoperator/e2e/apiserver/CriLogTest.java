package org.gpuoperator.e2e.apiserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CriLogTest {

    @Test
    void parsesTimestampStreamTagAndMessageKeepingSpaces() {
        CriLog.Entry e =
                CriLog.parse("2026-12-01T10:00:00.123456789Z stderr F driver  loaded: nvidia 570");
        assertEquals("2026-12-01T10:00:00.123456789Z", e.timestamp());
        assertEquals("stderr", e.stream());
        assertEquals(false, e.partial());
        assertEquals("driver  loaded: nvidia 570", e.message());
        assertEquals("", CriLog.parse("2026-12-01T10:00:00Z stdout F").message());
    }

    @Test
    void joinsPartialLinesAndSkipsEmptyOnes() {
        assertEquals(
                List.of("first", "a long line", "last"),
                CriLog.messages(
                        List.of(
                                "2026-12-01T10:00:00Z stdout F first",
                                "2026-12-01T10:00:01Z stdout P a lo",
                                "2026-12-01T10:00:01Z stdout P:x ng ",
                                "",
                                "2026-12-01T10:00:01Z stdout F line",
                                "2026-12-01T10:00:02Z stderr F last")));
    }

    @Test
    void rejectsLinesNotInCriFormatNamingThem() {
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class, () -> CriLog.parse("plain agent output"));
        assertTrue(e.getMessage().contains("plain agent output"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> CriLog.parse("2026-12-01T10:00:00Z console F x"));
        assertThrows(
                IllegalArgumentException.class,
                () -> CriLog.parse("2026-12-01T10:00:00Z stdout X x"));
    }

    @Test
    void tailKeepsTheLastLines() {
        assertEquals(List.of("b", "c"), CriLog.tail(List.of("a", "b", "c"), 2));
        assertEquals(List.of("a", "b", "c"), CriLog.tail(List.of("a", "b", "c"), null));
        assertEquals(List.of(), CriLog.tail(List.of("a"), 0));
        assertThrows(IllegalArgumentException.class, () -> CriLog.tail(List.of("a", "b"), -1));
    }

    @Test
    void fileSourceReadsTheKubeletLayoutCurrentAndPreviousRun(@TempDir Path root) throws Exception {
        PodLogSource.PodRef pod =
                new PodLogSource.PodRef("gpu-operator", "dp-1", "uid-1", "gpu-node-1");
        Path dir = FilePodLogSource.containerDir(root, pod, "plugin");
        assertEquals(root.resolve("var/log/pods/gpu-operator_dp-1_uid-1/plugin"), dir);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("0.log"), "2026-12-01T10:00:00Z stdout F run zero\n");
        Files.writeString(dir.resolve("10.log"), "2026-12-01T10:01:00Z stdout F run ten\n");
        Files.writeString(dir.resolve("2.log"), "2026-12-01T10:00:30Z stdout F run two\n");
        FilePodLogSource source =
                new FilePodLogSource(
                        node -> node.equals("gpu-node-1") ? Optional.of(root) : Optional.empty());
        assertEquals(List.of("run ten"), source.lines(pod, "plugin", false));
        assertEquals(List.of("run two"), source.lines(pod, "plugin", true));
        assertThrows(NoSuchElementException.class, () -> source.lines(pod, "other", false));
        assertThrows(
                NoSuchElementException.class,
                () ->
                        source.lines(
                                new PodLogSource.PodRef(
                                        "gpu-operator", "dp-1", "uid-1", "cpu-node"),
                                "plugin",
                                false));
        assertThrows(
                NoSuchElementException.class,
                () ->
                        source.lines(
                                new PodLogSource.PodRef("gpu-operator", "dp-1", "uid-1", null),
                                "plugin",
                                false));
    }
}
