package org.verbs4j.bench.soak;

import java.nio.ByteBuffer;
import org.verbs4j.api.WorkCompletions;

/**
 * A connected pair that one thread drives from both ends, in this process: the requester posts sends, RDMA
 * writes and RDMA reads, the responder receives and is the target of the writes and the source of the reads.
 * {@link SoakLoop} runs the same loops and checks over either implementation: an endpoint pair (through
 * {@code org.verbs4j.endpoint}) or two raw RC queue pairs (through the verbs).
 *
 * <p>Memory layout ({@link Layout}, slots of {@code messageSize} bytes): the requester's memory holds
 * {@code depth} slots (a write's source, a read's sink) and one fence slot after them; the responder's holds a
 * ring of {@code ringSlots} slots (a write's target, a read's source).
 */
public interface SoakLink extends AutoCloseable {
    /**
     * The shape of a link.
     *
     * @param messageSize the size of a message, a slot, and of each write and read (at least 8)
     * @param depth how many send-queue operations may be in flight at once (at least 1)
     * @param ringSlots the number of slots in the responder's ring (more than {@code depth})
     */
    record Layout(int messageSize, int depth, int ringSlots) {
        /** @throws IllegalArgumentException for a shape the loops cannot use */
        public Layout {
            if (depth < 1 || ringSlots <= depth || messageSize < 8) {
                throw new IllegalArgumentException("depth " + depth + ", ring " + ringSlots + ", size " + messageSize
                        + ": need depth >= 1, ring > depth and size >= 8");
            }
        }

        /** @return bytes of the requester's memory: its slots and the fence slot */
        public long requesterBytes() {
            return (long) (depth + 1) * messageSize;
        }

        /** @return bytes of the responder's ring */
        public long ringBytes() {
            return (long) ringSlots * messageSize;
        }
    }

    /** @return what the link is (device, how connected), for messages */
    String description();

    /** @return its message size, depth and ring */
    Layout layout();

    /** @return the requester's registered memory, slot {@code i} at {@code i * messageSize()} */
    ByteBuffer requesterMemory();

    /** @return the responder's registered memory, ring slot {@code j} at {@code j * messageSize()} */
    ByteBuffer responderMemory();

    /**
     * @param slot a send slot in {@code 0..depth-1}
     * @return the memory of that send slot (position 0), where the message to send is written
     */
    ByteBuffer sendSlot(int slot);

    /**
     * Sends send slot {@code slot} ({@code messageSize} bytes) with work request id {@code slot}.
     *
     * @return false, with nothing posted, when the responder has no receive free for it yet
     */
    boolean trySend(int slot);

    /** RDMA WRITE of requester slot {@code localSlot} to ring slot {@code ringSlot}, id {@code wrId}. */
    void write(int localSlot, int ringSlot, long wrId);

    /** RDMA READ of ring slot {@code ringSlot} into requester slot {@code localSlot} (or the fence slot, {@code depth}). */
    void read(int localSlot, int ringSlot, long wrId);

    /** @return completions of the requester's operations polled into {@code wc} */
    int pollRequester(WorkCompletions wc);

    /** @return the responder's receive completions polled into {@code wc} */
    int pollResponder(WorkCompletions wc);

    /** @return the message of receive completion {@code i} (position 0, limit its length) */
    ByteBuffer received(WorkCompletions wc, int i);

    /** Gives the receive of completion {@code i} back to the responder (posts it again). */
    void repost(WorkCompletions wc, int i);

    /** Disconnects and frees everything the link made. */
    @Override
    void close();
}
