package org.verbs4j.endpoint;

/**
 * The peer's RDMA region: where {@link RdmaEndpoint#write} and {@link RdmaEndpoint#read} reach in its memory.
 * {@code length} 0 means the peer exposes none.
 *
 * @param address the region's virtual address in the peer's memory (what its RDMA requests target)
 * @param rkey    the region's remote key
 * @param length  the region's length in bytes; 0 when the peer has no RDMA region
 */
public record RemoteRegion(long address, int rkey, long length) {
    /** The remote address of {@code offset}, after checking that {@code [offset, offset + n)} lies in the region. */
    long at(long offset, int n) {
        if (offset < 0 || n < 0 || offset > length - n) {
            throw new IndexOutOfBoundsException("remote offset " + offset + " + " + n + " bytes is outside the peer's "
                    + length + "-byte RDMA region" + (length == 0 ? " (the peer set no rdmaRegionSize)" : ""));
        }
        return address + offset;
    }
}
