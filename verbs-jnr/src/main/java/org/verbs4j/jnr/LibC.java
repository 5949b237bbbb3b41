package org.verbs4j.jnr;

import static org.verbs4j.jnr.CType.POINTER;
import static org.verbs4j.jnr.CType.SINT32;
import static org.verbs4j.jnr.CType.SINT64;
import static org.verbs4j.jnr.CType.UINT32;
import static org.verbs4j.jnr.CType.UINT64;

import org.verbs4j.api.internal.RawMemory;

/**
 * The few libc calls verbs4j needs: waiting on a verbs file descriptor with a timeout, and an eventfd that
 * wakes a thread blocked in such a wait.
 */
final class LibC {
    /** Bytes for the two {@code struct pollfd} of {@link #awaitEither}. */
    static final int AWAIT_EITHER_BYTES = 2 * LibcLayout.POLLFD_SIZE;
    private static final short POLLIN = (short) LibcLayout.POLLIN;
    private static final NativeFunction POLL;
    private static final NativeFunction ERRNO_LOCATION;
    private static final NativeFunction EVENTFD;
    private static final NativeFunction WRITE;
    private static final NativeFunction READ;
    private static final NativeFunction CLOSE;
    private static final NativeFunction FCNTL;

    static {
        NativeLibrary libc = NativeLibrary.libc();
        POLL = NativeFunction.of(libc, "poll", SINT32, POINTER, UINT64, SINT32);
        ERRNO_LOCATION = NativeFunction.of(libc, "__errno_location", POINTER);
        EVENTFD = NativeFunction.of(libc, "eventfd", SINT32, UINT32, SINT32);
        WRITE = NativeFunction.of(libc, "write", SINT64, SINT32, POINTER, UINT64);
        READ = NativeFunction.of(libc, "read", SINT64, SINT32, POINTER, UINT64);
        CLOSE = NativeFunction.of(libc, "close", SINT32, SINT32);
        // fcntl is variadic; its third argument here is an int, passed as the first variadic one would be
        FCNTL = NativeFunction.of(libc, "fcntl", SINT32, SINT32, SINT32, SINT32);
    }

    /** A new non-blocking, close-on-exec eventfd (counter 0): {@link #signal} makes it readable. */
    static int eventFd() {
        int fd = (int) EVENTFD.call(0, LibcLayout.EFD_CLOEXEC | LibcLayout.EFD_NONBLOCK);
        if (fd < 0) {
            throw new org.verbs4j.api.VerbsException("eventfd", NativeFunction.errno(), "a wake-up descriptor",
                    "check the open-file limit (ulimit -n)");
        }
        return fd;
    }

    /** Adds 1 to the eventfd's counter, which makes it readable until closed. */
    static void signal(int eventFd) {
        long one = RawMemory.allocate(8);
        try {
            RawMemory.putLong(one, 1L);
            if (WRITE.call(eventFd, one, 8) != 8) {
                throw new org.verbs4j.api.VerbsException("write", NativeFunction.errno(), "eventfd " + eventFd);
            }
        } finally {
            RawMemory.free(one);
        }
    }

    /**
     * Adds 1 to the eventfd's counter from the caller's 8 bytes, which hold 1 (the caller wrote 1 there once and
     * never changes it, so that threads may share them): no allocation. A full counter (EAGAIN) is
     * readable already, so it counts as done.
     */
    static void signal(int eventFd, long one) {
        if (WRITE.call(eventFd, one, 8) != 8) {
            int errno = NativeFunction.errno();
            if (errno != org.verbs4j.api.Errno.EAGAIN) {
                throw new org.verbs4j.api.VerbsException("write", errno, "eventfd " + eventFd);
            }
        }
    }

    /**
     * Resets a non-blocking eventfd's counter to 0 (one read(2) into the caller's 8 bytes): it is no longer
     * readable until signalled again. {@return whether it was signalled}
     */
    static boolean drain(int eventFd, long scratch8) {
        return READ.call(eventFd, scratch8, 8) == 8;
    }

    /**
     * poll(2) for {@code POLLIN} over {@code count} {@code struct pollfd} at {@code pollfds}, whose fd fields the
     * caller filled ({@link #watchFd}); clears their {@code revents} first. Returns how many are readable, 0 on
     * time-out or EINTR. Read each with {@link #isReadable}.
     */
    static int pollReadable(long pollfds, int count, int timeoutMillis) {
        for (int i = 0; i < count; i++) {
            RawMemory.putShort(pollfds + (long) i * LibcLayout.POLLFD_SIZE + LibcLayout.PFD_REVENTS, (short) 0);
        }
        int rc = (int) POLL.call(pollfds, count, timeoutMillis);
        if (rc < 0) {
            int errno = NativeFunction.errno();
            if (errno == org.verbs4j.api.Errno.EINTR) {
                return 0;
            }
            throw new org.verbs4j.api.VerbsException("poll", errno, count + " descriptors of a completion wait set");
        }
        return rc;
    }

