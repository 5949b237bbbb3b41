package org.verbs4j.examples;

import java.io.PrintStream;
import org.verbs4j.api.LinkLayer;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.QpEndpoint;
import org.verbs4j.api.QpType;
import org.verbs4j.api.VerbsException;

/**
 * rdma-core's {@code ibv_rc_pingpong} in Java, wire-compatible with it in both roles: same options, same TCP
 * exchange, same queue pair attributes, same output, same exit status. Usage, as the C tool:
 *
 * <pre>
 * examples/bin/rc-pingpong [options]          # server: wait for a client
 * examples/bin/rc-pingpong [options] HOST     # client: connect to the server on HOST
 *   -p PORT (18515) -d DEVICE -i IB_PORT (1) -s SIZE (4096) -m MTU (1024) -r RX_DEPTH (500)
 *   -n ITERS (1000) -l SL (0) -e (sleep on CQ events) -g GID_INDEX -c (validate received buffer)
 * </pre>
 *
 * On RoCE give {@code -g} the index of a RoCE GID (e.g. {@code -g 1} for the IPv4-mapped GID of Soft-RoCE in
 * the lab): without a GID the QP has no GRH and RoCE cannot route it, exactly as with the C tool.
 *
 * <p>The connection: RC QP with 1 send and {@code rx_depth} receive entries, connected by
 * {@link org.verbs4j.api.QpConnector}: INIT (P_Key index 0, no remote access), RTR (path MTU {@code -m}, capped
 * by the port's, max_dest_rd_atomic 1, the fabric's minimum RNR timer, the fabric's address vector with SL
 * {@code -l}, hop limit 1 and the GID of {@code -g}), RTS (the fabric's timeout, retry and RNR retry, which are
 * the C tool's, max_rd_atomic 1). The server connects its QP after reading the client's address, then answers.
 */
public final class RcPingPong extends PingPongSession {

    RcPingPong(PingPongOptions o, PrintStream out, PrintStream err) {
        super(o, out, err);
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the tool with {@code args}; returns its exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return launch(QpType.RC, args, out, err, o -> new RcPingPong(o, out, err));
    }

    @Override
    protected int bufferLength() {
        return size;
    }

    @Override
    protected int messageOffset() {
        return 0;
    }

    @Override
    protected int receiveLength() {
        return size;
    }

    @Override
    protected void toInit() {
        prepareConnector(0);
    }

    @Override
    protected void checkPort(PortAttributes port) {
        if (port.linkLayer() != LinkLayer.ETHERNET && port.lid() == 0) {
            throw new PingPongFailure("Couldn't get local LID");
        }
    }

    @Override
    protected String gidFailure(int index) {
        return "can't read sgid of index " + index;
    }

    @Override
    protected boolean udLocalLine() {
        return false;
    }

    /** {@code pp_connect_ctx}: RTR towards {@code remote}, then RTS. */
    @Override
    protected void connect(QpEndpoint remote, int myPsn) {
        try {
            connector.readyToReceive(remote, null);
        } catch (VerbsException | IllegalArgumentException e) {
            throw new PingPongFailure("Failed to modify QP to RTR\n(" + e.getMessage() + ")", e);
        }
        try {
            connector.readyToSend();
        } catch (VerbsException e) {
            throw new PingPongFailure("Failed to modify QP to RTS\n(" + e.getMessage() + ")", e);
        }
    }
}
