package org.verbs4j.api.cm;

/**
 * A CONNECT_REQUEST a listener received: the new id to {@link CmId#accept accept} or
 * {@link CmId#reject reject} (and to close), and what the peer sent with {@code rdma_connect}.
 *
 * @param id         the new passive-side id
 * @param parameters the peer's parameters; {@link ConnectionParameters#privateData()} is its private
 *                   data. On InfiniBand/RoCE the CM pads it with zeros to 56 bytes; on iWARP it has
 *                   the exact length sent.
 */
public record ConnectionRequest(CmId id, ConnectionParameters parameters) {

    /** {@return the peer's private data (a copy)} */
    public byte[] privateData() {
        return parameters.privateData();
    }
}
