package org.verbs4j.bench.perf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.verbs4j.api.Access;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.Errno;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.QpInitAttributes;
import org.verbs4j.api.QpType;
import org.verbs4j.api.QueuePair;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.api.cm.ConnectionRequest;

/**
 * perftest's rdma_cm exchange ({@code -R}, {@code perftest_communication.c}: {@code rdma_client_connect},
 * {@code rdma_server_connect}, {@code rdma_write_data}, {@code rdma_read_data}): an RC connection of its own
 * through rdma_cm on port {@code -p}, with one receive of {@link PerfWire#DEST_BYTES} bytes posted at a time;
 * each message of the exchange is one SEND of exactly its size. The client connects first and sends first.
 * The test's own queue pair connects afterwards on the same port: the server keeps its listener
 * ({@link #listener()}) for that request, and the {@link ConnectionManager} ({@link #cm()}) is shared with
 * the test's {@link PerfSession}, which must be closed first.
 *
 * <p>Every wait is bounded: the connection by {@link #CONNECT_TIMEOUT} (a refused one is retried for
 * {@link PerfChannel#CONNECT_RETRY_MILLIS}), the server's wait for a client and each receive by
 * {@link PerfChannel#READ_TIMEOUT_MILLIS}; a receive that completes with an error (the peer disconnected or
 * died), a message of the wrong size, or a DISCONNECTED ends the exchange with an
 * {@link PerfChannel.ExchangeException} naming the step.
 */
final class PerfCmLink implements PerfChannel.Link {
    /** perftest's {@code SYNC_SPEC_ID}: the work request id of the exchange's sends and receives. */
    static final int SYNC_ID = 5;
    /** One rdma_cm step (address, route, connect, accept). */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final int SLOT = 64;
    /** After this long waiting for the exchange's one completion, look once a millisecond. */
    private static final long LONG_WAIT_NANOS = 10_000_000L;
    /** How long the server waits at the end for the client to disconnect first. */
    private static final long PEER_FIRST_MILLIS = 3_000;

    private final ConnectionManager cm;
    private final CmId listener;
    private CmId id;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private MemoryRegion mr;
    private QueuePair qp;
    private final SendRequests send = SendRequests.allocate(1, 1);
    private final ReceiveRequests recv = ReceiveRequests.allocate(1, 1);
    private final WorkCompletions wc = WorkCompletions.allocate(1);
    private String peer = "?";
    /** Run at each turn of a wait for the peer instead of sleeping, when set ({@link #driveWhileWaiting}). */
    private Runnable drive;

    private PerfCmLink(ConnectionManager cm, CmId listener) {
        this.cm = cm;
        this.listener = listener;
    }

