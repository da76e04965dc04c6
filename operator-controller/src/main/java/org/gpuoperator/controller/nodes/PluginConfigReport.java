package org.gpuoperator.controller.nodes;

import java.util.Map;

/**
 * What the device plugin reported on its Node about the named config (pure): the config in force
 * and why the last one selected was refused. The device plugin writes the two annotations
 * (node-agent-lib's {@code NodeConfigWatch}); the controller only reads them into the status.
 *
 * @param applied the config in force, or null (none, or no report)
 * @param error why the selected config was refused, or null
 */
public record PluginConfigReport(String applied, String error) {

    public static final String APPLIED_ANNOTATION = "nvidia.com/device-plugin.config.applied";
    public static final String ERROR_ANNOTATION = "nvidia.com/device-plugin.config.error";

    public static final PluginConfigReport NONE = new PluginConfigReport(null, null);

    public PluginConfigReport {
        applied = applied == null || applied.isBlank() ? null : applied;
        error = error == null || error.isBlank() ? null : error;
    }

    public static PluginConfigReport of(Map<String, String> annotations) {
        if (annotations == null) {
            return NONE;
        }
        return new PluginConfigReport(
                annotations.get(APPLIED_ANNOTATION), annotations.get(ERROR_ANNOTATION));
    }
}