    /** Fills {@code struct pollfd} number {@code index} at {@code pollfds} to wait for {@code fd} to be readable. */
    static void watchFd(long pollfds, int index, int fd) {
        watch(pollfds + (long) index * LibcLayout.POLLFD_SIZE, fd);
    }

    /** {@return whether {@code struct pollfd} number {@code index} at {@code pollfds} came back readable} */
    static boolean isReadable(long pollfds, int index) {
        return readable(pollfds + (long) index * LibcLayout.POLLFD_SIZE);
    }

    /**
     * Sets {@code O_NONBLOCK} on an event descriptor that poll(2) watches before a read: the read then
     * fails with EAGAIN, instead of blocking for ever, when the event that made the descriptor readable
     * was taken away in between (the kernel drops the pending events of a CQ, QP or rdma_cm id when it is
     * destroyed), and the thread stays wakeable. ibv_get_cq_event(3), ibv_get_async_event(3) and
     * rdma_get_cm_event(3) document this use of fcntl.
     *
     * @param fd the descriptor
     * @param what what it is, for the error
     */
    static void setNonBlocking(int fd, String what) {
        int flags = (int) FCNTL.call(fd, LibcLayout.F_GETFL, 0);
        if (flags < 0 || (flags & LibcLayout.O_NONBLOCK) == 0
                && (int) FCNTL.call(fd, LibcLayout.F_SETFL, flags | LibcLayout.O_NONBLOCK) < 0) {
            throw new org.verbs4j.api.VerbsException("fcntl", NativeFunction.errno(), what + " fd " + fd,
                    "O_NONBLOCK on an event descriptor");
        }
    }

    /** {@return whether the descriptor has {@code O_NONBLOCK} set} (for tests) */
    static boolean isNonBlocking(int fd) {
        int flags = (int) FCNTL.call(fd, LibcLayout.F_GETFL, 0);
        return flags >= 0 && (flags & LibcLayout.O_NONBLOCK) != 0;
    }

    static void close(int fd) {
        CLOSE.call(fd);
    }

    /**
     * Waits, with no time limit, until {@code fd} or {@code wakeFd} is readable, with the caller's 16 bytes
     * for the two {@code struct pollfd}. Returns 1 when {@code fd} is readable, 2 when only {@code wakeFd} is,
     * 0 after EINTR.
     */
    static int awaitEither(long pollfds, int fd, int wakeFd) {
        return awaitEither(pollfds, fd, wakeFd, -1);
    }

    /** {@link #awaitEither(long, int, int)} for at most {@code timeoutMillis} (-1: no limit); 0 when it passed. */
    static int awaitEither(long pollfds, int fd, int wakeFd, int timeoutMillis) {
        long wake = pollfds + LibcLayout.POLLFD_SIZE;
        watch(pollfds, fd);
        watch(wake, wakeFd);
        int rc = (int) POLL.call(pollfds, 2, timeoutMillis);
        if (rc < 0) {
            int errno = NativeFunction.errno();
            if (errno == org.verbs4j.api.Errno.EINTR) {
                return 0;
            }
            throw new org.verbs4j.api.VerbsException("poll", errno, "fds " + fd + ", " + wakeFd);
        }
        if (readable(pollfds)) {
            return 1;
        }
        return readable(wake) ? 2 : 0;
    }

    /** Fills one {@code struct pollfd} to wait for {@code fd} to become readable. */
    private static void watch(long pollfd, int fd) {
        RawMemory.putInt(pollfd + LibcLayout.PFD_FD, fd);
        RawMemory.putShort(pollfd + LibcLayout.PFD_EVENTS, POLLIN);
        RawMemory.putShort(pollfd + LibcLayout.PFD_REVENTS, (short) 0);
    }

    private static boolean readable(long pollfd) {
        return (RawMemory.getShort(pollfd + LibcLayout.PFD_REVENTS) & POLLIN) != 0;
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
        long pfd = RawMemory.allocate(LibcLayout.POLLFD_SIZE);
        try {
            return awaitReadable(pfd, fd, timeoutMillis);
        } finally {
            RawMemory.free(pfd);
        }
    }

    /** Like {@link #awaitReadable(int, int)}, with the caller's {@code struct pollfd}: no allocation. */
    static boolean awaitReadable(long pollfd, int fd, int timeoutMillis) {
        watch(pollfd, fd);
        int rc = (int) POLL.call(pollfd, 1, timeoutMillis);
        if (rc < 0) {
            int errno = NativeFunction.errno();
            if (errno == org.verbs4j.api.Errno.EINTR) {
                return false;
            }
            throw new org.verbs4j.api.VerbsException("poll", errno, "fd " + fd);
        }
        return rc > 0 && readable(pollfd);
    }
}
