package org.verbs4j.bench.soak;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class MessagePatternTest {
    @Test
    void aSampledOperationIsCheckedByteByByte() {
        ByteBuffer b = ByteBuffer.allocate(256);
        MessagePattern.stamp(b, 64, 64, 128);
        assertTrue(MessagePattern.check(b, 64, 64, 128, "t"));
        b.put(64 + 63, (byte) (b.get(64 + 63) + 1));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> MessagePattern.check(b, 64, 64, 128, "t"));
        assertTrue(e.getMessage().contains("byte 63 of 64"), e.getMessage());
    }

    @Test
    void everyOperationHasItsSequenceNumberChecked() {
        ByteBuffer b = ByteBuffer.allocate(64);
        MessagePattern.stamp(b, 0, 64, 5);
        assertFalse(MessagePattern.check(b, 0, 64, 5, "t"), "operation 5 is not in the sample");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> MessagePattern.check(b, 0, 64, 6, "t"));
        assertTrue(e.getMessage().contains("operation 6 holds sequence number 5"), e.getMessage());
    }
}
