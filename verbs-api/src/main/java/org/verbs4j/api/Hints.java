package org.verbs4j.api;

/** What to check when a verb fails: the advice an experienced RDMA engineer would give. */
final class Hints {
    private Hints() {
    }

    static String forFailure(String verb, int errno) {
        String v = verb == null ? "" : verb;
        switch (errno) {
            case Errno.ENOMEM:
                if (v.contains("post_send") || v.contains("post_recv") || v.contains("post_srq_recv")) {
                    return "The work queue is full: poll completions before posting more, or create the QP with "
                            + "larger max_send_wr / max_recv_wr (unsignaled sends free their slots only when a "
                            + "later signaled one completes)";
                }
                if (v.contains("reg_mr")) {
                    return "Check the locked-memory limit (ulimit -l, LimitMEMLOCK for services, memlock in "
                            + "/etc/security/limits.conf): registered memory is pinned";
                }
                if (v.contains("create_qp") || v.contains("create_cq") || v.contains("create_srq")) {
                    return "Check the requested sizes against the device limits (ibv_devinfo -v: max_qp_wr, "
                            + "max_cqe, max_sge, max_srq_wr) and the locked-memory limit (ulimit -l)";
                }
                return "Check the locked-memory limit (ulimit -l) and the device's resource limits";
            case Errno.EINVAL:
                if (v.contains("modify_qp")) {
                    return "Check the QP state transition and its attributes (RESET->INIT needs port, pkey index "
                            + "and access flags; INIT->RTR needs path MTU, dest QPN, RQ PSN and an address vector "
                            + "with the right GID index on RoCE; RTR->RTS needs SQ PSN, timeout and retry counts)";
                }
                if (v.contains("post_send") || v.contains("post_recv") || v.contains("post_srq_recv")) {
                    return "Check the QP state (sends need RTS, receives at least INIT), the opcode for this QP "
                            + "type, and the SGE count against the QP's max_send_sge / max_recv_sge";
                }
                if (v.contains("query_gid")) {
                    return "Check the GID index against the port's GID table (ibv_devinfo -v)";
                }
                if (v.contains("create_ah")) {
                    return "Check the address vector: RoCE needs is_global with a valid sgid_index and dgid";
                }
                return "Check the arguments against the device limits (ibv_devinfo -v)";
            case Errno.ENOSPC:
            case Errno.EAGAIN:
                if (v.contains("post_send") || v.contains("post_recv") || v.contains("post_srq_recv")) {
                    return "The work queue is full: poll completions before posting more, or create the QP with "
                            + "larger max_send_wr / max_recv_wr";
                }
                return "A resource is exhausted; free some or raise the requested limit";
            case Errno.EOPNOTSUPP:
            case Errno.ENOSYS:
                return "The device or its provider does not support this operation; check its capabilities "
                        + "(ibv_devinfo -v)";
            case Errno.EACCES:
            case Errno.EPERM:
                return "Check the permissions of /dev/infiniband/uverbs* and rdma_cm, or run with the needed "
                        + "capabilities (CAP_NET_RAW for raw QPs)";
            case Errno.ENODEV:
                return "Check that the device exists (ibv_devices) and its driver is loaded";
            default:
                return "";
        }
    }
}
