package org.gpuoperator.api.defaults;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The named MIG layouts every cluster gets unless the policy names its own ConfigMap ({@code
 * migManager.config.name}): the {@code config.yaml} key of ConfigMap {@value #CONFIG_MAP}, which
 * the operator renders and the MIG manager reads, in NVIDIA's mig-parted format with upstream's
 * names ({@code all-disabled}, {@code all-1g.5gb}, {@code all-balanced}, ...). One copy here, for
 * both.
 */
public final class DefaultMigPartedConfig {

    public static final String CONFIG_MAP = "default-mig-parted-config";
    public static final String KEY = "config.yaml";

    private static final String RESOURCE =
            "/org/gpuoperator/api/defaults/default-mig-parted-config.yaml";

    private DefaultMigPartedConfig() {}

    /** The ConfigMap's {@code config.yaml}, as it is written to the cluster. */
    public static String text() {
        try (InputStream in = DefaultMigPartedConfig.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
