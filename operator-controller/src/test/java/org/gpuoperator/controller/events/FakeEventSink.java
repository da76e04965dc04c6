package org.gpuoperator.controller.events;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Events as an API server would keep them, by name; it can be told to fail writes or to have
 * lost (expired) every Event.
 */
final class FakeEventSink implements EventSink {

    final Map<String, EventData> stored = new LinkedHashMap<>();
    final List<String> calls = new ArrayList<>();
    volatile boolean failing;

    @Override
    public synchronized void create(EventData event) {
        calls.add("create " + event.name());
        if (failing) {
            throw new IllegalStateException("API server unavailable");
        }
        stored.put(event.name(), event);
    }

    @Override
    public synchronized boolean update(EventData event) {
        calls.add("update " + event.name());
        if (failing) {
            throw new IllegalStateException("API server unavailable");
        }
        if (!stored.containsKey(event.name())) {
            return false;
        }
        stored.put(event.name(), event);
        return true;
    }

    synchronized void expireAll() {
        stored.clear();
    }

    synchronized List<EventData> events() {
        return List.copyOf(stored.values());
    }
}
