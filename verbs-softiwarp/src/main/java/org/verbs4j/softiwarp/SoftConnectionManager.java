package org.verbs4j.softiwarp;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.verbs4j.api.Errno;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;
import org.verbs4j.api.cm.PortSpace;
import org.verbs4j.api.internal.LocalRoutes;
import org.verbs4j.api.spi.AbstractResource;
import org.verbs4j.softiwarp.wire.MpaSettings;

/**
 * rdma_cm for the software iWARP devices: ids ({@link SoftCmId}) that listen on TCP, connect over TCP and run the
 * MPA handshake of Linux siw, then hand the stream to their queue pair. No event thread: each call does its work
 * on the caller's thread, and a listener has one accepting thread and short-lived handshake threads.
 *
 * <p>Owns its ids (closed with it) and the device contexts it opened for them (one per device, released with it;
 * its {@link #close()} is refused while the application still has a PD, CQ or channel on one, as librdmacm's).
 * Only {@link PortSpace#TCP}: iWARP has no UD.
 *
 * <p>System property {@value #CRC_PROPERTY}{@code =true} asks peers for MPA CRC32C (siw grants it); without it
 * CRC is on only when the peer asks.
 */
final class SoftConnectionManager extends AbstractResource implements ConnectionManager {
    /** System property: {@code true} makes this side ask for (initiator) or impose (responder) MPA CRC. */
    static final String CRC_PROPERTY = "verbs4j.softiwarp.crc";
    /**
     * System property: {@code false} stops this side offering (initiator) or accepting (responder) RFC 7306, the
     * immediate data and atomics that only verbs4j peers negotiate; on by default.
     */
    static final String RFC7306_PROPERTY = "verbs4j.softiwarp.rfc7306";
    /** siw's MPAREQ_TIMEOUT: how long the initiator waits for the Reply, when the call allows that long. */
    static final long INITIATOR_MPA_TIMEOUT_MS = 10_000;

    private final Map<SoftIwarpDevice, SoftDeviceContext> contexts = new ConcurrentHashMap<>();
    private volatile MpaSettings settings = MpaSettings.siwDefaults().withCrcRequired(Boolean.getBoolean(CRC_PROPERTY))
            .withRfc7306(!"false".equalsIgnoreCase(System.getProperty(RFC7306_PROPERTY)));

    SoftConnectionManager() {
        super(null);
        describeForLeakReport("software iWARP connection manager");
    }

    @Override
    public CmId createId() {
        return createId(PortSpace.TCP);
    }

    @Override
    public CmId createId(PortSpace portSpace) {
        Objects.requireNonNull(portSpace, "portSpace");
        if (portSpace != PortSpace.TCP) {
            throw new UnsupportedOperationException("rdma_create_id(" + portSpace + "): iWARP has no UD; the "
                    + "software iWARP devices offer PortSpace.TCP only");
        }
        enter();
        try {
            return new SoftCmId(this, null);
        } finally {
            leave();
        }
    }

    /** The MPA choices of this manager's ids (the responder's time-out is the request's; tests shorten it). */
    MpaSettings settings() {
        return settings;
    }

    void settings(MpaSettings s) {
        settings = s;
    }

    /** The context this manager opened on {@code device}, opened on first use. */
    SoftDeviceContext contextFor(SoftIwarpDevice device) {
        enter();
        try {
            return contexts.computeIfAbsent(device, d -> (SoftDeviceContext) d.open());
        } finally {
            leave();
        }
    }

    /**
     * The software device whose interface owns the local address {@code address}, as rdma_cm finds an id's device
     * from its source address.
     *
     * @return the device, or null when the address is not local or no software device sits on its interface
     */
    static SoftIwarpDevice deviceFor(InetAddress address) {
        String netdev = LocalRoutes.interfaceOf(address);
        if (netdev == null) {
            return null;
        }
        for (RdmaDevice d : SoftIwarp.devices()) {
            if (d instanceof SoftIwarpDevice s && s.netdev().equals(netdev)) {
                return s;
            }
        }
        return null;
    }

    /** The device for {@code address}, or a {@link CmException} that says what to add. */
    static SoftIwarpDevice requireDevice(String verb, InetAddress address) {
        SoftIwarpDevice d = deviceFor(address);
        if (d == null) {
            throw noDevice(verb, address);
        }
        return d;
    }

    /** Why {@code address} has no software device: not local, or its interface has none (and how to add one). */
    static CmException noDevice(String verb, InetAddress address) {
        String netdev = LocalRoutes.interfaceOf(address);
        if (netdev == null) {
            return new CmException(verb, Errno.EADDRNOTAVAIL, address.getHostAddress()
                    + " is not an address of this host", "no RDMA device has this address: bind a local address");
        }
        return new CmException(verb, Errno.ENODEV, address.getHostAddress() + " is on " + netdev
                + ", which has no software iWARP device", "no RDMA device has this address; add one: "
                + "SoftIwarp.addDevice(\"jsiw_" + netdev + "\", \""
                + netdev + "\") or -D" + SoftIwarp.DEVICES_PROPERTY + "=jsiw_" + netdev + "=" + netdev);
    }

    @Override
    protected String kind() {
        return "ConnectionManager";
    }

    /** Its ids close with it (each with its queue pair). */
    @Override
    protected boolean closesChildren() {
        return true;
    }

    /** Refuses while a context this manager opened is still in use by the application's PDs, CQs or channels. */
    @Override
    protected void beforeClose() {
        for (SoftDeviceContext c : contexts.values()) {
            List<AbstractResource> inUse = c.openChildren();
            if (!inUse.isEmpty()) {
                throw new IllegalStateException("cannot close " + this + ": the device context it opened for "
                        + c.device().name() + " is still in use by " + inUse + ". Close those first");
            }
        }
    }

    /** Before its ids close: the waits they end say why. */
    @Override
    protected void interruptWaits() {
        for (AbstractResource c : openChildren()) {
            if (c instanceof SoftCmId id) {
                id.closingWith("its ConnectionManager was closed");
            }
        }
    }

    /** After its ids closed: releases the contexts. */
    @Override
    protected void destroy() {
        List<SoftDeviceContext> ctxs = new ArrayList<>(contexts.values());
        contexts.clear();
        closeAll(ctxs);
    }

    @Override
    public String toString() {
        return "ConnectionManager[softiwarp" + (isClosed() ? ", closed" : "") + "]";
    }
}
