/**
 * Connected RDMA endpoints: {@link org.verbs4j.endpoint.Endpoints#listen} or
 * {@link org.verbs4j.endpoint.Endpoints#connect} an IP address and get an {@link org.verbs4j.endpoint.RdmaEndpoint},
 * a reliable-connected queue pair with its completion queues, registered message slots, an optional RDMA region
 * and send credits, the same way on InfiniBand, RoCE and iWARP, connected over rdma_cm or a TCP exchange
 * ({@link org.verbs4j.endpoint.ConnectionMode}).
 *
 * <h2>Data path</h2>
 * <ul>
 * <li>{@link RdmaEndpoint#send} / {@link RdmaEndpoint#sendWithImmediate}: the first {@code length} bytes of send
 * slot {@code slot} ({@link RdmaEndpoint#sendSlot}) become one message; the work request id of its completion is
 * the slot.</li>
 * <li>{@link RdmaEndpoint#pollReceive}: receive completions; the work request id is the receive slot,
 * {@link RdmaEndpoint#message} its bytes, {@link org.verbs4j.api.WorkCompletions#immData} its immediate data;
 * {@link RdmaEndpoint#repostReceive} gives the slot back.</li>
 * <li>{@link RdmaEndpoint#write} / {@link RdmaEndpoint#read} / {@link RdmaEndpoint#writeWithImmediate}: RDMA WRITE
 * from / READ into this side's {@link RdmaEndpoint#rdmaRegion}, at an offset of the peer's
 * {@link RdmaEndpoint#remoteRegion}; the work request id is the caller's.</li>
 * <li>{@link RdmaEndpoint#pollSend}: completions of sends, writes and reads, the endpoint's own credit updates
 * taken out.</li>
 * <li>{@link RdmaEndpoint#queuePair}: requests of your own (RDMA with your scatter lists, atomics), through the
 * endpoint's accounting ({@link EndpointQueuePair}).</li>
 * </ul>
 *
 * <h2>Immediate data</h2>
 * {@link RdmaEndpoint#sendWithImmediate} and {@link RdmaEndpoint#writeWithImmediate} carry 32 bits besides the
 * data, read with {@link org.verbs4j.api.WorkCompletions#immData}; a write with immediate takes one of the peer's
 * receives (and a credit). iWARP has none, but between two verbs4j peers on the software iWARP device (they negotiate
 * RFC 7306): elsewhere on iWARP both throw {@link UnsupportedOperationException} before posting
 * ({@link RdmaEndpoint#supportsImmediateData}).
 *
 * <h2>Send credits</h2>
 * With {@link EndpointOptions#credits} (the default) each side RDMA-writes its running count of posted receives
 * into the peer's credit word after every {@link RdmaEndpoint#repostReceive}, and {@link RdmaEndpoint#send} sends
 * only while the peer has a free receive: no send meets a missing receive (on iWARP that breaks the connection, on
 * InfiniBand and RoCE it costs an RNR retry). {@link RdmaEndpoint#send} spins for a credit up to the endpoint's
 * timeout, or until the peer disconnects; {@link RdmaEndpoint#trySend} returns false at once.
 *
 * <h2>Closing</h2>
 * {@link RdmaEndpoint#close} disconnects, then frees everything the endpoint made, in dependency order. It may
 * run on any thread: a call in progress on another thread ends first (a wait for a credit with "is closed"), and
 * anything used after close throws {@link IllegalStateException}; a slot view kept after close is plain Java
 * memory.
 */
package org.verbs4j.endpoint;
