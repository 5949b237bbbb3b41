package org.verbs4j.softiwarp;

import java.util.List;
import org.verbs4j.api.AsyncEventListener;
import org.verbs4j.api.CompletionChannel;
import org.verbs4j.api.CompletionQueue;
import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.Errno;
import org.verbs4j.api.Gid;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.GidType;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.ProtectionDomain;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.spi.AbstractResource;

/** An open software iWARP device: its queries, and the factory of its PDs, CQs and completion channels. */
final class SoftDeviceContext extends AbstractResource implements DeviceContext {
    private final SoftIwarpDevice device;
    private volatile AsyncEventListener asyncListener;

    SoftDeviceContext(SoftIwarpDevice device) {
        super(null);
        this.device = device;
        describeForLeakReport(device.name() + " context");
    }

    SoftIwarpDevice softDevice() {
        return device;
    }

    AsyncEventListener asyncListener() {
        return asyncListener;
    }

    @Override
    protected String kind() {
        return "DeviceContext";
    }

    @Override
    protected void destroy() {
        asyncListener = null;
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        checkOpen();
        return SiwAttributes.device(device);
    }

    @Override
    public PortAttributes queryPort(int port) {
        checkPort("ibv_query_port", port);
        return SiwAttributes.port(device);
    }

    @Override
    public Gid queryGid(int port, int index) {
        checkPort("ibv_query_gid", port);
        checkIndex("ibv_query_gid", port, index, 1);
        return device.gid();
    }

    @Override
    public GidEntry queryGidEntry(int port, int index) {
        checkPort("ibv_query_gid_ex", port);
        checkIndex("ibv_query_gid_ex", port, index, 1);
        return new GidEntry(port, index, device.gid(), GidType.IB, 0);
    }

    @Override
    public List<GidEntry> queryGidTable() {
        checkOpen();
        return List.of(queryGidEntry(1, 0));
    }

    @Override
    public int queryPkey(int port, int index) {
        checkPort("ibv_query_pkey", port);
        checkIndex("ibv_query_pkey", port, index, 1);
        return 0xffff; // siw's one default P_Key
    }

    private void checkPort(String verb, int port) {
        checkOpen();
        if (port != 1) {
            throw new VerbsException(verb, Errno.EINVAL, device.name() + " port " + port + ": the device has port 1 only");
        }
    }

    private void checkIndex(String verb, int port, int index, int length) {
        if (index < 0 || index >= length) {
            throw new VerbsException(verb, Errno.EINVAL, device.name() + " port " + port + " index " + index
                    + ": the table has " + length + " entry");
        }
    }

    @Override
    public ProtectionDomain allocProtectionDomain() {
        enter();
        try {
            return new SoftProtectionDomain(this);
        } finally {
            leave();
        }
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        throw notYet("ibv_create_comp_channel");
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries, CompletionChannel channel, int compVector) {
        throw notYet("ibv_create_cq");
    }

    private VerbsException notYet(String verb) {
        checkOpen();
        return new VerbsException(verb, Errno.EOPNOTSUPP, device.name() + ": not yet implemented by the softiwarp backend");
    }

    @Override
    public int numCompVectors() {
        return 1;
    }

    @Override
    public void setAsyncEventListener(AsyncEventListener listener) {
        checkOpen();
        asyncListener = listener;
    }
}
