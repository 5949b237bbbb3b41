package org.verbs4j.bench.netty;

import java.nio.ByteBuffer;

/**
 * What a netty-perf server reads on one connection, whatever the transport. The stream starts with a header of two
 * big-endian longs: {@code -1, 0} asks for an echo of everything after it (the latency tests); {@code SIZE, COUNT}
 * announces {@code COUNT} messages of {@code SIZE} bytes (a throughput round), which the server checks
 * ({@link MessagePattern}) and answers with one long, the bytes it got, when it has them all; another header may
 * follow. One per connection, on the thread that reads it.
 */
final class ServerStream {
    static final int HEADER_BYTES = 16;
    static final int ACK_BYTES = 8;
    static final long ECHO = -1;

    private final String what;
    private long first;
    private long second;
    private int headerBytes;
    private boolean echo;
    private long remaining;
    private long roundBytes;
    private MessagePattern.Check check;
    private boolean ackDue;

    ServerStream(String what) {
        this.what = what;
    }

    /** Writes a header at {@code dst}'s position (relative): an echo ({@code size} {@link #ECHO}) or a round. */
    static void putHeader(ByteBuffer dst, long size, long count) {
        dst.putLong(size).putLong(count);
    }

    /** {@return true once the header asked for an echo: every byte after it goes back} */
    boolean echoing() {
        return echo;
    }

    /** {@return true when a round is complete and its answer is due; clears it} */
    boolean takeAck() {
        boolean due = ackDue;
        ackDue = false;
        return due;
    }

    /** {@return the bytes of the round just completed, for its answer} */
    long roundBytes() {
        return roundBytes;
    }

    /**
     * Reads a header's bytes and a round's messages from {@code length} bytes of {@code buf} at absolute {@code at}.
     * Stops after a header that asks for an echo, and at the end of a round (then {@link #takeAck} is true).
     *
     * @return the bytes used; the rest is the echo's or the next round's
     * @throws IllegalStateException on a bad header or a message that differs from the pattern
     */
    int feed(ByteBuffer buf, int at, int length) {
        int used = 0;
        while (headerBytes < HEADER_BYTES && used < length) {
            byte b = buf.get(at + used++);
            if (headerBytes < 8) {
                first = first << 8 | (b & 0xff);
            } else {
                second = second << 8 | (b & 0xff);
            }
            if (++headerBytes == HEADER_BYTES) {
                start();
                if (echo) {
                    return used;
                }
            }
        }
        if (headerBytes < HEADER_BYTES || echo) {
            return used;
        }
        int n = (int) Math.min(length - used, remaining);
        check.check(buf, at + used, n);
        used += n;
        remaining -= n;
        if (remaining == 0) {
            ackDue = true;
            headerBytes = 0;
            first = 0;
            second = 0;
        }
        return used;
    }

    private void start() {
        if (first == ECHO) {
            echo = true;
            return;
        }
        if (first <= 0 || first > Integer.MAX_VALUE || second <= 0 || second > Long.MAX_VALUE / first) {
            throw new IllegalStateException(what + ": a bad header (" + first + ", " + second + "): not a netty-perf client?");
        }
        if (check == null || check.size() != first) {
            check = new MessagePattern.Check(new MessagePattern((int) first), what);
        }
        check.reset();
        remaining = first * second;
        roundBytes = remaining;
    }
}
