package org.verbs4j.lab;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TCP ports for the tests' listeners (rdma_cm on siw binds a TCP port; the software iWARP device is a TCP listener).
 *
 * <p>Ports come from below Linux's ephemeral range (32768 and up), where a listener can collide with the local port
 * of any outgoing connection on the machine, including this JVM's own active sides. Each JVM starts at a base taken
 * from its pid, so concurrent test JVMs rarely meet, and a port something already listens on is skipped (checked by
 * binding it once, without SO_REUSEADDR, on the wildcard address).
 */
public final class TestPorts {
    private static final int LOW = 20000;
    private static final int HIGH = 32768;
    private static final AtomicInteger NEXT = new AtomicInteger((int) (ProcessHandle.current().pid() % (HIGH - LOW)));

    private TestPorts() {
    }

    /** A port no one listened on a moment ago, different from every other port this JVM has had. */
    public static int next() {
        for (int tries = 0; tries < 1000; tries++) {
            int port = LOW + Math.floorMod(NEXT.getAndIncrement(), HIGH - LOW);
            if (free(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free TCP port in " + LOW + ".." + (HIGH - 1) + " after 1000 tries");
    }

    static boolean free(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(false);
            probe.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
