/**
 * Connected RDMA endpoints: listen on or connect to an address and get a queue pair with its completion
 * queues, registered buffers and send credits, on any fabric, over rdma_cm or a TCP exchange.
 */
module org.verbs4j.endpoint {
    requires transitive org.verbs4j.api;
    requires org.slf4j;
    requires io.netty.transport;
    requires io.netty.buffer;
    requires io.netty.common;

    exports org.verbs4j.endpoint;
}
