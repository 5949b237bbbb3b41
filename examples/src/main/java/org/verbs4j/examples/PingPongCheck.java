package org.verbs4j.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.verbs4j.api.MemoryRegion;

/**
 * The {@code -c} data check of {@link RcPingPong} and {@link UdPingPong}, as {@code ibv_rc_pingpong} and
 * {@code ibv_ud_pingpong} do it: the client writes a pattern byte at the start of every page of the message,
 * the server checks it after the last exchange; verbs4j's server also checks every other byte.
 */
final class PingPongCheck {
    /** {@code -c}: what the client writes at the start of every page ({@code i / page_size % sizeof(char)}). */
    static final byte PATTERN_BYTE = 0;
    /** What the C tools fill their buffer with before anything arrives ({@code memset(buf, 0x7b, ...)}). */
    static final byte FILL_BYTE = 0x7b;

    private PingPongCheck() {
    }

    /** {@code -c} on the client: the byte at every page start becomes {@link #PATTERN_BYTE}. */
    static void writePattern(MemoryRegion mr, int messageOffset, int size) {
        int page = pageSize();
        for (int i = 0; i < size; i += page) {
            mr.putBytes(messageOffset + (long) i, new byte[] {PATTERN_BYTE});
        }
    }

    /**
     * {@code -c} on the server, after the loop: the C check (the byte at every page start must be the
     * client's pattern, else "invalid data in page N" on stdout), then verbs4j's own check of every other
     * byte of the message, which must still be the {@code 0x7b} fill both the C and the Java client send.
     */
    static boolean validate(MemoryRegion mr, int messageOffset, int size, PrintStream out, PrintStream err) {
        int page = pageSize();
        byte[] data = mr.getBytes(messageOffset, size);
        boolean ok = true;
        for (int i = 0; i < size; i += page) {
            if (data[i] != PATTERN_BYTE) {
                out.println("invalid data in page " + i / page);
                ok = false;
            }
        }
        int bad = 0;
        for (int i = 0; i < size; i++) {
            byte expected = i % page == 0 ? PATTERN_BYTE : FILL_BYTE;
            if (data[i] != expected && i % page != 0) {
                if (bad++ < 5) {
                    err.printf("verbs4j: -c: byte %d is 0x%02x, expected 0x%02x%n", i, data[i] & 0xff, expected & 0xff);
                }
                ok = false;
            }
        }
        if (bad > 5) {
            err.println("verbs4j: -c: " + bad + " bytes differ");
        }
        return ok;
    }

    /** {@code sysconf(_SC_PAGESIZE)}, from the ELF auxiliary vector (AT_PAGESZ); 4096 when unreadable. */
    static int pageSize() {
        try (InputStream in = Files.newInputStream(Path.of("/proc/self/auxv"))) {
            ByteBuffer b = ByteBuffer.wrap(in.readAllBytes()).order(ByteOrder.nativeOrder());
            while (b.remaining() >= 16) {
                long type = b.getLong();
                long value = b.getLong();
                if (type == 6) { // AT_PAGESZ
                    return (int) value;
                }
                if (type == 0) {
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        return 4096;
    }
}