    /**
     * Server: listens with rdma_cm on {@code port} (every address) and accepts the first client's exchange
     * connection; {@code device} (may be null) is the device it must arrive on. As perftest's, the exchange's
     * connection has the default type of service ({@code -T} is the test connection's).
     */
    static PerfCmLink serve(int port, String device, Runnable listening) {
        ConnectionManager cm = Rdma.connectionManager();
        PerfCmLink link = null;
        try {
            CmId l = cm.createId();
            link = new PerfCmLink(cm, l);
            try {
                l.bind(new InetSocketAddress(port));
                // two: the exchange's connection, then the test's
                l.listen(2);
            } catch (CmException e) {
                String m = "Couldn't listen with rdma_cm on port " + port + " (" + e.getMessage()
                        + "): is another server running on it? Choose another with -p";
                throw e.errno() == Errno.EADDRINUSE ? new PerfChannel.PortTakenException(m, e)
                        : new PerfChannel.ExchangeException(m, e);
            }
            if (listening != null) {
                listening.run();
            }
            ConnectionRequest req;
            try {
                req = l.awaitRequest(Duration.ofMillis(PerfChannel.READ_TIMEOUT_MILLIS));
            } catch (CmException e) {
                throw new PerfChannel.ExchangeException("no client connected with rdma_cm to port " + port + " ("
                        + e.getMessage() + ")", e);
            }
            link.id = req.id();
            link.checkDevice(device, true);
            link.peer = describe(link.id, port);
            link.createResources();
            link.postReceive();
            link.id.accept(ConnectionParameters.defaults());
            link.id.awaitEstablished(CONNECT_TIMEOUT);
            return link;
        } catch (PerfChannel.ExchangeException | PerfFailure e) {
            closeAll(link, cm);
            throw e;
        } catch (RuntimeException e) {
            closeAll(link, cm);
            throw new PerfChannel.ExchangeException("the rdma_cm exchange connection on port " + port + " failed: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Client: connects the exchange to {@code host:port} with rdma_cm, retrying as {@link CmConnectRetry} says (a
     * refused connection for {@link PerfChannel#CONNECT_RETRY_MILLIS}, the server may still be starting; an
     * unanswered one once more).
     */
    static PerfCmLink connect(String host, int port, String device) {
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new PerfFailure("unknown host " + host);
        }
        ConnectionManager cm = Rdma.connectionManager();
        PerfCmLink link = new PerfCmLink(cm, null);
        CmConnectRetry retry = new CmConnectRetry(PerfChannel.CONNECT_RETRY_MILLIS);
        try {
            while (true) {
                try {
                    link.id = cm.createId();
                    link.id.resolveAddress(new InetSocketAddress(address, port), CONNECT_TIMEOUT);
                    link.id.resolveRoute(CONNECT_TIMEOUT);
                    link.checkDevice(device, false);
                    link.peer = host + ":" + port + " (rdma_cm)";
                    link.createResources();
                    link.postReceive();
                    link.id.connect(ConnectionParameters.defaults(), CONNECT_TIMEOUT);
                    return link;
                } catch (CmException e) {
                    link.closeResources();
                    if (!retry.again(e)) {
                        throw new PerfChannel.ExchangeException("Couldn't connect with rdma_cm to " + host + ":" + port
                                + " (" + retry.describe() + "; the last: " + e.getMessage() + "): is a perftest or "
                                + "verbs4j-perf server running there with -R and the same -p? Give the server's IP "
                                + "address on the RDMA device's netdev", e);
                    }
                    PerfChannel.sleep(100);
                }
            }
        } catch (PerfChannel.ExchangeException | PerfFailure e) {
            closeAll(link, cm);
            throw e;
        } catch (RuntimeException e) {
            closeAll(link, cm);
            throw new PerfChannel.ExchangeException("the rdma_cm exchange connection to " + host + ":" + port
                    + " failed: " + e.getMessage(), e);
        }
    }

    private static String describe(CmId id, int port) {
        return "the client of rdma_cm port " + port + " on " + id.context().device().name();
    }

    private void checkDevice(String device, boolean server) {
        String on = id.context().device().name();
        if (device != null && !device.equals(on)) {
            if (server) {
                id.reject(null);
                throw new PerfFailure("the rdma_cm request arrived on " + on + ", not on -d " + device
                        + ": give the client the IP address of " + device + "'s netdev");
            }
            throw new PerfFailure("the server is reached through " + on + ", not through -d " + device
                    + ": give the IP address of a netdev of " + device);
        }
    }

    private void createResources() {
        pd = id.context().allocProtectionDomain();
        sendCq = id.context().createCompletionQueue(2);
        recvCq = id.context().createCompletionQueue(2);
        mr = pd.allocateMemory(2 * SLOT, Access.LOCAL_WRITE);
        mr.fill(0, mr.length(), (byte) 0);
        qp = id.createQueuePair(pd, new QpInitAttributes(QpType.RC, sendCq, recvCq).maxSendWr(1).maxRecvWr(1)
                .maxSendSge(1).maxRecvSge(1));
    }

    private void postReceive() {
        recv.at(0).wrId(SYNC_ID).sge(mr.address() + SLOT, PerfWire.DEST_BYTES, mr.lkey());
        qp.postReceive(recv);
    }

    /** The manager of the exchange's id, which the test's connection uses too. */
    ConnectionManager cm() {
        return cm;
    }

    /** Server: the listener, still listening on port {@code -p} for the test's connection; client: null. */
    CmId listener() {
        return listener;
    }

    /** The device the exchange runs on: the test's connection resolves to the same one. */
    org.verbs4j.api.DeviceContext context() {
        return id.context();
    }

    @Override
    public String peer() {
        return peer;
    }

    @Override
    public void send(byte[] b, String what) {
        if (b.length > PerfWire.DEST_BYTES) {
            throw new IllegalArgumentException(b.length + " bytes do not fit the peer's receive");
        }
        mr.putBytes(0, b, 0, b.length);
        send.at(0).clear().wrId(SYNC_ID).opcode(Opcode.SEND).flags(SendFlags.SIGNALED).sge(mr.address(), b.length,
                mr.lkey());
        try {
            qp.postSend(send);
        } catch (RuntimeException e) {
            throw new PerfChannel.ExchangeException("the " + what + " with " + peer + " failed: " + e.getMessage(), e);
        }
        await(sendCq, what, "send");
    }

    @Override
    public byte[] receive(int size, String what) {
        await(recvCq, what, "receive");
        int len = wc.byteLength(0);
        byte[] theirs = new byte[Math.min(len, PerfWire.DEST_BYTES)];
        mr.getBytes(SLOT, theirs, 0, theirs.length);
        if (len != size) {
            throw new PerfChannel.ExchangeException("the peer at " + peer + " sent " + len + " bytes "
                    + PerfWire.hex(theirs) + " at the " + what + ", where perftest sends " + size
                    + " (is it running the same test with the same -s/-a and -n?)");
        }
        // before our answer: the peer's next message may follow it at once, and iWARP has no RNR retry
        postReceive();
        return theirs;
    }

    /** Polls {@code cq} for the one completion of the exchange, at most {@link PerfChannel#READ_TIMEOUT_MILLIS}. */
    private void await(CompletionQueue cq, String what, String verb) {
        long start = System.nanoTime();
        long deadline = start + PerfChannel.READ_TIMEOUT_MILLIS * 1_000_000L;
        int spins = 0;
        while (cq.poll(wc, 1) == 0) {
            if (System.nanoTime() > deadline) {
                throw new PerfChannel.ExchangeException("the peer at " + peer + " sent nothing for "
                        + PerfChannel.READ_TIMEOUT_MILLIS / 1000 + " s at the " + what
                        + " (is it running the same test with the same -s/-a and -n?)");
            }
            if (id.isDisconnected() && cq.poll(wc, 1) == 0) {
                throw new PerfChannel.ExchangeException("the peer at " + peer + " disconnected at the " + what
                        + " (did it fail? see its output)");
            }
            if (drive != null) {
                drive.run();
            } else if (++spins > 1000) {
                // 100 us while the answer may come soon, then 1 ms: a bandwidth test's server waits here for the
                // whole test, and 7,000 wake-ups a second took an eighth of a CPU from the transfer it measures
                LockSupport.parkNanos(System.nanoTime() - start > LONG_WAIT_NANOS ? 1_000_000L : 100_000L);
            }
        }
        int status = wc.statusValue(0);
        if (status != 0) {
            WcStatus st = WcStatus.of(status);
            throw new PerfChannel.ExchangeException("the " + verb + " of the " + what + " with " + peer
                    + " completed with " + (st == null ? "status " + status : st.text())
                    + (st == WcStatus.WR_FLUSH_ERR ? " (the connection is gone: did the peer fail? see its output)" : ""));
        }
        if (wc.wrId(0) != SYNC_ID) {
            throw new PerfChannel.ExchangeException("the " + what + " with " + peer + ": a completion of work request "
                    + wc.wrId(0) + ", not the exchange's");
        }
    }

    /**
     * Makes every later wait for the peer run {@code r} at each turn instead of sleeping: a passive server's wait on
     * the software iWARP device, whose queue pair moves data only when a thread polls it (see
     * {@link PerfRunner#passiveDrive}).
     *
     * @param r run between two looks at the exchange; null: sleep as before
     */
    void driveWhileWaiting(Runnable r) {
        drive = r;
    }

    /**
     * After the last handshake: the server lets the client disconnect first, waiting at most
     * {@link #PEER_FIRST_MILLIS}. Its own last message may still be on the wire when its send completes, and a
     * disconnect right behind it lost the message on siw0 (the client, still waiting for it, saw only the
     * disconnect).
     */
    void finish() {
        if (id == null || listener == null) {
            return;
        }
        long until = System.nanoTime() + PEER_FIRST_MILLIS * 1_000_000L;
        while (!id.isDisconnected() && System.nanoTime() < until) {
            LockSupport.parkNanos(1_000_000L);
        }
    }

    /** Disconnects and closes everything but the manager, which {@link #close} closes after the test's resources. */
    private void closeResources() {
        if (id != null) {
            try {
                id.disconnect();
            } catch (RuntimeException ignored) {
                // not connected, or the peer went first
            }
        }
        quietly(id);
        id = null;
        qp = null;
        quietly(mr);
        mr = null;
        quietly(sendCq);
        sendCq = null;
        quietly(recvCq);
        recvCq = null;
        quietly(pd);
        pd = null;
    }

    @Override
    public void close() {
        closeResources();
        quietly(listener);
        quietly(send);
        quietly(recv);
        quietly(wc);
        quietly(cm);
    }

    private static void closeAll(PerfCmLink link, ConnectionManager cm) {
        if (link != null) {
            link.close();
        } else {
            quietly(cm);
        }
    }

    private static void quietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort at the end of a run
            }
        }
    }
}
