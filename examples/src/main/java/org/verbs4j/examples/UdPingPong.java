package org.verbs4j.examples;

import java.io.PrintStream;
import org.verbs4j.api.AddressHandle;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.QpType;
import org.verbs4j.api.VerbsException;

/**
 * rdma-core's {@code ibv_ud_pingpong} in Java, wire-compatible with it in both roles: same options, same TCP
 * exchange, same queue pair attributes, same output, same exit status. Usage, as the C tool:
 *
 * <pre>
 * examples/bin/ud-pingpong [options]          # server: wait for a client
 * examples/bin/ud-pingpong [options] HOST     # client: connect to the server on HOST
 *   -p PORT (18515) -d DEVICE -i IB_PORT (1) -s SIZE (1024) -r RX_DEPTH (500) -n ITERS (1000)
 *   -l SL (0) -e (sleep on CQ events) -g GID_INDEX -c (validate received buffer)
 * </pre>
 *
 * <p>UD datagrams cannot be larger than the port's active MTU, so {@code -s} is at most that (1024 on
 * Soft-RoCE). Every receive buffer has 40 bytes in front of the message for the GRH; messages are sent from
 * offset 40 of the buffer. {@link org.verbs4j.api.QpConnector} moves the QP to INIT with Q_Key 0x11111111,
 * RTR and RTS (with the PSN) without a peer; the peer is an address handle (the fabric's address vector, hop
 * limit 1) in every send request.
 */
public final class UdPingPong extends PingPongSession {
    /** The Q_Key of both sides. */
    static final int QKEY = 0x11111111;
    /** Room for the Global Routing Header in front of every received datagram. */
    static final int GRH_BYTES = 40;

    private AddressHandle ah;

    UdPingPong(PingPongOptions o, PrintStream out, PrintStream err) {
        super(o, out, err);
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the tool with {@code args}; returns its exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return launch(QpType.UD, args, out, err, o -> new UdPingPong(o, out, err));
    }

    @Override
    protected int bufferLength() {
        return size + GRH_BYTES;
    }

    @Override
    protected int messageOffset() {
        return GRH_BYTES;
    }

    @Override
    protected int receiveLength() {
        return size + GRH_BYTES;
    }

    @Override
    protected void checkDevice() {
        PortAttributes port;
        try {
            port = ctx.queryPort(o.ibPort);
        } catch (VerbsException e) {
            throw new PingPongFailure("Unable to query port info for port " + o.ibPort + "\n(" + e.getMessage() + ")");
        }
        Mtu active = port.activeMtu();
        int mtu = active == null ? 0 : active.bytes();
        if (size > mtu) {
            throw new PingPongFailure("Requested size larger than port MTU (" + mtu + ")");
        }
    }

    @Override
    protected void toInit() {
        prepareConnector(QKEY);
    }

    @Override
    protected String gidFailure(int index) {
        return "Could not get local gid for gid index " + index;
    }

    @Override
    protected boolean udLocalLine() {
        return true;
    }

    /** {@code pp_connect_ctx} of ud_pingpong: RTR, RTS with our PSN, then the address handle of the peer. */
    @Override
    protected void connect(QpEndpoint remote, int myPsn) {
        try {
            connector.readyToReceive(null, null);
        } catch (VerbsException e) {
            throw new PingPongFailure("Failed to modify QP to RTR\n(" + e.getMessage() + ")", e);
        }
        try {
            connector.readyToSend();
        } catch (VerbsException e) {
            throw new PingPongFailure("Failed to modify QP to RTS\n(" + e.getMessage() + ")", e);
        }
        try {
            ah = connector.addressHandle(remote);
        } catch (VerbsException | IllegalArgumentException e) {
            throw new PingPongFailure("Failed to create AH\n(" + e.getMessage() + ")", e);
        }
        sendWr.at(0).ud(ah, remote.qpn(), QKEY);
    }

    @Override
    protected void closeExtra() {
        if (ah != null) {
            AddressHandle h = ah;
            ah = null;
            closeStep("Couldn't destroy AH", h);
        }
    }
}
