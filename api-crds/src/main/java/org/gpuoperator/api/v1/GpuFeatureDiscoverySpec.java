package org.gpuoperator.api.v1;

import org.gpuoperator.api.common.ComponentSpec;

/**
 * The GPU feature discovery operand: GPU facts as nvidia.com/* node labels. Enabled by default; the
 * MIG strategy comes from mig.strategy.
 */
public class GpuFeatureDiscoverySpec extends ComponentSpec {}
