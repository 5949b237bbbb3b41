package org.verbs4j.examples;

/**
 * An rping step failed: the message (one or more lines) goes to stderr and rping exits with 255, the status
 * of the C tool's {@code return -1} from {@code main}.
 */
final class RpingFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RpingFailure(String message) {
        super(message, null, false, false);
    }
}
