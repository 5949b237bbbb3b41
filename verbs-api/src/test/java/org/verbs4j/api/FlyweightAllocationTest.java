package org.verbs4j.api;

import org.verbs4j.api.internal.WrLayout.Wc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.RawMemory;

/**
 * The data path claims "nothing is allocated": filling and chaining work requests and reading completions
 * must not create garbage. Measured with the JVM's per-thread allocation counter
 * ({@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}) around 100 000 iterations after
 * a warm-up, so it holds in the interpreter and in compiled code alike (no reliance on escape analysis:
 * an allocating implementation allocates at least once per iteration, i.e. megabytes here).
 */
class FlyweightAllocationTest {

    private static final int ITERATIONS = 100_000;
    /** Allowance for the measurement itself (TLAB bookkeeping, a lazily loaded class): far below one object per call. */
    private static final long BOUND = 4096;

    private static com.sun.management.ThreadMXBean mx;
    /** Keeps results alive so the JIT cannot drop the loops. */
    static volatile long sink;
    static volatile Object objectSink;

    @BeforeAll
    static void counter() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no com.sun.management.ThreadMXBean on this JVM");
        mx = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(mx.isThreadAllocatedMemorySupported(), "thread allocation accounting not supported");
        mx.setThreadAllocatedMemoryEnabled(true);
    }

    /** Bytes this thread allocated while running {@code body} (after one un-measured warm-up run). */
    private static long allocatedBy(LongSupplier body) {
        sink = body.getAsLong(); // warm-up: class loading, interpreter profiling, JIT
        sink = body.getAsLong();
        mx.getCurrentThreadAllocatedBytes();
        long before = mx.getCurrentThreadAllocatedBytes();
        long result = body.getAsLong();
        long after = mx.getCurrentThreadAllocatedBytes();
        sink = result;
        return after - before;
    }

    @Test
    void theMeasurementSeesAllocation() {
        long bytes = allocatedBy(() -> {
            long s = 0;
            for (int i = 0; i < ITERATIONS; i++) {
                long[] a = new long[4];
                a[i & 3] = i;
                objectSink = a;
                s += a[0];
            }
            return s;
        });
        assertTrue(bytes >= ITERATIONS * 16L, "an allocating loop measured only " + bytes + " bytes: the probe is blind");
    }

    @Test
    void fillingAndChainingSendRequestsAllocatesNothing() {
        try (SendRequests wrs = SendRequests.allocate(16, 2)) {
            long bytes = allocatedBy(() -> {
                long s = 0;
                for (int i = 0; i < ITERATIONS; i++) {
                    int slot = i & 15;
                    SendRequests.SendRequest r = wrs.at(slot).wrId(i).opcode(Opcode.RDMA_WRITE_WITH_IMM)
                            .flags(SendFlags.SIGNALED).immData(i).sge(0x1000L + i, 64, 7).rdma(0x2000L, 9);
                    wrs.count(slot + 1);
                    s += r.wrId() + r.totalLength() + r.opcodeValue() + wrs.indexOf(r.address());
                }
                return s;
            });
            assertTrue(bytes < BOUND, ITERATIONS + " send request fills allocated " + bytes + " bytes");
            assertEquals(ITERATIONS - 1, wrs.at((ITERATIONS - 1) & 15).wrId(), "the loop ran");
        }
    }

    @Test
    void fillingReceiveRequestsAllocatesNothing() {
        try (ReceiveRequests rrs = ReceiveRequests.allocate(16, 1)) {
            long bytes = allocatedBy(() -> {
                long s = 0;
                for (int i = 0; i < ITERATIONS; i++) {
                    int slot = i & 15;
                    ReceiveRequests.ReceiveRequest r = rrs.at(slot).wrId(i).sge(0x1000L + i, 4096, 7);
                    rrs.count(slot + 1);
                    s += r.wrId() + r.numSge();
                }
                return s;
            });
            assertTrue(bytes < BOUND, ITERATIONS + " receive request fills allocated " + bytes + " bytes");
        }
    }

    @Test
    void readingWorkCompletionsAllocatesNothing() {
        try (WorkCompletions wc = WorkCompletions.allocate(16)) {
            for (int i = 0; i < 16; i++) {
                long a = wc.address() + (long) i * Wc.WC_SIZE;
                RawMemory.putLong(a + Wc.WR_ID_OFFSET, i);
                RawMemory.putInt(a + Wc.STATUS_OFFSET, i % 3 == 0 ? 0 : WcStatus.WR_FLUSH_ERR.value());
                RawMemory.putInt(a + Wc.OPCODE_OFFSET, WcOpcode.RECV_RDMA_WITH_IMM.value());
                RawMemory.putInt(a + Wc.BYTE_LEN_OFFSET, 100 + i);
                RawMemory.putInt(a + Wc.WC_FLAGS_OFFSET, WcFlags.WITH_IMM);
            }
            long bytes = allocatedBy(() -> {
                long s = 0;
                for (int i = 0; i < ITERATIONS; i++) {
                    int k = i & 15;
                    WcStatus st = wc.status(k);
                    WcOpcode op = wc.opcode(k);
                    s += wc.wrId(k) + st.value() + op.value() + wc.byteLength(k) + wc.immData(k) + wc.qpNum(k)
                            + wc.srcQp(k) + wc.flags(k) + wc.pkeyIndex(k) + wc.slid(k) + wc.sl(k) + wc.dlidPathBits(k)
                            + wc.vendorError(k) + (wc.ok(k) ? 1 : 0) + (wc.hasImmData(k) ? 1 : 0);
                }
                return s;
            });
            assertTrue(bytes < BOUND, ITERATIONS + " completion reads allocated " + bytes + " bytes");
        }
    }
}
