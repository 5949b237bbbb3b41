package org.verbs4j.softiwarp;

import java.io.Closeable;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.Errno;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.cm.CmException;
import org.verbs4j.api.cm.ConnectionParameters;
import org.verbs4j.softiwarp.wire.MpaConnection;
import org.verbs4j.softiwarp.wire.MpaSettings;

/**
 * The TCP side of a listening {@link SoftCmId}: server sockets on the bound address (for the wildcard, on every
 * address of the software devices' interfaces, as siw's wildcard listener binds its netdev's addresses only), one
 * thread that accepts, and one thread per connection until its MPA Request arrived, bounded by the MPA time-out.
 * A peer that sends nothing or garbage ties up only its own handshake thread, and at most {@value #MAX_HANDSHAKES}
 * handshakes run at once (more connections are closed). Each Request is handed to the id's {@code sink}.
 */
final class SoftListener implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(SoftListener.class);
    /** The most MPA handshakes in progress at once; beyond, new connections are closed at once. */
    static final int MAX_HANDSHAKES = 64;

    /** A received MPA Request: what the id made for it needs. */
    record Request(MpaConnection.Incoming incoming, SoftIwarpDevice device, InetSocketAddress local,
            InetSocketAddress remote) {
    }

    private final InetSocketAddress local;
    private final List<ServerSocketChannel> servers;
    private final Selector selector;
    private final MpaSettings settings;
    private final int tos;
    private final Predicate<Request> sink;
    private final ThreadPoolExecutor handshakes;
    private final Set<SocketChannel> handshaking = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;

    private SoftListener(InetSocketAddress local, List<ServerSocketChannel> servers, Selector selector,
            MpaSettings settings, int tos, Predicate<Request> sink) {
        this.local = local;
        this.servers = servers;
        this.selector = selector;
        this.settings = settings;
        this.tos = tos;
        this.sink = sink;
        // named as the libibverbs backend's rdma_cm threads (verbs4j-rdma-cm-N): the kernel's thread name, its first
        // 15 characters, is verbs4j-rdma-cm for both, so tools and tests find the rdma_cm threads of either
        this.handshakes = new ThreadPoolExecutor(0, MAX_HANDSHAKES, 1, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> daemon(r, "verbs4j-rdma-cm-mpa-" + local.getPort()));
        this.acceptor = daemon(this::acceptLoop, "verbs4j-rdma-cm-listen-" + local.getPort());
    }

    /**
     * Listens on {@code address} ({@code rdma_listen}).
     *
     * @param address  the bound address; the wildcard for every software device's address; port 0 for a free one
     * @param backlog  the TCP backlog
     * @param settings the responder's MPA choices (its time-out bounds each handshake)
     * @param tos      the IP type of service of the connections, or -1
     * @param sink     takes each Request; false when the id no longer takes any (the request is then rejected)
     * @return the listener, accepting
     * @throws CmException no address to listen on, or the port is taken
     */
    static SoftListener open(InetSocketAddress address, int backlog, MpaSettings settings, int tos,
            Predicate<Request> sink) {
        List<InetAddress> at = addresses(address.getAddress());
        if (at.isEmpty()) {
            throw new CmException("rdma_listen", Errno.ENODEV, "no software iWARP device has an address to listen on ("
                    + address + ")", "add a device on an interface with an address");
        }
        List<ServerSocketChannel> open = new ArrayList<>();
        Selector sel = null;
        int port = address.getPort();
        try {
            sel = Selector.open();
            for (InetAddress a : at) {
                ServerSocketChannel ch = ServerSocketChannel.open();
                open.add(ch);
                ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                ch.bind(new InetSocketAddress(a, port), Math.max(1, backlog));
                port = ((InetSocketAddress) ch.getLocalAddress()).getPort(); // port 0: the first one's for all
                ch.configureBlocking(false);
                ch.register(sel, SelectionKey.OP_ACCEPT);
            }
        } catch (IOException e) {
            open.forEach(SoftListener::closeQuietly);
            closeQuietly(sel);
            boolean inUse = e.getMessage() != null && e.getMessage().contains("in use");
            throw new CmException("rdma_listen", inUse ? Errno.EADDRINUSE : Errno.EINVAL, address + ": " + e,
                    inUse ? "is another listener on that port?" : null);
        }
        SoftListener l = new SoftListener(new InetSocketAddress(address.getAddress(), port), open, sel, settings, tos,
                sink);
        l.acceptor.start();
        LOG.debug("listening on {} ({})", l.local, at);
        return l;
    }

    /** {@return the address listened on, with its port} */
    InetSocketAddress local() {
        return local;
    }

    /** Where a listener bound to {@code address} listens: that address, or the devices' for the wildcard. */
    private static List<InetAddress> addresses(InetAddress address) {
        if (!address.isAnyLocalAddress()) {
            return List.of(address);
        }
        List<InetAddress> out = new ArrayList<>();
        for (RdmaDevice d : SoftIwarp.devices()) {
            try {
                NetworkInterface ni = NetworkInterface.getByName(((SoftIwarpDevice) d).netdev());
                if (ni == null) {
                    continue;
                }
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    boolean v6 = a instanceof Inet6Address;
                    if ((!v6 || address instanceof Inet6Address) && !a.isLinkLocalAddress() && !out.contains(a)) {
                        out.add(a);
                    }
                }
            } catch (SocketException e) {
                LOG.debug("{}: {}", d.name(), e.toString());
            }
        }
        return out;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** The accepting thread: gives each new connection to a handshake thread, until {@link #close()}. */
    private void acceptLoop() {
        try {
            while (selector.isOpen()) {
                selector.select();
                for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    SocketChannel ch = ((ServerSocketChannel) k.channel()).accept();
                    if (ch != null) {
                        dispatch(ch);
                    }
                }
            }
        } catch (IOException | ClosedSelectorException e) {
            if (selector.isOpen()) {
                LOG.warn("listener {}: accept failed: {}", local, e.toString());
            }
        }
    }

    private void dispatch(SocketChannel ch) {
        handshaking.add(ch);
        try {
            handshakes.execute(() -> handshake(ch));
        } catch (RejectedExecutionException e) {
            LOG.warn("listener {}: {} MPA handshakes in progress already; dropping {}", local, MAX_HANDSHAKES,
                    remoteOf(ch));
            handshaking.remove(ch);
            closeQuietly(ch);
        }
    }

    /** Waits (bounded by the MPA time-out) for one connection's MPA Request, then hands it to the sink. */
    private void handshake(SocketChannel ch) {
        InetSocketAddress remote = remoteOf(ch);
        try {
            InetSocketAddress at = (InetSocketAddress) ch.getLocalAddress();
            SoftIwarpDevice device = SoftConnectionManager.deviceFor(at.getAddress());
            if (device == null) {
                LOG.warn("listener {}: connection from {} to {}, an address without a software iWARP device: dropped",
                        local, remote, at);
                closeQuietly(ch);
                return;
            }
            if (tos >= 0) {
                ch.setOption(StandardSocketOptions.IP_TOS, tos); // a listener's TOS is inherited by its connections
            }
            MpaConnection.Incoming in = MpaConnection.awaitRequest(ch,
                    settings.withSendMss(SiwAttributes.sendMss(device, at.getAddress(),
                            remote == null ? null : remote.getAddress())));
            if (in.privateData().length > ConnectionParameters.ACCEPT_PRIVATE_DATA_MAX) {
                LOG.warn("listener {}: request from {} carries {} bytes of private data, more than rdma_cm takes: "
                        + "rejected", local, remote, in.privateData().length);
                in.reject(new byte[0]);
                return;
            }
            if (!sink.test(new Request(in, device, at, remote))) {
                reject(in);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("listener {}: connection from {} dropped before its MPA Request: {}", local, remote, e.toString());
            closeQuietly(ch);
        } finally {
            handshaking.remove(ch);
        }
    }

    /** Stops listening: closes the sockets, wakes and waits for the accepting thread, ends the handshakes. */
    @Override
    public void close() {
        servers.forEach(SoftListener::closeQuietly);
        closeQuietly(selector); // wakes the accepting thread
        handshakes.shutdownNow();
        for (SocketChannel ch : handshaking) {
            closeQuietly(ch);
        }
        if (acceptor != Thread.currentThread()) {
            try {
                acceptor.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Rejects a request nobody will take (no private data), or at least closes its connection. */
    static void reject(MpaConnection.Incoming in) {
        try {
            in.reject(new byte[0]);
        } catch (IOException | RuntimeException e) {
            in.close();
        }
    }

    static void closeQuietly(Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // closing: nothing left to do
            }
        }
    }

    private static InetSocketAddress remoteOf(SocketChannel ch) {
        try {
            SocketAddress a = ch.getRemoteAddress();
            return a instanceof InetSocketAddress i ? i : null;
        } catch (IOException e) {
            return null;
        }
    }
}
