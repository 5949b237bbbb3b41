package org.verbs4j.api.cm;

import org.verbs4j.api.VerbsException;

/**
 * An rdma_cm call failed, or the event it waited for did not come: the message names the verb, the
 * event and its status (or the errno), and what to check.
 */
public class CmException extends VerbsException {
    private static final long serialVersionUID = 1L;

    private final CmEventType event;
    private final int status;

    /** A call that failed with {@code errno}. */
    public CmException(String verb, int errno, String detail, String hint) {
        super(verb, errno, detail, hint);
        this.event = null;
        this.status = 0;
    }

    /** A wait that ended with {@code event} (null: timeout or close) and its {@code status}. */
    public CmException(String verb, CmEventType event, int status, String detail, String hint) {
        super(verb, 0, (event == null ? "" : event.text() + ", status " + status + (detail == null ? "" : ", "))
                + (detail == null ? "" : detail), hint);
        this.event = event;
        this.status = status;
    }

    /** The event that ended the wait, or {@code null} (a failed call, a timeout, a close). */
    public CmEventType event() {
        return event;
    }

    /** The event's status (0 when there is no event). */
    public int status() {
        return status;
    }
}
