package org.verbs4j.api;

/**
 * A post of chained work requests failed at one of them. Requests before {@link #failedIndex()} were
 * posted and will complete; that one and the ones after it were not.
 */
public class PostException extends VerbsException {
    private static final long serialVersionUID = 1L;
    /** The index of the first request not posted; -1 when unknown. */
    private final int failedIndex;

    /**
     * A post that failed.
     *
     * @param verb        {@code ibv_post_send}, {@code ibv_post_recv} or {@code ibv_post_srq_recv}
     * @param errno       the errno it returned
     * @param failedIndex the index of the first request not posted ({@code bad_wr}), -1 when the provider did not say
     * @param detail      what was posted, for the message; may be null
     */
    public PostException(String verb, int errno, int failedIndex, String detail) {
        super(verb, errno, describe(failedIndex) + (detail == null ? "" : "; " + detail));
        this.failedIndex = failedIndex;
    }

    private static String describe(int failedIndex) {
        if (failedIndex < 0) {
            return "the provider did not say which request failed: treat the whole chain as not posted";
        }
        if (failedIndex == 0) {
            return "request 0 failed; nothing was posted";
        }
        return "request " + failedIndex + " failed; requests 0.." + (failedIndex - 1) + " were posted";
    }

    /** {@return index of the first request that was not posted (-1 when the provider did not say)} */
    public int failedIndex() {
        return failedIndex;
    }
}
