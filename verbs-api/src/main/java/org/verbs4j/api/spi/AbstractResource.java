package org.verbs4j.api.spi;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The safety model every native object of a backend follows: an open/closed state checked on entry
 * (use after close throws instead of crashing the JVM), a parent that knows its children, harmless
 * double close, and a leak report through SLF4J when an object becomes unreachable without being closed.
 *
 * <p>Closing a parent with open children is refused with a message that names them, unless the parent
 * {@linkplain #closesChildren() closes its children}: then {@link #close()} closes each open child first
 * (a {@code ConnectionManager} its {@code CmId}s, a {@code CmId} its queue pair) and refuses only when one
 * of them refuses. Each relation is one or the other, always, and the owning API type documents which.
 */
public abstract class AbstractResource implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("org.verbs4j.leak");
    private static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, "verbs4j-leak-detector");
        t.setDaemon(true);
        return t;
    });
    private static final boolean TRACK_SITES = Boolean.getBoolean("verbs4j.leakSites");
    private static final java.util.concurrent.atomic.AtomicLong LEAKS = new java.util.concurrent.atomic.AtomicLong();

    private final AbstractResource parent;
    private final List<AbstractResource> dependencies = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Set<AbstractResource> children = ConcurrentHashMap.newKeySet();
    private final LeakState leak;
    private final Cleaner.Cleanable cleanable;
    /** Volatile: a plain load on x86, so the hot-path check costs nothing more. */
    private volatile boolean closed;
    /** Set while {@link #close()} closes the children of a cascading parent: no new child may come. */
    private volatile boolean closing;

    /** @param parent the object this one was made from (null for a device context) */
    protected AbstractResource(AbstractResource parent) {
        this.parent = parent;
        if (parent != null) {
            parent.checkAcceptsChildren();
            parent.children.add(this);
        }
        this.leak = new LeakState(TRACK_SITES ? new Throwable("created here") : null);
        this.cleanable = CLEANER.register(this, leak);
    }

    /**
     * Records that this object uses {@code other} (a QP its CQs and SRQ, a CQ its channel), so that
     * {@code other} refuses to close while this one is open.
     */
    protected final void dependOn(AbstractResource other) {
        if (other != null) {
            other.checkAcceptsChildren();
            other.children.add(this);
            dependencies.add(other);
        }
    }

    private void checkAcceptsChildren() {
        checkOpen();
        if (closing) {
            throw new IllegalStateException(this + " is being closed; nothing new can be made from it");
        }
    }

    /**
     * Whether {@link #close()} closes the open children first (true) or refuses while there are any
     * (false, the default). A subclass that answers true documents it on its API type.
     */
    protected boolean closesChildren() {
        return false;
    }

    /**
     * Called by {@link #close()} of an open object before anything is closed (before the children of a
     * cascading parent): may refuse the close by throwing {@link IllegalStateException} that names what is
     * still in use, or prepare it (e.g. end the waits on this object). The default does nothing.
     */
    protected void beforeClose() {
    }

    /** Called once by the subclass constructor when the native object exists, for the leak report. */
    protected final void describeForLeakReport(String description) {
        leak.description = description;
    }

    /** The kind of object, e.g. "ProtectionDomain"; used in messages. */
    protected abstract String kind();

    /** Destroys the native object. Called once, with no open children. Throws on failure. */
    protected abstract void destroy();

    /** Throws {@link IllegalStateException} when closed. Cheap: one field read. */
    protected final void checkOpen() {
        if (closed) {
            throw closedException();
        }
    }

    /** The exception for use after close (kept out of line, so that callers stay small). */
    protected final IllegalStateException closedException() {
        return new IllegalStateException(this + " is closed; it cannot be used after close()");
    }

    /** How many objects were found unreachable without having been closed, since the JVM started. */
    public static long leakCount() {
        return LEAKS.get();
    }

    /** Whether {@link #close()} succeeded (or the object was never created, see {@link #abandon()}). */
    public final boolean isClosed() {
        return closed;
    }

    /** The open children, e.g. the QPs and MRs of a PD. */
    public final List<AbstractResource> openChildren() {
        return new ArrayList<>(children);
    }

    /**
     * Destroys the native object. While objects made from this one are open, refused with
     * {@link IllegalStateException}, or, for a parent that {@linkplain #closesChildren() closes its
     * children}, preceded by closing them. Harmless when already closed.
     */
    @Override
    public final void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (!children.isEmpty() && !closesChildren()) {
                throw stillInUse();
            }
            beforeClose();
            closing = true;
        }
        try {
            closeChildren();
            synchronized (this) {
                if (closed) {
                    return;
                }
                if (!children.isEmpty()) {
                    throw stillInUse();
                }
                destroy();
                closed = true;
                leak.closed = true;
            }
        } finally {
            closing = false;
        }
        unlink();
    }

    /** Closes the open children of a cascading parent; throws the first failure once all were tried. */
    private void closeChildren() {
        closeAll(openChildren());
    }

    /**
     * Closes each of {@code resources}, in order, even when one fails; then throws the first failure (the
     * others added to it as suppressed).
     */
    protected static void closeAll(List<? extends AbstractResource> resources) {
        RuntimeException first = null;
        for (AbstractResource c : resources) {
            try {
                c.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private IllegalStateException stillInUse() {
        return new IllegalStateException("cannot close " + this + ": still in use by " + children
                + ". Close those first (verbs objects close in reverse order of creation)");
    }

    /**
     * Undoes the constructor's registration when the native object could not be created, so that a failed
     * create leaves neither a child entry in the parent nor a leak report.
     */
    protected final void abandon() {
        closed = true;
        leak.closed = true;
        unlink();
    }

    /** Ends the leak tracking and removes this object from its parent's and its dependencies' children. */
    private void unlink() {
        cleanable.clean();
        if (parent != null) {
            parent.children.remove(this);
        }
        for (AbstractResource d : dependencies) {
            d.children.remove(this);
        }
    }

    @Override
    public String toString() {
        return kind() + (leak.description != null ? "[" + leak.description + "]" : "");
    }

    private static final class LeakState implements Runnable {
        final Throwable site;
        volatile String description;
        volatile boolean closed;

        LeakState(Throwable site) {
            this.site = site;
        }

        @Override
        public void run() {
            if (!closed) {
                LEAKS.incrementAndGet();
                if (site != null) {
                    LOG.warn("LEAK: {} was not closed before it became unreachable; its native resources are lost",
                            description, site);
                } else {
                    LOG.warn("LEAK: {} was not closed before it became unreachable; its native resources are lost "
                            + "(run with -Dverbs4j.leakSites=true to see where it was created)", description);
                }
            }
        }
    }
}
