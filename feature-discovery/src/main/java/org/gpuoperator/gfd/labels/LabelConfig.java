package org.gpuoperator.gfd.labels;

import java.util.Objects;
import org.gpuoperator.node.deviceconfig.MigStrategy;

/**
 * The settings that shape the labels.
 *
 * @param migStrategy how MIG devices are exposed
 * @param sharing sharing settings from the device plugin config
 */
public record LabelConfig(MigStrategy migStrategy, Sharing sharing) {

    public static final LabelConfig DEFAULT = new LabelConfig(MigStrategy.NONE, Sharing.NONE);

    public LabelConfig {
        Objects.requireNonNull(migStrategy, "migStrategy");
        Objects.requireNonNull(sharing, "sharing");
    }
}
