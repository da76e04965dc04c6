package org.gpuoperator.validator.report;

import java.util.Map;
import java.util.Objects;

/**
 * The outcome of one check: its state, why (empty when ready or disabled), and the facts a
 * readiness file carries when the validator writes it.
 */
public record CheckResult(CheckState state, String reason, Map<String, String> facts) {

    public CheckResult {
        Objects.requireNonNull(state, "state");
        reason = reason == null ? "" : reason;
        facts = facts == null ? Map.of() : Map.copyOf(facts);
    }

    public static CheckResult ready() {
        return new CheckResult(CheckState.READY, "", Map.of());
    }

    public static CheckResult ready(Map<String, String> facts) {
        return new CheckResult(CheckState.READY, "", facts);
    }

    public static CheckResult waiting(String reason) {
        return new CheckResult(CheckState.WAITING, reason, Map.of());
    }

    public static CheckResult failed(String reason) {
        return new CheckResult(CheckState.FAILED, reason, Map.of());
    }

    public static CheckResult disabled() {
        return new CheckResult(CheckState.DISABLED, "", Map.of());
    }

    public boolean isReady() {
        return state == CheckState.READY;
    }
}
