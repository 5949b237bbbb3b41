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

    /**
     * {@return the address of the {@code struct sockaddr_in} / {@code sockaddr_in6} at {@code s}, or {@code null}
     * when its family is neither (an unset address is all zeros)}
     */
    static InetSocketAddress read(long s) {
        int family = RawMemory.getShort(s + LibcLayout.SIN_FAMILY) & 0xffff;
        try {
            if (family == LibcLayout.AF_INET) {
                byte[] b = new byte[4];
                for (int i = 0; i < 4; i++) {
                    b[i] = RawMemory.getByte(s + LibcLayout.SIN_ADDR + i);
                }
                return new InetSocketAddress(InetAddress.getByAddress(b),
                        Short.reverseBytes(RawMemory.getShort(s + LibcLayout.SIN_PORT)) & 0xffff);
            }
            if (family == LibcLayout.AF_INET6) {
                byte[] b = new byte[16];
                for (int i = 0; i < 16; i++) {
                    b[i] = RawMemory.getByte(s + LibcLayout.SIN6_ADDR + i);
                }
                return new InetSocketAddress(Inet6Address.getByAddress(null, b,
                        RawMemory.getInt(s + LibcLayout.SIN6_SCOPE_ID)),
                        Short.reverseBytes(RawMemory.getShort(s + LibcLayout.SIN6_PORT)) & 0xffff);
            }
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("a socket address of " + e.getMessage(), e); // the lengths are right
        }
        return null;
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
