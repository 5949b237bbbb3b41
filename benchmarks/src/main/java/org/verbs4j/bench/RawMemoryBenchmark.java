package org.verbs4j.bench;

import org.verbs4j.api.internal.WrLayout.Wc;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import org.verbs4j.api.Opcode;
import org.verbs4j.api.SendFlags;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WcOpcode;
import org.verbs4j.api.WorkCompletions;
import org.verbs4j.api.internal.RawMemory;

/**
 * The Java side of the data path without a device: filling an {@code ibv_send_wr} slot through the
 * {@link SendRequests} flyweight, and reading an {@code ibv_wc} slot through {@link WorkCompletions}.
 * Runs anywhere. Together with {@link HotPathBenchmark} it splits a post or poll into what Java spends
 * on the structs and what the native call and the provider cost.
 */
public class RawMemoryBenchmark extends HostBenchmark {
    private static final int SLOTS = 16;
    /** Stand-ins for a registered buffer: nothing is posted, so they are never dereferenced. */
    private static final long LOCAL_ADDRESS = 0x7f00_0000_1000L;
    private static final int LKEY = 0x1234;
    private static final long REMOTE_ADDRESS = 0x7f00_0000_2000L;
    private static final int RKEY = 0x5678;

    private SendRequests wrs;
    private WorkCompletions wc;
    private long wrId;
    private int slot;

    @Setup(Level.Trial)
    public void allocate() {
        wrs = SendRequests.allocate(SLOTS, 1);
        wc = WorkCompletions.allocate(SLOTS);
        // Completions as a poll of RDMA write completions would leave them.
        for (int i = 0; i < SLOTS; i++) {
            long a = wc.address() + (long) i * Wc.WC_SIZE;
            RawMemory.putLong(a + Wc.WR_ID_OFFSET, 1000 + i);
            RawMemory.putInt(a + Wc.STATUS_OFFSET, 0);
            RawMemory.putInt(a + Wc.OPCODE_OFFSET, WcOpcode.RDMA_WRITE.value());
            RawMemory.putInt(a + Wc.BYTE_LEN_OFFSET, 8);
            RawMemory.putInt(a + Wc.QP_NUM_OFFSET, 0x11);
        }
    }

    @TearDown(Level.Trial)
    public void free() {
        wrs.close();
        wc.close();
    }

    /** Every field of one RDMA write request (wr_id, opcode, flags, one SGE, remote address and rkey). */
    @Benchmark
    public void fillSendRequest(Blackhole bh) {
        int i = slot = (slot + 1) & (SLOTS - 1);
        SendRequests.SendRequest wr = wrs.at(i)
                .wrId(++wrId)
                .opcode(Opcode.RDMA_WRITE)
                .flags(SendFlags.SIGNALED | SendFlags.INLINE)
                .sge(LOCAL_ADDRESS, 8, LKEY)
                .rdma(REMOTE_ADDRESS, RKEY);
        bh.consume(wr.address());
    }

    /** What a completion handler reads of one completion: wr_id, status, opcode, byte_len, qp_num. */
    @Benchmark
    public void readCompletion(Blackhole bh) {
        int i = slot = (slot + 1) & (SLOTS - 1);
        bh.consume(wc.wrId(i));
        bh.consume(wc.ok(i));
        bh.consume(wc.opcode(i));
        bh.consume(wc.byteLength(i));
        bh.consume(wc.qpNum(i));
    }
}
