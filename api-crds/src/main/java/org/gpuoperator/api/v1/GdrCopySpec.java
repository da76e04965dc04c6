package org.gpuoperator.api.v1;

import org.gpuoperator.api.common.ComponentSpec;

/** GDRCopy (gdrdrv) sidecar of the driver. Disabled by default; not implemented by this project. */
public class GdrCopySpec extends ComponentSpec {
    /** GDRCopy is off unless enabled. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
