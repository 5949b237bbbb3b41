package org.verbs4j.api.cm;

import org.verbs4j.api.AddressHandle;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.ProtectionDomain;

/**
 * {@code struct rdma_ud_param}: where to send datagrams to the peer of a {@link PortSpace#UDP} id, as
 * {@link CmId#connectDatagram} learned it from the peer's SIDR reply.
 *
 * <pre>{@code
 * UdParameters peer = id.connectDatagram(hello, timeout);
 * AddressHandle ah = peer.createAddressHandle(pd);                 // ibv_create_ah(pd, &param.ud.ah_attr)
 * wrs.at(0).opcode(Opcode.SEND)...ud(ah, peer.remoteQpn(), peer.remoteQkey());
 * }</pre>
 *
 * @param remoteQpn     {@code qp_num}: the peer's UD queue pair number
 * @param remoteQkey    {@code qkey}: the Q_Key to put into each send ({@link PortSpace#UDP_QKEY} for rdma_cm peers)
 * @param addressVector {@code ah_attr}: the route to the peer (on RoCE with a GRH and the source GID index
 *                      rdma_cm chose)
 * @param privateData   the private data the peer passed to {@link CmId#accept} (on IB/RoCE padded with
 *                      zeros to {@link ConnectionParameters#UD_ACCEPT_PRIVATE_DATA_MAX} bytes)
 */
public record UdParameters(int remoteQpn, int remoteQkey, AddressVector addressVector, byte[] privateData) {

    /**
     * Copies {@code privateData} (an empty array for null).
     *
     * @param remoteQpn     the peer's UD queue pair number
     * @param remoteQkey    the Q_Key to put into each send
     * @param addressVector the route to the peer
     * @param privateData   the private data the peer accepted with; null for none
     */
    public UdParameters {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** {@return a copy of the private data (empty, never null)} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * {@code ibv_create_ah(pd, &ah_attr)}: the address handle UD sends to the peer need; close it.
     *
     * @param pd the protection domain
     * @return the new address handle, which the caller closes
     */
    public AddressHandle createAddressHandle(ProtectionDomain pd) {
        return pd.createAddressHandle(addressVector);
    }

    @Override
    public String toString() {
        return "UdParameters[remote qpn 0x" + Integer.toHexString(remoteQpn) + ", qkey 0x" + Integer.toHexString(remoteQkey)
                + ", " + addressVector + ", privateData " + privateData.length + " bytes]";
    }
}
