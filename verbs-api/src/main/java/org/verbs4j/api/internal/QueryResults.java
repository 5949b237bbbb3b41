package org.verbs4j.api.internal;

import java.util.Objects;
import org.verbs4j.api.QpAttributes;

/**
 * For backends: sets the attributes only a query reports, which a user must not set (this package is
 * exported only to the modules that implement backends). The API classes register their setters here
 * when they are first initialised.
 */
public final class QueryResults {
    /** The setters the API classes register (their members stay out of the public API). */
    public interface Setters {
        /**
         * Sets {@code ibv_qp_attr.sq_draining} of a query result.
         *
         * @param attributes the query result to mark
         * @param draining whether the send queue is draining
         */
        void sqDraining(QpAttributes attributes, boolean draining);
    }

    private static volatile Setters setters;

    private QueryResults() {
    }

    /**
     * Called once by {@link QpAttributes}'s static initialiser.
     *
     * @param s the setters
     */
    public static void register(Setters s) {
        if (setters != null) {
            throw new IllegalStateException("query-result setters are registered already");
        }
        setters = Objects.requireNonNull(s);
    }

    /**
     * Marks a query result as reporting a draining send queue ({@code IBV_QPS_SQD} with drain under way).
     *
     * @param attributes the query result to mark
     * @param draining whether the send queue is draining
     * @return {@code attributes}
     */
    public static QpAttributes sqDraining(QpAttributes attributes, boolean draining) {
        // the instance exists, so QpAttributes is initialised and has registered
        setters.sqDraining(attributes, draining);
        return attributes;
    }
}
