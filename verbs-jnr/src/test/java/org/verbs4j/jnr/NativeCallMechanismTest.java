package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Errno;
import org.verbs4j.api.internal.RawMemory;

/**
 * The call mechanism against libc, no device needed: control-path calls with exact C types and errno, and the
 * hot path's calls through a function pointer. The build runs this class on JDK 17 (jffi) and on JDK 22+
 * ({@code java.lang.foreign}); the verbs themselves are the lab's.
 */
class NativeCallMechanismTest {
    private static final NativeLibrary LIBC = NativeLibrary.libc();

    @Test
    void usesTheMechanismOfThisJdk() {
        String expected = Runtime.version().feature() >= 22 ? "java.lang.foreign" : "jffi";
        assertEquals(expected, NativeLibrary.mechanism());
    }

    @Test
    void callsWithExactTypes() {
        NativeFunction strlen = NativeFunction.of(LIBC, "strlen", CType.UINT64, CType.POINTER);
        NativeFunction getpid = NativeFunction.of(LIBC, "getpid", CType.SINT32);
        long s = cString("verbs4j");
        try {
            assertEquals(7, strlen.call(s));
        } finally {
            RawMemory.free(s);
        }
        assertEquals(ProcessHandle.current().pid(), getpid.call0());
        // a negative int comes back as a negative number once narrowed, on both paths
        NativeFunction abs = NativeFunction.of(LIBC, "abs", CType.SINT32, CType.SINT32);
        assertEquals(5, (int) abs.call(-5));
        assertEquals(5, (int) abs.call(0xFFFF_FFFF_0000_0005L), "only the low 32 bits of an int argument count");
    }

    @Test
    void keepsTheErrnoOfAFailingCall() {
        NativeFunction close = NativeFunction.of(LIBC, "close", CType.SINT32, CType.SINT32);
        assertEquals(-1, (int) close.call(-1));
        assertEquals(Errno.EBADF, NativeFunction.errno());
        NativeFunction dup = NativeFunction.of(LIBC, "dup", CType.SINT32, CType.SINT32);
        assertEquals(-1, (int) dup.call(1 << 30));
        assertEquals(Errno.EBADF, NativeFunction.errno(), "each call leaves its own errno");
    }

    @Test
    void reportsAMissingSymbolWhenCalled() {
        NativeFunction none = NativeFunction.of(LIBC, "verbs4j_no_such_function", CType.SINT32);
        assertFalse(none.exists());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, none::call0);
        assertTrue(e.getMessage().contains("verbs4j_no_such_function"), e.getMessage());
    }

    @Test
    void callsThroughAFunctionPointer() {
        // memcmp has post_send's shape: int f(void *, void *, void *-sized)
        NativeCalls.Target memcmp = NativeCalls.target(LIBC.symbol("memcmp"));
        assertFalse(memcmp.isNull());
        assertTrue(NativeCalls.target(0).isNull());
        long a = cString("abcd");
        long b = cString("abce");
        try {
            assertEquals(0, NativeCalls.post(memcmp, a, b, 3));
            assertTrue(NativeCalls.post(memcmp, a, b, 4) < 0);
            // pipe2 has req_notify_cq's shape: int f(void *, int)
            NativeCalls.Target pipe2 = NativeCalls.target(LIBC.symbol("pipe2"));
            long fds = RawMemory.allocate(8);
            try {
                assertEquals(0, NativeCalls.reqNotifyCq(pipe2, fds, LibcLayout.O_NONBLOCK));
                int r = RawMemory.getInt(fds);
                int w = RawMemory.getInt(fds + 4);
                assertTrue(LibC.isNonBlocking(r) && LibC.isNonBlocking(w), "the int flags argument arrived");
                LibC.close(r);
                LibC.close(w);
            } finally {
                RawMemory.free(fds);
            }
        } finally {
            RawMemory.free(a);
            RawMemory.free(b);
        }
    }

    private static long cString(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        long p = RawMemory.allocate(b.length + 1);
        RawMemory.copyFromArray(b, 0, b.length, p);
        return p;
    }
}
