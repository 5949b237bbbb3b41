package org.verbs4j.examples;

/**
 * A pingpong step failed. The message is what the C tool prints on stderr for that failure (one or more
 * lines), sometimes followed by verbs4j's own detail; the tool prints it and exits with 1, as the C tool does.
 */
final class PingPongFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PingPongFailure(String message) {
        super(message, null, false, false);
    }

    PingPongFailure(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
