package org.verbs4j.examples;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@link Loopback} example's verdict: every check is counted; a step's line is "ok" when all its checks
 * passed, else "FAIL" with what failed, and one failed check makes the exit status 1.
 */
final class LoopbackChecks {
    private int checks;
    private int failures;
    /** What failed in the current step, printed with its line. */
    private final List<String> failed = new ArrayList<>();

    /** Counts a check; a failed one is reported with the step's line and makes the exit status 1. */
    void check(boolean passed, String what) {
        checks++;
        if (!passed) {
            failures++;
            failed.add(what);
        }
    }

    /** Prints one step: "ok" when all its checks passed, else "FAIL" and what failed. */
    void report(String step) {
        System.out.println((failed.isEmpty() ? "ok    " : "FAIL  ") + step);
        for (String f : failed) {
            System.out.println("      " + f);
        }
        failed.clear();
    }

    int checks() {
        return checks;
    }

    int failures() {
        return failures;
    }

    /** Ends the run: the QPs cannot go on (a failed completion, a timeout, a missing GID). */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }
}
