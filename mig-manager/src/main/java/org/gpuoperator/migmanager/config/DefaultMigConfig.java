package org.gpuoperator.migmanager.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The named layouts every cluster gets unless the admin brings their own: the {@code config.yaml}
 * key of ConfigMap {@code default-mig-parted-config}, with upstream's names ({@code all-disabled},
 * {@code all-1g.5gb}, {@code all-balanced}, ...).
 */
public final class DefaultMigConfig {

    public static final String CONFIG_MAP = "default-mig-parted-config";
    public static final String KEY = "config.yaml";

    private static final String RESOURCE =
            "/org/gpuoperator/migmanager/default-mig-parted-config.yaml";

    private DefaultMigConfig() {}

    /** The ConfigMap's {@code config.yaml}, as it is written to the cluster. */
    public static String text() {
        try (InputStream in = DefaultMigConfig.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The default layouts, parsed; errors name {@code default-mig-parted-config/config.yaml}. */
    public static MigConfigFile file() {
        return MigConfigFile.parse(text(), CONFIG_MAP + "/" + KEY);
    }
}
