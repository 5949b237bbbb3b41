package org.verbs4j.softiwarp;

/**
 * A refused tagged access: {@link #error()} says why, and the message names the STag, offset and length. Made
 * without a stack trace: a hostile peer can cause many, and the data path turns each into a Terminate.
 */
public final class TaggedAccessException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient TaggedAccessError error;

    TaggedAccessException(TaggedAccessError error, int stag, long offset, long length) {
        super(error + ": STag 0x" + Integer.toHexString(stag) + ", offset 0x" + Long.toHexString(offset) + ", "
                + length + " bytes", null, false, false);
        this.error = error;
    }

    /** {@return why the access was refused} */
    public TaggedAccessError error() {
        return error;
    }
}
