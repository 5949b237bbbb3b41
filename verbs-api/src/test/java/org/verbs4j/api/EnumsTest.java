package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.verbs4j.api.NativeConstants.assertBitsInOrder;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * The verbs enums against rdma-core: native values as in {@code <infiniband/verbs.h>} (rdma-core 44, the
 * lab's, and current master), texts as {@code libibverbs/enum_strs.c} returns them. Hard-coded on purpose:
 * a renumbered or retyped constant must fail here, not corrupt a work request.
 */
class EnumsTest {

    /** {@code ibv_wc_status_str}, rdma-core libibverbs/enum_strs.c, in value order 0..23. */
    private static final String[] IBV_WC_STATUS_STR = {
        "success",
        "local length error",
        "local QP operation error",
        "local EE context operation error",
        "local protection error",
        "Work Request Flushed Error",
        "memory management operation error",
        "bad response error",
        "local access error",
        "remote invalid request error",
        "remote access error",
        "remote operation error",
        "transport retry counter exceeded",
        "RNR retry counter exceeded",
        "local RDD violation error",
        "remote invalid RD request",
        "aborted error",
        "invalid EE context number",
        "invalid EE context state",
        "fatal error",
        "response timeout error",
        "general error",
        "TM error",
        "TM software rendezvous",
    };

    /** {@code enum ibv_wc_status} names, value order. */
    private static final String[] IBV_WC_STATUS = {
        "SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR", "MW_BIND_ERR",
        "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR", "RETRY_EXC_ERR",
        "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR", "INV_EECN_ERR",
        "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR", "TM_ERR", "TM_RNDV_INCOMPLETE",
    };

    /** {@code ibv_event_type_str}, value order 0..19. */
    private static final String[] IBV_EVENT_TYPE_STR = {
        "CQ error",
        "local work queue catastrophic error",
        "invalid request local work queue error",
        "local access violation work queue error",
        "communication established",
        "send queue drained",
        "path migrated",
        "path migration request error",
        "local catastrophic error",
        "port active",
        "port error",
        "LID change",
        "P_Key change",
        "SM change",
        "SRQ catastrophic error",
        "SRQ limit reached",
        "last WQE reached",
        "client reregistration",
        "GID table change",
        "WQ fatal",
    };

    private static final String[] IBV_EVENT_TYPE = {
        "CQ_ERR", "QP_FATAL", "QP_REQ_ERR", "QP_ACCESS_ERR", "COMM_EST", "SQ_DRAINED", "PATH_MIG", "PATH_MIG_ERR",
        "DEVICE_FATAL", "PORT_ACTIVE", "PORT_ERR", "LID_CHANGE", "PKEY_CHANGE", "SM_CHANGE", "SRQ_ERR",
        "SRQ_LIMIT_REACHED", "QP_LAST_WQE_REACHED", "CLIENT_REREGISTER", "GID_CHANGE", "WQ_FATAL",
    };

    @Test
    void wcStatusValuesAndTextsAreLibibverbs() {
        checkNamesAndTexts(WcStatus.class, "IBV_WC_", "ibv_wc_status_str", IBV_WC_STATUS, IBV_WC_STATUS_STR,
                WcStatus::value, WcStatus::text, WcStatus::of);
    }

    @Test
    void asyncEventTypeValuesAndTextsAreLibibverbs() {
        checkNamesAndTexts(AsyncEventType.class, "IBV_EVENT_", "ibv_event_type_str", IBV_EVENT_TYPE, IBV_EVENT_TYPE_STR,
                AsyncEventType::value, AsyncEventType::text, AsyncEventType::of);
    }

    @Test
    void wrOpcodeValuesAreVerbsH() {
        checkValues(Opcode.class, Opcode::value, Opcode::of,
                new String[] {"RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "SEND", "SEND_WITH_IMM", "RDMA_READ", "ATOMIC_CMP_AND_SWP",
                    "ATOMIC_FETCH_AND_ADD", "LOCAL_INV", "BIND_MW", "SEND_WITH_INV", "TSO", "DRIVER1", "ATOMIC_WRITE"},
                new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15});
    }

    @Test
    void wcOpcodeValuesAreVerbsH() {
        int recv = 1 << 7;
        checkValues(WcOpcode.class, WcOpcode::value, WcOpcode::of,
                new String[] {"SEND", "RDMA_WRITE", "RDMA_READ", "COMP_SWAP", "FETCH_ADD", "BIND_MW", "LOCAL_INV", "TSO",
                    "ATOMIC_WRITE", "RECV", "RECV_RDMA_WITH_IMM", "TM_ADD", "TM_DEL", "TM_SYNC", "TM_RECV", "TM_NO_TAG",
                    "DRIVER1", "DRIVER2", "DRIVER3"},
                new int[] {0, 1, 2, 3, 4, 5, 6, 7, 9, recv, recv + 1, recv + 2, recv + 3, recv + 4, recv + 5, recv + 6,
                    recv + 7, recv + 8, recv + 9});
        for (WcOpcode o : WcOpcode.values()) {
            boolean isRecv = o.value() >= WcOpcode.RECV.value();
            assertEquals(isRecv, (o.value() & WcOpcode.RECV.value()) != 0, o + ": receives are (opcode & IBV_WC_RECV)");
        }
    }

    @Test
    void qpTypeValuesAreVerbsH() {
        checkValues(QpType.class, QpType::value, QpType::of,
                new String[] {"RC", "UC", "UD", "RAW_PACKET", "XRC_SEND", "XRC_RECV"}, new int[] {2, 3, 4, 8, 9, 10});
        assertNull(QpType.of(0));
        assertNull(QpType.of(1));
    }

    @Test
    void qpStateValuesAreVerbsH() {
        checkValues(QpState.class, QpState::value, QpState::of,
                new String[] {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNKNOWN"}, new int[] {0, 1, 2, 3, 4, 5, 6, 7});
    }

    @Test
    void flagBitsAreVerbsH() {
        assertBitsInOrder("IBV_SEND_*", SendFlags.FENCE, SendFlags.SIGNALED, SendFlags.SOLICITED, SendFlags.INLINE,
                SendFlags.IP_CSUM);
        assertBitsInOrder("IBV_WC_* flags", WcFlags.GRH, WcFlags.WITH_IMM, WcFlags.IP_CSUM_OK, WcFlags.WITH_INV);
    }

    @Test
    void qpAttrMaskBitsAreVerbsH() {
        assertBitsInOrder("IBV_QP_*", QpAttrMask.STATE, QpAttrMask.CUR_STATE, QpAttrMask.EN_SQD_ASYNC_NOTIFY,
                QpAttrMask.ACCESS_FLAGS, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY, QpAttrMask.AV,
                QpAttrMask.PATH_MTU, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY, QpAttrMask.RQ_PSN,
                QpAttrMask.MAX_QP_RD_ATOMIC, QpAttrMask.ALT_PATH, QpAttrMask.MIN_RNR_TIMER, QpAttrMask.SQ_PSN,
                QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.PATH_MIG_STATE, QpAttrMask.CAP, QpAttrMask.DEST_QPN);
        assertEquals(1 << 25, QpAttrMask.RATE_LIMIT);
        assertEquals((1 << 21) - 1, QpAttrMask.ALL, "ALL is bits 0..20 (not RATE_LIMIT, which query does not report)");
    }

    @Test
    void unknownNativeValuesMapToNull() {
        for (int v : new int[] {-1, 256, 1000, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertNull(WcStatus.of(v), "WcStatus " + v);
            assertNull(AsyncEventType.of(v), "AsyncEventType " + v);
            assertNull(Opcode.of(v), "Opcode " + v);
            assertNull(WcOpcode.of(v), "WcOpcode " + v);
            assertNull(QpType.of(v), "QpType " + v);
            assertNull(QpState.of(v), "QpState " + v);
        }
        assertNull(WcStatus.of(24));
        assertNull(AsyncEventType.of(20));
        assertNull(Opcode.of(12));
        assertNull(WcOpcode.of(8));
        assertNull(WcOpcode.of(127));
        assertNull(QpState.of(8));
    }

    @Test
    void everyConstantHasAText() {
        for (Enum<?>[] values : List.<Enum<?>[]>of(Opcode.values(), WcOpcode.values(), QpType.values(), QpState.values())) {
            for (Enum<?> e : values) {
                String text = e instanceof Opcode o ? o.text() : e instanceof WcOpcode w ? w.text()
                        : e instanceof QpType t ? t.text() : ((QpState) e).text();
                assertEquals(false, text == null || text.isBlank(), e + " has no text");
            }
        }
    }

    /** Constant {@code names[v]} has value {@code v}, text {@code texts[v]}, and is what {@code of(v)} returns. */
    private static <E extends Enum<E>> void checkNamesAndTexts(Class<E> type, String prefix, String strFunction,
            String[] names, String[] texts, ToIntFunction<E> value, Function<E, String> text, IntFunction<E> of) {
        assertEquals(names.length, type.getEnumConstants().length, "one constant per " + prefix + "* value");
        for (int v = 0; v < names.length; v++) {
            E e = Enum.valueOf(type, names[v]);
            assertEquals(v, value.applyAsInt(e), prefix + names[v]);
            assertEquals(texts[v], text.apply(e), strFunction + "(" + prefix + names[v] + ")");
            assertSame(e, of.apply(v));
        }
    }

    /** The enum has exactly the constants {@code names}, constant {@code names[i]} has value {@code values[i]}. */
    private static <E extends Enum<E>> void checkValues(Class<E> type, ToIntFunction<E> value, IntFunction<E> of,
            String[] names, int[] values) {
        assertEquals(names.length, type.getEnumConstants().length, "constants: " + Arrays.toString(type.getEnumConstants()));
        for (int i = 0; i < names.length; i++) {
            E e = Enum.valueOf(type, names[i]);
            assertEquals(values[i], value.applyAsInt(e), e + " native value");
            assertSame(e, of.apply(values[i]), "of(" + values[i] + ")");
        }
    }
}
