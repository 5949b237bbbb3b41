package org.verbs4j.bench.netty;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * The bytes of netty-perf's messages, and their check. Byte {@code j} of message {@code i} is a fixed pattern of
 * {@code j}, except that messages of 4 bytes or more carry {@code i} (its low 32 bits, big-endian) in their first
 * four bytes, so a lost, repeated or reordered message is seen. The receiver of a byte stream checks the samples of
 * each message (its first four bytes, its middle one and its last one) wherever the stream's pieces are cut:
 * every message's length and a sample of its bytes, not every byte.
 */
final class MessagePattern {
    final int size;
    /** Message 0: the bytes every message is copied from before its index goes in. */
    private final byte[] template;

    MessagePattern(int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("message size " + size);
        }
        this.size = size;
        this.template = new byte[size];
        for (int j = 0; j < size; j++) {
            template[j] = at(0, j);
        }
    }

    /** {@return byte {@code j} of message {@code index}} */
    byte at(long index, int j) {
        if (j < 4 && size >= 4) {
            return (byte) (index >>> (8 * (3 - j)));
        }
        return (byte) (j * 31 + 7);
    }

    /** Writes message {@code index} (all {@link #size} bytes) at {@code buf}'s writer index. */
    void fill(ByteBuf buf, long index) {
        int w = buf.writerIndex();
        buf.writeBytes(template);
        if (size >= 4) {
            buf.setInt(w, (int) index);
        }
    }

    /** Puts bytes {@code from .. from + length - 1} of message {@code index} at {@code dst}'s absolute index {@code at}. */
    void fill(ByteBuffer dst, int at, long index, int from, int length) {
        dst.put(at, template, from, length);
        for (int j = from; j < 4 && j < from + length && size >= 4; j++) {
            dst.put(at + j - from, at(index, j));
        }
    }

    /** The byte offsets of a message that a receiver checks, ascending (duplicates possible for tiny sizes). */
    int[] samples() {
        return size >= 4 ? new int[] {0, 1, 2, 3, size / 2, size - 1} : new int[] {0, size / 2, size - 1};
    }

    /**
     * The receiving side: where in the stream of messages the next byte falls, and the check of each piece.
     * Not thread-safe: one per connection, on the thread that reads it.
     */
    static final class Check {
        private final MessagePattern pattern;
        private final int[] samples;
        private final String what;
        private long position;

        Check(MessagePattern pattern, String what) {
            this.pattern = pattern;
            this.samples = pattern.samples();
            this.what = what;
        }

        /** {@return the message size} */
        int size() {
            return pattern.size;
        }

        /** {@return the bytes checked so far} */
        long position() {
            return position;
        }

        /** Starts again at message 0. */
        void reset() {
            position = 0;
        }

        /**
         * Checks the {@code length} bytes of {@code buf} from absolute index {@code at}: the next bytes of the stream.
         *
         * @throws IllegalStateException naming the message and byte that differ
         */
        void check(ByteBuffer buf, int at, int length) {
            checkRange(buf, at, length);
        }

        /**
         * {@link #check(ByteBuffer, int, int)} of a {@code ByteBuf}'s readable bytes, read with {@code getByte}: no
         * view of its memory is made, so nothing is allocated.
         */
        void check(ByteBuf buf) {
            checkRange(buf, buf.readerIndex(), buf.readableBytes());
        }

        /** The check of a {@code ByteBuffer} or a {@code ByteBuf} ({@link #byteAt}). */
        private void checkRange(Object buf, int at, int length) {
            int size = pattern.size;
            long end = position + length;
            while (position < end) {
                long index = position / size;
                int j = (int) (position - index * size);
                int n = (int) Math.min(size - j, end - position);
                int base = at + (int) (position - (end - length));
                for (int s : samples) {
                    if (s >= j && s < j + n) {
                        byte got = byteAt(buf, base + s - j);
                        byte want = pattern.at(index, s);
                        if (got != want) {
                            throw new IllegalStateException(what + ": message " + index + " of " + size + " bytes: byte "
                                    + s + " is " + (got & 0xff) + ", not " + (want & 0xff));
                        }
                    }
                }
                position += n;
            }
        }

        /** Byte {@code i} of a {@code ByteBuf} ({@code getByte}: no view of its memory is made) or a {@code ByteBuffer}. */
        private static byte byteAt(Object buf, int i) {
            return buf instanceof ByteBuf b ? b.getByte(i) : ((ByteBuffer) buf).get(i);
        }
    }
}
