package org.verbs4j.lab;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventListener;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.DeviceContext;

/** Records a context's asynchronous events for a test; {@link #close()} stops delivery. */
public final class EventLog implements AsyncEventListener, AutoCloseable {
    private final DeviceContext ctx;
    private final List<AsyncEvent> events = new CopyOnWriteArrayList<>();

    private EventLog(DeviceContext ctx) {
        this.ctx = ctx;
    }

    public static EventLog on(DeviceContext ctx) {
        EventLog log = new EventLog(ctx);
        ctx.setAsyncEventListener(log);
        return log;
    }

    @Override
    public void onEvent(AsyncEvent event) {
        events.add(event);
    }

    public List<AsyncEvent> events() {
        return List.copyOf(events);
    }

    /** The first event matching, waiting up to {@code millis}; null when none came. */
    public AsyncEvent await(Predicate<AsyncEvent> p, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        do {
            for (AsyncEvent e : events) {
                if (p.test(e)) {
                    return e;
                }
            }
            QpPair.sleep(10);
        } while (System.nanoTime() - deadline < 0);
        return null;
    }

    public AsyncEvent await(AsyncEventType type, Object element, long millis) {
        return await(e -> e.type() == type && (element == null || e.element() == element), millis);
    }

    public long count(AsyncEventType type) {
        return events.stream().filter(e -> e.type() == type).count();
    }

    @Override
    public void close() {
        if (!ctx.isClosed()) {
            ctx.setAsyncEventListener(null);
        }
    }

    @Override
    public String toString() {
        return events.toString();
    }
}
