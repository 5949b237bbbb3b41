package org.verbs4j.api;

/**
 * An asynchronous event of a device ({@code struct ibv_async_event}): which kind, and the object it is about
 * (a {@link QueuePair}, {@link CompletionQueue} or {@link SharedReceiveQueue}, or a port number).
 *
 * @param type    the kind of event ({@code event_type})
 * @param element the queue pair, completion queue or shared receive queue it is about; null for device and
 *                port events
 * @param port    the port number for port events, else 0
 */
public record AsyncEvent(AsyncEventType type, Object element, int port) {

    /** {@return the queue pair it is about, or {@code null}} */
    public QueuePair queuePair() {
        return element instanceof QueuePair ? (QueuePair) element : null;
    }

    /** {@return the completion queue} */
    public CompletionQueue completionQueue() {
        return element instanceof CompletionQueue ? (CompletionQueue) element : null;
    }

    /** {@return the shared receive queue} */
    public SharedReceiveQueue sharedReceiveQueue() {
        return element instanceof SharedReceiveQueue ? (SharedReceiveQueue) element : null;
    }

    @Override
    public String toString() {
        return type + " (" + type.text() + ")" + (element != null ? " on " + element : port > 0 ? " on port " + port : "");
    }
}
