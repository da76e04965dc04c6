package org.gpuoperator.api.v1;

import org.gpuoperator.api.common.ImageSpec;

/** Image of the init containers (deprecated upstream). */
public class InitContainerSpec extends ImageSpec {}
