package org.verbs4j.bench.soak;

import java.util.Locale;

/**
 * One sample of the process' resources during a soak phase: what the kernel and the JVM say it holds.
 * Native counts are the kernel's for the device ({@code rdma resource show}); -1 where unknown.
 *
 * @param device the RDMA device of the phase
 * @param phase the phase ({@link SoakKind#id})
 * @param seconds since the soak started
 * @param done operations (or cycles) done in the phase when the sample was taken
 * @param rssKb resident set size, {@code VmRSS} of {@code /proc/self/status}
 * @param heapKb Java heap used right after a garbage collection
 * @param fds open file descriptors ({@code /proc/self/fd})
 * @param pd protection domains of the device
 * @param cq completion queues
 * @param qp queue pairs
 * @param mr memory regions
 * @param cmId rdma_cm ids
 * @param ctx device contexts
 * @param leaks verbs4j's count of objects found unreachable without close (since the JVM started)
 */
record Sample(String device, String phase, double seconds, long done, long rssKb, long heapKb, long fds, long pd,
        long cq, long qp, long mr, long cmId, long ctx, long leaks) {

    /** The CSV header, matching {@link #csv()}. */
    static final String CSV_HEADER = "device,phase,seconds,done,rss_kb,heap_kb,fds,pd,cq,qp,mr,cm_id,ctx,leaks";

    /** The metrics whose curve must be flat, by CSV name. */
    static final String[] METRICS = {"rss_kb", "heap_kb", "fds", "pd", "cq", "qp", "mr", "cm_id", "ctx"};

    /** @return metric {@code i} of {@link #METRICS} */
    long metric(int i) {
        return switch (i) {
            case 0 -> rssKb;
            case 1 -> heapKb;
            case 2 -> fds;
            case 3 -> pd;
            case 4 -> cq;
            case 5 -> qp;
            case 6 -> mr;
            case 7 -> cmId;
            case 8 -> ctx;
            default -> throw new IndexOutOfBoundsException("metric " + i);
        };
    }

    /** @return one CSV line */
    String csv() {
        return String.format(Locale.ROOT, "%s,%s,%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", device, phase, seconds, done,
                rssKb, heapKb, fds, pd, cq, qp, mr, cmId, ctx, leaks);
    }
}
