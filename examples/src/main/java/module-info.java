/**
 * verbs4j's runnable examples, written as a user writes them: against the exported packages of the
 * {@code org.verbs4j} module only. {@code examples/bin/*} run them on the module path.
 */
module org.verbs4j.examples {
    requires org.verbs4j;
    requires org.verbs4j.netty; // netty-echo and grpc-hello: the Netty transport
    requires io.grpc;           // grpc-hello: gRPC-java's API, stubs and Netty transport (automatic modules)
    requires io.grpc.stub;
    requires io.grpc.netty;
    requires jdk.management; // the examples report their allocation (com.sun.management)
}
