package org.gpuoperator.controller.events;

import java.time.Instant;

/**
 * One Event as it is to be written: a new one, or an existing one whose count, last time and
 * message change.
 *
 * @param namespace where the Event lives: the object's, {@code default} for a cluster-scoped one
 * @param name the Event's name, {@code <object name>.<hex time>} as client-go names them
 * @param count how many times it occurred
 */
public record EventData(
        String namespace,
        String name,
        InvolvedObject involved,
        EventType type,
        String reason,
        String message,
        int count,
        Instant firstTimestamp,
        Instant lastTimestamp) {

    EventData repeated(String latestMessage, Instant at) {
        return new EventData(
                namespace,
                name,
                involved,
                type,
                reason,
                latestMessage,
                count + 1,
                firstTimestamp,
                at);
    }
}
