package org.verbs4j.jnr;

import static com.kenai.jffi.Type.POINTER;
import static com.kenai.jffi.Type.SINT32;
import static com.kenai.jffi.Type.UINT64;

import com.kenai.jffi.Library;
import org.verbs4j.api.internal.RawMemory;

/** The few libc calls verbs4j needs: waiting on a verbs file descriptor with a timeout. */
final class LibC {
    private static final short POLLIN = 1;
    private static final NativeFunction POLL;
    private static final NativeFunction ERRNO_LOCATION;

    static {
        Library libc = Library.getCachedInstance("libc.so.6", Library.LAZY | Library.GLOBAL);
        POLL = NativeFunction.of(libc, "poll", SINT32, POINTER, UINT64, SINT32);
        ERRNO_LOCATION = NativeFunction.of(libc, "__errno_location", POINTER);
    }

    /**
     * This thread's C errno as it is now. Used right after a fast-path call (which does not save errno)
     * failed with -1: nothing in between touches errno, so it still holds the provider's reason.
     */
    static int currentErrno() {
        long p = ERRNO_LOCATION.call0();
        return p == 0 ? 0 : RawMemory.getInt(p);
    }

    private LibC() {
    }

    /**
     * Waits until {@code fd} is readable or {@code timeoutMillis} passes. Returns true when readable.
     * EINTR counts as not readable yet.
     */
    static boolean awaitReadable(int fd, int timeoutMillis) {
        long pfd = RawMemory.allocate(8);
        try {
            return awaitReadable(pfd, fd, timeoutMillis);
        } finally {
            RawMemory.free(pfd);
        }
    }

    /** Like {@link #awaitReadable(int, int)}, with the caller's 8 bytes for the {@code struct pollfd}: no allocation. */
    static boolean awaitReadable(long pollfd, int fd, int timeoutMillis) {
        // struct pollfd { int fd; short events; short revents; }
        RawMemory.putInt(pollfd, fd);
        RawMemory.putShort(pollfd + 4, POLLIN);
        RawMemory.putShort(pollfd + 6, (short) 0);
        int rc = (int) POLL.call(pollfd, 1, timeoutMillis);
        if (rc < 0) {
            int errno = NativeFunction.errno();
            if (errno == 4) {
                return false;
            }
            throw new org.verbs4j.api.VerbsException("poll", errno, "fd " + fd);
        }
        return rc > 0 && (RawMemory.getShort(pollfd + 6) & POLLIN) != 0;
    }
}
