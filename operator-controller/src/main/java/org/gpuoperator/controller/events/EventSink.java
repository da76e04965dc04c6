package org.gpuoperator.controller.events;

/** Where Events are written: the API server ({@link Fabric8EventSink}), or a list in tests. */
public interface EventSink {

    void create(EventData event);

    /**
     * Sets the existing Event's count, last time and message.
     *
     * @return false when the Event is gone (expired after the API server's event TTL)
     */
    boolean update(EventData event);
}
