package org.verbs4j.api;

/** Receives a device's asynchronous events, on the context's event thread. Return quickly. */
@FunctionalInterface
public interface AsyncEventListener {
    /**
     * Called once per event, after verbs4j copied and acknowledged it ({@code ibv_ack_async_event}).
     *
     * @param event the event, with its type and the object it concerns
     */
    void onEvent(AsyncEvent event);
}
