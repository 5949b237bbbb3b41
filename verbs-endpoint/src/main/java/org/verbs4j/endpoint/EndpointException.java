package org.verbs4j.endpoint;

/**
 * An endpoint could not be set up or used: the connection failed or timed out, the peer is not a verbs4j
 * endpoint, or a work request of the endpoint's own (a credit update) failed. The message says what to check;
 * the cause carries the verb and errno when a verb failed.
 */
public class EndpointException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An endpoint failure without a cause.
     *
     * @param message what failed and what to check
     */
    public EndpointException(String message) {
        super(message);
    }

    /**
     * An endpoint failure caused by another, typically a {@link org.verbs4j.api.VerbsException} with the verb
     * and errno.
     *
     * @param message what failed and what to check
     * @param cause   the failure underneath
     */
    public EndpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
