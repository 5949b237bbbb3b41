package org.verbs4j.api;

/** Receives a device's asynchronous events, on the context's event thread. Return quickly. */
@FunctionalInterface
public interface AsyncEventListener {
    void onEvent(AsyncEvent event);
}
