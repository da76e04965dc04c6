package org.gpuoperator.api.v1;

import org.gpuoperator.api.common.ComponentSpec;

/** The Kata sandbox device plugin operand. Not implemented by this project. */
public class KataDevicePluginSpec extends ComponentSpec {
    /** The Kata sandbox device plugin is off unless enabled. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
