package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** {@link QpAttributes}: a modify sends exactly the attributes that were set. */
class QpAttributesTest {

    private record Case(int bit, Function<QpAttributes, QpAttributes> set, Predicate<QpAttributes> stored) {
    }

    private static final AddressVector AV = AddressVector.global(1, Gid.parse("::ffff:10.77.0.2"), 1);
    private static final QpCapabilities CAP = new QpCapabilities(16, 32, 2, 3, 64);

    private static Map<String, Case> cases() {
        Map<String, Case> m = new LinkedHashMap<>();
        m.put("state", new Case(QpAttrMask.STATE, a -> a.state(QpState.RTS), a -> a.state() == QpState.RTS));
        m.put("currentState", new Case(QpAttrMask.CUR_STATE, a -> a.currentState(QpState.RTR), a -> a.currentState() == QpState.RTR));
        m.put("pathMtu", new Case(QpAttrMask.PATH_MTU, a -> a.pathMtu(Mtu.MTU_4096), a -> a.pathMtu() == Mtu.MTU_4096));
        m.put("qkey", new Case(QpAttrMask.QKEY, a -> a.qkey(0x11111111), a -> a.qkey() == 0x11111111));
        m.put("rqPsn", new Case(QpAttrMask.RQ_PSN, a -> a.rqPsn(0x123456), a -> a.rqPsn() == 0x123456));
        m.put("sqPsn", new Case(QpAttrMask.SQ_PSN, a -> a.sqPsn(0x654321), a -> a.sqPsn() == 0x654321));
        m.put("destQpNum", new Case(QpAttrMask.DEST_QPN, a -> a.destQpNum(0xabcdef), a -> a.destQpNum() == 0xabcdef));
        m.put("accessFlags", new Case(QpAttrMask.ACCESS_FLAGS, a -> a.accessFlags(Access.REMOTE_READ),
                a -> a.accessFlags() == Access.REMOTE_READ));
        m.put("capabilities", new Case(QpAttrMask.CAP, a -> a.capabilities(CAP), a -> a.capabilities() == CAP));
        m.put("addressVector", new Case(QpAttrMask.AV, a -> a.addressVector(AV), a -> a.addressVector() == AV));
        m.put("pkeyIndex", new Case(QpAttrMask.PKEY_INDEX, a -> a.pkeyIndex(3), a -> a.pkeyIndex() == 3));
        m.put("maxRdAtomic", new Case(QpAttrMask.MAX_QP_RD_ATOMIC, a -> a.maxRdAtomic(4), a -> a.maxRdAtomic() == 4));
        m.put("maxDestRdAtomic", new Case(QpAttrMask.MAX_DEST_RD_ATOMIC, a -> a.maxDestRdAtomic(5), a -> a.maxDestRdAtomic() == 5));
        m.put("minRnrTimer", new Case(QpAttrMask.MIN_RNR_TIMER, a -> a.minRnrTimer(12), a -> a.minRnrTimer() == 12));
        m.put("port", new Case(QpAttrMask.PORT, a -> a.port(2), a -> a.port() == 2));
        m.put("timeout", new Case(QpAttrMask.TIMEOUT, a -> a.timeout(14), a -> a.timeout() == 14));
        m.put("retryCount", new Case(QpAttrMask.RETRY_CNT, a -> a.retryCount(7), a -> a.retryCount() == 7));
        m.put("rnrRetry", new Case(QpAttrMask.RNR_RETRY, a -> a.rnrRetry(6), a -> a.rnrRetry() == 6));
        return m;
    }

    @Test
    void eachSetterSetsExactlyItsMaskBitAndItsValue() {
        for (Map.Entry<String, Case> e : cases().entrySet()) {
            QpAttributes a = new QpAttributes();
            assertEquals(0, a.mask());
            assertSame(a, e.getValue().set().apply(a), e.getKey() + " returns this");
            assertEquals(e.getValue().bit(), a.mask(), e.getKey() + " sets exactly its bit, mask 0x" + Integer.toHexString(a.mask()));
            assertTrue(e.getValue().stored().test(a), e.getKey() + " stores its value");
        }
    }

