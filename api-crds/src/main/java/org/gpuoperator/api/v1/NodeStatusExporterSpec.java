package org.gpuoperator.api.v1;

import org.gpuoperator.api.common.ComponentSpec;

/** The node status exporter operand (validation results as metrics). Disabled by default. */
public class NodeStatusExporterSpec extends ComponentSpec {
    /** The node status exporter is off unless enabled. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
