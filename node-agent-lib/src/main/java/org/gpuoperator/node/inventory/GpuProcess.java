package org.gpuoperator.node.inventory;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One process using a GPU, as the driver accounts it: its framebuffer memory and its share of the
 * GPU's engines over the last sampling interval. A value the source cannot give is absent.
 *
 * @param pid the process ID in the node's (host's) PID namespace
 * @param usedMemoryBytes framebuffer memory the process holds
 * @param smUtil percent of the interval the SMs ran this process's kernels
 * @param memUtil percent of the interval memory was read or written for it
 * @param encUtil percent of the interval the encoder worked for it
 * @param decUtil percent of the interval the decoder worked for it
 */
public record GpuProcess(
        long pid,
        OptionalLong usedMemoryBytes,
        OptionalInt smUtil,
        OptionalInt memUtil,
        OptionalInt encUtil,
        OptionalInt decUtil) {}
