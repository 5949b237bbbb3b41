package org.verbs4j.lab;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.function.Executable;
import org.verbs4j.api.spi.AbstractResource;

/** Assertions on closed objects, shared by the close-safety tests of every module. */
public final class ClosedChecks {
    private ClosedChecks() {
    }

    /** {@code call} on the closed {@code resource} throws an IllegalStateException that says it is closed. */
    public static void closedFor(Object resource, Executable call) {
        assertTrue(resource instanceof AbstractResource r ? r.isClosed() : true, resource + " isClosed()");
        IllegalStateException e = assertThrows(IllegalStateException.class, call, "a call on " + resource
                + " after close");
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    /** Closing an object that others still use is refused with a "cannot close" message, which is returned. */
    public static IllegalStateException refused(Executable close, String what) {
        IllegalStateException e = assertThrows(IllegalStateException.class, close, what + " must be refused");
        assertTrue(e.getMessage().startsWith("cannot close"), e.getMessage());
        return e;
    }
}
