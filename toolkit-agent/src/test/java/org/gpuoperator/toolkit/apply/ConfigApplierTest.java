package org.gpuoperator.toolkit.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.containerd.ContainerdConfigurer;
import org.gpuoperator.toolkit.containerd.ContainerdVersion;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write path against a real filesystem: backup, atomic write, no-op second run, exact restore,
 * surgical cleanup.
 */
class ConfigApplierTest {

    static final String CONFIG = "/etc/containerd/config.toml";
    static final String DROP_IN = "/etc/containerd/conf.d/99-nvidia.toml";
    static final String ORIGINAL =
            """
            # site config
            version = 2
            [plugins."io.containerd.grpc.v1.cri".containerd]
              default_runtime_name = "runc"   # the usual
              [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
                runtime_type = "io.containerd.runc.v2"
                [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
                  SystemdCgroup = true
            """;

    @TempDir Path host;

    Path file;
    ConfigApplier applier;
    final ByteArrayOutputStream logs = new ByteArrayOutputStream();

    @BeforeEach
    void setUp() throws Exception {
        file = host.resolve("etc/containerd/config.toml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, ORIGINAL);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        applier =
                new ConfigApplier(
                        host,
                        host.resolve("var/lib/toolkit-agent"),
                        new EventLog("t", new PrintStream(logs)));
    }

    ContainerdConfigurer containerd(boolean setAsDefault) {
        return new ContainerdConfigurer(
                CONFIG,
                DROP_IN,
                new NvidiaRuntimes("/usr/local/nvidia/toolkit", false, setAsDefault),
                Optional.of(new ContainerdVersion(1, 6)),
                Optional.empty(),
                ContainerdConfigurer.DropIn.NEVER);
    }

    @Test
    void firstRunWritesKeepsModeAndBacksUpSecondRunWritesNothing() throws Exception {
        ConfigApplier.Outcome first = applier.configure(containerd(true), ExternalValidator.NONE);
        assertThat(first.written()).containsExactly(CONFIG);
        assertThat(Files.readString(file))
                .contains("runtimes.nvidia")
                .contains("default_runtime_name = \"nvidia\"   # the usual");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-r-----");
        assertThat(Files.readString(applier.backupOf(CONFIG))).isEqualTo(ORIGINAL);
        assertThat(host.resolve("etc/containerd/conf.d")).doesNotExist(); // --drop-in never

        Object inode = Files.getAttribute(file, "unix:ino");
        Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000L));
        Path state = host.resolve("var/lib/toolkit-agent/containerd.state");
        Files.setLastModifiedTime(state, FileTime.fromMillis(1_000_000L));
        ConfigApplier.Outcome second = applier.configure(containerd(true), ExternalValidator.NONE);
        assertThat(second.changed()).isFalse();
        assertThat(Files.getAttribute(file, "unix:ino")).isEqualTo(inode);
        assertThat(Files.getLastModifiedTime(file).toMillis()).isEqualTo(1_000_000L);
        assertThat(Files.getLastModifiedTime(state).toMillis()).isEqualTo(1_000_000L);
    }

    @Test
    void cleanupOfAnUntouchedFileRestoresTheExactOriginalBytes() throws Exception {
        applier.configure(containerd(true), ExternalValidator.NONE);
        ConfigApplier.Outcome o = applier.cleanup(containerd(true), ExternalValidator.NONE);
        assertThat(o.changed()).isTrue();
        assertThat(Files.readString(file)).isEqualTo(ORIGINAL);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-r-----");
        assertThat(applier.backupOf(CONFIG)).doesNotExist();
        assertThat(applier.cleanup(containerd(true), ExternalValidator.NONE).changed()).isFalse();
    }

    @Test
    void cleanupAfterSomeoneElseEditedRemovesOnlyOurEntriesAndRestoresTheDefault()
            throws Exception {
        applier.configure(containerd(true), ExternalValidator.NONE);
        String theirs =
                Files.readString(file)
                        .replace("# site config\n", "# site config\nroot = \"/data/containerd\"\n");
        Files.writeString(file, theirs);
        applier.cleanup(containerd(true), ExternalValidator.NONE);
        assertThat(Files.readString(file))
                .isEqualTo(
                        ORIGINAL.replace(
                                "# site config\n", "# site config\nroot = \"/data/containerd\"\n"));
    }

    @Test
    void aFileThatDidNotExistIsDeletedAgainOnCleanup() throws Exception {
        Files.delete(file);
        applier.configure(containerd(false), ExternalValidator.NONE);
        assertThat(Files.readString(file)).startsWith("version = 2\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-r--r--");
        applier.cleanup(containerd(false), ExternalValidator.NONE);
        assertThat(file).doesNotExist();
    }

    @Test
    void malformedConfigIsLeftUntouchedWithAnErrorNamingFileAndLine() throws Exception {
        String bad =
                ORIGINAL + "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia\n";
        Files.writeString(file, bad);
        assertThatThrownBy(() -> applier.configure(containerd(false), ExternalValidator.NONE))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(CONFIG + ":9:");
        assertThat(Files.readString(file)).isEqualTo(bad);
        assertThat(host.resolve("var/lib/toolkit-agent")).doesNotExist();
    }

    @Test
    void aCandidateTheRuntimeRejectsIsNeverWritten() throws Exception {
        ExternalValidator rejecting =
                (path, candidate) -> {
                    try {
                        assertThat(Files.readString(candidate)).contains("runtimes.nvidia");
                    } catch (java.io.IOException e) {
                        throw new ConfigException(e.getMessage());
                    }
                    throw new ConfigException(
                            path
                                    + ": containerd rejects the new config: (3, 1): duplicated tables");
                };
        assertThatThrownBy(() -> applier.configure(containerd(false), rejecting))
                .hasMessageContaining("duplicated tables");
        assertThat(Files.readString(file)).isEqualTo(ORIGINAL);
    }

    @Test
    void containerd2GetsADropInAndAnImportInsteadOfTablesInTheMainFile() throws Exception {
        ContainerdConfigurer c2 =
                new ContainerdConfigurer(
                        CONFIG,
                        DROP_IN,
                        new NvidiaRuntimes("/usr/local/nvidia/toolkit", false, false),
                        Optional.of(new ContainerdVersion(2, 1)),
                        Optional.empty(),
                        ContainerdConfigurer.DropIn.AUTO);
        applier.configure(c2, ExternalValidator.NONE);
        assertThat(Files.readString(file))
                .isEqualTo(
                        ORIGINAL.replace(
                                "version = 2\n",
                                "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n"));
        assertThat(Files.readString(host.resolve("etc/containerd/conf.d/99-nvidia.toml")))
                .contains("runtimes.nvidia")
                .contains("SystemdCgroup = true");
        assertThat(applier.configure(c2, ExternalValidator.NONE).changed()).isFalse();
        applier.cleanup(c2, ExternalValidator.NONE);
        assertThat(Files.readString(file)).isEqualTo(ORIGINAL);
        assertThat(host.resolve("etc/containerd/conf.d/99-nvidia.toml")).doesNotExist();
    }

    @Test
    void aSymlinkedConfigIsWrittenThroughAndStaysALink() throws Exception {
        Path real = host.resolve("etc/containerd/real.toml");
        Files.move(file, real);
        Files.createSymbolicLink(file, Path.of("/etc/containerd/real.toml"));
        applier.configure(containerd(false), ExternalValidator.NONE);
        assertThat(Files.isSymbolicLink(file)).isTrue();
        assertThat(Files.readString(real)).startsWith(ORIGINAL).contains("runtimes.nvidia");
        applier.cleanup(containerd(false), ExternalValidator.NONE);
        assertThat(Files.isSymbolicLink(file)).isTrue();
        assertThat(Files.readString(real)).isEqualTo(ORIGINAL);
    }
}
