package org.gpuoperator.controller.events;

/**
 * Records an Event about an object. Never blocks and never throws: an Event is a hint for the
 * admin, and a reconcile must not wait for it nor fail because of it.
 */
public interface EventRecorder {

    void record(InvolvedObject object, EventType type, String reason, String message);

    /** Records nothing (tests of a step alone, the CLI). */
    EventRecorder NONE = (object, type, reason, message) -> {};
}
