package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Assertions the tests of native constants share. */
final class NativeConstants {
    private NativeConstants() {
    }

    /** Flag {@code i} of {@code flags} is bit {@code i} ({@code 1 << i}), as the C header numbers them. */
    static void assertBitsInOrder(String what, int... flags) {
        for (int i = 0; i < flags.length; i++) {
            assertEquals(1 << i, flags[i], what + " bit " + i);
        }
    }
}
