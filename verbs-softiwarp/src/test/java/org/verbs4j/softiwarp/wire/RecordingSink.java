package org.verbs4j.softiwarp.wire;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Test sink: one line per segment, and the payload bytes of each stream appended. */
final class RecordingSink implements FpduSink {
    final List<String> events = new ArrayList<>();
    final ByteArrayOutputStream untaggedBytes = new ByteArrayOutputStream();
    final ByteArrayOutputStream taggedBytes = new ByteArrayOutputStream();

    @Override
    public void onTagged(int opcode, boolean last, int stag, long taggedOffset, ByteBuffer payload) {
        events.add("T op=" + opcode + " last=" + last + " stag=" + stag + " to=" + taggedOffset + " len="
                + payload.remaining());
        append(taggedBytes, payload);
    }

    @Override
    public void onUntagged(int opcode, boolean last, int queue, int msn, int messageOffset, int invalidateStag,
                           ByteBuffer payload) {
        events.add("U op=" + opcode + " last=" + last + " qn=" + queue + " msn=" + msn + " mo=" + messageOffset
                + " inv=" + invalidateStag + " len=" + payload.remaining());
        append(untaggedBytes, payload);
    }

    @Override
    public void onReadRequest(int msn, int sinkStag, long sinkOffset, int length, int sourceStag,
                              long sourceOffset) {
        events.add("RR msn=" + msn + " sink=" + sinkStag + "/" + sinkOffset + " len=" + length + " src=" + sourceStag
                + "/" + sourceOffset);
    }

    @Override
    public void onAtomicRequest(int msn, int atomicOp, int requestId, int stag, long taggedOffset, long swapAdd,
                                long swapAddMask, long compare, long compareMask) {
        events.add("AR msn=" + msn + " op=" + atomicOp + " id=" + requestId + " stag=" + stag + " to=" + taggedOffset
                + " swapAdd=" + swapAdd + "/" + swapAddMask + " compare=" + compare + "/" + compareMask);
    }

    @Override
    public void onAtomicResponse(int msn, int requestId, long originalValue) {
        events.add("AS msn=" + msn + " id=" + requestId + " value=" + originalValue);
    }

    @Override
    public void onTerminate(int layer, int errorType, int errorCode, ByteBuffer headerCopy) {
        events.add("TERM layer=" + layer + " etype=" + errorType + " code=" + errorCode + " copy="
                + headerCopy.remaining());
    }

    private static void append(ByteArrayOutputStream out, ByteBuffer payload) {
        ByteBuffer d = payload.duplicate();
        while (d.hasRemaining()) {
            out.write(d.get());
        }
    }
}
