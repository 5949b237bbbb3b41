package org.verbs4j.bench.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The messages' pattern and its check over a stream cut anywhere; the server's header and rounds. */
class MessagePatternTest {
    @Test
    void aStreamCutAnywhereChecksAndABadByteFails() {
        MessagePattern p = new MessagePattern(10);
        ByteBuf stream = Unpooled.buffer();
        for (int i = 0; i < 5; i++) {
            p.fill(stream, i);
        }
        MessagePattern.Check c = new MessagePattern.Check(p, "test");
        for (int cut : new int[] {3, 1, 9, 17, 20}) {
            c.check(stream.readSlice(cut));
        }
        assertEquals(50, c.position());
        ByteBuffer b = ByteBuffer.allocate(10);
        p.fill(b, 0, 7, 0, 10);
        b.put(3, (byte) 6); // message 7, its index byte changed: checked as message 0, it is wrong
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new MessagePattern.Check(p, "x")
                .check(b, 0, 10));
        assertTrue(e.getMessage().contains("message 0"), e.getMessage());
    }

    @Test
    void aServerStreamEchoesAfterItsHeaderAndAnswersARound() {
        ServerStream s = new ServerStream("test");
        ByteBuffer h = ByteBuffer.allocate(16 + 20);
        ServerStream.putHeader(h, 10, 2);
        MessagePattern p = new MessagePattern(10);
        p.fill(h, 16, 0, 0, 10);
        p.fill(h, 26, 1, 0, 10);
        assertEquals(20, s.feed(h, 0, 20));
        assertEquals(false, s.takeAck());
        assertEquals(16, s.feed(h, 20, 16));
        assertTrue(s.takeAck());
        assertEquals(20, s.roundBytes());
        ByteBuffer echo = ByteBuffer.allocate(20);
        ServerStream.putHeader(echo, ServerStream.ECHO, 0);
        assertEquals(16, s.feed(echo, 0, 20));
        assertTrue(s.echoing());
    }
}
