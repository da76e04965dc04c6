package org.gpuoperator.node.inventory;

/**
 * A change in a GPU's health, as the health stream delivers it.
 *
 * @param gpuIndex index of the GPU
 * @param uuid UUID of the GPU (or of the MIG device when the event is scoped to one)
 * @param kind what happened
 * @param xid the XID code for {@link Kind#XID}, else 0
 * @param timestampMillis when it was observed (epoch milliseconds)
 */
public record HealthEvent(int gpuIndex, String uuid, Kind kind, long xid, long timestampMillis) {

    public enum Kind {
        /** an XID error was reported; whether it is critical is the consumer's policy */
        XID,
        /** the GPU fell off the bus or stopped answering */
        GPU_LOST,
        /** an earlier fault on this GPU has cleared */
        RECOVERED
    }
}
