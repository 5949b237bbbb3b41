/**
 * verbs4j's runnable examples, written as a user writes them: against the exported packages of the
 * {@code org.verbs4j} module only, and for netty-echo and grpc-hello of {@code org.verbs4j.netty} (the Netty
 * transport, an artifact of its own) and gRPC-java. {@code examples/bin/*} run them on the module path.
 */
@SuppressWarnings("requires-automatic") // gRPC-java's jars have no module descriptor
module org.verbs4j.examples {
    requires org.verbs4j;
    requires org.verbs4j.netty; // netty-echo and grpc-hello: the Netty transport
    requires io.grpc;           // grpc-hello: gRPC-java's API, stubs and Netty transport (automatic modules)
    requires io.grpc.stub;
    requires io.grpc.netty;
    requires jdk.management; // the examples report their allocation (com.sun.management)
}
