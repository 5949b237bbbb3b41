package org.verbs4j.jnr;

/**
 * Offsets, sizes and values of the libc structs verbs4j writes ({@code <poll.h>}, {@code <netinet/in.h>},
 * {@code <sys/eventfd.h>}, {@code <fcntl.h>}; glibc, x86_64), main and test code alike. Every value here is checked against the
 * installed headers by {@code LayoutIT}, which compiles an offsetof probe in the lab.
 */
final class LibcLayout {
    private LibcLayout() {
    }

    static final int POLLIN = 1;
    static final int EFD_CLOEXEC = 0x80000;
    static final int EFD_NONBLOCK = 0x800;
    static final int O_NONBLOCK = 0x800;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;

    // struct pollfd
    static final int POLLFD_SIZE = 8;
    static final int PFD_FD = 0;
    static final int PFD_EVENTS = 4;
    static final int PFD_REVENTS = 6;

    // struct sockaddr_in
    static final int SOCKADDR_IN_SIZE = 16;
    static final int SIN_FAMILY = 0;
    static final int SIN_PORT = 2;
    static final int SIN_ADDR = 4;

    // struct sockaddr_in6
    static final int SOCKADDR_IN6_SIZE = 28;
    static final int SIN6_FAMILY = 0;
    static final int SIN6_PORT = 2;
    static final int SIN6_FLOWINFO = 4;
    static final int SIN6_ADDR = 8;
    static final int SIN6_SCOPE_ID = 24;
}
