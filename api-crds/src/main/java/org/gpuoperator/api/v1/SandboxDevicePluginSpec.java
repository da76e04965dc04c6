package org.gpuoperator.api.v1;

import org.gpuoperator.api.common.ComponentSpec;

/** The sandbox (KubeVirt) device plugin operand. Not implemented by this project. */
public class SandboxDevicePluginSpec extends ComponentSpec {
    /** The sandbox device plugin is off unless enabled. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
