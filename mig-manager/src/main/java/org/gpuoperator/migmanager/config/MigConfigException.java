package org.gpuoperator.migmanager.config;

/**
 * A mig-parted config that cannot be used, with a message naming the source (file or ConfigMap
 * key), the config and the field: {@code config.yaml: mig-configs.custom[0].devices: ...}.
 */
public class MigConfigException extends RuntimeException {
    public MigConfigException(String message) {
        super(message);
    }
}
