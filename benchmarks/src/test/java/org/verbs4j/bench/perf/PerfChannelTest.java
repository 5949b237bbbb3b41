package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.verbs4j.lab.TestPorts;

/** The TCP exchange's server on a port another program holds: the failure says so, as its own kind. */
class PerfChannelTest {

    @Test
    void aServerOnATakenPortFailsAsPortTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(TestPorts.next()));
            int port = taken.getLocalPort();
            PerfChannel.PortTakenException e = assertThrows(PerfChannel.PortTakenException.class,
                    () -> PerfChannel.TcpLink.serve(port, null));
            assertTrue(e.getMessage().startsWith("Couldn't listen to port " + port + " (")
                    && e.getMessage().endsWith("Choose another with -p"), e.getMessage());
        }
    }
}
