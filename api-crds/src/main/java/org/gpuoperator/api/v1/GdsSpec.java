package org.gpuoperator.api.v1;

import org.gpuoperator.api.common.ComponentSpec;

/**
 * GPUDirect Storage (nvidia-fs) sidecar of the driver. Disabled by default; not implemented by this
 * project.
 */
public class GdsSpec extends ComponentSpec {
    /** GPUDirect Storage is off unless enabled. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
