package org.verbs4j.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.MemoryRegion;
import org.verbs4j.api.ProtectionDomain;

/** The slot views over one registered buffer, without a device: a fake region records what was registered. */
class MessageSlotsTest {
    /** A protection domain that "registers" a direct buffer by remembering it. */
    static MessageSlots slots(int count, int size, ByteBuffer[] registered) {
        ProtectionDomain pd = (ProtectionDomain) java.lang.reflect.Proxy.newProxyInstance(
                MessageSlotsTest.class.getClassLoader(), new Class<?>[] {ProtectionDomain.class}, (p, m, args) -> {
                    if (!m.getName().equals("registerMemory") || !(args[0] instanceof ByteBuffer)) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    registered[0] = (ByteBuffer) args[0];
                    return region(registered[0]);
                });
        return MessageSlots.register(pd, "send slot", count, size, 0);
    }

    static MemoryRegion region(ByteBuffer b) {
        return (MemoryRegion) java.lang.reflect.Proxy.newProxyInstance(MessageSlotsTest.class.getClassLoader(),
                new Class<?>[] {MemoryRegion.class}, (p, m, args) -> {
                    switch (m.getName()) {
                        case "address": return 0x10000L;
                        case "lkey": return 0x77;
                        case "length": return (long) b.capacity();
                        case "buffer": return b;
                        default: throw new UnsupportedOperationException(m.getName());
                    }
                });
    }

    @Test
    void eachSlotIsItsOwnSliceOfTheRegisteredBuffer() {
        ByteBuffer[] reg = new ByteBuffer[1];
        MessageSlots s = slots(4, 100, reg);
        assertEquals(400, reg[0].capacity());
        assertTrue(reg[0].isDirect());
        s.view(2, 100).put(0, (byte) 7).put(99, (byte) 9);
        assertEquals(7, reg[0].get(200));
        assertEquals(9, reg[0].get(299));
        assertEquals(0x10000L + 300, s.address(3));
        assertEquals(0x77, s.lkey());
    }

    @Test
    void viewsAreMadeOnceAndResetOnEveryCall() {
        MessageSlots s = slots(2, 64, new ByteBuffer[1]);
        ByteBuffer a = s.view(0, 64);
        a.position(10).limit(20);
        ByteBuffer again = s.view(0, 5);
        assertSame(a, again, "no view is made per call");
        assertEquals(0, again.position());
        assertEquals(5, again.limit());
        assertEquals(64, again.capacity());
        assertNotSame(a, s.view(1, 64));
    }

    @Test
    void outOfRangeSlotsAndLengthsAreRefusedClearly() {
        MessageSlots s = slots(3, 64, new ByteBuffer[1]);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> s.view(3, 1));
        assertEquals("send slot 3 is not in 0..2", e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> s.check(-1));
        IllegalArgumentException l = assertThrows(IllegalArgumentException.class, () -> s.checkLength(65));
        assertTrue(l.getMessage().contains("0..64"), l.getMessage());
        s.checkLength(0);
        s.checkLength(64);
        // the view's own bounds: a message cannot reach past its slot into the next
        assertThrows(IndexOutOfBoundsException.class, () -> s.view(0, 64).put(64, (byte) 1));
    }

    @Test
    void allocationIsPageAlignedAndBounded() {
        ByteBuffer b = MessageSlots.allocate(5000, "x");
        assertEquals(5000, b.capacity());
        assertEquals(0, b.alignmentOffset(0, MessageSlots.ALIGNMENT));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MessageSlots.allocate(MessageSlots.MAX_BYTES + 1, "the RDMA region"));
        assertTrue(e.getMessage().startsWith("the RDMA region would take"), e.getMessage());
    }
}
