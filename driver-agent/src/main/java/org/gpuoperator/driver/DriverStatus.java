package org.gpuoperator.driver;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.driver.host.GpuHolders;

/**
 * Where the driver step stands on this node, for the status file, the logs and {@code driver-agent
 * status}.
 *
 * @param ready whether {@code driver-ready} is written
 * @param mode {@code host} (pre-installed driver) or {@code container}
 * @param step the failing step when not ready
 * @param message what is wrong and what fixes it, or what is ready
 * @param holders processes holding the GPUs when that blocks the driver
 * @param facts the facts written to driver-ready when ready
 */
public record DriverStatus(
        boolean ready,
        String mode,
        String step,
        String message,
        List<GpuHolders.Holder> holders,
        Map<String, String> facts) {

    public DriverStatus {
        holders = List.copyOf(holders);
        facts = Map.copyOf(facts);
    }

    public static DriverStatus ready(String mode, String message, Map<String, String> facts) {
        return new DriverStatus(true, mode, "", message, List.of(), new LinkedHashMap<>(facts));
    }

    public static DriverStatus notReady(
            String step, String message, List<GpuHolders.Holder> holders) {
        return new DriverStatus(false, "", step, message, holders, Map.of());
    }

    /** The status file: {@code KEY=VALUE} lines, values on one line. */
    public String render(Instant at) {
        StringBuilder sb = new StringBuilder();
        sb.append("STATE=").append(ready ? "ready" : "not-ready").append('\n');
        if (!mode.isEmpty()) {
            sb.append("MODE=").append(mode).append('\n');
        }
        if (!step.isEmpty()) {
            sb.append("STEP=").append(step).append('\n');
        }
        sb.append("MESSAGE=").append(message.replace('\n', ' ')).append('\n');
        if (!holders.isEmpty()) {
            sb.append("HOLDERS=").append(GpuHolders.describe(holders)).append('\n');
        }
        sb.append("UPDATED=").append(at).append('\n');
        return sb.toString();
    }
}
