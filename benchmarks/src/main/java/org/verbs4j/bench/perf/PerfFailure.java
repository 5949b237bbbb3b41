package org.verbs4j.bench.perf;

/** A verbs4j-perf run cannot go on: the message is what to print (on stderr) before exiting with 1. */
final class PerfFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PerfFailure(String message) {
        super(message);
    }

    PerfFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
