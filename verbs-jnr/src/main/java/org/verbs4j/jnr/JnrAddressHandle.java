package org.verbs4j.jnr;

import org.verbs4j.api.AddressHandle;
import org.verbs4j.api.AddressVector;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.spi.AbstractResource;

/** {@code struct ibv_ah}. */
final class JnrAddressHandle extends AbstractResource implements AddressHandle {
    private final JnrProtectionDomain pd;
    private final long ah;
    private final AddressVector av;

    JnrAddressHandle(JnrProtectionDomain pd, long ah, AddressVector av) {
        super(pd);
        this.pd = pd;
        this.ah = ah;
        this.av = av;
        describeForLeakReport(av.toString());
    }

    @Override
    protected String kind() {
        return "AddressHandle";
    }

    @Override
    protected void destroy() {
        int rc = (int) JnrBackend.lib().destroyAh.call(ah);
        if (rc != 0) {
            throw new VerbsException("ibv_destroy_ah", rc, toString());
        }
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public AddressVector addressVector() {
        return av;
    }

    @Override
    public long handle() {
        checkOpen();
        return ah;
    }
}
