package org.gpuoperator.migmanager.config;

import org.gpuoperator.api.defaults.DefaultMigPartedConfig;

/**
 * The named layouts every cluster gets unless the admin brings their own (the operator renders them
 * as ConfigMap {@code default-mig-parted-config}; api-crds holds the one copy).
 */
public final class DefaultMigConfig {

    public static final String CONFIG_MAP = DefaultMigPartedConfig.CONFIG_MAP;
    public static final String KEY = DefaultMigPartedConfig.KEY;

    private DefaultMigConfig() {}

    /** The ConfigMap's {@code config.yaml}, as it is written to the cluster. */
    public static String text() {
        return DefaultMigPartedConfig.text();
    }

    /** The default layouts, parsed; errors name {@code default-mig-parted-config/config.yaml}. */
    public static MigConfigFile file() {
        return MigConfigFile.parse(text(), CONFIG_MAP + "/" + KEY);
    }
}
