package org.verbs4j.jnr;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.verbs4j.api.internal.RawMemory;

/** Java socket addresses as the {@code struct sockaddr_in} / {@code sockaddr_in6} librdmacm takes. */
final class SockAddr {
    private SockAddr() {
    }

    /**
     * A new {@code struct sockaddr_in} (IPv4) or {@code sockaddr_in6} (IPv6, with its scope id) for
     * {@code a}; the caller frees it with {@link RawMemory#free}. An unresolved address is refused.
     */
    static long allocate(InetSocketAddress a) {
        InetAddress ip = a.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("unresolved address: " + a);
        }
        byte[] b = ip.getAddress();
        short port = Short.reverseBytes((short) a.getPort()); // network byte order
        if (ip instanceof Inet4Address) {
            long s = zeroed(LibcLayout.SOCKADDR_IN_SIZE);
            RawMemory.putShort(s + LibcLayout.SIN_FAMILY, (short) LibcLayout.AF_INET);
            RawMemory.putShort(s + LibcLayout.SIN_PORT, port);
            RawMemory.copyFromArray(b, 0, b.length, s + LibcLayout.SIN_ADDR);
            return s;
        }
        long s = zeroed(LibcLayout.SOCKADDR_IN6_SIZE);
        RawMemory.putShort(s + LibcLayout.SIN6_FAMILY, (short) LibcLayout.AF_INET6);
        RawMemory.putShort(s + LibcLayout.SIN6_PORT, port);
        RawMemory.copyFromArray(b, 0, b.length, s + LibcLayout.SIN6_ADDR);
        if (ip instanceof Inet6Address v6) {
            RawMemory.putInt(s + LibcLayout.SIN6_SCOPE_ID, v6.getScopeId());
        }
        return s;
    }

    /** {@code host:port} for messages, without a reverse look-up. */
    static String text(InetSocketAddress a) {
        return (a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress()) + ":" + a.getPort();
    }

    private static long zeroed(int size) {
        long s = RawMemory.allocate(size);
        RawMemory.zero(s, size);
        return s;
    }
}
