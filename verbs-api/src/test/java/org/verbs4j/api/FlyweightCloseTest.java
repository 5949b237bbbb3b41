package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A flyweight obtained before its array was closed must not write to (or read) the freed memory. */
class FlyweightCloseTest {

    @Test
    void workCompletionsRefuseReadsAfterClose() {
        WorkCompletions wc = WorkCompletions.allocate(4);
        wc.close();
        assertThrows(IllegalStateException.class, () -> wc.wrId(0));
        assertThrows(IllegalStateException.class, () -> wc.status(0));
    }

    @Test
    void postExceptionSaysWhatWasPosted() {
        assertTrue(new PostException("ibv_post_send", 12, 3, null).getMessage()
                .contains("request 3 failed; requests 0..2 were posted"));
        assertTrue(new PostException("ibv_post_send", 12, 0, null).getMessage().contains("nothing was posted"));
        assertTrue(new PostException("ibv_post_send", -22, -1, null).getMessage()
                .contains("did not say which request failed"));
        assertTrue(new PostException("ibv_post_send", -22, -1, null).getMessage().contains("EINVAL (22"),
                "negated errno (siw) is normalised");
        assertTrue(new PostException("ibv_post_recv", 12, 0, null).hint().contains("work queue is full"));
    }
}
