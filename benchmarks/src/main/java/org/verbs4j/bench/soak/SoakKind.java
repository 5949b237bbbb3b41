package org.verbs4j.bench.soak;

import java.util.LinkedHashMap;
import java.util.Map;

/** What one phase of the soak does; {@code -k} names them. */
enum SoakKind {
    /** Sends through an endpoint pair (credits, receive slots). */
    EP_SEND("ep-send", true),
    /** RDMA writes through an endpoint pair, into the peer's RDMA region. */
    EP_WRITE("ep-write", true),
    /** RDMA reads through an endpoint pair, from the peer's RDMA region. */
    EP_READ("ep-read", true),
    /** Sends on two raw RC queue pairs. */
    RAW_SEND("raw-send", true),
    /** RDMA writes on two raw RC queue pairs. */
    RAW_WRITE("raw-write", true),
    /** RDMA reads on two raw RC queue pairs. */
    RAW_READ("raw-read", true),
    /** Endpoint connect, one message each way, close: through rdma_cm, again and again. */
    CYCLES("cycles", false);

    /** The name on the command line and in the CSV. */
    final String id;
    /** True for the data-path kinds (counted in operations); false for the connect/disconnect cycles. */
    final boolean operations;

    SoakKind(String id, boolean operations) {
        this.id = id;
        this.operations = operations;
    }

    /** The kinds by command-line name, in run order. */
    static Map<String, SoakKind> byId() {
        Map<String, SoakKind> m = new LinkedHashMap<>();
        for (SoakKind k : values()) {
            m.put(k.id, k);
        }
        return m;
    }

    /** Whether the phase runs on raw queue pairs rather than endpoints. */
    boolean raw() {
        return this == RAW_SEND || this == RAW_WRITE || this == RAW_READ;
    }
}
