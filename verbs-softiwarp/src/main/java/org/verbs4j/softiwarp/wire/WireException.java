package org.verbs4j.softiwarp.wire;

import java.io.IOException;

/**
 * A peer's bytes were refused, or the MPA handshake failed; {@link #error()} says which way. For a reject, the
 * responder's private data is in {@link #privateData()}.
 */
public final class WireException extends IOException {
    private static final long serialVersionUID = 1L;
    private static final byte[] NONE = new byte[0];

    /** What was refused. */
    private final WireError error;
    private final transient byte[] privateData;

    /**
     * An error with a detail message.
     *
     * @param error  what was refused
     * @param detail what was seen, for the log
     */
    public WireException(WireError error, String detail) {
        this(error, detail, NONE);
    }

    /**
     * An error carrying the peer's private data (a reject).
     *
     * @param error       what was refused
     * @param detail      what was seen, for the log
     * @param privateData the peer's ULP private data, copied
     */
    public WireException(WireError error, String detail, byte[] privateData) {
        super(error + ": " + detail);
        this.error = error;
        this.privateData = privateData.clone();
    }

    /**
     * Which documented error this is.
     *
     * @return the error
     */
    public WireError error() {
        return error;
    }

    /**
     * The peer's ULP private data (a reject's), or empty.
     *
     * @return a copy of the private data
     */
    public byte[] privateData() {
        return privateData == null ? NONE : privateData.clone();
    }
}
