package org.verbs4j.bench.perf;

import java.util.Locale;

/** The six perftest tests verbs4j-perf runs: {@code ib_send_lat} ... {@code ib_read_bw}. */
public enum PerfTest {
    SEND_LAT,
    WRITE_LAT,
    READ_LAT,
    SEND_BW,
    WRITE_BW,
    READ_BW;

    /** What one operation of the test is. */
    public enum Verb {
        SEND("Send"),
        WRITE("RDMA_Write"),
        READ("RDMA_Read");

        /** perftest's name of the verb in the test title ({@code testsStr[]}). */
        final String title;

        Verb(String title) {
            this.title = title;
        }
    }

    /** The verb and the kind are in the name: {@code SEND_LAT} is the latency test of SEND. */
    final Verb verb = Verb.valueOf(name().substring(0, name().indexOf('_')));
    final boolean bandwidth = name().endsWith("_BW");

    /** {@code send_lat}, ... as given on the command line. */
    public String command() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The C tool of the same test: {@code ib_send_lat}, ... */
    public String cTool() {
        return "ib_" + command();
    }

    /** The title line of the header: {@code Send Latency Test}, {@code RDMA_Write BW Test}. */
    public String title() {
        return verb.title + (bandwidth ? " BW " : " Latency ") + "Test";
    }

    public boolean isBandwidth() {
        return bandwidth;
    }

    public Verb verb() {
        return verb;
    }

    /**
     * One-way latency is the round trip halved for the ping-pong tests; an RDMA READ's round trip is its
     * latency (perftest's {@code rtt_factor}).
     */
    int rttFactor() {
        return verb == Verb.READ ? 1 : 2;
    }

    /**
     * How many times perftest's main exchanges the keys before it connects the queue pair (two in the RDMA
     * latency tests, one in the others); two more handshakes follow the connection in every test.
     */
    int keyHandshakes() {
        return this == WRITE_LAT || this == READ_LAT ? 2 : 1;
    }

    /** True when the test synchronises both sides before each size's measured run (the send tests). */
    boolean syncsEachSize() {
        return verb == Verb.SEND;
    }

    /**
     * True when perftest's main ends with {@code ctx_close_connection} (a last handshake and "done"); its
     * write_lat just exits.
     */
    boolean closesConnection() {
        return this != WRITE_LAT;
    }

    /** The test named {@code command} ({@code send_lat}, {@code ib_send_lat}), or {@code null}. */
    public static PerfTest of(String command) {
        String c = command.startsWith("ib_") ? command.substring(3) : command;
        for (PerfTest t : values()) {
            if (t.command().equals(c)) {
                return t;
            }
        }
        return null;
    }
}
