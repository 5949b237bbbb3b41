package org.verbs4j.softiwarp;

import org.verbs4j.api.WcOpcode;

/**
 * The completion opcodes the software device writes, as the ints of its completion ring, and which of them
 * receiving makes. One place for the data path that writes them and the queue that reads them back.
 */
final class WcCodes {
    static final int SEND = WcOpcode.SEND.value();
    static final int WRITE = WcOpcode.RDMA_WRITE.value();
    static final int READ = WcOpcode.RDMA_READ.value();
    static final int COMP_SWAP = WcOpcode.COMP_SWAP.value();
    static final int FETCH_ADD = WcOpcode.FETCH_ADD.value();
    static final int LOCAL_INV = WcOpcode.LOCAL_INV.value();
    static final int RECV = WcOpcode.RECV.value();
    static final int RECV_RDMA_WITH_IMM = WcOpcode.RECV_RDMA_WITH_IMM.value();

    private WcCodes() {
    }

    /**
     * {@return whether a completion of opcode {@code op} was made by receiving} A receive (also one with
     * immediate data: every receive opcode is {@link #RECV} or above), a Read or an atomic, which complete when the
     * peer's response arrives; a Send, a Write and a local invalidation complete on transmit.
     */
    static boolean madeByReceiving(int op) {
        return op >= RECV || op == READ || op == COMP_SWAP || op == FETCH_ADD;
    }
}
