/**
 * A Netty 4.2 transport over verbs4j endpoints: {@link org.verbs4j.netty.RdmaIoHandler} drives the connections of
 * a {@code MultiThreadIoEventLoopGroup}, {@link org.verbs4j.netty.RdmaChannel} and
 * {@link org.verbs4j.netty.RdmaServerChannel} are the channels.
 */
module org.verbs4j.netty {
    requires transitive org.verbs4j.endpoint;
    requires transitive io.netty.transport;
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires org.slf4j;

    exports org.verbs4j.netty;
}
