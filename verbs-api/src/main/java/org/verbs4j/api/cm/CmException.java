package org.verbs4j.api.cm;

import org.verbs4j.api.VerbsException;

/**
 * An rdma_cm call failed, or the event it waited for did not come: the message names the verb, the
 * event and its status (or the errno), and what to check.
 */
public class CmException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** The event that came instead of the expected one; null for a failed call. */
    private final CmEventType event;
    /** The status of that event. */
    private final int status;

    /**
     * A call that failed with {@code errno}.
     *
     * @param verb the libibverbs or librdmacm call that failed, e.g. {@code ibv_post_send}
     * @param errno the errno it returned (see {@link org.verbs4j.api.Errno})
     * @param detail what was asked, for the message
     * @param hint what to check, for the message; may be null
     */
    public CmException(String verb, int errno, String detail, String hint) {
        super(verb, errno, detail, hint);
        this.event = null;
        this.status = 0;
    }

    /**
     * A wait that ended with {@code event} (null: timeout or close) and its {@code status}.
     *
     * @param verb the libibverbs or librdmacm call that failed, e.g. {@code ibv_post_send}
     * @param event the event that came (null when none came)
     * @param status its status
     * @param detail what was asked, for the message
     * @param hint what to check, for the message; may be null
     */
    public CmException(String verb, CmEventType event, int status, String detail, String hint) {
        super(verb, 0, (event == null ? "" : event.text() + ", status " + status + (detail == null ? "" : ", "))
                + (detail == null ? "" : detail), hint);
        this.event = event;
        this.status = status;
    }

    /** {@return the event that ended the wait, or {@code null} (a failed call, a timeout, a close)} */
    public CmEventType event() {
        return event;
    }

    /** {@return the event's status (0 when there is no event)} */
    public int status() {
        return status;
    }
}
