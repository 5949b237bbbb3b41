package org.verbs4j.jnr;

import org.verbs4j.api.cm.CmEvent;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.cm.CmException;

/** What to check when an rdma_cm call or wait fails: the hint texts of every {@link CmException} verbs4j throws. */
final class CmHints {
    private CmHints() {
    }

    /** A failed call: the exception naming the verb, errno and what to check. */
    static CmException callFailed(String verb, int errno, String detail) {
        return new CmException(verb, errno, detail, forErrno(verb, Math.abs(errno)));
    }

    /**
     * A wait that ended with the wrong event {@code e}. {@code ud}: the id is a {@code RDMA_PS_UDP} one;
     * {@code iwarp}: it is on an iWARP device.
     */
    static CmException eventFailed(String verb, CmEvent e, String detail, boolean ud, boolean iwarp) {
        String hint;
        int s = Math.abs(e.status());
        if (e.type() == CmEventType.ADDR_ERROR || e.type() == CmEventType.ROUTE_ERROR) {
            hint = s == 110 ? "resolution timed out: check that the peer is up and reachable through an RDMA netdev"
                    : forErrno(verb, s);
        } else if (e.type() == CmEventType.UNREACHABLE && ud) {
            hint = "the peer did not answer the SIDR request: check that a server listens on that address and "
                    + "port with a PortSpace.UDP id, and that the path between the devices works";
        } else if (e.type() == CmEventType.UNREACHABLE) {
            hint = "the peer did not answer the CM request: check that a server listens on that address and "
                    + "port and that the path between the devices works";
        } else if (e.type() == CmEventType.DISCONNECTED) {
            hint = "the peer disconnected before the connection was established";
        } else if (e.type() == CmEventType.REJECTED) {
            hint = reject(e.status(), iwarp);
        } else {
            hint = "the connection could not be set up: check the QP attributes and both devices' state (`rdma link`)";
        }
        return new CmException(verb, e.type(), e.status(), detail, hint);
    }

    /** What to check after no answer to the wait on {@code slot} (a {@link CmIdState} slot) came in time. */
    static String timeout(int slot) {
        return switch (slot) {
            case CmIdState.ADDR -> "address resolution did not finish: check the route (`ip route get ADDR`) and "
                    + "that its netdev has an RDMA device (`rdma link`)";
            case CmIdState.ROUTE -> "route resolution did not finish: check the path to the peer";
            case CmIdState.CONN -> "the peer did not answer: check that it listens and accepts, and that the network "
                    + "between the two RDMA devices works";
            case CmIdState.MCAST -> "the join was not answered: check the device's port state (`rdma link`)";
            default -> "the peer did not disconnect: call disconnect() on this side to end the connection";
        };
    }

    /** The IB CM SIDR REP status of a failed UD connect (ib_cm_sidr_status). */
    static String sidr(int status) {
        return switch (status) {
            case 1 -> "nobody listens on that port with a PortSpace.UDP id (SIDR status 1, service ID not supported): "
                    + "check the server's address, port and port space";
            case 2 -> "the peer's application rejected the request (SIDR status 2); its private data is attached";
            case 3 -> "the peer has no queue pair for this service (SIDR status 3)";
            case 5 -> "the peer does not support this SIDR version (status 5)";
            default -> "the peer's CM refused the SIDR request (status " + status + ")";
        };
    }

    /** The status of a REJECTED event: an IB CM reject reason, or on iWARP (or when negative) an errno. */
    static String reject(int status, boolean iwarp) {
        if (iwarp || status < 0) {
            if (status == -104) {
                return "the peer's application rejected the request (iWARP MPA reject, reported as ECONNRESET); "
                        + "its private data is attached";
            }
            if (status == -111) {
                return "the connection was refused (ECONNREFUSED): nobody listens on that port";
            }
            return "the peer refused the connection (status " + status + ")";
        }
        return switch (status) {
            case 8 -> "nobody listens on that port (IB CM reject reason 8, invalid service ID): check the "
                    + "server's address and port";
            case 28 -> "the peer's application rejected the request (IB CM reject reason 28, consumer defined); "
                    + "its private data is attached";
            default -> "the peer's CM rejected the request (IB CM reject reason " + status + ")";
        };
    }

    /** What to check after {@code verb} failed with {@code errno} (positive); "" when there is nothing to add. */
    static String forErrno(String verb, int errno) {
        return switch (errno) {
            case 19, 99 -> "no RDMA device has this address: check `rdma link`/`ibv_devinfo` and the IP on the netdev";
            case 111 -> "rdma_connect".equals(verb)
                    ? "nobody listens on that port (the iWARP TCP connection was refused): check the server's address and port"
                    : "connection refused";
            case 101, 113 -> "no route to this address from an RDMA netdev: check `ip route get ADDR` and that the "
                    + "route's netdev has an RDMA device (`rdma link`)";
            case 98 -> "another rdma_cm id is bound to this port: pick another port or close the other listener";
            case 110 -> "timed out: check that the peer is up and reachable";
            case 22 -> "the id is not in the state " + verb + " needs (e.g. connect before resolveRoute, accept "
                    + "on a listener, disconnect on an unconnected id)";
            case 13, 1 -> "check the permissions of /dev/infiniband/rdma_cm";
            case 12 -> "out of memory: check the locked-memory limit (ulimit -l)";
            default -> "";
        };
    }
}