    @Test
    void settersAccumulateAndNoTwoShareABit() {
        QpAttributes a = new QpAttributes();
        int expected = 0;
        for (Case c : cases().values()) {
            assertEquals(0, expected & c.bit(), "bit 0x" + Integer.toHexString(c.bit()) + " used twice");
            c.set().apply(a);
            expected |= c.bit();
            assertEquals(expected, a.mask());
        }
        assertEquals(expected, expected & QpAttrMask.ALL, "every settable attribute is one ibv_query_qp can report");
    }

    @Test
    void sqDrainingIsQueryOnlyAndSetsNoBit() {
        QpAttributes a = org.verbs4j.api.internal.QueryResults.sqDraining(new QpAttributes(), true);
        assertEquals(0, a.mask());
        assertTrue(a.sqDraining());
    }

    @Test
    void psnsAreMaskedTo24Bits() {
        QpAttributes a = new QpAttributes().rqPsn(0x12345678).sqPsn(-1);
        assertEquals(0x345678, a.rqPsn());
        assertEquals(0xffffff, a.sqPsn());
        assertEquals(0, new QpAttributes().sqPsn(0x1000000).sqPsn());
    }

    @Test
    void maskOverrideReplacesTheMask() {
        QpAttributes a = new QpAttributes().state(QpState.INIT).port(1).pkeyIndex(0);
        assertSame(a, a.mask(QpAttrMask.STATE));
        assertEquals(QpAttrMask.STATE, a.mask());
        assertEquals(1, a.port(), "the value stays, only the mask changes");
        String s = a.toString();
        assertTrue(s.contains("state INIT"), s);
        assertFalse(s.contains("port"), s);
        a.mask(0);
        assertEquals("QpAttributes[]", a.toString());
    }

    @Test
    void toStringListsWhatIsSetAndNothingElse() {
        assertEquals("QpAttributes[]", new QpAttributes().toString());
        QpAttributes init = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                .accessFlags(Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertEquals("QpAttributes[state INIT port 1 pkey_index 0 access LOCAL_WRITE|REMOTE_WRITE]", init.toString());

        QpAttributes rtr = new QpAttributes().state(QpState.RTR).pathMtu(Mtu.MTU_2048).destQpNum(0x11).rqPsn(0xabc)
                .maxDestRdAtomic(2).minRnrTimer(12).addressVector(AV).qkey(0x80010000);
        String s = rtr.toString();
        for (String part : new String[] {"state RTR", "path_mtu 2048", "dest_qp_num 0x11", "rq_psn 0xabc",
            "max_dest_rd_atomic 2", "min_rnr_timer 12", AV.toString(), "qkey 0x80010000"}) {
            assertTrue(s.contains(part), "missing '" + part + "' in " + s);
        }
        // " port " with spaces: the address vector prints its own "[port 1,"
        for (String absent : new String[] {" port ", "sq_psn", "timeout", "retry_cnt", "rnr_retry", "max_rd_atomic ", "access"}) {
            assertFalse(s.contains(absent), "'" + absent + "' was not set but is listed: " + s);
        }

        String rts = new QpAttributes().state(QpState.RTS).sqPsn(0x123).timeout(14).retryCount(7).rnrRetry(6)
                .maxRdAtomic(1).toString();
        for (String part : new String[] {"state RTS", "sq_psn 0x123", "timeout 14", "retry_cnt 7", "rnr_retry 6",
            "max_rd_atomic 1"}) {
            assertTrue(rts.contains(part), "missing '" + part + "' in " + rts);
        }
        assertFalse(rts.contains("rq_psn"), rts);
    }

    @Test
    void defaultsBeforeAnythingIsSet() {
        QpAttributes a = new QpAttributes();
        assertEquals(QpState.RESET, a.state());
        assertEquals(0, a.mask());
        assertEquals(null, a.addressVector());
        assertEquals(null, a.capabilities());
    }
}
