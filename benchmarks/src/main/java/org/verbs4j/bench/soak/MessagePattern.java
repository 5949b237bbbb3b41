package org.verbs4j.bench.soak;

/**
 * The bytes every soak operation carries: the operation's sequence number in the first 8 bytes (checked for
 * every operation), then a pattern derived from it (written and checked byte by byte for one operation in
 * {@link #SAMPLE_EVERY}), so that a message that arrives in the wrong place, late, twice or torn is caught.
 */
final class MessagePattern {
    /** One operation in so many has its whole content written and checked. */
    static final int SAMPLE_EVERY = 64;

    private MessagePattern() {
    }

    /** Whether operation {@code seq} is one of the sample whose every byte is checked. */
    static boolean sampled(long seq) {
        return seq % SAMPLE_EVERY == 0;
    }

    /** Byte {@code i} (i ≥ 8) of the content of operation {@code seq}. */
    static byte at(long seq, int i) {
        return (byte) (seq * 31 + i * 7);
    }

    /** Writes operation {@code seq}'s content at {@code offset}: the number, and the pattern when sampled. */
    static void stamp(java.nio.ByteBuffer b, int offset, int length, long seq) {
        b.putLong(offset, seq);
        if (sampled(seq)) {
            for (int i = 8; i < length; i++) {
                b.put(offset + i, at(seq, i));
            }
        }
    }

    /**
     * Checks that {@code offset} holds operation {@code seq}'s content (the pattern only when sampled).
     *
     * @return true when the whole content was checked (a sampled operation)
     * @throws IllegalStateException naming {@code what}, the operation and the first wrong byte
     */
    static boolean check(java.nio.ByteBuffer b, int offset, int length, long seq, String what) {
        long got = b.getLong(offset);
        if (got != seq) {
            throw new IllegalStateException(what + ": operation " + seq + " holds sequence number " + got);
        }
        if (!sampled(seq)) {
            return false;
        }
        for (int i = 8; i < length; i++) {
            byte g = b.get(offset + i);
            if (g != at(seq, i)) {
                throw new IllegalStateException(what + ": operation " + seq + ", byte " + i + " of " + length + " is "
                        + g + ", expected " + at(seq, i));
            }
        }
        return true;
    }
}
