package org.verbs4j.softiwarp;

import static org.verbs4j.api.QpAttrMask.ACCESS_FLAGS;
import static org.verbs4j.api.QpAttrMask.ALT_PATH;
import static org.verbs4j.api.QpAttrMask.AV;
import static org.verbs4j.api.QpAttrMask.CUR_STATE;
import static org.verbs4j.api.QpAttrMask.DEST_QPN;
import static org.verbs4j.api.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static org.verbs4j.api.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.verbs4j.api.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.verbs4j.api.QpAttrMask.MIN_RNR_TIMER;
import static org.verbs4j.api.QpAttrMask.PATH_MIG_STATE;
import static org.verbs4j.api.QpAttrMask.PATH_MTU;
import static org.verbs4j.api.QpAttrMask.PKEY_INDEX;
import static org.verbs4j.api.QpAttrMask.PORT;
import static org.verbs4j.api.QpAttrMask.RETRY_CNT;
import static org.verbs4j.api.QpAttrMask.RNR_RETRY;
import static org.verbs4j.api.QpAttrMask.RQ_PSN;
import static org.verbs4j.api.QpAttrMask.SQ_PSN;
import static org.verbs4j.api.QpAttrMask.STATE;
import static org.verbs4j.api.QpAttrMask.TIMEOUT;

import org.verbs4j.api.Errno;
import org.verbs4j.api.QpAttrMask;
import org.verbs4j.api.QpState;
import org.verbs4j.api.VerbsException;

/**
 * The RC state machine of {@code ib_modify_qp_is_ok} (the IB specification's table) with iWARP's requirements:
 * which transitions a modify may ask for and which attributes each one takes. An iWARP QP has no path (the
 * connection manager's TCP stream is its path), so no transition requires an attribute beyond the state, as
 * rdma_cm's {@code iw_cm_init_qp_attr} asks for none; the IB attributes a transition takes are accepted and
 * have no effect. An attribute a transition does not take, and a transition the table lacks, are EINVAL.
 */
final class QpTransitions {
    private static final int N = QpState.ERR.ordinal() + 1;
    /** [from][to]: the attributes the transition takes besides the state; -1 when it is not allowed. */
    private static final int[][] TAKES = new int[N][N];

    static {
        for (int[] row : TAKES) {
            java.util.Arrays.fill(row, -1);
        }
        for (QpState s : QpState.values()) {
            if (s.ordinal() < N && s != QpState.UNKNOWN) {
                set(s, QpState.RESET, 0);
                set(s, QpState.ERR, 0);
            }
        }
        int initAttrs = PKEY_INDEX | PORT | ACCESS_FLAGS;
        set(QpState.RESET, QpState.INIT, initAttrs);
        set(QpState.INIT, QpState.INIT, initAttrs);
        set(QpState.INIT, QpState.RTR, AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER
                | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX);
        set(QpState.RTR, QpState.RTS, SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | CUR_STATE
                | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE);
        int rtsAttrs = CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER;
        set(QpState.RTS, QpState.RTS, rtsAttrs);
        set(QpState.RTS, QpState.SQD, EN_SQD_ASYNC_NOTIFY);
        set(QpState.SQD, QpState.RTS, rtsAttrs);
        set(QpState.SQD, QpState.SQD, AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC
                | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE);
        set(QpState.SQE, QpState.RTS, CUR_STATE | ACCESS_FLAGS);
        set(QpState.SQE, QpState.SQE, CUR_STATE | ACCESS_FLAGS);
        set(QpState.RESET, QpState.RESET, 0);
        set(QpState.ERR, QpState.ERR, 0);
    }

    private QpTransitions() {
    }

    private static void set(QpState from, QpState to, int takes) {
        TAKES[from.ordinal()][to.ordinal()] = takes;
    }

    /**
     * Checks a modify of a QP in state {@code current} with attribute mask {@code mask} (to {@code next}, which is
     * {@code current} when the mask has no state); throws EINVAL naming what is wrong.
     *
     * @param qp the QP, for the message
     * @param current the QP's state
     * @param next the state asked for
     * @param mask the attribute mask
     * @param currentAsked the attributes' {@code cur_state}, checked when the mask has {@link QpAttrMask#CUR_STATE}
     */
    static void check(Object qp, QpState current, QpState next, int mask, QpState currentAsked) {
        int takes = next.ordinal() < N && next != QpState.UNKNOWN ? TAKES[current.ordinal()][next.ordinal()] : -1;
        if (takes < 0) {
            throw new VerbsException("ibv_modify_qp", Errno.EINVAL, qp + ": " + current + " -> " + next
                    + " is not a transition of an RC QP");
        }
        int extra = mask & ~(takes | STATE);
        if (extra != 0) {
            throw new VerbsException("ibv_modify_qp", Errno.EINVAL, qp + ": " + current + " -> " + next
                    + " does not take " + maskText(extra));
        }
        if ((mask & CUR_STATE) != 0 && currentAsked != current) {
            throw new VerbsException("ibv_modify_qp", Errno.EINVAL, qp + ": cur_state " + currentAsked
                    + " but the QP is in " + current);
        }
    }

    private static String maskText(int mask) {
        StringBuilder sb = new StringBuilder();
        for (java.lang.reflect.Field f : QpAttrMask.class.getFields()) {
            try {
                int bit = f.getInt(null);
                if (Integer.bitCount(bit) == 1 && (mask & bit) != 0) {
                    sb.append(sb.length() == 0 ? "" : " | ").append("IBV_QP_").append(f.getName());
                }
            } catch (IllegalAccessException e) {
                // every field of QpAttrMask is a public constant
            }
        }
        return sb.length() == 0 ? "0x" + Integer.toHexString(mask) : sb.toString();
    }
}
