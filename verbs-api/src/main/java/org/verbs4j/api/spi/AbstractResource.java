package org.verbs4j.api.spi;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The safety model every native object of a backend follows: a {@link CloseGuard} that every native call
 * enters (use after close throws instead of crashing the JVM, and a close racing a call on another thread
 * waits for the call to return before it frees anything), a parent that knows its children, harmless
 * double close, and a leak report through SLF4J when an object becomes unreachable without being closed.
 *
 * <p>A backend brackets every native call on the object, and every creation of an object from it, with
 * {@link #enter()} and {@link #leave()} (in a {@code finally}). {@link #close()} shuts the guard, so that
 * later calls throw {@link IllegalStateException}; {@linkplain #interruptWaits() wakes} the threads blocked
 * in a wait on the object; waits until the calls in progress have left; then closes the children of a
 * cascading parent; and only then, when no open child was made meanwhile, destroys the native object.
 * A child's close must not need its parent's guard.
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
    private final CloseGuard guard = new CloseGuard();
    /** Set once the native object is destroyed. */
    private volatile boolean closed;

    /**
     * Registers the new object for leak reports and, when {@code parent} is given, as its child.
     *
     * @param parent the object this one was made from (null for a device context)
     */
    protected AbstractResource(AbstractResource parent) {
        this.parent = parent;
        // complete before the parent knows this object: its refusal message prints its children
        this.leak = new LeakState(TRACK_SITES ? new Throwable("created here") : null);
        this.cleanable = CLEANER.register(this, leak);
        if (parent != null) {
            try {
                parent.adopt(this);
            } catch (RuntimeException e) {
                leak.closed = true;
                cleanable.clean();
                throw e;
            }
        }
    }

    /**
     * Records that this object uses {@code other} (a QP its CQs and SRQ, a CQ its channel), so that
     * {@code other} refuses to close while this one is open.
     *
     * @param other the object this one uses; null is ignored
     * @throws IllegalStateException when {@code other} is closed or being closed
     */
    protected final void dependOn(AbstractResource other) {
        if (other != null) {
            other.adopt(this);
            dependencies.add(other);
        }
    }

    /**
     * Records {@code child}, under this object's monitor, which {@link #close()} holds from its last look at
     * the children to the end of the destruction: a child is either seen by that look or refused here.
     */
    private synchronized void adopt(AbstractResource child) {
        if (closed) {
            throw closedException();
        }
        children.add(child);
    }

    /**
     * Whether {@link #close()} closes the open children first (true) or refuses while there are any
     * (false, the default). A subclass that answers true documents it on its API type.
     *
     * @return true when closing this object closes its open children first
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

    /**
     * Called once by the subclass constructor when the native object exists, for the leak report.
     *
     * @param description what the leak report names, e.g. the device and handle
     */
    protected final void describeForLeakReport(String description) {
        leak.description = description;
    }

    /** {@return the kind of object, e.g. "ProtectionDomain"} Used in messages. */
    protected abstract String kind();

    /** Destroys the native object. Called once, with no open children. Throws on failure. */
    protected abstract void destroy();

    /**
     * Called by {@link #close()} once the guard is shut, before it waits for the calls in progress: ends the
     * blocking waits on this object (a completion channel's event wait), which then throw. The default does
     * nothing.
     */
    protected void interruptWaits() {
    }

    /** Called when a close that {@linkplain #interruptWaits() interrupted the waits} failed after all. */
    protected void resumeWaits() {
    }

    /**
     * Throws {@link IllegalStateException} when closed or being closed. Cheap: one field read. For what
     * needs no native memory; a native call uses {@link #enter()} instead.
     */
    protected final void checkOpen() {
        if (guard.isShut()) {
            throw closedException();
        }
    }

    /**
     * Enters a native call on this object: throws {@link IllegalStateException} when it is closed or being
     * closed; otherwise {@link #leave()} must follow, in a {@code finally}. While any thread is between the
     * two, {@link #close()} waits, so the native object stays valid. About 2 ns for the pair, no allocation.
     */
    public final void enter() {
        if (!guard.tryEnter()) {
            throw closedException();
        }
    }

    /** Leaves the native call {@link #enter() entered}. */
    public final void leave() {
        guard.leave();
    }

    /**
     * Enters each of {@code resources} (nulls skipped), for a call that uses several native objects at once
     * (a QP's creation uses its PD, CQs and SRQ); the returned {@link Use} leaves them. When one is closed,
     * those entered already are left and its exception is thrown. Allocates: for set-up paths, not the data
     * path.
     *
     * @param resources the objects to enter; nulls are skipped
     * @return what leaves them all when closed (use it in try-with-resources)
     * @throws IllegalStateException when one of them is closed or being closed
     */
    public static Use use(AbstractResource... resources) {
        int entered = 0;
        try {
            for (AbstractResource r : resources) {
                if (r != null) {
                    r.enter();
                }
                entered++;
            }
        } catch (RuntimeException e) {
            leaveAll(resources, entered);
            throw e;
        }
        return () -> leaveAll(resources, resources.length);
    }

    private static void leaveAll(AbstractResource[] resources, int n) {
        for (int i = 0; i < n; i++) {
            if (resources[i] != null) {
                resources[i].leave();
            }
        }
    }

    /** What {@link #use} returns: closing it leaves the resources entered. */
    @FunctionalInterface
    public interface Use extends AutoCloseable {
        @Override
        void close();
    }

    /** {@return the exception for use after close} Kept out of line, so that callers stay small. */
    protected final IllegalStateException closedException() {
        return new IllegalStateException(this + (closed ? " is closed" : " is being closed")
                + "; it cannot be used after close()");
    }

    /** {@return how many objects were found unreachable without having been closed, since the JVM started} */
    public static long leakCount() {
        return LEAKS.get();
    }

    /** {@return whether {@link #close()} succeeded} True too when the object was never created ({@link #abandon()}). */
    public final boolean isClosed() {
        return closed;
    }

    /** {@return a copy of the list of open children, e.g. the QPs and MRs of a PD} */
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
        }
        guard.shut();
        interruptWaits();
        guard.awaitIdle(this);
        boolean destroyed = false;
        try {
            if (closesChildren()) {
                closeChildren();
            }
            synchronized (this) {
                if (closed) {
                    destroyed = true;
                    return;
                }
                if (!children.isEmpty() && closesChildren()) {
                    closeChildren(); // made meanwhile by a thread outside the guard (an incoming request)
                }
                if (!children.isEmpty()) {
                    throw stillInUse();
                }
                destroy();
                destroyed = true;
                closed = true;
                leak.closed = true;
            }
        } finally {
            if (!destroyed) {
                resumeWaits();
                guard.reopen();
            }
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
     *
     * @param resources the objects to close
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
        guard.shut();
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
        LeakState l = leak; // null while a subclass constructor runs
        return kind() + (l != null && l.description != null ? "[" + l.description + "]" : "");
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
