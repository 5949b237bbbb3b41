package org.verbs4j.bench.netty;

/** netty-perf's tests, in the order they run. */
enum Test {
    /** Ping-pong round trips of each size over the three transports. */
    LATENCY,
    /** A one-way stream of each size over the three transports. */
    THROUGHPUT,
    /** gRPC unary calls over {@code RdmaChannel} and {@code NioSocketChannel}. */
    GRPC,
    /** Bytes allocated per message on the Netty-over-verbs4j ping-pong (and Netty NIO's, beside it). */
    ALLOC
}
