package org.verbs4j.examples;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.endpoint.EndpointOptions;
import org.verbs4j.endpoint.EndpointServer;
import org.verbs4j.endpoint.Endpoints;
import org.verbs4j.endpoint.RdmaEndpoint;

/** Two connected endpoints in one JVM, an RDMA WRITE and a send, both checked: getting-started IP [PORT]. */
public final class GettingStarted {
    public static void main(String[] args) {
        boolean help = args.length > 0 && (args[0].equals("-h") || args[0].equals("--help"));
        if (help || args.length == 0 || args.length > 2 || (args.length == 2 && !args[1].matches("[0-9]{1,5}"))) {
            (help ? System.out : System.err).println("usage: getting-started IP [PORT]   (IP: the address of "
                    + "an RDMA device's net device; PORT: 7471)");
            System.exit(help ? 0 : 2);
        }
        try {
            run(new InetSocketAddress(args[0], args.length > 1 ? Integer.parseInt(args[1]) : 7471));
        } catch (Exception e) {                                       // a VerbsException says what to check
            System.err.println("getting-started: " + e.getMessage());
            System.exit(1);
        }
    }

    static void run(InetSocketAddress at) throws Exception {
        EndpointOptions options = EndpointOptions.defaults().messageSize(64).rdmaRegionSize(4096);
        byte[] block = "written by RDMA WRITE".getBytes(StandardCharsets.US_ASCII);
        byte[] hello = "hello by SEND".getBytes(StandardCharsets.US_ASCII);
        try (EndpointServer server = Endpoints.listen(at, options)) {         // rdma_cm picks the device of the IP
            var accepted = CompletableFuture.supplyAsync(() -> server.accept(Duration.ofSeconds(30)));
            try (RdmaEndpoint client = Endpoints.connect(at, options);
                 RdmaEndpoint peer = accepted.get();
                 WorkCompletions wc = WorkCompletions.allocate(1)) {
                System.out.println("connected on " + client.device().name() + ", fabric " + client.fabric());
                client.rdmaRegion().put(0, block);                    // into our registered RDMA region ...
                client.write(0, block.length, 0, 1);                  // ... and from there to the peer's region
                client.sendSlot(0).put(hello);
                client.send(0, hello.length);                         // RC keeps order: after the write
                await(() -> client.pollSend(wc), wc, "RDMA WRITE");
                await(() -> client.pollSend(wc), wc, "SEND");
                await(() -> peer.pollReceive(wc), wc, "receive");     // the send arrived, so the write had too
                byte[] got = new byte[wc.byteLength(0)];
                peer.message(wc, 0).get(got);
                byte[] written = new byte[block.length];
                peer.rdmaRegion().get(0, written);
                check("RDMA WRITE", block, written);
                check("SEND", hello, got);
            }
        }
    }

    static void await(IntSupplier poll, WorkCompletions wc, String what) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (poll.getAsInt() == 0) {
            if (System.nanoTime() > deadline) throw new IllegalStateException(what + ": no completion in 10 s");
        }
        if (wc.status(0) != WcStatus.SUCCESS) throw new IllegalStateException(what + ": " + wc.toString(0));
    }

    static void check(String what, byte[] expected, byte[] got) {
        String text = new String(got, StandardCharsets.US_ASCII);
        if (!Arrays.equals(expected, got)) throw new IllegalStateException(what + ": got \"" + text + "\"");
        System.out.println(what + ": " + got.length + " bytes arrived and match \"" + text + "\"");
    }
}
